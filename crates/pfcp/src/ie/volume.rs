//! Volume Threshold (§8.2.13), Volume Quota (§8.2.50), Subsequent Volume Threshold/Quota
//! (§8.2.16, §8.2.84) and Volume Measurement (§8.2.44).

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::{Reader, Writer, bit_if, opt_len};

const TOVOL: u8 = 0x01;
const ULVOL: u8 = 0x02;
const DLVOL: u8 = 0x04;
const TONOP: u8 = 0x08;
const ULNOP: u8 = 0x10;
const DLNOP: u8 = 0x20;

/// The flag of each counter, in wire order.
const VOLUME: [u8; 3] = [TOVOL, ULVOL, DLVOL];
const MEASUREMENT: [u8; 6] = [TOVOL, ULVOL, DLVOL, TONOP, ULNOP, DLNOP];

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

/// The flag octet, then the counters it flags (8 octets each) in the order of `flags`.
fn read_counters<const N: usize>(r: &mut Reader<'_>, flags: [u8; N]) -> Result<[Option<u64>; N]> {
    let f = r.u8()?;
    let mut out = [None; N];
    for (v, flag) in out.iter_mut().zip(flags) {
        *v = r.field_if(f & flag != 0)?;
    }
    Ok(out)
}

fn counters_len(vs: &[Option<u64>]) -> usize {
    1 + vs.iter().map(|v| opt_len(*v)).sum::<usize>()
}

fn write_counters(
    w: &mut Writer<'_>,
    vs: &[Option<u64>],
    flags: &[u8],
) -> core::result::Result<(), EmitError> {
    let f = vs
        .iter()
        .zip(flags)
        .fold(0, |f, (v, &flag)| f | bit_if(v.is_some(), flag));
    w.u8(f)?;
    vs.iter().try_for_each(|v| w.field_opt(*v))
}

impl Volume {
    fn counters(&self) -> [Option<u64>; 3] {
        [self.total, self.uplink, self.downlink]
    }
}

impl IeValue for Volume {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let [total, uplink, downlink] = read_counters(&mut ie.reader(), VOLUME)?;
        Ok(Volume {
            total,
            uplink,
            downlink,
        })
    }
    fn value_len(&self) -> usize {
        counters_len(&self.counters())
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        write_counters(w, &self.counters(), &VOLUME)
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

impl VolumeMeasurement {
    fn counters(&self) -> [Option<u64>; 6] {
        [
            self.total,
            self.uplink,
            self.downlink,
            self.total_packets,
            self.uplink_packets,
            self.downlink_packets,
        ]
    }
}

impl IeValue for VolumeMeasurement {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let [
            total,
            uplink,
            downlink,
            total_packets,
            uplink_packets,
            downlink_packets,
        ] = read_counters(&mut ie.reader(), MEASUREMENT)?;
        Ok(VolumeMeasurement {
            total,
            uplink,
            downlink,
            total_packets,
            uplink_packets,
            downlink_packets,
        })
    }
    fn value_len(&self) -> usize {
        counters_len(&self.counters())
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        write_counters(w, &self.counters(), &MEASUREMENT)
    }
}

impl TypedIe for VolumeMeasurement {
    const TYPE: IeType = IeType::VOLUME_MEASUREMENT;
}
