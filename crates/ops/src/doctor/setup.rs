//! What a system file (or a reflector file), and a profile with it, ask of the machine: memory,
//! lcores, and each port's device with the largest packet it carries.

use upfbench_config::{self as config, Device, Eal, Profile, Reflector, System};

/// How EAL is told to get its memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EalMemory {
    /// `--no-huge`: plain pages, no hugepages at all.
    pub(crate) no_huge: bool,
    /// `--in-memory`: hugepages without hugetlbfs files (anonymous mappings).
    pub in_memory: bool,
    /// `-m MB`: memory in all, any node.
    pub(crate) total_mb: Option<u64>,
    /// `--socket-mem MB,MB,...`: memory per NUMA node, node 0 first.
    pub(crate) per_node_mb: Option<Vec<u64>>,
}

impl EalMemory {
    /// Reads the memory options of EAL arguments (`-m 512`, `-m512`, `--socket-mem=1024,1024`).
    pub fn parse(args: &[String]) -> EalMemory {
        let mut m = EalMemory::default();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            let next = args.get(i + 1).map(String::as_str);
            let (value, took_next) = match a {
                "-m" | "--socket-mem" => (next, true),
                _ => (
                    a.strip_prefix("--socket-mem=")
                        .or_else(|| a.strip_prefix("-m").filter(|v| !v.is_empty())),
                    false,
                ),
            };
            match a {
                "--no-huge" => m.no_huge = true,
                "--in-memory" => m.in_memory = true,
                _ if a == "-m" || (a.starts_with("-m") && !a.starts_with("--")) => {
                    m.total_mb = value.and_then(|v| v.parse().ok());
                }
                _ if a.starts_with("--socket-mem") => {
                    m.per_node_mb = value.map(|v| {
                        v.split(',')
                            .map(|n| n.trim().parse().unwrap_or(0))
                            .collect()
                    });
                }
                _ => {}
            }
            i += if took_next { 2 } else { 1 };
        }
        m
    }
}

/// One port the file configures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortUse {
    /// `n3` or `n6`.
    pub name: &'static str,
    /// Its device.
    pub device: Device,
    /// Its device arguments.
    pub devargs: Option<String>,
    /// The link's IP MTU the file states, if any.
    pub mtu: Option<u16>,
    /// The largest IP packet a profile puts on it, if a profile was given.
    pub(crate) largest_packet: Option<usize>,
}

impl PortUse {
    /// The value of `key=` in the device arguments.
    pub fn devarg(&self, key: &str) -> Option<&str> {
        self.devargs.as_deref()?.split(',').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k.trim() == key).then_some(v.trim())
        })
    }
}

/// What a file asks of the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// EAL's memory.
    pub memory: EalMemory,
    /// The CPU of the main lcore (its number, unless `cores.cpus` maps it: `cores: auto` does).
    pub main: u32,
    /// The CPUs of the worker lcores, as `main`.
    pub workers: Vec<u32>,
    /// The ports.
    pub ports: Vec<PortUse>,
}

impl Setup {
    /// Of a system file, and of a profile to run on it.
    pub fn of_system(system: &System, profile: Option<&Profile>) -> Setup {
        let largest = profile.map(largest_packets);
        // Every pair's ports, N3 then N6.
        let ports = system
            .pairs()
            .iter()
            .flat_map(|pair| [("n3", &pair.n3), ("n6", &pair.n6)])
            .enumerate()
            .map(|(i, (name, p))| PortUse {
                name,
                device: p.device.clone(),
                devargs: p.devargs.clone(),
                mtu: p.mtu,
                largest_packet: largest.map(|l| l[i % 2]),
            })
            .collect();
        Setup::new(&system.eal, &system.cores, ports)
    }

    /// Of a reflector file.
    pub(crate) fn of_reflector(reflector: &Reflector) -> Setup {
        let ports = reflector
            .pairs()
            .iter()
            .flat_map(|pair| [("n3", &pair.n3), ("n6", &pair.n6)])
            .map(|(name, p)| PortUse {
                name,
                device: p.device.clone(),
                devargs: p.devargs.clone(),
                mtu: None,
                largest_packet: None,
            })
            .collect();
        Setup::new(&reflector.eal, &reflector.cores, ports)
    }

    fn new(eal: &Eal, cores: &config::Cores, ports: Vec<PortUse>) -> Setup {
        let cpu = |lcore: u32| cores.cpus.get(&lcore).copied().unwrap_or(lcore);
        Setup {
            memory: EalMemory::parse(&eal.args),
            main: cpu(cores.main),
            workers: cores.workers.iter().map(|&w| cpu(w)).collect(),
            ports,
        }
    }

    /// The CPUs of the main lcore and the workers.
    pub fn lcores(&self) -> Vec<u32> {
        let mut all = vec![self.main];
        all.extend(&self.workers);
        all
    }
}

/// The largest IP packets of a profile on N3 (uplink, and downlink tunnelled back) and on N6,
/// over its streams' payloads and its sweep's.
fn largest_packets(profile: &Profile) -> [usize; 2] {
    let s = &profile.sessions;
    // A container on either direction makes the N3 packet 8 bytes longer.
    let container = s.pdu_session_container || (s.qer.enabled && s.qfi.is_some());
    let payload = profile
        .streams
        .iter()
        .map(|st| st.payload)
        .chain(profile.sweep.payloads.iter().copied())
        .max()
        .map_or(0, usize::from);
    [
        config::frame::n3_ip_len(payload, container),
        config::frame::inner_ip_len(payload),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn memory_options_in_their_forms() {
        let m = EalMemory::parse(&args(&["--no-huge", "-m", "512", "--no-pci"]));
        assert!(m.no_huge && !m.in_memory);
        assert_eq!(m.total_mb, Some(512));
        let m = EalMemory::parse(&args(&["--in-memory", "--socket-mem=1024,2048", "-m256"]));
        assert!(m.in_memory);
        assert_eq!(m.per_node_mb, Some(vec![1024, 2048]));
        assert_eq!(m.total_mb, Some(256));
        let m = EalMemory::parse(&args(&["--socket-mem", "0,512", "-n", "4"]));
        assert_eq!(m.per_node_mb, Some(vec![0, 512]));
        assert_eq!(m.total_mb, None);
    }

    #[test]
    fn the_lcores_are_checked_on_the_cpus_they_run_on() {
        let ports = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
                     n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";
        let mapped = config::system_from_str(
            &format!("cores: {{main: 0, workers: [1, 2], cpus: {{0: 34, 2: 98}}}}\n{ports}"),
            "s.yaml",
        )
        .expect("valid");
        let setup = Setup::of_system(&mapped, None);
        assert_eq!((setup.main, &setup.workers[..]), (34, &[1, 98][..]));
        assert_eq!(setup.lcores(), [34, 1, 98]);
    }
}
