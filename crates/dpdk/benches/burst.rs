//! Cost of the burst path of the binding, per burst of 32: bulk allocation, writing a 64-byte
//! frame into each mbuf (or taking it prefilled from a template pool and patching 8 bytes), and
//! either a bulk free or a `tx_burst` to a `net_null` port (which frees).
//!
//! EAL initialises once per process, on the thread that becomes the main lcore: this bench has its
//! own `main` (harness = false) that initialises EAL (the test kit's, `--no-huge`) before running
//! criterion there.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, Throughput};
use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, MbufBurst, Mempool, Port, PortConfig, Socket, TemplatePool,
};
use upfbench_testkit::eal::EalSetup;

const BURST: usize = 32;
const FRAME: [u8; 64] = [0x5a; 64];

fn main() {
    let eal = EalSetup::new("dpdk-bench")
        .vdev("net_null0")
        .init()
        .expect("EAL (the benchmark needs root and DPDK 22.11)");
    let pool =
        Mempool::new(&eal, "bench", 8191, 256, DEFAULT_DATA_ROOM, Socket::Any).expect("pool");
    let template = TemplatePool::new(&eal, "bench_tmpl", 8191, 256, &FRAME, 42..50, Socket::Any)
        .expect("pool");
    let mut port = Port::from_name(&eal, "net_null0").expect("net_null0");
    let started = port.start(&PortConfig::default(), &pool).expect("start");
    let mut queues = started.queues().expect("queues");
    let txq = &mut queues.tx[0];

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("burst32");
    group.throughput(Throughput::Elements(BURST as u64));
    let mut burst = MbufBurst::<BURST>::new();
    group.bench_function("alloc_bulk_free_bulk", |b| {
        b.iter(|| {
            black_box(burst.fill(&pool).expect("pool"));
            burst.clear();
        })
    });
    group.bench_function("alloc_write64_free_bulk", |b| {
        b.iter(|| {
            for m in burst.fill(&pool).expect("pool") {
                m.extend_from_slice(black_box(&FRAME)).expect("fits");
            }
            burst.clear();
        })
    });
    group.bench_function("fill_with_write64_free_bulk", |b| {
        b.iter(|| {
            let filled = burst.fill_with(&pool, |m| {
                m.extend_from_slice(black_box(&FRAME)).expect("fits");
            });
            filled.expect("pool");
            burst.clear();
        })
    });
    group.bench_function("alloc_write64_tx_net_null", |b| {
        b.iter(|| {
            for m in burst.fill(&pool).expect("pool") {
                m.extend_from_slice(black_box(&FRAME)).expect("fits");
            }
            txq.tx_burst(&mut burst);
        })
    });
    let mut seq = 0u64;
    group.bench_function("template_fill_patch8_free_bulk", |b| {
        b.iter(|| {
            let filled = template.fill(&mut burst, |p| {
                p.copy_from_slice(&seq.to_be_bytes());
                seq += 1;
            });
            filled.expect("pool");
            burst.clear();
        })
    });
    group.bench_function("template_fill_patch8_tx_net_null", |b| {
        b.iter(|| {
            let filled = template.fill(&mut burst, |p| {
                p.copy_from_slice(&seq.to_be_bytes());
                seq += 1;
            });
            filled.expect("pool");
            txq.tx_burst(&mut burst);
        })
    });
    group.finish();
    c.final_summary();
    drop(burst);
    drop(queues);
    drop(started);
    drop(port);
    drop(eal);
}
