//! The system file: the machine that runs the generator, its ports and its N4 peer.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::Deserialize;
use serde::de::Deserializer;
use upfbench_net::{IpFamily, MacAddr};

use super::error::{NotIpv4, ipv4};
use super::issues::{Check, Issues, nonzero};
use super::kind::FileKind;
use super::reflector::PortName;
use super::units::{IpPrefix, Ipv4Prefix, PFCP_PORT, serde_text};

mod auto_cores;
mod checks;
mod device_env;
mod host;
mod one_port;
mod pairs;
mod vlan;

pub(crate) use auto_cores::CoresOrAuto;
pub(crate) use checks::{PortView, check_cores, check_eal, check_label};
pub(crate) use device_env::DeviceOrEnv;
pub(crate) use host::OnHost;
pub use host::{Host, ThisProcess};
pub use pairs::{Pair, ue_blocks};
pub(crate) use pairs::{
    PairPlace, PairsForm, check_distinct_n3, check_form, check_pair_ports, check_pairs,
    eal_devices, normalise,
};
pub use vlan::{Vlan, VlanOffload};

/// The machine running the generator (`upfbench run SYSTEM PROFILE`): its ports as one N3/N6
/// pair (top-level `n3`, `n6` and `cores.workers`) or as several (`pairs`).
///
/// ```yaml
/// eal: {args: [--no-huge, -m, "512"], file_prefix: upfbench-gen}
/// cores: {main: 0, workers: [1]}
/// n3: {device: net_af_packet0, devargs: iface=n3, address: 192.168.13.131/24, peer: 192.168.13.151}
/// n6: {device: net_af_packet1, devargs: iface=n6, address: 192.168.16.152/24, peer: 192.168.16.151}
/// pfcp: {local: 192.168.14.111, peer: 192.168.14.151}
/// ```
///
/// A loaded file has its ports in [`pairs`](System::pairs) only: the short form is pair `p0`.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct System {
    /// `kind: system`, optional: says what the file is when its fields alone do not.
    #[serde(default)]
    pub kind: Option<FileKind>,
    /// EAL arguments and file prefix.
    #[serde(default)]
    pub eal: Eal,
    /// Main and worker lcores; `auto`: the main lcore on the first CPU this process may run on
    /// (its affinity mask: a Kubernetes pod's CPUs), a worker on each other CPU.
    #[serde(default, with = "CoresOrAuto")]
    pub cores: Cores,
    /// The N3 port (gNB side: GTP-U uplink out, downlink in) of the one pair of the short form,
    /// with `n6` and `cores.workers`: pair `p0`. Not with `pairs`.
    #[serde(default)]
    n3: Option<Port>,
    /// The N6 port (data network side: plain downlink out, uplink in) of the short form's pair.
    #[serde(default)]
    n6: Option<Port>,
    /// The port pairs, each with its own N3 and N6 ports (its own gNB address and N3 peer) and
    /// its own workers; the sessions are cut over them by weight (docs/scale.md). Not with
    /// top-level `n3`/`n6` nor `cores.workers`. A loaded file holds its pairs here whichever form
    /// it used. Absent: the short form's one pair. The generator drives every pair, each worker
    /// its pair's queues; each step's report gives the totals and each pair's figures
    /// (docs/reports.md).
    #[serde(default)]
    #[schemars(extend("default" = []))]
    pub pairs: Vec<Pair>,
    /// Resolving the UPF's MAC addresses: `retries` + 1 requests `timeout` apart, then the run
    /// stops (`N3: no ARP reply from 192.168.13.151 after 4 requests 1s apart; ...`).
    #[serde(default)]
    pub arp: Arp,
    /// N4: the PFCP association with the UPF; `pfcp: {}` takes all defaults. Absent: no PFCP, the
    /// UPF is configured by other means (as with `--no-pfcp`) and no session is programmed.
    #[serde(default)]
    pub pfcp: Option<Pfcp>,
    /// The directory the reports are written to (relative to where upfbench runs).
    #[serde(default = "default_reports")]
    pub reports: PathBuf,
    /// What `upfbench compare` calls the reports of runs on this system (their column group): the
    /// UPF and its set-up, one line of at most 40 characters (`open5gs 2.7.7 2 cores`); kept in
    /// `report.json` as `config.label`. Absent: the report's folder name.
    #[serde(default)]
    pub label: Option<String>,
    /// How the file gave its ports, for the checks.
    #[serde(skip)]
    form: PairsForm,
}

