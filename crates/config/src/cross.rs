//! Checks of a profile against the system file it runs on.

use super::field::{join_index, join_key};
use super::frame::{FrameShape, L1_OVERHEAD};
use super::issues::Issues;
use super::profile::{Profile, TeidAllocation};
use super::system::{Pair, Port, System};
use super::units::Rate;
use upfbench_net::IpFamily;

/// Problems of `profile` on `system`, each on the profile's field (the system's part is named
/// in the message).
pub(crate) fn check_profile_on_system(
    system: &System,
    system_name: &str,
    profile: &Profile,
    issues: &mut Issues,
) {
    let s = &profile.sessions;
    let pairs = system.pairs().len();
    if s.count < pairs as u32 {
        issues.add(
            "sessions.count",
            format!(
                "{} for {pairs} pairs of {system_name}: each pair needs a UE",
                plural(s.count, "session")
            ),
        );
    }
    check_ue_pool(system, system_name, profile, issues);
    if profile.mobility.is_some() {
        check_mobility(system, system_name, profile, issues);
    }
    if s.uplink_teid == TeidAllocation::ChosenByUpf && system.pfcp.is_none() {
        issues.add(
            "sessions.uplink_teid",
            format!("the UPF chooses TEIDs over PFCP, and {system_name} has no `pfcp` section"),
        );
    }
    check_tagged_only(system, system_name, profile, issues);
    check_ipv4_over_ipv6_n6(system, system_name, profile, issues);
    check_mtu(system, system_name, profile, issues);
    check_line_rate(
        system,
        system_name,
        profile,
        s.pdu_session_container,
        issues,
    );
}

fn plural(n: u32, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// How the profile's messages name a field of pair `k` of the system file: `n3` (the short
/// form), `pairs[1].n3`.
fn at(system: &System, k: usize, field: &str) -> String {
    system.pair_place(k).field(field)
}

/// The UE pools must not overlap any pair's N3 or N6 subnet.
fn check_ue_pool(system: &System, system_name: &str, profile: &Profile, issues: &mut Issues) {
    let s = &profile.sessions;
    let pools = [
        (s.has_ipv4(), "sessions.ue_pool", s.ue_pool),
        (s.has_ipv6(), "sessions.ue_pool_v6", s.ue_pool_v6),
    ];
    for (used, field, pool) in pools {
        if !used {
            continue;
        }
        let ports = system
            .pairs()
            .iter()
            .enumerate()
            .flat_map(|(k, p)| [(at(system, k, "n3"), &p.n3), (at(system, k, "n6"), &p.n6)]);
        for (name, port) in ports {
            if pool.overlaps(&port.address) {
                issues.add(
                    field,
                    format!(
                        "{pool} overlaps the {name} subnet {}/{} of {system_name}: UE addresses \
                         must not be on the links",
                        port.address.network(),
                        port.address.len
                    ),
                );
            }
        }
    }
}

/// The handovers' target gNB must be a new address on every pair's N3 subnet (each pair's UEs
/// move to it), and the handovers need PFCP.
fn check_mobility(system: &System, system_name: &str, profile: &Profile, issues: &mut Issues) {
    let Some(m) = &profile.mobility else {
        return;
    };
    let target = std::net::IpAddr::V4(m.target.address);
    for (k, pair) in system.pairs().iter().enumerate() {
        let (n3, name) = (&pair.n3, at(system, k, "n3"));
        if target == n3.address.addr || n3.peer == target {
            issues.add(
                "mobility.target.address",
                format!("{target} is the source gNB or the UPF on {name} of {system_name}"),
            );
        } else if !n3.address.contains(target) {
            issues.add(
                "mobility.target.address",
                format!(
                    "{target} is not on the {name} subnet {}/{} of {system_name}: the UPF finds \
                     the target gNB by ARP there",
                    n3.address.network(),
                    n3.address.len
                ),
            );
        }
    }
    if system.pfcp.is_none() {
        issues.add(
            "mobility",
            format!("handovers are PFCP modifications, and {system_name} has no `pfcp` section"),
        );
    }
}

/// Handovers and session churn are not built for tagged ports yet (their frames are rewritten
/// in place at an untagged frame's offsets): refused before anything starts.
fn check_tagged_only(system: &System, system_name: &str, profile: &Profile, issues: &mut Issues) {
    let Some(port) = system
        .pairs()
        .iter()
        .enumerate()
        .flat_map(|(k, p)| [(at(system, k, "n3"), &p.n3), (at(system, k, "n6"), &p.n6)])
        .find(|(_, p)| p.vlan.is_some())
        .map(|(name, _)| name)
    else {
        return;
    };
    let features = [
        ("mobility", "handovers", profile.mobility.is_some()),
        ("churn", "session churn", profile.churn.is_some()),
    ];
    for (field, what, used) in features {
        if used {
            issues.add(
                field,
                format!(
                    "{what}: not supported on VLAN-tagged ports yet, and {port} of \
                     {system_name} is tagged (`{port}.vlan`): run them on untagged ports"
                ),
            );
        }
    }
}

/// IPv4 UE packets need an IPv4 N6: a UPF routes them to the data network over IPv4, and an
/// IPv6 N6 has no path for them (docs/traffic-shapes.md). Refused at the stream's `family`, or
/// at `sessions.pdn_type` when the stream takes the sessions' family.
fn check_ipv4_over_ipv6_n6(
    system: &System,
    system_name: &str,
    profile: &Profile,
    issues: &mut Issues,
) {
    let Some((k, n6)) = system
        .pairs()
        .iter()
        .map(|p| &p.n6)
        .enumerate()
        .find(|(_, n6)| n6.family() == IpFamily::Ipv6)
    else {
        return;
    };
    let n6_address = at(system, k, "n6.address");
    for (i, st) in profile.streams.iter().enumerate() {
        if profile.stream_family(st) != IpFamily::Ipv4 {
            continue;
        }
        let field = match st.family {
            Some(_) => join_key(&join_index("streams", i), "family"),
            None => "sessions.pdn_type".to_owned(),
        };
        issues.add(
            field,
            format!(
                "stream {}: IPv4 UE packets need an IPv4 N6, and {n6_address} of {system_name} \
                 is IPv6 ({}): a UPF routes them to the data network over IPv4. Give n6 an IPv4 \
                 address, or make the stream IPv6",
                st.name, n6.address.addr
            ),
        );
    }
}

/// Every stream's payload, and every payload of the sweep, must make packets within the MTU of
/// the ports they cross, on every pair (the first pair's problem is reported).
fn check_mtu(system: &System, system_name: &str, profile: &Profile, issues: &mut Issues) {
    let (mut any_ul, mut any_dl) = (false, false);
    for st in &profile.streams {
        any_ul |= st.direction.uplink();
        any_dl |= st.direction.downlink();
    }
    for (i, st) in profile.streams.iter().enumerate() {
        let (ul, dl) = (st.direction.uplink(), st.direction.downlink());
        let problem = (0..system.pairs().len()).find_map(|k| {
            let pair = PairAt::new(system, system_name, k);
            let shape = pair.pair.frame_shape(profile.stream_family(st));
            mtu_problem(&pair, profile, shape, st.payload, ul, dl)
        });
        if let Some(m) = problem {
            issues.add(join_key(&join_index("streams", i), "payload"), m);
        }
    }
    for (i, &p) in profile.sweep.payloads.iter().enumerate() {
        let problem = (0..system.pairs().len()).find_map(|k| {
            let pair = PairAt::new(system, system_name, k);
            // A sweep's payloads in the largest packets any stream makes.
            let widest = profile
                .streams
                .iter()
                .map(|st| pair.pair.frame_shape(profile.stream_family(st)))
                .max_by_key(|shape| shape.n3_ip_len(0, false))
                .unwrap_or_default();
            mtu_problem(&pair, profile, widest, p, any_ul, any_dl)
        });
        if let Some(m) = problem {
            issues.add(join_index("sweep.payloads", i), m);
        }
    }
}

/// Pair `k` of a system file, and how messages name its ports' fields.
struct PairAt<'a> {
    pair: &'a Pair,
    system_name: &'a str,
    n3: String,
    n6: String,
}

