//! Drive an associated client and UPF side (a few sessions established) with arbitrary
//! datagrams, mutated copies of real requests and responses (every session request of the run
//! is among them, so mutations start past the header and the association), timer jumps and UPF
//! restarts, path switches and QER gates closed and opened: nothing may panic, and the UPF
//! side's lookups must stay consistent with its sessions.
#![no_main]

use std::collections::HashSet;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use upfbench_pfcp::ie::{DnsName, GateStatus, NodeId, NtpTimestamp};
use upfbench_pfcp::node::{Client, ClientConfig, Upf, UpfConfig};
use upfbench_pfcp::plan::{
    QerPlan, SessionTemplate, UeSession, UeSessionPlan, UplinkTeid, gate_request,
};
use upfbench_pfcp::{QerId, Qfi, Seid, Teid};

const CP: Ipv4Addr = Ipv4Addr::new(192, 168, 14, 111);
const UP: Ipv4Addr = Ipv4Addr::new(192, 168, 14, 151);

fn plan(i: u32) -> UeSessionPlan {
    let template = SessionTemplate {
        node_id: NodeId::Ipv4(CP),
        cp_address: CP.into(),
        upf_n3_address: Ipv4Addr::new(192, 168, 13, 151).into(),
        gnb_n3_address: Ipv4Addr::new(192, 168, 13, 131).into(),
        network_instance: DnsName::from_dotted("internet").unwrap(),
        dnn: None,
        uplink_qfi: None,
        uplink_sdf_filter: None,
        interface_types: false,
        qer: Some(QerPlan { qfi: Qfi::new(9).unwrap(), mbr: None, gbr: None }),
        urr: None,
        flows: Vec::new(),
        qers: Vec::new(),
    };
    let ue = UeSession {
        cp_seid: Seid(u64::from(i) + 1),
        ue_address: Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 45, 0, 2)) + i).into(),
        ue_ipv6: None,
        uplink_teid: if i % 2 == 0 { UplinkTeid::Assigned(Teid(2 * i + 1)) } else { UplinkTeid::ChosenByUpf },
        downlink_teid: Teid(2 * i + 2),
    };
    UeSessionPlan::new(Arc::new(template), ue)
}

struct World {
    now: Instant,
    client: Client,
    upf: Upf,
    /// Everything either side sent, to mutate and replay.
    seen: Vec<(bool, Vec<u8>)>,
}

impl World {
    fn cp() -> SocketAddr {
        SocketAddr::new(CP.into(), 8805)
    }
    fn up() -> SocketAddr {
        SocketAddr::new(UP.into(), 8805)
    }

    fn settle(&mut self) {
        for _ in 0..64 {
            let mut moved = false;
            while let Some(t) = self.client.poll_transmit() {
                self.upf.handle_datagram(self.now, Self::cp(), &t.contents);
                if self.seen.len() < 256 {
                    self.seen.push((true, t.contents));
                }
                moved = true;
            }
            while let Some(t) = self.upf.poll_transmit() {
                self.client.handle_datagram(self.now, Self::up(), &t.contents);
                if self.seen.len() < 256 {
                    self.seen.push((false, t.contents));
                }
                moved = true;
            }
            while self.client.poll_event().is_some() {}
            while self.upf.poll_event().is_some() {}
            if !moved {
                break;
            }
        }
    }

    fn check(&self) {
        let rules = self.upf.rules();
        let (mut teids, mut ues) = (HashSet::new(), HashSet::new());
        for s in rules.sessions() {
            for u in &s.uplink {
                assert_eq!(rules.uplink(u.teid).unwrap().up_seid, s.up_seid);
                teids.insert(u.teid);
            }
            for d in &s.downlink {
                if let Some(ue) = d.ue_address {
                    assert_eq!(rules.downlink(ue).unwrap().up_seid, s.up_seid);
                    ues.insert(ue);
                }
            }
        }
        assert_eq!(teids.len(), rules.uplink_count());
        assert_eq!(ues.len(), rules.downlink_count());
        assert!(self.client.in_flight() <= self.client.config().window);
    }
}

fuzz_target!(|data: &[u8]| {
    let now = Instant::now();
    let mut cc = ClientConfig::new(CP, NtpTimestamp(1), World::up());
    cc.window = 2;
    let mut w = World {
        now,
        client: Client::new(cc),
        upf: Upf::new(UpfConfig::new(UP, Ipv4Addr::new(192, 168, 13, 151), NtpTimestamp(2), CP.into())),
        seen: Vec::new(),
    };
    w.client.associate(now).unwrap();
    w.settle();
    for i in 0..3 {
        w.client.establish(now, &plan(i)).unwrap();
    }
    w.settle();
    let mut data = data;
    while data.len() >= 3 {
        let (op, a, b) = (data[0], data[1], data[2]);
        data = &data[3..];
        w.now += Duration::from_millis(u64::from(op >> 4) * 500);
        match op & 0x0f {
            // Raw bytes to either side.
            0 | 1 => {
                let n = usize::from(a).min(data.len());
                let (payload, rest) = data.split_at(n);
                data = rest;
                if op & 1 == 0 {
                    w.upf.handle_datagram(w.now, World::cp(), payload);
                } else {
                    w.client.handle_datagram(w.now, World::up(), payload);
                }
            }
            // A seen datagram, one byte changed, replayed to its receiver.
            2 | 3 => {
                if !w.seen.is_empty() {
                    let (to_upf, mut bytes) = w.seen[usize::from(a) % w.seen.len()].clone();
                    let at = usize::from(b) % bytes.len().max(1);
                    if let (Some(x), Some(&v)) = (bytes.get_mut(at), data.first()) {
                        *x ^= v;
                    }
                    data = data.get(1..).unwrap_or_default();
                    if to_upf {
                        w.upf.handle_datagram(w.now, World::cp(), &bytes);
                    } else {
                        w.client.handle_datagram(w.now, World::up(), &bytes);
                    }
                }
            }
            // A seen datagram replayed as is (a duplicate).
            4 => {
                if !w.seen.is_empty() {
                    let (to_upf, bytes) = w.seen[usize::from(a) % w.seen.len()].clone();
                    if to_upf {
                        w.upf.handle_datagram(w.now, World::cp(), &bytes);
                    } else {
                        w.client.handle_datagram(w.now, World::up(), &bytes);
                    }
                }
            }
            // Client commands.
            5 => {
                let _ = w.client.establish(w.now, &plan(u32::from(a % 8)));
            }
            6 => {
                let p = plan(u32::from(a % 8));
                // A handover's path switch, or the QER's gates set (closed or opened again).
                let request = if b % 4 == 0 {
                    let gate = if a % 2 == 0 { GateStatus::CLOSED } else { GateStatus::OPEN };
                    gate_request([QerId(u32::from(b % 3))], gate)
                } else {
                    p.path_switch_request(Teid(u32::from(b)), Ipv4Addr::new(10, 0, 0, b).into(), a % 2 == 0)
                };
                let _ = w.client.modify(w.now, p.cp_seid(), request);
            }
            7 => {
                let _ = w.client.delete(w.now, Seid(u64::from(a % 8) + 1));
            }
            8 => {
                let _ = w.client.release(w.now);
            }
            9 => {
                let _ = w.client.associate(w.now);
            }
            // The UPF restarts: everything it held is gone, its Recovery Time Stamp is new.
            10 => {
                w.upf.restart(NtpTimestamp(3 + u32::from(a)));
            }
            // Timers.
            _ => {
                w.client.handle_timeout(w.now);
                w.upf.handle_timeout(w.now);
            }
        }
        w.settle();
        w.check();
    }
});
