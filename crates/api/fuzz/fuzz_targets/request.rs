//! `v1::parse` on arbitrary requests: never panics, and every problem is one of the table's,
//! with its status, and `Allow` only on a 405.
#![no_main]

use libfuzzer_sys::fuzz_target;
use upfbench_api::ProblemKind;
use upfbench_api::v1::parse;

const METHODS: [&str; 6] = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"];

fuzz_target!(|data: &[u8]| {
    // The first byte picks the method; the rest is path, content type and body, cut at the
    // first two NULs.
    let Some((&m, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.splitn(3, |&b| b == 0);
    let path = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let content_type = parts.next().map(String::from_utf8_lossy);
    let body = parts.next().unwrap_or_default();
    let method = METHODS[usize::from(m) % METHODS.len()];
    if let Err(p) = parse(method, &path, content_type.as_deref(), body) {
        assert!(ProblemKind::ALL.contains(&p.kind));
        assert_eq!(p.status, p.kind.status());
        assert_eq!(p.allow.is_empty(), p.kind != ProblemKind::MethodNotAllowed);
        let _ = p.to_json();
    }
});
