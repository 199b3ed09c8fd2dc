//! The two PFCP sides a test runs in its own process: the generator's session plans, the
//! reflector's UPF side and the generator's client, on loopback addresses of the test's own.

#![allow(dead_code)]

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use upfbench_config as config;
use upfbench_n4::client_side::ClientSide;
use upfbench_pfcp::plan::UeSessionPlan;
use upfbench_pfcp::{Seid, Teid};
use upfbench_reflector::datapath::qer::{QerBook, QerPolicy};
use upfbench_reflector::upf_side::UpfSide;

/// `count` UEs' session plans as a run makes them, with `cp` as our N4 address (the F-SEID's)
/// and `up` the UPF's, for a profile of one `direction` stream.
pub(crate) fn session_plans(
    cp: Ipv4Addr,
    up: Ipv4Addr,
    count: u32,
    direction: &str,
) -> Vec<UeSessionPlan> {
    let system = config::system_from_str(
        &format!(
            "n3: {{device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}}\n\
             n6: {{device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n\
             pfcp: {{local: {cp}, peer: {up}}}\n"
        ),
        "system.yaml",
    )
    .expect("system");
    let profile = config::profile_from_str(
        &format!(
            "name: p\nsessions: {{count: {count}}}\n\
             streams: [{{name: s, direction: {direction}, rate: 1kpps, payload: 100}}]\n\
             duration: 1s\n"
        ),
        "profile.yaml",
    )
    .expect("profile");
    let plan = upfbench_run::plan::build(&system, &profile, None, [None, None]).unwrap();
    upfbench_run::plan::sessions::session_plans(&system, &profile, &plan.ues).unwrap()
}

/// The reflector's UPF side on `up:port` for the CP function `cp`: no heartbeats, no limit,
/// no impairment (a test sets what it needs with `..`).
pub(crate) fn upf_side(up: Ipv4Addr, port: u16, cp: Ipv4Addr) -> UpfSide {
    UpfSide {
        local: SocketAddr::new(up.into(), port),
        peer: IpAddr::V4(cp),
        n3: Ipv4Addr::new(192, 168, 13, 151).into(),
        first_teid: Teid(0x1000_0000),
        first_seid: Seid(1),
        heartbeat: None,
        network_instances: Vec::new(),
        faults: Default::default(),
        max_sessions: None,
        far_update_delay: None,
        tsc_hz: 1_000_000_000,
        qer: QerPolicy::new(1_000_000_000),
        qers: QerBook::default(),
    }
}

/// The generator's client from `cp` (any port) to `up:port`: T1 1 s, N1 3, windows 16 to 64,
/// no heartbeats, no wait for the release's answer.
pub(crate) fn client_side(cp: Ipv4Addr, up: Ipv4Addr, port: u16) -> ClientSide {
    ClientSide {
        local: SocketAddr::new(cp.into(), 0),
        peer: SocketAddr::new(up.into(), port),
        t1: Duration::from_secs(1),
        n1: 3,
        heartbeat: None,
        initial_window: 16,
        window: 64,
        release_wait: Duration::ZERO,
    }
}
