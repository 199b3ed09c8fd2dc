//! Port pairs: several N3/N6 pairs on one box (docs/scale.md §2), in the system file and in the
//! reflector file. A file gives them under `pairs:`, or gives one pair in the short form of
//! top-level `n3`, `n6` and `cores.workers`; the loader turns the short form into one pair named
//! `p0`, so that every later crate sees pairs only. The checks name each field where the file
//! wrote it: `n3.address` in the short form, `pairs[1].n3.address` in the long one.

use std::net::IpAddr;
use std::ops::Range;

use serde::Deserialize;
use upfbench_net::IpFamily;

use super::checks::{MAX_LCORE, PortView, check_port, check_port_pair, check_queues};
use super::one_port::{check_one_port, resolve_one_port};
use super::vlan::check_vlans;
use super::{Cores, Device, Port};
use crate::devargs::devarg;
use crate::field::{join_index, join_key};
use crate::issues::Issues;

/// One N3/N6 port pair and the workers that serve it: worker `i` of the pair owns queue `i` of
/// each of its two ports. A system file's (`Pair`) or a reflector file's (whose ports' peers are
/// optional, as [`ReflectorPort`](super::super::ReflectorPort)'s).
///
/// ```yaml
/// pairs:
///   - {name: a, workers: [1, 2], n3: {device: net_memif0, ...}, n6: {device: net_memif1, ...}}
///   - {name: b, workers: [3], weight: 2, n3: {device: net_memif2, ...}, n6: {...}}
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Pair")]
#[serde(deny_unknown_fields)]
pub struct Pair<Peer = IpAddr> {
    /// The pair's name in the generator's reports (each step's `pairs`) and the reflector's
    /// lines: letters, digits, `-` and `_`, at most 16 characters, each pair its own. Absent:
    /// `p0`, `p1`, ... by its place in the list.
    #[serde(default)]
    pub name: String,
    /// The pair's worker lcores: at least one, below 128, none the main lcore nor another
    /// pair's. Each owns one receive and one transmit queue of each of the pair's ports.
    pub workers: Vec<u32>,
    /// The pair's share of the sessions: the UEs are cut into contiguous blocks, one per pair in
    /// order, sized by weight (the last pair takes the rounding), and every stream runs on every
    /// pair, its rate split by UE count; at least 1. The generator's only: a reflector file
    /// refuses it. Absent: 1.
    #[serde(default)]
    pub weight: Option<u32>,
    /// The pair's N3 port, as the short form's top-level `n3`.
    pub n3: Port<Peer>,
    /// The pair's N6 port, as the short form's top-level `n6` (`port: n3` puts it on this pair's
    /// N3 device).
    pub n6: Port<Peer>,
}

impl<Peer> Pair<Peer> {
    /// Its share of the sessions (`weight`, 1 when absent).
    pub fn weight(&self) -> u32 {
        self.weight.unwrap_or(1)
    }

    /// Whether its N3 and N6 are on one device, told apart by VLAN (`n6: {port: n3}`).
    pub fn one_port(&self) -> bool {
        self.n6.shares_device()
    }

    /// Its RX and TX queues on each port: one each per worker of the pair.
    pub fn queue_count(&self) -> u16 {
        self.n3.queues.unwrap_or(self.workers.len() as u16)
    }

    /// The shape of the frames of UE packets of `inner`'s family on its ports: N3's transport
    /// family and each port's tags.
    pub fn frame_shape(&self, inner: IpFamily) -> crate::frame::FrameShape {
        crate::frame::FrameShape {
            inner,
            n3: self.n3.family(),
            n3_tags: self.n3.vlan_tags().len(),
            n6_tags: self.n6.vlan_tags().len(),
        }
    }
}