impl<'a> PairAt<'a> {
    fn new(system: &'a System, system_name: &'a str, k: usize) -> Self {
        PairAt {
            pair: system.pair(k),
            system_name,
            n3: at(system, k, "n3"),
            n6: at(system, k, "n6"),
        }
    }
}

/// The first packet over its port's MTU that `payload` bytes make on `pair`, in the directions
/// asked.
fn mtu_problem(
    pair: &PairAt<'_>,
    profile: &Profile,
    shape: FrameShape,
    payload: u16,
    uplink: bool,
    downlink: bool,
) -> Option<String> {
    let s = &profile.sessions;
    // Downlink comes back on N3 with a container when the QER gives the UPF a QFI.
    let dl_container = s.qer.enabled && s.qfi.is_some();
    let ul_container = s.pdu_session_container;
    let p = usize::from(payload);
    let (n3, n6) = (&pair.pair.n3, &pair.pair.n6);
    let mut checks = Vec::new();
    if uplink {
        checks.push((&pair.n3, n3, shape.n3_ip_len(p, ul_container), "uplink"));
    }
    if downlink {
        checks.push((&pair.n6, n6, shape.inner_ip_len(p), "downlink"));
        checks.push((
            &pair.n3,
            n3,
            shape.n3_ip_len(p, dl_container),
            "tunnelled downlink",
        ));
    }
    let system_name = pair.system_name;
    checks.into_iter().find_map(|(name, port, len, what)| {
        let mtu = usize::from(port.mtu?);
        (len > mtu).then(|| {
            format!(
                "{payload} bytes make {len}-byte {what} packets on {name}, over its MTU of \
                 {mtu} ({name}.mtu in {system_name})"
            )
        })
    })
}

