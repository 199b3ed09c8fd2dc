//! F-SEID (TS 29.244 §8.2.37).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::types::Seid;
use crate::wire::{Writer, bit_if, opt_len};

/// Fully qualified SEID: the SEID a node chose for a session and the node's address.
///
/// Layout (§8.2.37): octet 5 spare(6) V4 V6, octets 6-13 SEID, IPv4 if V4, IPv6 if V6. At
/// least one of V4 and V6 is set (both for a node reachable over either family): the decoder
/// refuses an F-SEID with neither (Cause 69), the encoder one without an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fseid {
    /// The SEID.
    pub seid: Seid,
    /// The IPv4 address (V4).
    pub ipv4: Option<Ipv4Addr>,
    /// The IPv6 address (V6).
    pub ipv6: Option<Ipv6Addr>,
}

const V6: u8 = 0x01;
const V4: u8 = 0x02;

impl Fseid {
    /// An F-SEID with an IPv4 address (what UPFs require of the CP F-SEID).
    pub const fn ipv4(seid: Seid, addr: Ipv4Addr) -> Self {
        Fseid {
            seid,
            ipv4: Some(addr),
            ipv6: None,
        }
    }

    /// An F-SEID with both an IPv4 and an IPv6 address: a node reachable over either family.
    pub const fn dual_stack(seid: Seid, ipv4: Ipv4Addr, ipv6: Ipv6Addr) -> Self {
        Fseid {
            seid,
            ipv4: Some(ipv4),
            ipv6: Some(ipv6),
        }
    }

    /// An F-SEID with one address, of its family.
    pub const fn new(seid: Seid, addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(a) => Fseid::ipv4(seid, a),
            IpAddr::V6(a) => Fseid {
                seid,
                ipv4: None,
                ipv6: Some(a),
            },
        }
    }
}

impl IeValue for Fseid {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let at = r.offset();
        let flags = r.u8()?;
        if flags & (V4 | V6) == 0 {
            return Err(r.invalid_at(at, "F-SEID: neither V4 nor V6"));
        }
        let seid = Seid(r.u64()?);
        let ipv4 = r.field_if(flags & V4 != 0)?;
        let ipv6 = r.field_if(flags & V6 != 0)?;
        Ok(Fseid { seid, ipv4, ipv6 })
    }
    fn value_len(&self) -> usize {
        9 + opt_len(self.ipv4) + opt_len(self.ipv6)
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        if self.ipv4.is_none() && self.ipv6.is_none() {
            return Err(EmitError::Invalid {
                what: "F-SEID: neither V4 nor V6",
            });
        }
        w.u8(bit_if(self.ipv4.is_some(), V4) | bit_if(self.ipv6.is_some(), V6))?;
        w.u64(self.seid.0)?;
        w.field_opt(self.ipv4)?;
        w.field_opt(self.ipv6)
    }
}

impl TypedIe for Fseid {
    const TYPE: IeType = IeType::F_SEID;
}