/// The UEs `0..ues` cut over `pairs` by weight, one contiguous block per pair in order
/// ([`split`](crate::segment::split)); `None` when some pair would have no UE.
pub fn ue_blocks<Peer>(pairs: &[Pair<Peer>], ues: u32) -> Option<Vec<Range<u32>>> {
    let weights: Vec<u32> = pairs.iter().map(Pair::weight).collect();
    crate::segment::split(0..ues, &weights).ok()
}

/// How a file gave its ports, as read (before they become pairs): what the form checks need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PairsForm {
    /// `pairs:` with at least one pair.
    pub(crate) listed: bool,
    /// A top-level `n3`.
    pub(crate) n3: bool,
    /// A top-level `n6`.
    pub(crate) n6: bool,
    /// `cores.workers`.
    pub(crate) core_workers: bool,
}

/// Where pair `k`'s fields are in its file.
pub(crate) struct PairPlace {
    /// `pairs[k]`, or empty for the short form (the ports at the top).
    pub(crate) prefix: String,
    /// `pairs[k].workers`, or `cores.workers` for the short form.
    pub(crate) workers: String,
    /// How messages name the pair's port `n3`: `the n3 port`, or `pair a's n3 port`.
    label: Option<String>,
}

impl PairsForm {
    /// Where pair `k`, named `name`, is in the file.
    pub(crate) fn place(&self, k: usize, name: &str) -> PairPlace {
        if self.listed {
            let prefix = join_index("pairs", k);
            PairPlace {
                workers: join_key(&prefix, "workers"),
                prefix,
                label: Some(name.to_owned()),
            }
        } else {
            PairPlace {
                prefix: String::new(),
                workers: "cores.workers".to_owned(),
                label: None,
            }
        }
    }
}

impl PairPlace {
    /// The path of the pair's field `rest` (`n3.address`).
    pub(crate) fn field(&self, rest: &str) -> String {
        join_key(&self.prefix, rest)
    }

    /// The pair's port `port` (`n3`) as messages name it: `the n3 port`, `pair a's n3 port`.
    pub(crate) fn port_label(&self, port: &str) -> String {
        match &self.label {
            Some(name) => format!("pair {name}'s {port} port"),
            None => format!("the {port} port"),
        }
    }
}

/// Turns the short form (top-level `n3` and `n6`, `cores.workers`) into one pair, names the pairs
/// that have no name (`p0`, `p1`, ...), gives each one-port N6 its N3's device, and sets
/// `cores.workers` to every pair's workers in order (for EAL's lcore list). Returns how the file
/// gave them, for [`check_form`]. A file that gives both forms keeps its top-level ports, which
/// the checks refuse.
pub(crate) fn normalise<Peer>(
    pairs: &mut Vec<Pair<Peer>>,
    n3: &mut Option<Port<Peer>>,
    n6: &mut Option<Port<Peer>>,
    cores: &mut Cores,
) -> PairsForm {
    let form = PairsForm {
        listed: !pairs.is_empty(),
        n3: n3.is_some(),
        n6: n6.is_some(),
        core_workers: !cores.workers.is_empty(),
    };
    if !form.listed
        && form.n3
        && form.n6
        && let (Some(a), Some(b)) = (n3.take(), n6.take())
    {
        let workers = if form.core_workers {
            cores.workers.clone()
        } else {
            super::default_workers()
        };
        pairs.push(Pair {
            name: String::new(),
            workers,
            weight: None,
            n3: a,
            n6: b,
        });
    }
    for (k, pair) in pairs.iter_mut().enumerate() {
        if pair.name.is_empty() {
            pair.name = format!("p{k}");
        }
        resolve_one_port(&pair.n3, &mut pair.n6);
    }
    if !pairs.is_empty() {
        cores.workers = pairs.iter().flat_map(|p| p.workers.clone()).collect();
    } else if cores.workers.is_empty() {
        cores.workers = super::default_workers();
    }
    form
}

