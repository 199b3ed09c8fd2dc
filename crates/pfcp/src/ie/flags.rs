//! IEs that are sets of flag bits over one or more octets, whose length grew across releases:
//! Apply Action (§8.2.26), UP and CP Function Features (§8.2.25, §8.2.58), Reporting Triggers
//! (§8.2.19), Usage Report Trigger (§8.2.41), Measurement Method (§8.2.40), Report Type
//! (§8.2.21), Usage Information (§8.2.59), PFCPSMReq-Flags (§8.2.69).
//!
//! Bit `k` of the set is bit `k % 8 + 1` of octet `5 + k / 8` in the spec's numbering, so
//! `1 << 1` is "octet 5, bit 2". The number of octets is kept: a received 1-octet Apply Action is
//! re-emitted with 1 octet, a new one has 2 (Open5GS 2.8 drops a 1-octet Apply Action).

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{DecodeError, EmitError, ErrorKind, Result};
use crate::wire::Writer;

/// Most octets a flag set keeps; octets beyond are ignored on decoding.
const MAX_OCTETS: usize = 8;

macro_rules! flag_set {
    (
        $(#[$m:meta])* $name:ident, $ie:ident, default_octets $def:expr,
        { $( $(#[$cm:meta])* $c:ident = $bit:expr, )* }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name {
            bits: u64,
            octets: u8,
        }

        impl $name {
            $( $(#[$cm])* pub const $c: u64 = 1 << $bit; )*

            /// Octets a new value is encoded with (at least).
            pub const DEFAULT_OCTETS: u8 = $def;

            /// The given bits, encoded with at least the default number of octets.
            pub const fn new(bits: u64) -> Self {
                Self::with_octets(bits, $def)
            }

            /// The given bits with an explicit number of octets (1..=8; more if a set bit needs).
            pub const fn with_octets(bits: u64, octets: u8) -> Self {
                $name { bits, octets: normalized_octets(bits, octets) }
            }

            /// All bits.
            pub const fn bits(self) -> u64 {
                self.bits
            }

            /// Whether all bits of `mask` are set.
            pub const fn contains(self, mask: u64) -> bool {
                self.bits & mask == mask
            }

            /// Number of octets on the wire.
            pub const fn octets(self) -> usize {
                self.octets as usize
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::new(0)
            }
        }

        impl IeValue for $name {
            fn decode(ie: &IeView<'_>) -> Result<Self> {
                decode_flags(ie).map(|(bits, octets)| $name { bits, octets })
            }
            fn value_len(&self) -> usize {
                self.octets()
            }
            fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                w.put_slice(&self.bits.to_le_bytes()[..self.octets()])
            }
        }

        impl TypedIe for $name {
            const TYPE: IeType = IeType::$ie;
        }
    };
}

/// Octets to encode `bits` with: the wish, within 1..=8, but never fewer than the set bits need.
const fn normalized_octets(bits: u64, wish: u8) -> u8 {
    let needed = (64 - bits.leading_zeros()).div_ceil(8) as u8;
    let o = if wish == 0 {
        1
    } else if wish > MAX_OCTETS as u8 {
        MAX_OCTETS as u8
    } else {
        wish
    };
    if needed > o { needed } else { o }
}

fn decode_flags(ie: &IeView<'_>) -> Result<(u64, u8)> {
    let v = ie.value();
    if v.is_empty() {
        return Err(DecodeError::new(
            ErrorKind::InvalidLength { length: 0 },
            Some(ie.ie_type()),
            ie.offset() + super::tlv::LENGTH,
        ));
    }
    let n = v.len().min(MAX_OCTETS);
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&v[..n]);
    Ok((u64::from_le_bytes(b), n as u8))
}

flag_set!(
    /// Apply Action (TS 29.244 §8.2.26): what a FAR does with the packets.
    ApplyAction, APPLY_ACTION, default_octets 2, {
        /// Drop.
        DROP = 0,
        /// Forward.
        FORW = 1,
        /// Buffer.
        BUFF = 2,
        /// Notify the CP function.
        NOCP = 3,
        /// Duplicate.
        DUPL = 4,
        /// IP multicast accept.
        IPMA = 5,
        /// IP multicast deny.
        IPMD = 6,
        /// Duplicate for redundant transmission.
        DFRT = 7,
        /// Eliminate duplicate packets for redundant transmission.
        EDRT = 8,
        /// Buffered downlink packet notification.
        BDPN = 9,
        /// Discarded downlink packet notification.
        DDPN = 10,
        /// Forward and replicate MBS data using Unicast transport.
        FSSM = 11,
        /// Forward MBS data using Unicast transport.
        MBSU = 12,
    }
);

flag_set!(
    /// UP Function Features (TS 29.244 §8.2.25).
    UpFunctionFeatures, UP_FUNCTION_FEATURES, default_octets 2, {
        /// Downlink data buffering in CP function.
        BUCP = 0,
        /// Downlink Data Notification Delay.
        DDND = 1,
        /// DL Buffering Duration.
        DLBD = 2,
        /// Traffic Steering.
        TRST = 3,
        /// F-TEID allocation/release in the UP function (CH=1 supported).
        FTUP = 4,
        /// PFD management.
        PFDM = 5,
        /// Header Enrichment of uplink traffic.
        HEEU = 6,
        /// Traffic Redirection Enforcement.
        TREU = 7,
        /// Sending of End Marker packets.
        EMPU = 8,
        /// Predefined PDRs.
        PDIU = 9,
        /// Per APN/DNN Usage Reports.
        UDBC = 10,
        /// Quota Action.
        QUOAC = 11,
        /// Trace.
        TRACE = 12,
        /// Framed Routing.
        FRRT = 13,
        /// PFD contents with multiple values.
        PFDE = 14,
        /// Enhanced PFCP Association Release.
        EPFAR = 15,
        /// Deferred PDR activation/deactivation.
        DPDRA = 16,
        /// Activation and Deactivation of Pre-defined PDRs.
        ADPDP = 17,
        /// UE IP address allocation by the UP function.
        UEIP = 18,
        /// PFCP sessions successively controlled by different SMFs of an SMF Set.
        SSET = 19,
        /// Number of packets in usage reports.
        MNOP = 20,
        /// Multiple instances of Traffic Endpoint IDs in a PDI.
        MTE = 21,
        /// PFCP messages bundling.
        BUNDL = 22,
        /// Group Id for PFCP sessions.
        GCOM = 23,
    }
);

flag_set!(
    /// CP Function Features (TS 29.244 §8.2.58).
    CpFunctionFeatures, CP_FUNCTION_FEATURES, default_octets 1, {
        /// Load Control.
        LOAD = 0,
        /// Overload Control.
        OVRL = 1,
        /// Enhanced PFCP Association Release.
        EPFAR = 2,
        /// SMF Set.
        SSET = 3,
        /// PFCP messages bundling.
        BUNDL = 4,
        /// MPAS.
        MPAS = 5,
        /// Additional Usage Reports in Deletion Response.
        ARDR = 6,
        /// UE IP address usage reporting.
        UIAUR = 7,
        /// PFCP session establishment/modification with partial success.
        PSUCC = 8,
        /// Per QoS flow usage reporting.
        RPGUR = 9,
    }
);

flag_set!(
    /// Reporting Triggers (TS 29.244 §8.2.19): what makes a URR report.
    ReportingTriggers, REPORTING_TRIGGERS, default_octets 3, {
        /// Periodic reporting.
        PERIO = 0,
        /// Volume threshold reached.
        VOLTH = 1,
        /// Time threshold reached.
        TIMTH = 2,
        /// Quota holding time.
        QUHTI = 3,
        /// Start of traffic.
        START = 4,
        /// Stop of traffic.
        STOPT = 5,
        /// Dropped DL traffic threshold.
        DROTH = 6,
        /// Linked usage reporting.
        LIUSA = 7,
        /// Volume quota.
        VOLQU = 8,
        /// Time quota.
        TIMQU = 9,
        /// Envelope closure.
        ENVCL = 10,
        /// MAC addresses reporting.
        MACAR = 11,
        /// Event threshold.
        EVETH = 12,
        /// Event quota.
        EVEQU = 13,
        /// IP multicast join/leave.
        IPMJL = 14,
        /// Quota validity time.
        QUVTI = 15,
        /// Report the end marker reception.
        REEMR = 16,
        /// User plane inactivity timer.
        UPINT = 17,
    }
);

flag_set!(
    /// Usage Report Trigger (TS 29.244 §8.2.41): why a usage report was sent.
    UsageReportTrigger, USAGE_REPORT_TRIGGER, default_octets 3, {
        /// Periodic reporting.
        PERIO = 0,
        /// Volume threshold.
        VOLTH = 1,
        /// Time threshold.
        TIMTH = 2,
        /// Quota holding time.
        QUHTI = 3,
        /// Start of traffic.
        START = 4,
        /// Stop of traffic.
        STOPT = 5,
        /// Dropped DL traffic threshold.
        DROTH = 6,
        /// Immediate report.
        IMMER = 7,
        /// Volume quota.
        VOLQU = 8,
        /// Time quota.
        TIMQU = 9,
        /// Linked usage reporting.
        LIUSA = 10,
        /// Termination report.
        TERMR = 11,
        /// Monitoring time.
        MONIT = 12,
        /// Envelope closure.
        ENVCL = 13,
        /// MAC addresses reporting.
        MACAR = 14,
        /// Event threshold.
        EVETH = 15,
        /// Event quota.
        EVEQU = 16,
        /// Termination by UP function report.
        TEBUR = 17,
        /// IP multicast join/leave.
        IPMJL = 18,
        /// Quota validity time.
        QUVTI = 19,
        /// End marker reception report.
        EMRRE = 20,
        /// User plane inactivity timer.
        UPINT = 21,
    }
);

flag_set!(
    /// Measurement Method (TS 29.244 §8.2.40).
    MeasurementMethod, MEASUREMENT_METHOD, default_octets 1, {
        /// Duration.
        DURAT = 0,
        /// Volume.
        VOLUM = 1,
        /// Event.
        EVENT = 2,
    }
);

flag_set!(
    /// Report Type (TS 29.244 §8.2.21): what a Session Report Request reports.
    ReportType, REPORT_TYPE, default_octets 1, {
        /// Downlink Data Report.
        DLDR = 0,
        /// Usage Report.
        USAR = 1,
        /// Error Indication Report.
        ERIR = 2,
        /// User Plane Inactivity Report.
        UPIR = 3,
        /// TSC Management Information Report.
        TMIR = 4,
        /// Session Report.
        SESR = 5,
        /// UP Initiated Session Request.
        UISR = 6,
    }
);

flag_set!(
    /// Usage Information (TS 29.244 §8.2.59).
    UsageInformation, USAGE_INFORMATION, default_octets 1, {
        /// Before a QoS enforcement change.
        BEF = 0,
        /// After.
        AFT = 1,
        /// Usage after monitoring time.
        UAE = 2,
        /// Usage before monitoring time.
        UBE = 3,
    }
);

flag_set!(
    /// PFCPSMReq-Flags (TS 29.244 §8.2.69): what a Session Modification Request asks besides
    /// its rules, e.g. an End Marker on the old path of an updated FAR (SNDEM, in Update
    /// Forwarding Parameters).
    PfcpsmReqFlags, PFCPSMREQ_FLAGS, default_octets 1, {
        /// Drop buffered packets.
        DROBU = 0,
        /// Send End Marker packets (on the path the FAR forwarded to before).
        SNDEM = 1,
        /// Query all URRs.
        QAURR = 2,
        /// Send Usage Reports of the PDRs removed.
        SUMPC = 3,
        /// Report the usage of the modified URRs.
        RUMUC = 4,
        /// Delete the F-TEIDs allocated by the UP function for the PDRs.
        DETEID = 5,
        /// Handle MBS sessions in the request.
        HRSBOM = 6,
    }
);
