//! IE type numbers and names (TS 29.244 §8.1.2, Table 8.1.2-1).

use core::fmt;

/// An IE type. Types 32768 and above are vendor-specific and carry an Enterprise ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IeType(pub u16);

impl IeType {
    /// Create PDR (type 1).
    pub const CREATE_PDR: IeType = IeType(1);
    /// PDI (type 2).
    pub const PDI: IeType = IeType(2);
    /// Create FAR (type 3).
    pub const CREATE_FAR: IeType = IeType(3);
    /// Forwarding Parameters (type 4).
    pub const FORWARDING_PARAMETERS: IeType = IeType(4);
    /// Duplicating Parameters (type 5).
    pub(crate) const DUPLICATING_PARAMETERS: IeType = IeType(5);
    /// Create URR (type 6).
    pub(crate) const CREATE_URR: IeType = IeType(6);
    /// Create QER (type 7).
    pub const CREATE_QER: IeType = IeType(7);
    /// Created PDR (type 8).
    pub(crate) const CREATED_PDR: IeType = IeType(8);
    /// Update PDR (type 9).
    pub(crate) const UPDATE_PDR: IeType = IeType(9);
    /// Update FAR (type 10).
    pub(crate) const UPDATE_FAR: IeType = IeType(10);
    /// Update Forwarding Parameters (type 11).
    pub(crate) const UPDATE_FORWARDING_PARAMETERS: IeType = IeType(11);
    /// Update BAR (Session Report Response) (type 12).
    pub(crate) const UPDATE_BAR_SESSION_REPORT_RESPONSE: IeType = IeType(12);
    /// Update URR (type 13).
    pub(crate) const UPDATE_URR: IeType = IeType(13);
    /// Update QER (type 14).
    pub const UPDATE_QER: IeType = IeType(14);
    /// Remove PDR (type 15).
    pub const REMOVE_PDR: IeType = IeType(15);
    /// Remove FAR (type 16).
    pub(crate) const REMOVE_FAR: IeType = IeType(16);
    /// Remove URR (type 17).
    pub(crate) const REMOVE_URR: IeType = IeType(17);
    /// Remove QER (type 18).
    pub(crate) const REMOVE_QER: IeType = IeType(18);
    /// Cause (type 19).
    pub(crate) const CAUSE: IeType = IeType(19);
    /// Source Interface (type 20).
    pub const SOURCE_INTERFACE: IeType = IeType(20);
    /// F-TEID (type 21).
    pub const F_TEID: IeType = IeType(21);
    /// Network Instance (type 22).
    pub const NETWORK_INSTANCE: IeType = IeType(22);
    /// SDF Filter (type 23).
    pub const SDF_FILTER: IeType = IeType(23);
    /// Application ID (type 24).
    pub(crate) const APPLICATION_ID: IeType = IeType(24);
    /// Gate Status (type 25).
    pub const GATE_STATUS: IeType = IeType(25);
    /// MBR (type 26).
    pub const MBR: IeType = IeType(26);
    /// GBR (type 27).
    pub const GBR: IeType = IeType(27);
    /// QER Correlation ID (type 28).
    pub const QER_CORRELATION_ID: IeType = IeType(28);
    /// Precedence (type 29).
    pub(crate) const PRECEDENCE: IeType = IeType(29);
    /// Transport Level Marking (type 30).
    pub(crate) const TRANSPORT_LEVEL_MARKING: IeType = IeType(30);
    /// Volume Threshold (type 31).
    pub(crate) const VOLUME_THRESHOLD: IeType = IeType(31);
    /// Time Threshold (type 32).
    pub(crate) const TIME_THRESHOLD: IeType = IeType(32);
    /// Monitoring Time (type 33).
    pub(crate) const MONITORING_TIME: IeType = IeType(33);
    /// Subsequent Volume Threshold (type 34).
    pub(crate) const SUBSEQUENT_VOLUME_THRESHOLD: IeType = IeType(34);
    /// Subsequent Time Threshold (type 35).
    pub(crate) const SUBSEQUENT_TIME_THRESHOLD: IeType = IeType(35);
    /// Inactivity Detection Time (type 36).
    pub(crate) const INACTIVITY_DETECTION_TIME: IeType = IeType(36);
    /// Reporting Triggers (type 37).
    pub(crate) const REPORTING_TRIGGERS: IeType = IeType(37);
    /// Redirect Information (type 38).
    pub(crate) const REDIRECT_INFORMATION: IeType = IeType(38);
    /// Report Type (type 39).
    pub(crate) const REPORT_TYPE: IeType = IeType(39);
    /// Offending IE (type 40).
    pub(crate) const OFFENDING_IE: IeType = IeType(40);
    /// Forwarding Policy (type 41).
    pub(crate) const FORWARDING_POLICY: IeType = IeType(41);
    /// Destination Interface (type 42).
    pub(crate) const DESTINATION_INTERFACE: IeType = IeType(42);
    /// UP Function Features (type 43).
    pub(crate) const UP_FUNCTION_FEATURES: IeType = IeType(43);
    /// Apply Action (type 44).
    pub(crate) const APPLY_ACTION: IeType = IeType(44);
    /// Downlink Data Service Information (type 45).
    pub(crate) const DOWNLINK_DATA_SERVICE_INFORMATION: IeType = IeType(45);
    /// Downlink Data Notification Delay (type 46).
    pub(crate) const DOWNLINK_DATA_NOTIFICATION_DELAY: IeType = IeType(46);
    /// DL Buffering Duration (type 47).
    pub(crate) const DL_BUFFERING_DURATION: IeType = IeType(47);
    /// DL Buffering Suggested Packet Count (type 48).
    pub(crate) const DL_BUFFERING_SUGGESTED_PACKET_COUNT: IeType = IeType(48);
    /// PFCPSMReq-Flags (type 49).
    pub const PFCPSMREQ_FLAGS: IeType = IeType(49);
    /// PFCPSRRsp-Flags (type 50).
    pub(crate) const PFCPSRRSP_FLAGS: IeType = IeType(50);
    /// Load Control Information (type 51).
    pub(crate) const LOAD_CONTROL_INFORMATION: IeType = IeType(51);
    /// Sequence Number (type 52).
    pub const SEQUENCE_NUMBER: IeType = IeType(52);
    /// Metric (type 53).
    pub(crate) const METRIC: IeType = IeType(53);
    /// Overload Control Information (type 54).
    pub(crate) const OVERLOAD_CONTROL_INFORMATION: IeType = IeType(54);
    /// Timer (type 55).
    pub(crate) const TIMER: IeType = IeType(55);
    /// PDR ID (type 56).
    pub(crate) const PDR_ID: IeType = IeType(56);
    /// F-SEID (type 57).
    pub const F_SEID: IeType = IeType(57);
    /// Application ID's PFDs (type 58).
    pub(crate) const APPLICATION_IDS_PFDS: IeType = IeType(58);
    /// PFD context (type 59).
    pub(crate) const PFD_CONTEXT: IeType = IeType(59);
    /// Node ID (type 60).
    pub const NODE_ID: IeType = IeType(60);
    /// PFD contents (type 61).
    pub(crate) const PFD_CONTENTS: IeType = IeType(61);
    /// Measurement Method (type 62).
    pub(crate) const MEASUREMENT_METHOD: IeType = IeType(62);
    /// Usage Report Trigger (type 63).
    pub(crate) const USAGE_REPORT_TRIGGER: IeType = IeType(63);
    /// Measurement Period (type 64).
    pub(crate) const MEASUREMENT_PERIOD: IeType = IeType(64);
    /// FQ-CSID (type 65).
    pub(crate) const FQ_CSID: IeType = IeType(65);
    /// Volume Measurement (type 66).
    pub(crate) const VOLUME_MEASUREMENT: IeType = IeType(66);
    /// Duration Measurement (type 67).
    pub(crate) const DURATION_MEASUREMENT: IeType = IeType(67);
    /// Application Detection Information (type 68).
    pub(crate) const APPLICATION_DETECTION_INFORMATION: IeType = IeType(68);
    /// Time of First Packet (type 69).
    pub(crate) const TIME_OF_FIRST_PACKET: IeType = IeType(69);
    /// Time of Last Packet (type 70).
    pub(crate) const TIME_OF_LAST_PACKET: IeType = IeType(70);
    /// Quota Holding Time (type 71).
    pub(crate) const QUOTA_HOLDING_TIME: IeType = IeType(71);
    /// Dropped DL Traffic Threshold (type 72).
    pub(crate) const DROPPED_DL_TRAFFIC_THRESHOLD: IeType = IeType(72);
    /// Volume Quota (type 73).
    pub(crate) const VOLUME_QUOTA: IeType = IeType(73);
    /// Time Quota (type 74).
    pub(crate) const TIME_QUOTA: IeType = IeType(74);
    /// Start Time (type 75).
    pub(crate) const START_TIME: IeType = IeType(75);
    /// End Time (type 76).
    pub(crate) const END_TIME: IeType = IeType(76);
    /// Query URR (type 77).
    pub(crate) const QUERY_URR: IeType = IeType(77);
    /// Usage Report (Session Modification Response) (type 78).
    pub(crate) const USAGE_REPORT_SESSION_MODIFICATION_RESPONSE: IeType = IeType(78);
    /// Usage Report (Session Deletion Response) (type 79).
    pub(crate) const USAGE_REPORT_SESSION_DELETION_RESPONSE: IeType = IeType(79);
    /// Usage Report (Session Report Request) (type 80).
    pub(crate) const USAGE_REPORT_SESSION_REPORT_REQUEST: IeType = IeType(80);
    /// URR ID (type 81).
    pub(crate) const URR_ID: IeType = IeType(81);
    /// Linked URR ID (type 82).
    pub(crate) const LINKED_URR_ID: IeType = IeType(82);
    /// Downlink Data Report (type 83).
    pub(crate) const DOWNLINK_DATA_REPORT: IeType = IeType(83);
    /// Outer Header Creation (type 84).
    pub const OUTER_HEADER_CREATION: IeType = IeType(84);
    /// Create BAR (type 85).
    pub(crate) const CREATE_BAR: IeType = IeType(85);
    /// Update BAR (Session Modification Request) (type 86).
    pub(crate) const UPDATE_BAR_SESSION_MODIFICATION_REQUEST: IeType = IeType(86);
    /// Remove BAR (type 87).
    pub(crate) const REMOVE_BAR: IeType = IeType(87);
    /// BAR ID (type 88).
    pub(crate) const BAR_ID: IeType = IeType(88);
    /// CP Function Features (type 89).
    pub(crate) const CP_FUNCTION_FEATURES: IeType = IeType(89);
    /// Usage Information (type 90).
    pub(crate) const USAGE_INFORMATION: IeType = IeType(90);
    /// Application Instance ID (type 91).
    pub(crate) const APPLICATION_INSTANCE_ID: IeType = IeType(91);
    /// Flow Information (type 92).
    pub(crate) const FLOW_INFORMATION: IeType = IeType(92);
    /// UE IP Address (type 93).
    pub const UE_IP_ADDRESS: IeType = IeType(93);
    /// Packet Rate (type 94).
    pub(crate) const PACKET_RATE: IeType = IeType(94);
    /// Outer Header Removal (type 95).
    pub const OUTER_HEADER_REMOVAL: IeType = IeType(95);
    /// Recovery Time Stamp (type 96).
    pub const RECOVERY_TIME_STAMP: IeType = IeType(96);
    /// DL Flow Level Marking (type 97).
    pub(crate) const DL_FLOW_LEVEL_MARKING: IeType = IeType(97);
    /// Header Enrichment (type 98).
    pub(crate) const HEADER_ENRICHMENT: IeType = IeType(98);
    /// Error Indication Report (type 99).
    pub(crate) const ERROR_INDICATION_REPORT: IeType = IeType(99);
    /// Measurement Information (type 100).
    pub(crate) const MEASUREMENT_INFORMATION: IeType = IeType(100);
    /// Node Report Type (type 101).
    pub(crate) const NODE_REPORT_TYPE: IeType = IeType(101);
    /// User Plane Path Failure Report (type 102).
    pub(crate) const USER_PLANE_PATH_FAILURE_REPORT: IeType = IeType(102);
    /// Remote GTP-U Peer (type 103).
    pub(crate) const REMOTE_GTP_U_PEER: IeType = IeType(103);
    /// UR-SEQN (type 104).
    pub(crate) const UR_SEQN: IeType = IeType(104);
    /// Update Duplicating Parameters (type 105).
    pub(crate) const UPDATE_DUPLICATING_PARAMETERS: IeType = IeType(105);
    /// Activate Predefined Rules (type 106).
    pub(crate) const ACTIVATE_PREDEFINED_RULES: IeType = IeType(106);
    /// Deactivate Predefined Rules (type 107).
    pub(crate) const DEACTIVATE_PREDEFINED_RULES: IeType = IeType(107);
    /// FAR ID (type 108).
    pub const FAR_ID: IeType = IeType(108);
    /// QER ID (type 109).
    pub const QER_ID: IeType = IeType(109);
    /// OCI Flags (type 110).
    pub(crate) const OCI_FLAGS: IeType = IeType(110);
    /// PFCP Association Release Request (type 111).
    pub(crate) const PFCP_ASSOCIATION_RELEASE_REQUEST: IeType = IeType(111);
    /// Graceful Release Period (type 112).
    pub(crate) const GRACEFUL_RELEASE_PERIOD: IeType = IeType(112);
    /// PDN Type (type 113).
    pub const PDN_TYPE: IeType = IeType(113);
    /// Failed Rule ID (type 114).
    pub const FAILED_RULE_ID: IeType = IeType(114);
    /// Time Quota Mechanism (type 115).
    pub(crate) const TIME_QUOTA_MECHANISM: IeType = IeType(115);
    /// User Plane Inactivity Timer (type 117).
    pub(crate) const USER_PLANE_INACTIVITY_TIMER: IeType = IeType(117);
    /// Aggregated URRs (type 118).
    pub(crate) const AGGREGATED_URRS: IeType = IeType(118);
    /// Multiplier (type 119).
    pub const MULTIPLIER: IeType = IeType(119);
    /// Aggregated URR ID (type 120).
    pub(crate) const AGGREGATED_URR_ID: IeType = IeType(120);
    /// Subsequent Volume Quota (type 121).
    pub(crate) const SUBSEQUENT_VOLUME_QUOTA: IeType = IeType(121);
    /// Subsequent Time Quota (type 122).
    pub(crate) const SUBSEQUENT_TIME_QUOTA: IeType = IeType(122);
    /// RQI (type 123).
    pub const RQI: IeType = IeType(123);
    /// QFI (type 124).
    pub const QFI: IeType = IeType(124);
    /// Query URR Reference (type 125).
    pub(crate) const QUERY_URR_REFERENCE: IeType = IeType(125);
    /// Additional Usage Reports Information (type 126).
    pub(crate) const ADDITIONAL_USAGE_REPORTS_INFORMATION: IeType = IeType(126);
    /// Create Traffic Endpoint (type 127).
    pub(crate) const CREATE_TRAFFIC_ENDPOINT: IeType = IeType(127);
    /// Created Traffic Endpoint (type 128).
    pub(crate) const CREATED_TRAFFIC_ENDPOINT: IeType = IeType(128);
    /// Update Traffic Endpoint (type 129).
    pub(crate) const UPDATE_TRAFFIC_ENDPOINT: IeType = IeType(129);
    /// Remove Traffic Endpoint (type 130).
    pub(crate) const REMOVE_TRAFFIC_ENDPOINT: IeType = IeType(130);
    /// Traffic Endpoint ID (type 131).
    pub(crate) const TRAFFIC_ENDPOINT_ID: IeType = IeType(131);
    /// User ID (type 141).
    pub(crate) const USER_ID: IeType = IeType(141);
    /// PFCPSEReq-Flags (type 148).
    pub(crate) const PFCPSEREQ_FLAGS: IeType = IeType(148);
    /// Averaging Window (type 157).
    pub(crate) const AVERAGING_WINDOW: IeType = IeType(157);
    /// Paging Policy Indicator (type 158).
    pub const PAGING_POLICY_INDICATOR: IeType = IeType(158);
    /// APN/DNN (type 159).
    pub(crate) const APN_DNN: IeType = IeType(159);
    /// 3GPP Interface Type (type 160).
    pub(crate) const INTERFACE_TYPE: IeType = IeType(160);
    /// PFCPSRReq-Flags (type 161).
    pub(crate) const PFCPSRREQ_FLAGS: IeType = IeType(161);
    /// PFCPAUReq-Flags (type 162).
    pub(crate) const PFCPAUREQ_FLAGS: IeType = IeType(162);
    /// Activation Time (type 163).
    pub(crate) const ACTIVATION_TIME: IeType = IeType(163);
    /// Deactivation Time (type 164).
    pub(crate) const DEACTIVATION_TIME: IeType = IeType(164);
    /// S-NSSAI (type 257).
    pub(crate) const S_NSSAI: IeType = IeType(257);