fn default_reports() -> PathBuf {
    PathBuf::from("reports")
}

/// The EAL: arguments passed through, and the runtime file prefix.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Eal {
    /// Arguments passed to `rte_eal_init` as they are (`--no-huge`, `-m 512`, `--in-memory`,
    /// `--socket-mem`, ...). Not the lcores (`-l`, `-c`, `--lcores`, `--main-lcore`: from `cores`),
    /// the file prefix (`--file-prefix`: from `file_prefix`), nor `--vdev`/`-a` of the N3 and N6
    /// devices (from the ports), which upfbench adds itself.
    #[serde(default)]
    pub args: Vec<String>,
    /// `--file-prefix`: letters, digits, `-` and `_`; each DPDK process on a machine needs its own.
    /// Absent: DPDK's (`rte`).
    #[serde(default)]
    pub file_prefix: Option<String>,
}

/// Lcores (DPDK's logical cores: CPU ids unless EAL maps them otherwise).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cores {
    /// The main lcore: control plane, live output, service plane; below 128.
    #[serde(default)]
    pub main: u32,
    /// The worker lcores that run TX and RX, in the short form of one pair: at least one,
    /// distinct, not the main lcore, below 128. With `pairs`, each pair names its own, and a
    /// loaded file holds here every pair's in order. Absent: `[1]`.
    #[serde(default)]
    pub workers: Vec<u32>,
    /// The CPU an lcore runs on when it is not the CPU of its own number (EAL's `--lcores
    /// lcore@cpu`): `{2: 1}` runs lcore 2 on CPU 1, for more lcores than the machine has CPUs (two
    /// workers and the main lcore on 2 vCPUs). Only lcores the file uses, CPUs below 1024. Empty:
    /// lcore `n` is CPU `n`.
    #[serde(default)]
    pub cpus: BTreeMap<u32, u32>,
}

/// The workers when the file names none.
pub(crate) fn default_workers() -> Vec<u32> {
    vec![1]
}

impl Default for Cores {
    /// As a file that leaves `cores` out reads, before its pairs are known (`workers` empty).
    fn default() -> Self {
        Cores {
            main: 0,
            workers: Vec::new(),
            cpus: BTreeMap::new(),
        }
    }
}

/// A DPDK port: a virtual device made by a driver, or a NIC at a PCI address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Device {
    /// A vdev name, the driver's name and an index: `net_memif0`, `net_af_packet0`,
    /// `net_af_xdp0`, `net_ring0`, `net_null0`.
    Vdev(String),
    /// A PCI address, `0000:01:00.0` (the domain may be left out).
    Pci(String),
}

