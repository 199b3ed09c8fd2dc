//! The URR IEs: Create URR (§7.5.2.4), Update URR (§7.5.4.4), Remove URR (§7.5.4.8) and Usage
//! Report (§7.5.5.2, §7.5.7.2, §7.5.8.3).

use crate::ie::{
    MeasurementMethod, NtpTimestamp, ReportingTriggers, UsageInformation, UsageReportTrigger,
    Volume, VolumeMeasurement,
};
use crate::types::UrrId;

ie_group! {
    /// Create URR (TS 29.244 Table 7.5.2.4-1).
    pub struct CreateUrr {
        /// URR ID (M).
        urr_id: required(UrrId) = URR_ID,
        /// Measurement Method (M).
        measurement_method: required(MeasurementMethod) = MEASUREMENT_METHOD,
        /// Reporting Triggers (M).
        reporting_triggers: required(ReportingTriggers) = REPORTING_TRIGGERS,
        /// Measurement Period, seconds (periodic reporting).
        measurement_period: optional(u32) = MEASUREMENT_PERIOD,
        /// Volume Threshold.
        volume_threshold: optional(Volume) = VOLUME_THRESHOLD,
        /// Volume Quota.
        volume_quota: optional(Volume) = VOLUME_QUOTA,
        /// Time Threshold, seconds.
        time_threshold: optional(u32) = TIME_THRESHOLD,
        /// Time Quota, seconds.
        time_quota: optional(u32) = TIME_QUOTA,
    }
}
grouped_ie!(CreateUrr, CREATE_URR);

impl CreateUrr {
    /// A URR with its mandatory IEs.
    pub fn new(
        urr_id: UrrId,
        measurement_method: MeasurementMethod,
        reporting_triggers: ReportingTriggers,
    ) -> Self {
        CreateUrr {
            urr_id,
            measurement_method,
            reporting_triggers,
            measurement_period: None,
            volume_threshold: None,
            volume_quota: None,
            time_threshold: None,
            time_quota: None,
            other_ies: Vec::new(),
        }
    }
}

ie_group! {
    /// Update URR (TS 29.244 Table 7.5.4.4-1).
    pub struct UpdateUrr {
        /// URR ID (M).
        urr_id: required(UrrId) = URR_ID,
        /// Measurement Method.
        measurement_method: optional(MeasurementMethod) = MEASUREMENT_METHOD,
        /// Reporting Triggers.
        reporting_triggers: optional(ReportingTriggers) = REPORTING_TRIGGERS,
        /// Measurement Period, seconds.
        measurement_period: optional(u32) = MEASUREMENT_PERIOD,
        /// Volume Threshold.
        volume_threshold: optional(Volume) = VOLUME_THRESHOLD,
        /// Volume Quota.
        volume_quota: optional(Volume) = VOLUME_QUOTA,
        /// Time Threshold, seconds.
        time_threshold: optional(u32) = TIME_THRESHOLD,
        /// Time Quota, seconds.
        time_quota: optional(u32) = TIME_QUOTA,
    }
}
grouped_ie!(UpdateUrr, UPDATE_URR);

ie_group! {
    /// Remove URR (TS 29.244 Table 7.5.4.8-1).
    pub struct RemoveUrr {
        /// URR ID (M).
        urr_id: required(UrrId) = URR_ID,
    }
}
grouped_ie!(RemoveUrr, REMOVE_URR);

ie_group! {
    /// Usage Report (TS 29.244 Tables 7.5.5.2-1, 7.5.7.2-1, 7.5.8.3-1). One layout under three IE
    /// types: 78 in a Session Modification Response, 79 in a Session Deletion Response, 80 in a
    /// Session Report Request.
    pub struct UsageReport {
        /// URR ID (M).
        urr_id: required(UrrId) = URR_ID,
        /// UR-SEQN (M): the report's sequence number.
        ur_seqn: required(u32) = UR_SEQN,
        /// Usage Report Trigger (M).
        usage_report_trigger: required(UsageReportTrigger) = USAGE_REPORT_TRIGGER,
        /// Start Time.
        start_time: optional(NtpTimestamp) = START_TIME,
        /// End Time.
        end_time: optional(NtpTimestamp) = END_TIME,
        /// Volume Measurement.
        volume_measurement: optional(VolumeMeasurement) = VOLUME_MEASUREMENT,
        /// Duration Measurement, seconds.
        duration_measurement: optional(u32) = DURATION_MEASUREMENT,
        /// Time of First Packet.
        time_of_first_packet: optional(NtpTimestamp) = TIME_OF_FIRST_PACKET,
        /// Time of Last Packet.
        time_of_last_packet: optional(NtpTimestamp) = TIME_OF_LAST_PACKET,
        /// Usage Information.
        usage_information: optional(UsageInformation) = USAGE_INFORMATION,
    }
}

impl crate::ie::IeValue for UsageReport {
    fn decode(ie: &crate::ie::IeView<'_>) -> crate::error::Result<Self> {
        Self::decode_ies(ie.children(), Some(ie.ie_type()), ie.offset())
    }
    fn value_len(&self) -> usize {
        self.ies_len()
    }
    fn encode_value(&self, w: &mut crate::wire::Writer<'_>) -> Result<(), crate::error::EmitError> {
        self.encode_ies(w)
    }
}
