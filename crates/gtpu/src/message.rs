//! GTP-U messages (TS 29.281 §7): G-PDU, Echo Request/Response, Error Indication, End Marker.

use std::net::IpAddr;

use crate::error::{EmitError, ParseError};
use crate::header::{GtpuHeaderRepr, GtpuPacket};
use crate::ie::{self, IeWriter, InformationElements};
use crate::pdu_session::PduSessionContainer;
use crate::types::MessageType;
use upfbench_net::Teid;

/// The body of a GTP-U message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Message<'a> {
    /// Echo Request (§7.2.1). A Private Extension, if any, is skipped.
    EchoRequest,
    /// Echo Response (§7.2.2).
    EchoResponse {
        /// The Recovery IE's restart counter (§8.2; 0 from a GTP-U sender).
        recovery: u8,
    },
    /// Error Indication (§7.3.1): a G-PDU arrived for a TEID the sender does not know.
    ErrorIndication {
        /// Tunnel Endpoint Identifier Data I (§8.3): the TEID of the offending G-PDU.
        teid_data_i: Teid,
        /// GTP-U Peer Address (§8.4): the destination address of the offending G-PDU.
        peer_address: IpAddr,
    },
    /// End Marker (§7.3.2): the last G-PDU of a tunnel before a path switch.
    EndMarker,
    /// G-PDU (§6.1): a user packet.
    GPdu {
        /// The T-PDU: the inner packet.
        t_pdu: &'a [u8],
    },
}

impl Message<'_> {
    /// The message type that carries this body.
    pub const fn message_type(&self) -> MessageType {
        match self {
            Message::EchoRequest => MessageType::ECHO_REQUEST,
            Message::EchoResponse { .. } => MessageType::ECHO_RESPONSE,
            Message::ErrorIndication { .. } => MessageType::ERROR_INDICATION,
            Message::EndMarker => MessageType::END_MARKER,
            Message::GPdu { .. } => MessageType::G_PDU,
        }
    }

    /// Length of the body in octets.
    pub fn body_len(&self) -> usize {
        match self {
            Message::EchoRequest | Message::EndMarker => 0,
            Message::EchoResponse { .. } => 2,
            Message::ErrorIndication { peer_address, .. } => 5 + ie::peer_address_len(peer_address),
            Message::GPdu { t_pdu } => t_pdu.len(),
        }
    }
}

/// A whole GTP-U message: header fields and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GtpuRepr<'a> {
    /// Tunnel Endpoint Identifier (0 for Echo and Error Indication).
    pub teid: Teid,
    /// Sequence number; `Some` sets the S flag (which Echo and Error Indication need, §5.1).
    pub sequence_number: Option<u16>,
    /// N-PDU number; `Some` sets the PN flag.
    pub npdu_number: Option<u8>,
    /// PDU Session Container extension header.
    pub pdu_session_container: Option<PduSessionContainer>,
    /// UDP Port extension header (Error Indication, §7.3.1).
    pub udp_port: Option<u16>,
    /// The body.
    pub message: Message<'a>,
}