/// The streams leaving one port must fit its line rate, when the system file gives it: on each
/// pair, its share of every stream (the stream's UEs in the pair's block of the sessions). A
/// rate in % of the line rate is of each pair's own port, shared out the same way.
pub(crate) fn check_line_rate(
    system: &System,
    system_name: &str,
    profile: &Profile,
    ul_container: bool,
    issues: &mut Issues,
) {
    let sessions = profile.sessions.count;
    let Some(blocks) = system.ue_blocks(sessions) else {
        return; // Fewer sessions than pairs: refused at sessions.count.
    };
    for (k, block) in blocks.into_iter().enumerate() {
        let pair = PairAt::new(system, system_name, k);
        // In one-port mode both directions leave one port: its line rate is N3's, shared.
        let ports: Vec<(&str, &Port, &[bool])> = if pair.pair.one_port() {
            vec![(&pair.n3, &pair.pair.n3, &[true, false])]
        } else {
            vec![
                (&pair.n3, &pair.pair.n3, &[true]),
                (&pair.n6, &pair.pair.n6, &[false]),
            ]
        };
        for (name, port, directions) in ports {
            let Some(line) = port.speed else { continue };
            let line = line as f64;
            let (total, last) = port_load(&pair, profile, &block, directions, line, ul_container);
            if let Some(i) = last
                && total > line * (1.0 + 1e-9)
            {
                issues.add(
                    join_key(&join_index("streams", i), "rate"),
                    format!(
                        "the streams sent on {name} add up to {:.3} Gbps at L1, above its line \
                         rate of {:.3} Gbps ({name}.speed in {system_name})",
                        total / 1e9,
                        line / 1e9
                    ),
                );
            }
        }
    }
}

/// The L1 bits per second `pair` sends on a port of line rate `line` in `directions` (uplink
/// `true`), its share of each stream being the stream's UEs in its `block`; and the last stream
/// that sends there.
fn port_load(
    pair: &PairAt<'_>,
    profile: &Profile,
    block: &std::ops::Range<u32>,
    directions: &[bool],
    line: f64,
    ul_container: bool,
) -> (f64, Option<usize>) {
    let mut total = 0.0;
    let mut last = None;
    for (i, st) in profile.streams.iter().enumerate() {
        let (first, count) = st.ues.bounds(profile.sessions.count);
        let ues = first..first.saturating_add(count);
        let mine = block
            .end
            .min(ues.end)
            .saturating_sub(block.start.max(ues.start));
        if mine == 0 {
            continue;
        }
        let share = f64::from(mine) / f64::from(count);
        for &uplink in directions {
            let sends_here = if uplink {
                st.direction.uplink()
            } else {
                st.direction.downlink()
            };
            if !sends_here {
                continue;
            }
            let p = usize::from(st.payload);
            let shape = pair.pair.frame_shape(profile.stream_family(st));
            let frame = if uplink {
                shape.n3_frame_len(p, ul_container)
            } else {
                shape.n6_frame_len(p)
            };
            let l1_bits = ((frame + L1_OVERHEAD) * 8) as f64;
            total += share
                * match st.rate {
                    Rate::LinePercent(pct) => line * pct / 100.0,
                    _ => {
                        profile
                            .stream_pps(st, uplink, frame, shape.inner_ip_len(p), Some(line))
                            .unwrap_or(0.0)
                            * l1_bits
                    }
                };
            last = Some(i);
        }
    }
    (total, last)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    fn repo(path: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(path)
    }

    #[test]
    fn handovers_and_churn_are_refused_on_tagged_ports_at_their_fields() {
        let vlan = repo("deploy/systems/memif-vlan.yaml");
        for (profile, field, what) in [
            ("profiles/handover.yaml", "mobility", "handovers"),
            ("profiles/churn.yaml", "churn", "session churn"),
        ] {
            let e = crate::load_run(&vlan, repo(profile))
                .expect_err("refused")
                .to_string();
            assert!(
                e.contains(&format!(
                    "{field}: {what}: not supported on VLAN-tagged ports yet"
                )),
                "{e}"
            );
            assert!(e.contains("(`n3.vlan`)"), "{e}");
            crate::load_run(repo("deploy/systems/memif.yaml"), repo(profile))
                .unwrap_or_else(|e| panic!("untagged: {e}"));
        }
    }

    #[test]
    fn ipv4_ues_over_an_ipv6_n6_are_refused_at_the_streams_family_or_the_pdn_type() {
        let v6 = repo("deploy/systems/memif-v6.yaml");
        let e = crate::load_run(&v6, repo("profiles/dual-stack.yaml"))
            .expect_err("refused")
            .to_string();
        assert!(e.contains("streams[0].family"), "{e}");
        assert!(
            e.contains("stream v4: IPv4 UE packets need an IPv4 N6"),
            "{e}"
        );
        assert!(!e.contains("stream v6"), "{e}");
        let e = crate::load_run(&v6, repo("profiles/quickstart.yaml"))
            .expect_err("refused")
            .to_string();
        assert!(e.contains("sessions.pdn_type"), "{e}");
        crate::load_run(&v6, repo("profiles/ipv6.yaml")).unwrap_or_else(|e| panic!("{e}"));
    }
}