    /// Whether the type has bit 16 set, i.e. the IE carries an Enterprise ID (§8.1.1).
    pub const fn is_vendor_specific(self) -> bool {
        self.0 & 0x8000 != 0
    }

    /// The spec name, or `None` for a type this table does not list.
    #[expect(
        clippy::too_many_lines,
        reason = "one flat table: an arm per IE type listed above, nothing else"
    )]
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            IeType::CREATE_PDR => "Create PDR",
            IeType::PDI => "PDI",
            IeType::CREATE_FAR => "Create FAR",
            IeType::FORWARDING_PARAMETERS => "Forwarding Parameters",
            IeType::DUPLICATING_PARAMETERS => "Duplicating Parameters",
            IeType::CREATE_URR => "Create URR",
            IeType::CREATE_QER => "Create QER",
            IeType::CREATED_PDR => "Created PDR",
            IeType::UPDATE_PDR => "Update PDR",
            IeType::UPDATE_FAR => "Update FAR",
            IeType::UPDATE_FORWARDING_PARAMETERS => "Update Forwarding Parameters",
            IeType::UPDATE_BAR_SESSION_REPORT_RESPONSE => "Update BAR (Session Report Response)",
            IeType::UPDATE_URR => "Update URR",
            IeType::UPDATE_QER => "Update QER",
            IeType::REMOVE_PDR => "Remove PDR",
            IeType::REMOVE_FAR => "Remove FAR",
            IeType::REMOVE_URR => "Remove URR",
            IeType::REMOVE_QER => "Remove QER",
            IeType::CAUSE => "Cause",
            IeType::SOURCE_INTERFACE => "Source Interface",
            IeType::F_TEID => "F-TEID",
            IeType::NETWORK_INSTANCE => "Network Instance",
            IeType::SDF_FILTER => "SDF Filter",
            IeType::APPLICATION_ID => "Application ID",
            IeType::GATE_STATUS => "Gate Status",
            IeType::MBR => "MBR",
            IeType::GBR => "GBR",
            IeType::QER_CORRELATION_ID => "QER Correlation ID",
            IeType::PRECEDENCE => "Precedence",
            IeType::TRANSPORT_LEVEL_MARKING => "Transport Level Marking",
            IeType::VOLUME_THRESHOLD => "Volume Threshold",
            IeType::TIME_THRESHOLD => "Time Threshold",
            IeType::MONITORING_TIME => "Monitoring Time",
            IeType::SUBSEQUENT_VOLUME_THRESHOLD => "Subsequent Volume Threshold",
            IeType::SUBSEQUENT_TIME_THRESHOLD => "Subsequent Time Threshold",
            IeType::INACTIVITY_DETECTION_TIME => "Inactivity Detection Time",
            IeType::REPORTING_TRIGGERS => "Reporting Triggers",
            IeType::REDIRECT_INFORMATION => "Redirect Information",
            IeType::REPORT_TYPE => "Report Type",
            IeType::OFFENDING_IE => "Offending IE",
            IeType::FORWARDING_POLICY => "Forwarding Policy",
            IeType::DESTINATION_INTERFACE => "Destination Interface",
            IeType::UP_FUNCTION_FEATURES => "UP Function Features",
            IeType::APPLY_ACTION => "Apply Action",
            IeType::DOWNLINK_DATA_SERVICE_INFORMATION => "Downlink Data Service Information",
            IeType::DOWNLINK_DATA_NOTIFICATION_DELAY => "Downlink Data Notification Delay",
            IeType::DL_BUFFERING_DURATION => "DL Buffering Duration",
            IeType::DL_BUFFERING_SUGGESTED_PACKET_COUNT => "DL Buffering Suggested Packet Count",
            IeType::PFCPSMREQ_FLAGS => "PFCPSMReq-Flags",
            IeType::PFCPSRRSP_FLAGS => "PFCPSRRsp-Flags",
            IeType::LOAD_CONTROL_INFORMATION => "Load Control Information",
            IeType::SEQUENCE_NUMBER => "Sequence Number",
            IeType::METRIC => "Metric",
            IeType::OVERLOAD_CONTROL_INFORMATION => "Overload Control Information",
            IeType::TIMER => "Timer",
            IeType::PDR_ID => "PDR ID",
            IeType::F_SEID => "F-SEID",
            IeType::APPLICATION_IDS_PFDS => "Application ID's PFDs",
            IeType::PFD_CONTEXT => "PFD context",
            IeType::NODE_ID => "Node ID",
            IeType::PFD_CONTENTS => "PFD contents",
            IeType::MEASUREMENT_METHOD => "Measurement Method",
            IeType::USAGE_REPORT_TRIGGER => "Usage Report Trigger",
            IeType::MEASUREMENT_PERIOD => "Measurement Period",
            IeType::FQ_CSID => "FQ-CSID",
            IeType::VOLUME_MEASUREMENT => "Volume Measurement",
            IeType::DURATION_MEASUREMENT => "Duration Measurement",
            IeType::APPLICATION_DETECTION_INFORMATION => "Application Detection Information",
            IeType::TIME_OF_FIRST_PACKET => "Time of First Packet",
            IeType::TIME_OF_LAST_PACKET => "Time of Last Packet",
            IeType::QUOTA_HOLDING_TIME => "Quota Holding Time",
            IeType::DROPPED_DL_TRAFFIC_THRESHOLD => "Dropped DL Traffic Threshold",
            IeType::VOLUME_QUOTA => "Volume Quota",
            IeType::TIME_QUOTA => "Time Quota",
            IeType::START_TIME => "Start Time",
            IeType::END_TIME => "End Time",
            IeType::QUERY_URR => "Query URR",
            IeType::USAGE_REPORT_SESSION_MODIFICATION_RESPONSE => {
                "Usage Report (Session Modification Response)"
            }
            IeType::USAGE_REPORT_SESSION_DELETION_RESPONSE => {
                "Usage Report (Session Deletion Response)"
            }
            IeType::USAGE_REPORT_SESSION_REPORT_REQUEST => "Usage Report (Session Report Request)",
            IeType::URR_ID => "URR ID",
            IeType::LINKED_URR_ID => "Linked URR ID",
            IeType::DOWNLINK_DATA_REPORT => "Downlink Data Report",
            IeType::OUTER_HEADER_CREATION => "Outer Header Creation",
            IeType::CREATE_BAR => "Create BAR",
            IeType::UPDATE_BAR_SESSION_MODIFICATION_REQUEST => {
                "Update BAR (Session Modification Request)"
            }
            IeType::REMOVE_BAR => "Remove BAR",
            IeType::BAR_ID => "BAR ID",
            IeType::CP_FUNCTION_FEATURES => "CP Function Features",
            IeType::USAGE_INFORMATION => "Usage Information",
            IeType::APPLICATION_INSTANCE_ID => "Application Instance ID",
            IeType::FLOW_INFORMATION => "Flow Information",
            IeType::UE_IP_ADDRESS => "UE IP Address",
            IeType::PACKET_RATE => "Packet Rate",
            IeType::OUTER_HEADER_REMOVAL => "Outer Header Removal",
            IeType::RECOVERY_TIME_STAMP => "Recovery Time Stamp",
            IeType::DL_FLOW_LEVEL_MARKING => "DL Flow Level Marking",
            IeType::HEADER_ENRICHMENT => "Header Enrichment",
            IeType::ERROR_INDICATION_REPORT => "Error Indication Report",
            IeType::MEASUREMENT_INFORMATION => "Measurement Information",
            IeType::NODE_REPORT_TYPE => "Node Report Type",
            IeType::USER_PLANE_PATH_FAILURE_REPORT => "User Plane Path Failure Report",
            IeType::REMOTE_GTP_U_PEER => "Remote GTP-U Peer",
            IeType::UR_SEQN => "UR-SEQN",
            IeType::UPDATE_DUPLICATING_PARAMETERS => "Update Duplicating Parameters",
            IeType::ACTIVATE_PREDEFINED_RULES => "Activate Predefined Rules",
            IeType::DEACTIVATE_PREDEFINED_RULES => "Deactivate Predefined Rules",
            IeType::FAR_ID => "FAR ID",
            IeType::QER_ID => "QER ID",
            IeType::OCI_FLAGS => "OCI Flags",
            IeType::PFCP_ASSOCIATION_RELEASE_REQUEST => "PFCP Association Release Request",
            IeType::GRACEFUL_RELEASE_PERIOD => "Graceful Release Period",
            IeType::PDN_TYPE => "PDN Type",
            IeType::FAILED_RULE_ID => "Failed Rule ID",
            IeType::TIME_QUOTA_MECHANISM => "Time Quota Mechanism",
            IeType::USER_PLANE_INACTIVITY_TIMER => "User Plane Inactivity Timer",
            IeType::AGGREGATED_URRS => "Aggregated URRs",
            IeType::MULTIPLIER => "Multiplier",
            IeType::AGGREGATED_URR_ID => "Aggregated URR ID",
            IeType::SUBSEQUENT_VOLUME_QUOTA => "Subsequent Volume Quota",
            IeType::SUBSEQUENT_TIME_QUOTA => "Subsequent Time Quota",
            IeType::RQI => "RQI",
            IeType::QFI => "QFI",
            IeType::QUERY_URR_REFERENCE => "Query URR Reference",
            IeType::ADDITIONAL_USAGE_REPORTS_INFORMATION => "Additional Usage Reports Information",
            IeType::CREATE_TRAFFIC_ENDPOINT => "Create Traffic Endpoint",
            IeType::CREATED_TRAFFIC_ENDPOINT => "Created Traffic Endpoint",
            IeType::UPDATE_TRAFFIC_ENDPOINT => "Update Traffic Endpoint",
            IeType::REMOVE_TRAFFIC_ENDPOINT => "Remove Traffic Endpoint",
            IeType::TRAFFIC_ENDPOINT_ID => "Traffic Endpoint ID",
            IeType::USER_ID => "User ID",
            IeType::PFCPSEREQ_FLAGS => "PFCPSEReq-Flags",
            IeType::AVERAGING_WINDOW => "Averaging Window",
            IeType::PAGING_POLICY_INDICATOR => "Paging Policy Indicator",
            IeType::APN_DNN => "APN/DNN",
            IeType::INTERFACE_TYPE => "3GPP Interface Type",
            IeType::PFCPSRREQ_FLAGS => "PFCPSRReq-Flags",
            IeType::PFCPAUREQ_FLAGS => "PFCPAUReq-Flags",
            IeType::ACTIVATION_TIME => "Activation Time",
            IeType::DEACTIVATION_TIME => "Deactivation Time",
            IeType::S_NSSAI => "S-NSSAI",
            _ => return None,
        })
    }
}

impl fmt::Display for IeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None if self.is_vendor_specific() => write!(f, "vendor-specific IE ({})", self.0),
            None => write!(f, "IE type {}", self.0),
        }
    }
}
