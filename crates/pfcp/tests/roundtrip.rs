//! Round trips: typed value → bytes → typed value, for every IE layout and every message; and
//! decoding arbitrary bytes never panics and, when it succeeds, is stable under re-encoding.

mod common;

use common::message_strategies as msgs;
use common::strategies as s;
use proptest::prelude::*;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::{Datagram, Header, Message, Seid, SequenceNumber, TypedIe};

fn ie_roundtrip<T: TypedIe + PartialEq + std::fmt::Debug>(v: &T) {
    let bytes = v.to_ie_bytes().unwrap();
    assert_eq!(bytes.len(), 4 + v.value_len());
    assert_eq!(&T::from_ie_bytes(&bytes).unwrap(), v);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn message_roundtrip(m in msgs::message()) {
        let bytes = m.to_vec().unwrap();
        prop_assert_eq!(bytes.len(), m.buffer_len());
        let back = Message::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &m);
        // Encoding is canonical: the bytes come back too.
        prop_assert_eq!(back.to_vec().unwrap(), bytes);
    }

    #[test]
    fn sequence_and_seid_rewritten_in_place(m in msgs::message(), seq in 0u32..=0xff_ffff, seid in any::<u64>()) {
        let mut bytes = m.to_vec().unwrap();
        let seq = SequenceNumber::new(seq).unwrap();
        let mut h = Header::new_checked(&mut bytes[..]).unwrap();
        h.set_sequence(seq);
        h.set_seid(Seid(seid));
        let back = Message::parse(&bytes).unwrap();
        let mut expected = m.clone();
        expected.sequence = seq;
        expected.seid = m.seid.map(|_| Seid(seid));
        prop_assert_eq!(back, expected);
    }

    #[test]
    fn emit_into_exact_and_short_buffers(m in msgs::message()) {
        let n = m.buffer_len();
        let mut buf = vec![0u8; n];
        prop_assert_eq!(m.emit(&mut buf).unwrap(), n);
        let mut short = vec![0u8; n - 1];
        prop_assert!(m.emit(&mut short).is_err());
    }

    #[test]
    fn datagram_of_several_messages(ms in proptest::collection::vec(msgs::message(), 1..4)) {
        let mut bytes = Vec::new();
        let last = ms.len() - 1;
        for (i, m) in ms.iter().enumerate() {
            let mut m = m.clone();
            m.follow_on = i != last;
            m.emit_to_vec(&mut bytes).unwrap();
        }
        let back: Vec<Message> = Datagram::new(&bytes).map(Result::unwrap).collect();
        prop_assert_eq!(back.len(), ms.len());
        for (b, m) in back.iter().zip(&ms) {
            prop_assert_eq!(&b.body, &m.body);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_decode_stably(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(m) = Message::parse(&bytes) {
            let again = Message::parse(&m.to_vec().unwrap()).unwrap();
            prop_assert_eq!(again, m);
        }
        for r in Datagram::new(&bytes) {
            let _ = r;
        }
    }

    #[test]
    fn mutated_messages_never_panic_and_decode_stably(
        m in msgs::message(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = m.to_vec().unwrap();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        let cut = cut.index(bytes.len() + 1);
        for input in [&bytes[..], &bytes[..cut]] {
            if let Ok(m) = Message::parse(input) {
                let again = Message::parse(&m.to_vec().unwrap()).unwrap();
                prop_assert_eq!(again, m);
            }
        }
    }
}

macro_rules! ie_roundtrips {
    ($($name:ident => $strategy:expr,)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            $(
                #[test]
                fn $name(v in $strategy) {
                    ie_roundtrip(&v);
                }
            )*
        }
    };
}

ie_roundtrips! {
    node_id => s::node_id(),
    f_seid => s::fseid(),
    f_teid => s::fteid(),
    ue_ip_address => s::ue_ip_address(),
    sdf_filter => s::sdf_filter(),
    bit_rate => s::bit_rate(),
    gate_status => s::gate_status(),
    outer_header_removal => s::outer_header_removal(),
    outer_header_creation => s::outer_header_creation(),
    volume => s::volume(),
    volume_measurement => s::volume_measurement(),
    apply_action => s::apply_action(),
    up_function_features => s::up_function_features(),
    cp_function_features => s::cp_function_features(),
    reporting_triggers => s::reporting_triggers(),
    usage_report_trigger => s::usage_report_trigger(),
    measurement_method => s::measurement_method(),
    report_type => s::report_type(),
    usage_information => s::usage_information(),
    pfcpsm_req_flags => s::pfcpsm_req_flags(),
    qfi => s::qfi(),
    dns_name => s::dns_name(),
    pdi => s::pdi(),
    create_pdr => s::create_pdr(),
    update_pdr => s::update_pdr(),
    created_pdr => s::created_pdr(),
    forwarding_parameters => s::forwarding_parameters(),
    update_forwarding_parameters => s::update_forwarding_parameters(),
    create_far => s::create_far(),
    update_far => s::update_far(),
    rqi => s::rqi(),
    paging_policy_indicator => s::paging_policy_indicator(),
    qer_correlation_id => s::qer_correlation_id(),
    create_qer => s::create_qer(),
    update_qer => s::update_qer(),
    create_urr => s::create_urr(),
    update_urr => s::update_urr(),
    failed_rule_id => s::failed_rule_id(),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// A flow description prints to its canonical text, which parses back to it and prints the
    /// same again; through an SDF Filter's octets too.
    #[test]
    fn flow_description_prints_and_parses_back(f in s::flow_description()) {
        let text = f.to_string();
        let back: FlowDescription = text.parse().unwrap();
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(back.to_string(), text);
        let sdf = SdfFilter::from_flow(&f);
        prop_assert_eq!(SdfFilter::from_ie_bytes(&sdf.to_ie_bytes().unwrap()).unwrap().parse_flow(), Some(Ok(f)));
    }

    /// Any text: the parser never panics, an error points inside the text, and what parses
    /// prints to a text that parses to the same value.
    #[test]
    fn any_text_parses_or_fails_inside_it(text in "(permit|deny|[a-z!0-9:./,-]{0,12})( +[a-z!0-9:./,-]{0,12}){0,9} *") {
        match text.parse::<FlowDescription>() {
            Ok(f) => prop_assert_eq!(f.to_string().parse::<FlowDescription>().unwrap(), f),
            Err(e) => prop_assert!(e.offset <= text.len(), "{e}"),
        }
    }
}

proptest! {
    #[test]
    fn dns_name_dotted_form_roundtrips(dn in s::dns_name()) {
        prop_assert_eq!(DnsName::from_dotted(&dn.to_dotted().unwrap()).unwrap(), dn);
    }
}
