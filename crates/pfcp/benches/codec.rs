//! Encode and decode of the reference Session Establishment Request (testdata/pfcp.json).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use upfbench_pfcp::{Header, Message};

fn request_bytes() -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_str(include_str!("../testdata/pfcp.json")).unwrap();
    let v = v["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "session_establishment_request")
        .unwrap()
        .clone();
    let h = v["hex"].as_str().unwrap();
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

fn bench(c: &mut Criterion) {
    let bytes = request_bytes();
    let msg = Message::parse(&bytes).unwrap();
    let mut g = c.benchmark_group("session_establishment_request");
    g.bench_function("decode", |b| {
        b.iter(|| Message::parse(black_box(&bytes)).unwrap())
    });
    let mut buf = vec![0u8; msg.buffer_len()];
    g.bench_function("encode", |b| {
        b.iter(|| black_box(&msg).emit(&mut buf).unwrap())
    });
    g.bench_function("encode_to_vec", |b| {
        b.iter(|| black_box(&msg).to_vec().unwrap())
    });
    g.bench_function("walk_tlv_zero_copy", |b| {
        b.iter(|| {
            let h = Header::new_checked(black_box(&bytes[..])).unwrap();
            let mut n = 0usize;
            for ie in h.ies() {
                let ie = ie.unwrap();
                for child in ie.children() {
                    n += child.map(|c| c.value().len()).unwrap_or(0);
                }
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
