//! Parse any bytes as an SDF Filter's Flow Description (TS 29.244 §8.2.5), and the Flow
//! Description of every SDF Filter of any bytes that decode as a PFCP message: a parse error
//! points inside the text; what parses prints to a canonical text that parses back to the same
//! value and prints the same again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use upfbench_pfcp::ie::{FlowDescription, Pdi};
use upfbench_pfcp::{Message, MessageBody};

fn check(bytes: &[u8]) {
    match FlowDescription::from_bytes(bytes) {
        Ok(flow) => {
            let text = flow.to_string();
            let again: FlowDescription = text.parse().expect("a printed flow must parse");
            assert_eq!(again, flow);
            assert_eq!(again.to_string(), text);
        }
        Err(e) => assert!(e.offset <= bytes.len(), "{e} past {} bytes", bytes.len()),
    }
}

fn check_pdi(pdi: &Pdi) {
    for f in &pdi.sdf_filters {
        if let Some(d) = &f.flow_description {
            check(d);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    let Ok(msg) = Message::parse(data) else {
        return;
    };
    match &msg.body {
        MessageBody::SessionEstablishmentRequest(r) => {
            r.create_pdrs.iter().for_each(|p| check_pdi(&p.pdi));
        }
        MessageBody::SessionModificationRequest(r) => {
            r.create_pdrs.iter().for_each(|p| check_pdi(&p.pdi));
            r.update_pdrs
                .iter()
                .filter_map(|p| p.pdi.as_ref())
                .for_each(check_pdi);
        }
        _ => {}
    }
});
