//! SDF Filter (TS 29.244 §8.2.5).

use super::{FlowDescription, FlowDescriptionError, IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::{Writer, bit_if, opt_len};

/// A service data flow filter.
///
/// The Flow Description is kept as the octets received, so that any peer's text comes back
/// unchanged; [`SdfFilter::parse_flow`] parses it ([`FlowDescription`]).
///
/// Layout: octet 5 spare(3) BID FL SPI TTC FD, octet 6 spare, then Length of Flow Description (2)
/// and Flow Description (FD), ToS Traffic Class (2, TTC), Security Parameter Index (4, SPI),
/// Flow Label (3, FL), SDF Filter ID (4, BID).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SdfFilter {
    /// Flow Description: an IPFilterRule (RFC 6733 §4.3.1, TS 29.212 §5.4.2), e.g. "permit out
    /// ip from any to assigned".
    pub flow_description: Option<Vec<u8>>,
    /// ToS/Traffic Class and its mask.
    pub tos_traffic_class: Option<u16>,
    /// Security Parameter Index.
    pub security_parameter_index: Option<u32>,
    /// IPv6 Flow Label (24 bits as on the wire).
    pub flow_label: Option<u32>,
    /// SDF Filter ID.
    pub sdf_filter_id: Option<u32>,
}

const FD: u8 = 0x01;
const TTC: u8 = 0x02;
const SPI: u8 = 0x04;
const FL: u8 = 0x08;
const BID: u8 = 0x10;

impl SdfFilter {
    /// A filter with only a Flow Description.
    pub fn flow(description: &str) -> Self {
        SdfFilter {
            flow_description: Some(description.as_bytes().to_vec()),
            ..Self::default()
        }
    }

    /// A filter with only the canonical text of `flow` as its Flow Description.
    pub fn from_flow(flow: &FlowDescription) -> Self {
        Self::flow(&flow.to_string())
    }

    /// The Flow Description parsed, when there is one.
    pub fn parse_flow(
        &self,
    ) -> Option<core::result::Result<FlowDescription, FlowDescriptionError>> {
        self.flow_description
            .as_deref()
            .map(FlowDescription::from_bytes)
    }
}

impl IeValue for SdfFilter {
    fn decode(ie: &IeView<'_>) -> Result<Self> {
        let mut r = ie.reader();
        let f = r.u8()?;
        r.u8()?;
        let flow_description = if f & FD != 0 {
            let len = usize::from(r.u16()?);
            Some(r.bytes(len)?.to_vec())
        } else {
            None
        };
        Ok(SdfFilter {
            flow_description,
            tos_traffic_class: r.field_if(f & TTC != 0)?,
            security_parameter_index: r.field_if(f & SPI != 0)?,
            flow_label: (f & FL != 0).then(|| r.u24()).transpose()?,
            sdf_filter_id: r.field_if(f & BID != 0)?,
        })
    }
    fn value_len(&self) -> usize {
        2 + self.flow_description.as_ref().map_or(0, |d| 2 + d.len())
            + opt_len(self.tos_traffic_class)
            + opt_len(self.security_parameter_index)
            + self.flow_label.map_or(0, |_| 3)
            + opt_len(self.sdf_filter_id)
    }
    fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
        w.u8(bit_if(self.flow_description.is_some(), FD)
            | bit_if(self.tos_traffic_class.is_some(), TTC)
            | bit_if(self.security_parameter_index.is_some(), SPI)
            | bit_if(self.flow_label.is_some(), FL)
            | bit_if(self.sdf_filter_id.is_some(), BID))?;
        w.u8(0)?;
        if let Some(d) = &self.flow_description {
            let len = u16::try_from(d.len()).map_err(|_| EmitError::TooLong {
                what: "Flow Description",
                length: d.len(),
            })?;
            w.u16(len)?;
            w.put_slice(d)?;
        }
        w.field_opt(self.tos_traffic_class)?;
        w.field_opt(self.security_parameter_index)?;
        if let Some(v) = self.flow_label {
            if v > 0xff_ffff {
                return Err(EmitError::Invalid {
                    what: "Flow Label above 24 bits",
                });
            }
            w.u24(v)?;
        }
        w.field_opt(self.sdf_filter_id)
    }
}

impl TypedIe for SdfFilter {
    const TYPE: IeType = IeType::SDF_FILTER;
}
