//! Message types (TS 29.244 §7.3, Table 7.3-1).

use core::fmt;

/// A message type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MessageType(pub u8);

macro_rules! message_types {
    ($( $c:ident = $v:expr, $name:expr; )*) => {
        impl MessageType {
            $( #[doc = concat!($name, " (", stringify!($v), ").")] pub const $c: MessageType = MessageType($v); )*

            /// The spec name, or `None` for a value the table does not list.
            pub fn name(self) -> Option<&'static str> {
                Some(match self.0 {
                    $( $v => $name, )*
                    _ => return None,
                })
            }
        }
    };
}

message_types! {
    HEARTBEAT_REQUEST = 1, "Heartbeat Request";
    HEARTBEAT_RESPONSE = 2, "Heartbeat Response";
    PFD_MANAGEMENT_REQUEST = 3, "PFD Management Request";
    PFD_MANAGEMENT_RESPONSE = 4, "PFD Management Response";
    ASSOCIATION_SETUP_REQUEST = 5, "Association Setup Request";
    ASSOCIATION_SETUP_RESPONSE = 6, "Association Setup Response";
    ASSOCIATION_UPDATE_REQUEST = 7, "Association Update Request";
    ASSOCIATION_UPDATE_RESPONSE = 8, "Association Update Response";
    ASSOCIATION_RELEASE_REQUEST = 9, "Association Release Request";
    ASSOCIATION_RELEASE_RESPONSE = 10, "Association Release Response";
    VERSION_NOT_SUPPORTED_RESPONSE = 11, "Version Not Supported Response";
    NODE_REPORT_REQUEST = 12, "Node Report Request";
    NODE_REPORT_RESPONSE = 13, "Node Report Response";
    SESSION_SET_DELETION_REQUEST = 14, "Session Set Deletion Request";
    SESSION_SET_DELETION_RESPONSE = 15, "Session Set Deletion Response";
    SESSION_SET_MODIFICATION_REQUEST = 16, "Session Set Modification Request";
    SESSION_SET_MODIFICATION_RESPONSE = 17, "Session Set Modification Response";
    SESSION_ESTABLISHMENT_REQUEST = 50, "Session Establishment Request";
    SESSION_ESTABLISHMENT_RESPONSE = 51, "Session Establishment Response";
    SESSION_MODIFICATION_REQUEST = 52, "Session Modification Request";
    SESSION_MODIFICATION_RESPONSE = 53, "Session Modification Response";
    SESSION_DELETION_REQUEST = 54, "Session Deletion Request";
    SESSION_DELETION_RESPONSE = 55, "Session Deletion Response";
    SESSION_REPORT_REQUEST = 56, "Session Report Request";
    SESSION_REPORT_RESPONSE = 57, "Session Report Response";
}

impl MessageType {
    /// Session-related messages (50..=99) carry a SEID in their header; node-related ones do not.
    pub const fn is_session_message(self) -> bool {
        self.0 >= 50 && self.0 <= 99
    }

    /// Whether the type is a request of Table 7.3-1 (the parity differs across the table: 1..=9
    /// odd, 12..=16 and 50..=56 even). Types the table does not list are not requests.
    pub const fn is_request(self) -> bool {
        matches!(self.0, 1 | 3 | 5 | 7 | 9 | 12 | 14 | 16 | 50 | 52 | 54 | 56)
    }

    /// The response type that answers this request type (`None` for a response type).
    pub const fn response(self) -> Option<MessageType> {
        if self.is_request() {
            Some(MessageType(self.0 + 1))
        } else {
            None
        }
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None => write!(f, "message type {}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::MessageType;

    #[test]
    fn requests_and_their_responses_follow_the_table() {
        let mut requests = 0;
        for t in (0..=255).map(MessageType) {
            let Some(name) = t.name() else { continue };
            assert_eq!(t.is_request(), name.ends_with("Request"), "{t}");
            if let Some(r) = t.response() {
                requests += 1;
                let expected = name.replace("Request", "Response");
                assert_eq!(r.name(), Some(expected.as_str()), "{t}");
            }
        }
        assert_eq!(requests, 12);
    }
}
