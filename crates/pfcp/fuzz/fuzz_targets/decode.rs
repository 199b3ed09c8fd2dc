//! Decode any bytes as a PFCP datagram; what decodes must encode and decode to the same value,
//! and encode to the same bytes again (canonical form).
#![no_main]

use libfuzzer_sys::fuzz_target;
use upfbench_pfcp::{Datagram, Header, Message};

fuzz_target!(|data: &[u8]| {
    if let Ok(msg) = Message::parse(data) {
        let bytes = msg.to_vec().expect("a decoded message must encode");
        assert_eq!(bytes.len(), msg.buffer_len());
        let again = Message::parse(&bytes).expect("an encoded message must decode");
        assert_eq!(again, msg);
        assert_eq!(again.to_vec().unwrap(), bytes);
    }
    for msg in Datagram::new(data).flatten() {
        let again = Message::parse(&msg.to_vec().unwrap()).unwrap();
        assert_eq!(again.body, msg.body);
    }
    // The zero-copy layer alone: walk every IE and every grouped IE's children.
    if let Ok(h) = Header::new_checked(data) {
        for ie in h.ies().flatten() {
            for child in ie.children().flatten() {
                let _ = child.children().count();
            }
        }
    }
});
