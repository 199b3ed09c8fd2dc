//! Node ID (TS 29.244 §8.2.38).

use core::net::{Ipv4Addr, Ipv6Addr};

use super::{DnsName, IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::Writer;

/// Node ID: the PFCP entity's identity, an address or an FQDN.
///
/// Layout: octet 5 spare(4) + Node ID Type(4) (0 IPv4, 1 IPv6, 2 FQDN), then the value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NodeId {
    /// Type 0.
    Ipv4(Ipv4Addr),
    /// Type 1.
    Ipv6(Ipv6Addr),
    /// Type 2, DNS labels.
    Fqdn(DnsName),
}

const TYPE_IPV4: u8 = 0;
const TYPE_IPV6: u8 = 1;
const TYPE_FQDN: u8 = 2;

impl IeValue for NodeId {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let at = r.offset();
        match r.u8()? & 0x0f {
            TYPE_IPV4 => Ok(NodeId::Ipv4(r.ipv4()?)),
            TYPE_IPV6 => Ok(NodeId::Ipv6(r.ipv6()?)),
            TYPE_FQDN => Ok(NodeId::Fqdn(DnsName(r.rest().to_vec()))),
            _ => Err(r.invalid_at(at, "Node ID Type is not IPv4, IPv6 or FQDN")),
        }
    }
    fn value_len(&self) -> usize {
        1 + match self {
            NodeId::Ipv4(_) => 4,
            NodeId::Ipv6(_) => 16,
            NodeId::Fqdn(n) => n.0.len(),
        }
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        match self {
            NodeId::Ipv4(a) => {
                w.u8(TYPE_IPV4)?;
                w.put_slice(&a.octets())
            }
            NodeId::Ipv6(a) => {
                w.u8(TYPE_IPV6)?;
                w.put_slice(&a.octets())
            }
            NodeId::Fqdn(n) => {
                w.u8(TYPE_FQDN)?;
                w.put_slice(&n.0)
            }
        }
    }
}

impl TypedIe for NodeId {
    const TYPE: IeType = IeType::NODE_ID;
}

impl From<Ipv4Addr> for NodeId {
    fn from(a: Ipv4Addr) -> Self {
        NodeId::Ipv4(a)
    }
}
