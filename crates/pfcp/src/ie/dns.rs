//! Names encoded as DNS labels: Network Instance (§8.2.4), APN/DNN (§8.2.103), Node ID FQDN
//! (§8.2.38). On the wire each label is a length octet and its characters, with no root label
//! (TS 23.003 §9.1, RFC 1035 §3.1).

use core::fmt;

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::Writer;

/// The octets of a Network Instance, APN/DNN or FQDN, normally DNS labels ("internet" is
/// `08 69 6e 74 65 72 6e 65 74`). Kept as received, so that a value that is not label-encoded
/// (Network Instance may be any octet string) is carried unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DnsName(pub Vec<u8>);

/// A name that cannot be encoded as DNS labels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid DNS name {name:?}: {why}")]
pub struct InvalidDnsName {
    /// The name.
    pub name: String,
    /// Why.
    pub why: &'static str,
}

impl DnsName {
    /// Encodes a dotted name ("internet", "upf.example.org") as labels.
    pub fn from_dotted(name: &str) -> core::result::Result<Self, InvalidDnsName> {
        let err = |why| InvalidDnsName {
            name: name.to_owned(),
            why,
        };
        if name.is_empty() {
            return Err(err("empty name"));
        }
        let mut out = Vec::with_capacity(name.len() + 1);
        for label in name.trim_end_matches('.').split('.') {
            if label.is_empty() {
                return Err(err("empty label"));
            }
            let len = u8::try_from(label.len()).ok().filter(|&l| l <= 63);
            let len = len.ok_or_else(|| err("label longer than 63 octets"))?;
            out.push(len);
            out.extend_from_slice(label.as_bytes());
        }
        Ok(DnsName(out))
    }

    /// The dotted form, or `None` when the octets are not a sequence of labels of printable
    /// ASCII (then the octets are to be read as they are).
    pub fn to_dotted(&self) -> Option<String> {
        let mut out = String::with_capacity(self.0.len());
        let mut rest = &self.0[..];
        while let Some((&len, tail)) = rest.split_first() {
            let len = usize::from(len);
            if len == 0 || len > tail.len() {
                return None;
            }
            let (label, tail) = tail.split_at(len);
            if !label.iter().all(|c| c.is_ascii_graphic() && *c != b'.') {
                return None;
            }
            if !out.is_empty() {
                out.push('.');
            }
            out.extend(label.iter().map(|&c| char::from(c)));
            rest = tail;
        }
        if out.is_empty() { None } else { Some(out) }
    }
}

impl fmt::Display for DnsName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_dotted() {
            Some(s) => f.write_str(&s),
            None => write!(f, "{:02x?}", self.0),
        }
    }
}

impl IeValue for DnsName {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        Ok(DnsName(ie.value().to_vec()))
    }
    fn value_len(&self) -> usize {
        self.0.len()
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.put_slice(&self.0)
    }
}

impl TypedIe for DnsName {
    const TYPE: IeType = IeType::NETWORK_INSTANCE;
}
