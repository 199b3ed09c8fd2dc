//! One-octet coded values: Source Interface (§8.2.2), Destination Interface (§8.2.24),
//! 3GPP Interface Type (§8.2.118), PDN Type (§8.2.79), Paging Policy Indicator (§8.2.116).

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::Writer;

macro_rules! coded_octet {
    (
        $(#[$m:meta])* $name:ident, $ie:ident, mask $mask:expr,
        { $( $(#[$cm:meta])* $c:ident = $v:expr, )* }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u8);

        impl $name {
            $( $(#[$cm])* pub const $c: $name = $name($v); )*

            /// From a value; bits outside the field are dropped, as the decoder does.
            pub const fn new(value: u8) -> Self {
                $name(value & $mask)
            }

            /// The coded value.
            pub const fn get(self) -> u8 {
                self.0
            }
        }

        impl IeValue for $name {
            fn decode(ie: &IeView<'_>) -> Result<Self> {
                Ok($name::new(ie.reader().u8()?))
            }
            fn value_len(&self) -> usize {
                1
            }
            fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                w.u8(self.0)
            }
        }

        impl TypedIe for $name {
            const TYPE: IeType = IeType::$ie;
        }
    };
}

coded_octet!(
    /// Source Interface (TS 29.244 §8.2.2): where the packets a PDI matches come from.
    /// Octet 5: spare(4) + value(4).
    SourceInterface, SOURCE_INTERFACE, mask 0x0f, {
        /// 0: Access (uplink, from the gNB).
        ACCESS = 0,
        /// 1: Core (downlink, from the data network).
        CORE = 1,
        /// 2: SGi-LAN/N6-LAN.
        SGI_LAN_N6_LAN = 2,
        /// 3: CP-function.
        CP_FUNCTION = 3,
        /// 4: 5G VN Internal.
        VN_INTERNAL_5G = 4,
    }
);

coded_octet!(
    /// Destination Interface (TS 29.244 §8.2.24): where a FAR forwards to.
    /// Octet 5: spare(4) + value(4).
    DestinationInterface, DESTINATION_INTERFACE, mask 0x0f, {
        /// 0: Access (downlink, towards the gNB).
        ACCESS = 0,
        /// 1: Core (uplink, towards the data network).
        CORE = 1,
        /// 2: SGi-LAN/N6-LAN.
        SGI_LAN_N6_LAN = 2,
        /// 3: CP-function.
        CP_FUNCTION = 3,
        /// 4: LI Function.
        LI_FUNCTION = 4,
        /// 5: 5G VN Internal.
        VN_INTERNAL_5G = 5,
    }
);

coded_octet!(
    /// 3GPP Interface Type (TS 29.244 §8.2.118), used as Source Interface Type in a PDI and as
    /// Destination Interface Type in Forwarding Parameters. Octet 5: spare(2) + value(6).
    InterfaceType, INTERFACE_TYPE, mask 0x3f, {
        /// 0: S1-U.
        S1_U = 0,
        /// 1: S5/S8-U.
        S5_S8_U = 1,
        /// 2: S4-U.
        S4_U = 2,
        /// 3: S11-U.
        S11_U = 3,
        /// 4: S12-U.
        S12_U = 4,
        /// 5: Gn/Gp-U.
        GN_GP_U = 5,
        /// 6: S2a-U.
        S2A_U = 6,
        /// 7: S2b-U.
        S2B_U = 7,
        /// 11: N3 3GPP Access.
        N3_3GPP_ACCESS = 11,
        /// 12: N3 Trusted Non-3GPP Access.
        N3_TRUSTED_NON_3GPP_ACCESS = 12,
        /// 13: N3 Untrusted Non-3GPP Access.
        N3_UNTRUSTED_NON_3GPP_ACCESS = 13,
        /// 14: N3 for data forwarding.
        N3_FOR_DATA_FORWARDING = 14,
        /// 15: N9.
        N9 = 15,
        /// 16: SGi.
        SGI = 16,
        /// 17: N6.
        N6 = 17,
        /// 18: N19.
        N19 = 18,
    }
);

coded_octet!(
    /// PDN Type (TS 29.244 §8.2.79). Octet 5: spare(5) + value(3). Open5GS installs the UE
    /// address only when it is present.
    PdnType, PDN_TYPE, mask 0x07, {
        /// 1: IPv4.
        IPV4 = 1,
        /// 2: IPv6.
        IPV6 = 2,
        /// 3: IPv4v6.
        IPV4V6 = 3,
        /// 4: Non-IP.
        NON_IP = 4,
        /// 5: Ethernet.
        ETHERNET = 5,
    }
);

coded_octet!(
    /// Paging Policy Indicator (TS 29.244 §8.2.116) of a QER: the PPI value the UP function puts
    /// into the downlink's PDU Session Container, for the AMF's paging policy differentiation
    /// (TS 23.501 §5.4.3.2). Octet 5: spare(5) + value(3).
    PagingPolicyIndicator, PAGING_POLICY_INDICATOR, mask 0x07, {}
);
