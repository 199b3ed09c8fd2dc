//! F-TEID (TS 29.244 §8.2.3).

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::types::Teid;
use crate::wire::{Writer, bit_if, opt_len};

/// Fully qualified TEID: a GTP-U tunnel endpoint, or a request that the UP function choose one.
///
/// Layout (§8.2.3): octet 5 spare(4) CHID CH V6 V4; with CH=0: TEID (4), IPv4 if V4, IPv6 if V6
/// (both for an endpoint reachable over either family); with CH=1: no TEID and no address (V4/V6
/// say which address families to allocate), then the CHOOSE ID octet if CHID=1.
///
/// At least one of V4 and V6 is set, and CHID only with CH: the decoder refuses an F-TEID that
/// breaks either rule (Cause 69), the encoder one with neither family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fteid {
    /// CH=0: the TEID and address are given.
    Assigned {
        /// The TEID.
        teid: Teid,
        /// IPv4 address (V4).
        ipv4: Option<Ipv4Addr>,
        /// IPv6 address (V6).
        ipv6: Option<Ipv6Addr>,
    },
    /// CH=1: the UP function allocates the TEID (read back from Created PDR).
    Choose {
        /// Allocate an IPv4 address (V4).
        ipv4: bool,
        /// Allocate an IPv6 address (V6).
        ipv6: bool,
        /// CHOOSE ID (CHID=1): PDRs with the same CHOOSE ID share the allocated F-TEID.
        choose_id: Option<u8>,
    },
}

const V4: u8 = 0x01;
const V6: u8 = 0x02;
const CH: u8 = 0x04;
const CHID: u8 = 0x08;

impl Fteid {
    /// A TEID at an address, of its family.
    pub const fn assigned(teid: Teid, addr: IpAddr) -> Self {
        match addr {
            IpAddr::V4(a) => Fteid::ipv4(teid, a),
            IpAddr::V6(a) => Fteid::Assigned {
                teid,
                ipv4: None,
                ipv6: Some(a),
            },
        }
    }

    /// A TEID at an IPv4 address.
    pub const fn ipv4(teid: Teid, addr: Ipv4Addr) -> Self {
        Fteid::Assigned {
            teid,
            ipv4: Some(addr),
            ipv6: None,
        }
    }

    /// A request that the UP function choose the TEID and its address in each family asked
    /// for (CH=1); PDRs with the same `choose_id` (CHID=1) get the same F-TEID.
    pub const fn choose(ipv4: bool, ipv6: bool, choose_id: Option<u8>) -> Self {
        Fteid::Choose {
            ipv4,
            ipv6,
            choose_id,
        }
    }

    /// The TEID, when assigned.
    pub const fn teid(&self) -> Option<Teid> {
        match self {
            Fteid::Assigned { teid, .. } => Some(*teid),
            Fteid::Choose { .. } => None,
        }
    }
}

impl IeValue for Fteid {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let at = r.offset();
        let flags = r.u8()?;
        if flags & (V4 | V6) == 0 {
            return Err(r.invalid_at(at, "F-TEID: neither V4 nor V6"));
        }
        if flags & CH != 0 {
            let choose_id = r.field_if(flags & CHID != 0)?;
            return Ok(Fteid::Choose {
                ipv4: flags & V4 != 0,
                ipv6: flags & V6 != 0,
                choose_id,
            });
        }
        if flags & CHID != 0 {
            return Err(r.invalid_at(at, "F-TEID CHID set without CH"));
        }
        let teid = Teid(r.u32()?);
        let ipv4 = r.field_if(flags & V4 != 0)?;
        let ipv6 = r.field_if(flags & V6 != 0)?;
        Ok(Fteid::Assigned { teid, ipv4, ipv6 })
    }
    fn value_len(&self) -> usize {
        match self {
            Fteid::Assigned { ipv4, ipv6, .. } => 5 + opt_len(*ipv4) + opt_len(*ipv6),
            Fteid::Choose { choose_id, .. } => 1 + opt_len(*choose_id),
        }
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        let families = match *self {
            Fteid::Assigned { ipv4, ipv6, .. } => ipv4.is_some() || ipv6.is_some(),
            Fteid::Choose { ipv4, ipv6, .. } => ipv4 || ipv6,
        };
        if !families {
            return Err(EmitError::Invalid {
                what: "F-TEID: neither V4 nor V6",
            });
        }
        match *self {
            Fteid::Assigned { teid, ipv4, ipv6 } => {
                w.u8(bit_if(ipv4.is_some(), V4) | bit_if(ipv6.is_some(), V6))?;
                w.u32(teid.0)?;
                w.field_opt(ipv4)?;
                w.field_opt(ipv6)
            }
            Fteid::Choose {
                ipv4,
                ipv6,
                choose_id,
            } => {
                w.u8(CH | bit_if(ipv4, V4) | bit_if(ipv6, V6) | bit_if(choose_id.is_some(), CHID))?;
                w.field_opt(choose_id)
            }
        }
    }
}

impl TypedIe for Fteid {
    const TYPE: IeType = IeType::F_TEID;
}