impl Device {
    /// The name EAL knows the device by.
    pub fn name(&self) -> &str {
        match self {
            Device::Vdev(n) | Device::Pci(n) => n,
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn is_pci_address(s: &str) -> bool {
    let hex = |p: &str, n: usize| p.len() == n && p.chars().all(|c| c.is_ascii_hexdigit());
    let parts: Vec<&str> = s.split(':').collect();
    let (bus_dev_fn, domain_ok) = match parts.as_slice() {
        [d, b, rest] => (Some((*b, *rest)), hex(d, 4)),
        [b, rest] => (Some((*b, *rest)), true),
        _ => (None, false),
    };
    let Some((bus, dev_fn)) = bus_dev_fn else {
        return false;
    };
    let Some((dev, func)) = dev_fn.split_once('.') else {
        return false;
    };
    domain_ok
        && hex(bus, 2)
        && hex(dev, 2)
        && func.len() == 1
        && func.chars().all(|c| c.is_digit(8))
}

impl FromStr for Device {
    type Err = String;

    fn from_str(text: &str) -> Result<Device, String> {
        let t = text.trim();
        if let Some(rest) = t.strip_prefix("net_") {
            if !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                return Ok(Device::Vdev(t.to_owned()));
            }
        } else if is_pci_address(t) {
            return Ok(Device::Pci(t.to_owned()));
        }
        Err(format!(
            "{text:?} is neither a vdev name (net_memif0, net_af_packet0) nor a PCI address \
             (0000:01:00.0); vdev arguments go in `devargs`"
        ))
    }
}

impl<'de> Deserialize<'de> for Device {
    /// A device's name; `~` as left out (one-port mode's N6); `{env: NAME}` as resolved later.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        device_env::deserialize(deserializer)
    }
}

/// A DPDK port and the link it is on: the system file's `n3` and `n6`, the generator's ports
/// with the UPF at the other end of each link (`Port`, whose peer is required), and the
/// reflector file's ([`ReflectorPort`](super::ReflectorPort), whose peer is optional). The
/// reflector refuses `mtu` and `speed`, which only the generator uses.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Port")]
#[serde(deny_unknown_fields)]
pub struct Port<Peer = IpAddr> {
    /// The device: a vdev name or a PCI address, or `{env: NAME}`: the environment variable
    /// that holds it when upfbench starts (the SR-IOV device plugin's
    /// `PCIDEVICE_INTEL_COM_UPFBENCH_N3` in a Kubernetes pod). N3 and N6 are different devices,
    /// unless N6 is on N3's (`port: n3`), when N6 leaves it out.
    #[serde(default = "Device::unset")]
    #[schemars(with = "DeviceOrEnv")]
    pub device: Device,
    /// One-port mode, N6 only: `port: n3` puts N6 on N3's device (its `device`, `devargs`,
    /// `queues` and descriptors), N3's and N6's frames told apart by their VLAN tags, which must
    /// differ. A loaded file's N6 has N3's device and settings copied in. The device is started
    /// with twice `queues`: each worker's N3 queue and its N6 queue. Absent: a device of its own.
    #[serde(default)]
    pub port: Option<PortName>,
    /// Device arguments, comma-separated `key=value`: `role=client,socket=/tmp/upfbench/n3.sock`
    /// (memif), `iface=n3` (af_packet), `path=/tmp/upfbench/vhost-n3.sock,queues=2` (virtio-user),
    /// `mprq_en=1` (mlx5). For `net_af_packet` and `net_af_xdp`, `iface` names the kernel interface
    /// whose counters the report reads beside the port's. A `net_virtio_user` or `net_vhost` port
    /// needs `queues=` of at least the workers (a pair each; the PMDs' default is 1). The generator
    /// waits up to 10 s for the socket file of a memif client (`role=client`, `socket-abstract=no`)
    /// or a virtio-user client (`path=`, not `server=1`) before EAL starts (docs/virtio.md).
    /// Absent: none.
    #[serde(default)]
    #[schemars(with = "Option<super::schema::Devargs>")]
    pub devargs: Option<String>,
    /// RX and TX queues: one of each per worker lcore, which owns them (queue `i` is worker
    /// `i`'s). Absent: as many as there are workers; any other number is refused.
    #[serde(default)]
    pub queues: Option<u16>,
    /// RX descriptors per queue: a power of two, 32 to 32768.
    #[serde(default = "default_descriptors")]
    pub rx_descriptors: u16,
    /// TX descriptors per queue: a power of two, 32 to 32768.
    #[serde(default = "default_descriptors")]
    pub tx_descriptors: u16,
    /// Our address on the link and its prefix, IPv4 (`192.168.13.131/24`: not the subnet's network
    /// or broadcast address) or IPv6 (`2001:db8:13::131/64`: not the prefix's subnet-router
    /// anycast address), each port's family its own (N3 over IPv6 with N6 over IPv4 is fine); the
    /// N3 and N6 subnets must not overlap. N3's family is the GTP-U transport's: the F-TEIDs and
    /// Outer Header Creation carry it.
    pub address: IpPrefix,
    /// The peer on the link, in the port's subnet, of its address's family. A system file's
    /// (required): the UPF's address on the link, `192.168.13.151`. A reflector file's: where
    /// packets out of this port go, on N6 the data network's next hop (`192.168.16.152`, needed in
    /// `upf` mode), on N3 none (each FAR names its gNB).
    pub peer: Peer,
    /// The peer's MAC address on the link, unicast. Absent: resolved by ARP.
    #[serde(default, with = "serde_text::opt_mac")]
    pub peer_mac: Option<MacAddr>,
    /// The link's IP MTU, 576 to 9600, if known: payloads whose packets would not fit are refused.
    /// The generator's only: a reflector file refuses it. Absent: not checked.
    #[serde(default)]
    pub mtu: Option<u16>,
    /// The link's line rate (`10Gbps`), if known: for percentage rates, and streams above it are
    /// refused. The generator's only: a reflector file refuses it. Absent: read from the port when
    /// it starts.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub speed: Option<u64>,
    /// An 802.1Q tag on every frame of the port (`{id: 13, pcp: 5}`), 4 bytes counted in every
    /// size. Absent: untagged.
    #[serde(default)]
    pub vlan: Option<Vlan>,
    /// An 802.1ad (QinQ) outer tag around `vlan` (`{id: 100}`), 4 bytes more. Absent: none.
    #[serde(default)]
    pub qinq: Option<Vlan>,
}

pub(crate) fn default_descriptors() -> u16 {
    1024
}

impl<Peer> Port<Peer> {
    /// Our IPv4 address on the link (validation refuses any other).
    pub fn address_v4(&self) -> Result<Ipv4Prefix, NotIpv4> {
        self.address.v4().ok_or(NotIpv4(self.address.addr))
    }

