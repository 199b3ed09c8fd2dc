//! What a rule change costs the reflector's control thread as its table grows: a session
//! installed and one removed in the rules mirror, then the table published (a new snapshot
//! that shares every untouched shard with the last one, and the last one dropped), at 1,000,
//! 100,000 and 1,000,000 sessions. Criterion's "time" is per round (two changes and a
//! publication). Before 2026-11-26 every publication rebuilt the whole table, so this grew with
//! the table; sharded with the shard pointers in one list it was 4.2 / 20.6 / 115 us; with
//! shards of up to 1,024 in pages, 2.4 / 10.2 / 13.9 us; shards of up to 128 in pages, 0.93 /
//! 3.2 / 11.5 us; shards of up to 128 under a tree of fanout 32, 0.78 / 3.6 / 8.9 us (quiet
//! 2-vCPU VM): at 1,000,000 a round still copies four shards and four paths from memory the
//! caches no longer hold.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions.

use std::hint::black_box;
use std::net::Ipv4Addr;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use upfbench_pfcp::ie::Fseid;
use upfbench_pfcp::node::{DownlinkRule, RuleChange, SessionRules, Tunnel, UplinkRule};
use upfbench_pfcp::{PdrId, Precedence, Seid, Teid};
use upfbench_reflector::datapath::rules::RulesMirror;

const GNB: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);

/// Session `i` as the reflector installs it: uplink TEID 2i+1, downlink to UE i through TEID
/// 2i+2.
fn session(i: u32) -> SessionRules {
    let seid = Seid(u64::from(i) + 1);
    let ue = Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 64, 0, 2)) + i);
    SessionRules {
        up_seid: seid,
        cp_f_seid: Fseid {
            seid,
            ipv4: Some(Ipv4Addr::new(192, 168, 14, 111)),
            ipv6: None,
        },
        uplink: vec![UplinkRule {
            up_seid: seid,
            pdr_id: PdrId(1),
            precedence: Precedence(100),
            teid: Teid(2 * i + 1),
            address: Ipv4Addr::new(192, 168, 13, 151).into(),
            ue_address: Some(ue),
            qfi: None,
            sdf_filters: Vec::new(),
            qer: None,
            remove_outer_header: true,
            forward: true,
        }],
        downlink: vec![DownlinkRule {
            up_seid: seid,
            pdr_id: PdrId(2),
            precedence: Precedence(100),
            ue_address: Some(ue),
            ue_prefix: None,
            sdf_filters: Vec::new(),
            tunnel: Some(Tunnel {
                teid: Teid(2 * i + 2),
                address: GNB.into(),
            }),
            qfi: None,
            qer: None,
            forward: true,
        }],
        qers: Vec::new(),
    }
}

fn rule_change(c: &mut Criterion) {
    let mut g = c.benchmark_group("reflector_rule_change");
    g.throughput(Throughput::Elements(2));
    for sessions in [1_000u32, 100_000, 1_000_000] {
        let mut mirror = RulesMirror::default();
        for i in 0..sessions {
            mirror.apply(&RuleChange::Installed(session(i)));
        }
        let mut published = mirror.snapshot().expect("a table");
        // Each round installs the next session and removes the oldest: the table keeps its
        // size; the changes are prepared outside the timing.
        let mut next = sessions;
        g.bench_function(format!("{sessions}_sessions"), |b| {
            b.iter_batched(
                || {
                    let add = RuleChange::Installed(session(next));
                    let remove = RuleChange::Removed(session(next - sessions));
                    next += 1;
                    (add, remove)
                },
                |(add, remove)| {
                    mirror.apply(&add);
                    mirror.apply(&remove);
                    let table = mirror.snapshot().expect("a change");
                    // The last table is dropped here, as the publisher drops it.
                    black_box(std::mem::replace(&mut published, table));
                },
                BatchSize::SmallInput,
            );
        });
    }
    g.finish();
}

criterion_group!(benches, rule_change);
criterion_main!(benches);