/// The forms mixed: `pairs` with top-level ports, or with `cores.workers`.
pub(crate) fn check_form(form: PairsForm, issues: &mut Issues) {
    if !form.listed {
        return;
    }
    if form.n3 || form.n6 {
        issues.add(
            "pairs",
            "give the ports under `pairs` or as top-level `n3`/`n6`, not both",
        );
    }
    if form.core_workers {
        issues.add(
            "cores.workers",
            "with `pairs`, each pair names its `workers`",
        );
    }
}

/// The longest pair name: a column of the report's tables and a `/metrics` label.
const NAME_MAX_CHARS: usize = 16;

/// What tells the pairs apart: names, workers, devices, memif links; and each pair's weight
/// (a generator's N3 addresses too: [`check_distinct_n3`]).
pub(crate) fn check_pairs<Peer>(
    pairs: &[Pair<Peer>],
    form: PairsForm,
    main: u32,
    issues: &mut Issues,
) {
    for (k, pair) in pairs.iter().enumerate() {
        let at = form.place(k, &pair.name);
        if form.listed {
            check_name(pairs, k, &at, issues);
        }
        if pair.weight == Some(0) {
            issues.add(at.field("weight"), "0: a pair needs a weight of 1 or more");
        }
        check_workers(pairs, k, &at, main, issues);
        check_devices(pairs, k, form, issues);
    }
}

/// A generator's pairs are gNBs, told apart by their N3 addresses (each UE's session carries
/// its pair's): no two pairs share one. A reflector's pairs may: one UPF reached over several
/// links holds the same addresses on each.
pub(crate) fn check_distinct_n3<Peer>(pairs: &[Pair<Peer>], form: PairsForm, issues: &mut Issues) {
    for (k, pair) in pairs.iter().enumerate() {
        let n3 = &pair.n3.address;
        if let Some(other) = pairs[..k].iter().find(|p| p.n3.address.addr == n3.addr) {
            issues.add(
                form.place(k, &pair.name).field("n3.address"),
                format!("{} is pair {}'s n3 address already", n3.addr, other.name),
            );
        }
    }
}

fn check_name<Peer>(pairs: &[Pair<Peer>], k: usize, at: &PairPlace, issues: &mut Issues) {
    let name = &pairs[k].name;
    let field = at.field("name");
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        issues.add(
            field,
            format!("{name:?}: use letters, digits, '-' and '_' (it labels the report's tables)"),
        );
    } else if name.chars().count() > NAME_MAX_CHARS {
        issues.add(
            field,
            format!(
                "{} characters: at most {NAME_MAX_CHARS}",
                name.chars().count()
            ),
        );
    } else if pairs[..k].iter().any(|p| &p.name == name) {
        issues.add(field, format!("pair `{name}` is named twice"));
    }
}

/// The pair's worker lcores: some, within DPDK's lcores, none the main lcore, none twice in
/// the file.
fn check_workers<Peer>(
    pairs: &[Pair<Peer>],
    k: usize,
    at: &PairPlace,
    main: u32,
    issues: &mut Issues,
) {
    let workers = &pairs[k].workers;
    if workers.is_empty() {
        issues.add(at.workers.clone(), "at least one worker lcore is needed");
    }
    for (j, &w) in workers.iter().enumerate() {
        let field = join_index(&at.workers, j);
        if w >= MAX_LCORE {
            issues.add(
                field,
                format!("lcore {w} is beyond DPDK's limit of {MAX_LCORE} lcores"),
            );
        } else if w == main {
            issues.add(
                field,
                format!("lcore {w} is the main lcore; workers need lcores of their own"),
            );
        } else if workers[..j].contains(&w) {
            issues.add(field, format!("lcore {w} is listed twice"));
        } else if let Some(other) = pairs[..k].iter().find(|p| p.workers.contains(&w)) {
            issues.add(
                field,
                format!("lcore {w} is a worker of pair {} already", other.name),
            );
        }
    }
}

/// The ports of one pair that have a device of their own (a one-port N6 has its N3's).
fn own_ports<Peer>(pair: &Pair<Peer>) -> Vec<(&'static str, &Port<Peer>)> {
    let mut ports = vec![("n3", &pair.n3)];
    if !pair.one_port() {
        ports.push(("n6", &pair.n6));
    }
    ports
}