    /// What the checks see of the port named `name`, whose peer is `peer`.
    pub(crate) fn view<'a>(&'a self, name: &'a str, peer: Option<IpAddr>) -> PortView<'a> {
        PortView {
            name,
            device: &self.device,
            devargs: self.devargs.as_deref(),
            queues: self.queues,
            rx_descriptors: self.rx_descriptors,
            tx_descriptors: self.tx_descriptors,
            address: self.address,
            peer,
            peer_mac: self.peer_mac,
            mtu: self.mtu,
            speed: self.speed,
            shares_device: self.shares_device(),
        }
    }

    /// The family of the port's transport (its address and peer): N3's carries GTP-U over it,
    /// N6's the plain packets.
    pub fn family(&self) -> IpFamily {
        if self.address.addr.is_ipv6() {
            IpFamily::Ipv6
        } else {
            IpFamily::Ipv4
        }
    }
}

impl Port {
    /// The UPF's IPv4 address on the link (validation refuses any other).
    pub fn peer_v4(&self) -> Result<Ipv4Addr, NotIpv4> {
        ipv4(self.peer)
    }
}

/// ARP for the UPF's addresses.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Arp {
    /// Wait this long for a reply before asking again; not 0, at most 60s.
    #[serde(default = "one_second", with = "serde_text::duration")]
    pub timeout: Duration,
    /// Ask again this many times before giving up, at most 100.
    #[serde(default = "three")]
    pub retries: u32,
}

impl Default for Arp {
    fn default() -> Self {
        Arp {
            timeout: one_second(),
            retries: three(),
        }
    }
}

pub(crate) fn one_second() -> Duration {
    Duration::from_secs(1)
}

pub(crate) fn three() -> u32 {
    3
}

/// N4: our PFCP client and the UPF it associates with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pfcp {
    /// Our N4 address, also our Node ID (port 8805 unless given as `addr:port`; Open5GS answers to
    /// port 8805 whatever the source port).
    #[serde(default = "default_local", with = "serde_text::n4_address")]
    pub local: SocketAddr,
    /// The UPF's N4 address (port 8805 unless given).
    #[serde(default = "default_peer", with = "serde_text::n4_address")]
    pub peer: SocketAddr,
    /// T1: wait this long for a response before retransmitting; not 0.
    #[serde(default = "default_t1", with = "serde_text::duration")]
    pub t1: Duration,
    /// N1: retransmissions before giving up, at most 10.
    #[serde(default = "three")]
    pub n1: u32,
    /// Our Heartbeat Requests' interval; `~`: send none (the UPF's are always answered).
    #[serde(default = "default_heartbeat", with = "serde_text::opt_duration")]
    pub heartbeat: Option<Duration>,
    /// Session requests in flight: start at `initial`, grow while none is retransmitted, up to
    /// `max` (128 in flight overflowed real UPFs' receive buffers).
    #[serde(default)]
    pub window: Window,
    /// After the Association Release Request, which real UPFs do not answer, wait this long for an
    /// answer; `0s`: do not wait.
    #[serde(default = "one_second", with = "serde_text::duration")]
    pub release_wait: Duration,
    /// What the run does when the UPF restarts (a new Recovery Time Stamp): `stop` ends the run the
    /// short way with its report; `reestablish` sets up the association and every session again
    /// while the traffic goes on, and reports the outage.
    #[serde(default)]
    pub on_upf_restart: OnUpfRestart,
    /// What the run does when the UPF stops answering (a Heartbeat Request unanswered after N1
    /// retransmissions): `stop` ends the run the short way with its report; `continue` goes on and
    /// reports it; `reassociate` sends an Association Setup Request: a UPF that restarted and
    /// answers only that (Open5GS) shows its new Recovery Time Stamp (then `on_upf_restart`
    /// applies), one that answers nothing stops the run.
    #[serde(default)]
    pub on_upf_loss: OnUpfLoss,
}

