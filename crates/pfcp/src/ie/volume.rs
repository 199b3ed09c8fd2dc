//! Volume Threshold (§8.2.13), Volume Quota (§8.2.50), Subsequent Volume Threshold/Quota
//! (§8.2.16, §8.2.84) and Volume Measurement (§8.2.44).

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::Writer;

const TOVOL: u8 = 0x01;
const ULVOL: u8 = 0x02;
const DLVOL: u8 = 0x04;
const TONOP: u8 = 0x08;
const ULNOP: u8 = 0x10;
const DLNOP: u8 = 0x20;

/// Octet counts: the value of Volume Threshold, Volume Quota and their Subsequent variants.
///
/// Layout: octet 5 spare(5) DLVOL ULVOL TOVOL, then Total, Uplink, Downlink Volume (8 octets each)
/// as flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Volume {
    /// Total octets (TOVOL).
    pub total: Option<u64>,
    /// Uplink octets (ULVOL).
    pub uplink: Option<u64>,
    /// Downlink octets (DLVOL).
    pub downlink: Option<u64>,
}

fn opt_u64(r: &mut crate::wire::Reader<'_>, on: bool) -> Result<Option<u64>> {
    if on { r.u64().map(Some) } else { Ok(None) }
}

fn put_opt(w: &mut Writer<'_>, v: Option<u64>) -> core::result::Result<(), EmitError> {
    match v {
        Some(v) => w.u64(v),
        None => Ok(()),
    }
}

fn flag(v: Option<u64>, b: u8) -> u8 {
    if v.is_some() { b } else { 0 }
}

fn count(vs: &[Option<u64>]) -> usize {
    vs.iter().filter(|v| v.is_some()).count() * 8
}

impl IeValue for Volume {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let f = r.u8()?;
        Ok(Volume {
            total: opt_u64(&mut r, f & TOVOL != 0)?,
            uplink: opt_u64(&mut r, f & ULVOL != 0)?,
            downlink: opt_u64(&mut r, f & DLVOL != 0)?,
        })
    }
    fn value_len(&self) -> usize {
        1 + count(&[self.total, self.uplink, self.downlink])
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(flag(self.total, TOVOL) | flag(self.uplink, ULVOL) | flag(self.downlink, DLVOL))?;
        put_opt(w, self.total)?;
        put_opt(w, self.uplink)?;
        put_opt(w, self.downlink)
    }
}

impl TypedIe for Volume {
    const TYPE: IeType = IeType::VOLUME_THRESHOLD;
}

/// Volume Measurement (TS 29.244 §8.2.44): octets and packets counted by a URR.
///
/// Layout: octet 5 spare(2) DLNOP ULNOP TONOP DLVOL ULVOL TOVOL, then the flagged 8-octet
/// counters in that order (volumes, then numbers of packets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VolumeMeasurement {
    /// Total octets.
    pub total: Option<u64>,
    /// Uplink octets.
    pub uplink: Option<u64>,
    /// Downlink octets.
    pub downlink: Option<u64>,
    /// Total packets.
    pub total_packets: Option<u64>,
    /// Uplink packets.
    pub uplink_packets: Option<u64>,
    /// Downlink packets.
    pub downlink_packets: Option<u64>,
}

impl IeValue for VolumeMeasurement {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let f = r.u8()?;
        Ok(VolumeMeasurement {
            total: opt_u64(&mut r, f & TOVOL != 0)?,
            uplink: opt_u64(&mut r, f & ULVOL != 0)?,
            downlink: opt_u64(&mut r, f & DLVOL != 0)?,
            total_packets: opt_u64(&mut r, f & TONOP != 0)?,
            uplink_packets: opt_u64(&mut r, f & ULNOP != 0)?,
            downlink_packets: opt_u64(&mut r, f & DLNOP != 0)?,
        })
    }
    fn value_len(&self) -> usize {
        1 + count(&[
            self.total,
            self.uplink,
            self.downlink,
            self.total_packets,
            self.uplink_packets,
            self.downlink_packets,
        ])
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(flag(self.total, TOVOL)
            | flag(self.uplink, ULVOL)
            | flag(self.downlink, DLVOL)
            | flag(self.total_packets, TONOP)
            | flag(self.uplink_packets, ULNOP)
            | flag(self.downlink_packets, DLNOP))?;
        for v in [
            self.total,
            self.uplink,
            self.downlink,
            self.total_packets,
            self.uplink_packets,
            self.downlink_packets,
        ] {
            put_opt(w, v)?;
        }
        Ok(())
    }
}

impl TypedIe for VolumeMeasurement {
    const TYPE: IeType = IeType::VOLUME_MEASUREMENT;
}