/// A memif link is its socket file and its id (DPDK's `id=`, 0 by default): several
/// interfaces may share a socket with different ids, not one id twice.
fn memif_link<Peer>(port: &Port<Peer>) -> Option<(&str, &str)> {
    if !port.device.name().starts_with("net_memif") {
        return None;
    }
    let d = port.devargs.as_deref();
    Some((
        devarg(d, "socket").unwrap_or("/run/memif.sock"),
        devarg(d, "id").unwrap_or("0"),
    ))
}

/// Pair `k`'s devices against the earlier pairs' (within a pair, `check_port_pair` compares N3
/// with N6), and, in a file with `pairs`, its memif links against every earlier port's, its own
/// N3's too (the short form's, which may be a memif link twice, is left to DPDK as before).
fn check_devices<Peer>(pairs: &[Pair<Peer>], k: usize, form: PairsForm, issues: &mut Issues) {
    let pair = &pairs[k];
    let at = form.place(k, &pair.name);
    let earlier: Vec<(&str, &str, &Port<Peer>)> = pairs[..k]
        .iter()
        .flat_map(|p| {
            own_ports(p)
                .into_iter()
                .map(move |(port, q)| (p.name.as_str(), port, q))
        })
        .collect();
    let mut seen = earlier.clone();
    for (port, p) in own_ports(pair) {
        if !p.device.is_unset()
            && let Some((name, other, _)) = earlier.iter().find(|(_, _, q)| q.device == p.device)
        {
            issues.add(
                at.field(&join_key(port, "device")),
                format!("{} is pair {name}'s {other} already", p.device),
            );
        }
        if form.listed
            && let Some(link) = memif_link(p)
            && let Some((name, other, _)) =
                seen.iter().find(|(_, _, q)| memif_link(*q) == Some(link))
        {
            issues.add(
                at.field(&join_key(port, "devargs")),
                format!(
                    "socket={} with id={} is pair {name}'s {other} link already (a memif link \
                     is its socket and its id: give another socket or id)",
                    link.0, link.1
                ),
            );
        }
        seen.push((pair.name.as_str(), port, p));
    }
}

/// The devices EAL is given, each once, with how messages name each: every pair's N3 and each
/// N6 that has a device of its own.
pub(crate) fn eal_devices<Peer>(pairs: &[Pair<Peer>], form: PairsForm) -> Vec<(String, &Device)> {
    pairs
        .iter()
        .enumerate()
        .flat_map(|(k, pair)| {
            let at = form.place(k, &pair.name);
            own_ports(pair)
                .into_iter()
                .map(move |(port, p)| (at.port_label(port), &p.device))
        })
        .collect()
}

/// One pair's ports: each alone, the two together, one-port mode, the tags, the queues against
/// the pair's workers. `peer` gives a port's peer as the checks see it.
pub(crate) fn check_pair_ports<Peer>(
    pair: &Pair<Peer>,
    at: &PairPlace,
    peer: impl Fn(&Port<Peer>) -> Option<IpAddr>,
    issues: &mut Issues,
) {
    check_one_port(Some(&pair.n3), Some(&pair.n6), &at.prefix, issues);
    let (n3_name, n6_name) = (at.field("n3"), at.field("n6"));
    check_vlans(&pair.n3, &n3_name, issues);
    check_vlans(&pair.n6, &n6_name, issues);
    let n3: PortView<'_> = pair.n3.view(&n3_name, peer(&pair.n3));
    let n6: PortView<'_> = pair.n6.view(&n6_name, peer(&pair.n6));
    for p in [&n3, &n6] {
        check_port(p, issues);
        check_queues(pair.workers.len(), &at.workers, p, issues);
    }
    check_port_pair(&n3, &n6, issues);
}

#[cfg(test)]
mod tests;