/// `pfcp.on_upf_restart`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum OnUpfRestart {
    /// End the run the short way.
    #[default]
    Stop,
    /// Set up the association and the sessions again and go on.
    Reestablish,
}

/// `pfcp.on_upf_loss`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum OnUpfLoss {
    /// End the run the short way.
    #[default]
    Stop,
    /// Go on, and report it.
    Continue,
    /// Set up the association again: a restart shows in its answer.
    Reassociate,
}

fn default_local() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, 14, 111)), PFCP_PORT)
}

fn default_peer() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, 14, 151)), PFCP_PORT)
}

fn default_t1() -> Duration {
    Duration::from_secs(3)
}

pub(crate) fn default_heartbeat() -> Option<Duration> {
    Some(Duration::from_secs(10))
}

impl Default for Pfcp {
    /// Each field's default (the address plan of docs/measurement.md), as `pfcp: {}` reads.
    fn default() -> Self {
        Pfcp {
            local: default_local(),
            peer: default_peer(),
            t1: default_t1(),
            n1: three(),
            heartbeat: default_heartbeat(),
            window: Window::default(),
            release_wait: one_second(),
            on_upf_restart: OnUpfRestart::default(),
            on_upf_loss: OnUpfLoss::default(),
        }
    }
}

/// The adaptive window of session requests in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// Requests in flight at the start, at least 1.
    #[serde(default = "default_window_initial")]
    pub initial: u32,
    /// Never more than this: at least `initial`, at most 65535.
    #[serde(default = "default_window_max")]
    pub max: u32,
}

fn default_window_initial() -> u32 {
    16
}

fn default_window_max() -> u32 {
    64
}

impl Default for Window {
    fn default() -> Self {
        Window {
            initial: default_window_initial(),
            max: default_window_max(),
        }
    }
}

/// A kind marker that must agree with the file it is in.
pub(crate) fn check_kind(kind: Option<FileKind>, expected: FileKind, issues: &mut Issues) {
    if let Some(kind) = kind
        && kind != expected
    {
        issues.add(
            "kind",
            format!("this is read as a {expected} file, but says it is a {kind} file"),
        );
    }
}

/// Checks shared by the system's and the reflector's ARP settings.
pub(crate) fn check_arp(arp: &Arp, issues: &mut Issues) {
    nonzero(
        arp.timeout,
        "arp.timeout",
        "a reply takes some time",
        issues,
    );
    if arp.timeout > Duration::from_secs(60) {
        issues.add("arp.timeout", "at most 60s");
    }
    if arp.retries > 100 {
        issues.add("arp.retries", "at most 100");
    }
}

/// An N4 address: IPv4 for now, a real address (it is the Node ID), a port.
pub(crate) fn check_n4_address(addr: SocketAddr, field: &str, issues: &mut Issues) {
    match addr.ip() {
        IpAddr::V6(_) => issues.add(field, "IPv6 on N4 is not supported yet: use IPv4"),
        IpAddr::V4(ip) if ip.is_unspecified() || ip.is_multicast() || ip.is_broadcast() => {
            issues.add(
                field,
                format!("{ip} is not a unicast address (it is also the Node ID)"),
            );
        }
        IpAddr::V4(_) => {}
    }
    if addr.port() == 0 {
        issues.add(field, "port 0: give a port, or none for 8805");
    }
}

impl Check for Pfcp {
    fn check(&self, issues: &mut Issues) {
        check_n4_address(self.local, "pfcp.local", issues);
        check_n4_address(self.peer, "pfcp.peer", issues);
        if self.local == self.peer {
            issues.add("pfcp.peer", "the UPF's address is our own");
        }
        nonzero(self.t1, "pfcp.t1", "a response takes some time", issues);
        if self.n1 > 10 {
            issues.add(
                "pfcp.n1",
                format!("{} retransmissions: at most 10", self.n1),
            );
        }
        if self.heartbeat == Some(Duration::ZERO) {
            issues.add(
                "pfcp.heartbeat",
                "must be longer than 0; write `heartbeat: ~` to send none",
            );
        }
        if self.window.initial == 0 {
            issues.add(
                "pfcp.window.initial",
                "at least one request must be in flight",
            );
        }
        if self.window.max < self.window.initial {
            issues.add(
                "pfcp.window.max",
                format!(
                    "{} is below the initial window {}",
                    self.window.max, self.window.initial
                ),
            );
        }
        if self.window.max > 65535 {
            issues.add("pfcp.window.max", "at most 65535");
        }
    }
}