impl<'a> GtpuRepr<'a> {
    /// Decodes a checked message. Offsets in errors count from the start of the message.
    pub fn parse(packet: &GtpuPacket<&'a [u8]>) -> Result<Self, ParseError> {
        let header = GtpuHeaderRepr::parse(packet);
        let body = packet.payload_slice();
        let base = packet.header_len();
        let message_type = packet.message_type();
        let message = match message_type {
            MessageType::G_PDU => Message::GPdu { t_pdu: body },
            MessageType::ECHO_REQUEST => {
                walk(body, base)?;
                Message::EchoRequest
            }
            MessageType::END_MARKER => {
                walk(body, base)?;
                Message::EndMarker
            }
            MessageType::ECHO_RESPONSE => {
                let mut recovery = None;
                for ie in InformationElements::new(body, base) {
                    let ie = ie?;
                    if ie.ie_type == ie::IE_RECOVERY && recovery.is_none() {
                        recovery = ie.value.first().copied();
                    }
                }
                let Some(recovery) = recovery else {
                    return Err(missing(message_type, ie::IE_RECOVERY));
                };
                Message::EchoResponse { recovery }
            }
            MessageType::ERROR_INDICATION => {
                let (mut teid, mut peer) = (None, None);
                for ie in InformationElements::new(body, base) {
                    let ie = ie?;
                    match ie.ie_type {
                        ie::IE_TEID_DATA_I if teid.is_none() => {
                            let v = ie.value;
                            teid = Some(Teid(u32::from_be_bytes([v[0], v[1], v[2], v[3]])));
                        }
                        ie::IE_GTPU_PEER_ADDRESS if peer.is_none() => {
                            peer = Some(ie::parse_peer_address(&ie)?);
                        }
                        _ => {}
                    }
                }
                let Some(teid_data_i) = teid else {
                    return Err(missing(message_type, ie::IE_TEID_DATA_I));
                };
                let Some(peer_address) = peer else {
                    return Err(missing(message_type, ie::IE_GTPU_PEER_ADDRESS));
                };
                Message::ErrorIndication {
                    teid_data_i,
                    peer_address,
                }
            }
            other => {
                return Err(ParseError::UnsupportedMessageType {
                    offset: crate::header::field::MESSAGE_TYPE,
                    message_type: other.0,
                });
            }
        };
        Ok(GtpuRepr {
            teid: header.teid,
            sequence_number: header.sequence_number,
            npdu_number: header.npdu_number,
            pdu_session_container: header.pdu_session_container,
            udp_port: header.udp_port,
            message,
        })
    }

    /// Checks and decodes a message from bytes.
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Self, ParseError> {
        GtpuRepr::parse(&GtpuPacket::new_checked(bytes)?)
    }

    /// The header fields.
    pub fn header(&self) -> GtpuHeaderRepr {
        GtpuHeaderRepr {
            message_type: self.message.message_type(),
            teid: self.teid,
            sequence_number: self.sequence_number,
            npdu_number: self.npdu_number,
            pdu_session_container: self.pdu_session_container,
            udp_port: self.udp_port,
        }
    }

    /// Bytes [`emit`](Self::emit) writes.
    pub fn buffer_len(&self) -> usize {
        self.header().buffer_len() + self.message.body_len()
    }

    /// Writes the message into the start of `buf` (a G-PDU's T-PDU is copied; the
    /// encapsulation path of [`crate::Encapsulator`] avoids that copy).
    pub fn emit(&self, buf: &mut [u8]) -> Result<(), EmitError> {
        let header = self.header();
        let header_len = header.buffer_len();
        let body_len = self.message.body_len();
        let needed = header_len + body_len;
        if buf.len() < needed {
            return Err(EmitError::BufferTooSmall {
                needed,
                available: buf.len(),
            });
        }
        header.emit(buf, body_len)?;
        let body = &mut buf[header_len..needed];
        let mut w = IeWriter::new(body);
        match &self.message {
            Message::EchoRequest | Message::EndMarker => {}
            Message::EchoResponse { recovery } => w.tv(ie::IE_RECOVERY, &[*recovery])?,
            Message::ErrorIndication {
                teid_data_i,
                peer_address,
            } => {
                w.tv(ie::IE_TEID_DATA_I, &teid_data_i.0.to_be_bytes())?;
                ie::emit_peer_address(&mut w, peer_address)?;
            }
            Message::GPdu { t_pdu } => body.copy_from_slice(t_pdu),
        }
        Ok(())
    }
}

/// Walks the IEs of a body whose IEs are all optional, so that malformed ones are reported.
fn walk(body: &[u8], base: usize) -> Result<(), ParseError> {
    InformationElements::new(body, base).try_for_each(|ie| ie.map(|_| ()))
}

fn missing(message_type: MessageType, ie_type: u8) -> ParseError {
    ParseError::MissingInformationElement {
        message_type: message_type.0,
        ie_type,
    }
}