impl System {
    /// The port pairs, the short form's as one (`p0`).
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Pair `k` (a loaded file has at least one).
    pub fn pair(&self, k: usize) -> &Pair {
        &self.pairs[k]
    }

    /// Where pair `k`'s fields are in the file.
    pub(crate) fn pair_place(&self, k: usize) -> PairPlace {
        self.form.place(k, &self.pairs[k].name)
    }

    /// The cores, the pairs and the top-level ports as read, for the host's resolutions.
    pub(crate) fn host_parts(&mut self) -> HostParts<'_, IpAddr> {
        (
            &mut self.cores,
            &mut self.pairs,
            [("n3", self.n3.as_mut()), ("n6", self.n6.as_mut())],
        )
    }

    /// The UEs `0..ues` cut over the pairs by weight, a contiguous block each in order; `None`
    /// when some pair would have no UE.
    pub fn ue_blocks(&self, ues: u32) -> Option<Vec<std::ops::Range<u32>>> {
        ue_blocks(&self.pairs, ues)
    }
}

impl Check for System {
    fn resolve(&mut self) {
        self.form = normalise(&mut self.pairs, &mut self.n3, &mut self.n6, &mut self.cores);
    }

    fn check(&self, issues: &mut Issues) {
        check_kind(self.kind, FileKind::System, issues);
        check_form(self.form, issues);
        if self.pairs.is_empty() {
            missing_ports(self.n3.is_some(), self.n6.is_some(), issues);
        }
        check_eal(&self.eal, &eal_devices(&self.pairs, self.form), issues);
        check_cores(&self.cores, self.form.listed, issues);
        check_pairs(&self.pairs, self.form, self.cores.main, issues);
        check_distinct_n3(&self.pairs, self.form, issues);
        for (k, pair) in self.pairs.iter().enumerate() {
            check_pair_ports(pair, &self.pair_place(k), |p| Some(p.peer), issues);
        }
        check_arp(&self.arp, issues);
        if let Some(pfcp) = &self.pfcp {
            pfcp.check(issues);
        }
        if self.reports.as_os_str().is_empty() {
            issues.add("reports", "give a directory");
        }
        if let Some(label) = &self.label {
            check_label(label, issues);
        }
    }
}

/// A file's cores, pairs and top-level ports, as the host resolves them.
pub(crate) type HostParts<'a, Peer> = (
    &'a mut Cores,
    &'a mut Vec<Pair<Peer>>,
    [(&'static str, Option<&'a mut Port<Peer>>); 2],
);

/// A file with neither `pairs` nor both top-level ports.
fn missing_ports(n3: bool, n6: bool, issues: &mut Issues) {
    match (n3, n6) {
        (false, false) => issues.add(
            "pairs",
            "at least one pair: give `pairs`, or the one pair's ports as top-level `n3` and `n6`",
        ),
        (false, true) => issues.add("n3", "missing field `n3`"),
        (true, false) => issues.add("n6", "missing field `n6`"),
        (true, true) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices() {
        assert_eq!(
            "net_memif0".parse(),
            Ok(Device::Vdev("net_memif0".to_owned()))
        );
        assert_eq!(
            "net_af_packet1".parse(),
            Ok(Device::Vdev("net_af_packet1".to_owned()))
        );
        assert_eq!(
            "0000:3b:00.1".parse(),
            Ok(Device::Pci("0000:3b:00.1".to_owned()))
        );
        assert_eq!("3b:00.0".parse(), Ok(Device::Pci("3b:00.0".to_owned())));
        for bad in [
            "eth0",
            "net_",
            "net_memif0,role=client",
            "0000:3b:00.9",
            "3b:0.0",
        ] {
            assert!(bad.parse::<Device>().is_err(), "{bad}");
        }
    }
}
