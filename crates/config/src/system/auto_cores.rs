//! `cores: auto`: the main lcore and the workers from the CPUs this process may run on, for a
//! process whose CPUs someone else chose (a Kubernetes pod of Guaranteed QoS under the kubelet's
//! static CPU manager, `taskset`, a cpuset cgroup).
//!
//! The first CPU of the mask runs the main lcore (lcore 0), each other CPU a worker (lcores 1,
//! 2, ...), through `cores.cpus` where an lcore's number is not its CPU's: so a mask of any CPUs
//! (`{34, 35, 98}`) gives lcores below DPDK's limit.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::Deserializer;
use serde::ser::{SerializeMap, Serializer};

use super::Cores;
use super::checks::MAX_LCORE;
use super::host::Host;
use crate::issues::Issues;
use crate::serde_forms::keyword_or_map;

/// What `cores: auto` reads as until it is resolved: no lcore DPDK could have.
const AUTO_MAIN: u32 = u32::MAX;

impl Cores {
    /// `cores: auto`, before the loader resolves it.
    fn auto() -> Cores {
        Cores {
            main: AUTO_MAIN,
            workers: Vec::new(),
            cpus: BTreeMap::new(),
        }
    }

    /// Whether the file said `cores: auto` and it is not resolved yet.
    pub(crate) fn is_auto(&self) -> bool {
        self.main == AUTO_MAIN && self.workers.is_empty()
    }
}

/// `cores`: `auto` or the mapping (`{main: 0, workers: [1]}`), the mapping's errors in place;
/// its schema and the default the schema writes (`serde(with = "CoresOrAuto")`).
pub(crate) struct CoresOrAuto;

impl CoresOrAuto {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Cores, D::Error> {
        keyword_or_map(
            deserializer,
            "{main: 0, workers: [1]}",
            "auto",
            Cores::auto,
            |c: Cores| c,
        )
    }

    pub(crate) fn serialize<S: Serializer>(cores: &Cores, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("main", &cores.main)?;
        map.serialize_entry("workers", &cores.workers)?;
        map.serialize_entry("cpus", &cores.cpus)?;
        map.end()
    }
}

impl JsonSchema for CoresOrAuto {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("CoresOrAuto")
    }
    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("upfbench::config::CoresOrAuto")
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "oneOf": [
                {
                    "const": "auto",
                    "description": "the main lcore on the first CPU this process may run on \
                                    (its affinity mask), a worker on each other CPU",
                },
                generator.subschema_for::<Cores>(),
            ]
        })
    }
}

/// The lcores for a process that may run on `cpus` (increasing): lcore 0, the main lcore, on
/// the first; workers 1, 2, ... on the others.
pub(crate) fn cores_from_cpus(cpus: &[u32]) -> Result<Cores, String> {
    let list = cpu_list(cpus);
    if cpus.len() < 2 {
        return Err(format!(
            "auto: this process may run on {} CPU{} ({list}), and the main lcore and a worker \
             need one each: give it 2 CPUs or more (a pod's integer `cpu` request of 2), or \
             list the lcores",
            cpus.len(),
            if cpus.len() == 1 { "" } else { "s" },
        ));
    }
    if cpus.len() > MAX_LCORE as usize {
        return Err(format!(
            "auto: this process may run on {} CPUs ({list}), more than DPDK's {MAX_LCORE} \
             lcores: list the lcores",
            cpus.len()
        ));
    }
    let lcores = (0u32..).zip(cpus.iter().copied());
    Ok(Cores {
        main: 0,
        workers: (1..cpus.len() as u32).collect(),
        cpus: lcores.filter(|(lcore, cpu)| lcore != cpu).collect(),
    })
}

/// `0-3,8`: the kernel's form of a CPU list (`taskset -c`, `Cpus_allowed_list`).
fn cpu_list(cpus: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &cpu in cpus {
        match runs.last_mut() {
            Some((_, last)) if cpu == *last + 1 => *last = cpu,
            _ => runs.push((cpu, cpu)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if text.is_empty() {
        "none".to_owned()
    } else {
        text.join(",")
    }
}

/// Resolves `cores: auto` on `host`'s CPUs; a problem is reported at `cores`, which then reads
/// as the default so that the other checks do not report it again.
pub(crate) fn resolve_cores(cores: &mut Cores, host: &dyn Host, issues: &mut Issues) {
    if !cores.is_auto() {
        return;
    }
    let resolved = host
        .cpus()
        .map_err(|e| format!("auto: cannot read the CPUs this process may run on: {e}"))
        .and_then(|cpus| cores_from_cpus(&cpus));
    *cores = resolved.unwrap_or_else(|message| {
        issues.add("cores", message);
        Cores::default()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::host::fake::FakeHost;
    use crate::{ConfigError, reflector_from_str_on, system_from_str_on};

    const PORTS: &str = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
                         n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";

    fn auto_on(host: &FakeHost) -> Result<Cores, ConfigError> {
        system_from_str_on(&format!("cores: auto\n{PORTS}"), "s.yaml", host).map(|s| s.cores)
    }

    #[test]
    fn the_first_cpu_is_the_main_lcore_and_the_others_workers() {
        let cores = auto_on(&FakeHost::cpus(&[0, 1, 2])).expect("valid");
        assert_eq!((cores.main, cores.workers), (0, vec![1, 2]));
        assert!(cores.cpus.is_empty(), "lcore n is CPU n: {:?}", cores.cpus);
    }

    #[test]
    fn lcores_are_numbered_from_0_and_mapped_to_the_mask_s_cpus() {
        // What a pod of `cpu: 3` on a two-socket node can be given.
        let cores = auto_on(&FakeHost::cpus(&[34, 35, 200])).expect("valid");
        assert_eq!((cores.main, &cores.workers[..]), (0, &[1, 2][..]));
        assert_eq!(
            cores.cpus,
            BTreeMap::from([(0, 34), (1, 35), (2, 200)]),
            "each lcore on its CPU"
        );
        let cores = auto_on(&FakeHost::cpus(&[0, 5])).expect("valid");
        assert_eq!(
            cores.cpus,
            BTreeMap::from([(1, 5)]),
            "lcore 0 is CPU 0 already"
        );
    }

    #[test]
    fn one_cpu_is_too_few_at_the_cores_field() {
        let err = auto_on(&FakeHost::cpus(&[7])).expect_err("one CPU");
        assert_eq!(
            err.to_string(),
            "s.yaml:1:8: cores: auto: this process may run on 1 CPU (7), and the main lcore and \
             a worker need one each: give it 2 CPUs or more (a pod's integer `cpu` request of \
             2), or list the lcores"
        );
    }

    #[test]
    fn more_cpus_than_lcores_are_refused() {
        let cpus: Vec<u32> = (0..130).collect();
        let err = auto_on(&FakeHost::cpus(&cpus)).expect_err("130 CPUs");
        assert_eq!(
            err.to_string(),
            "s.yaml:1:8: cores: auto: this process may run on 130 CPUs (0-129), more than \
             DPDK's 128 lcores: list the lcores"
        );
        let cores = auto_on(&FakeHost::cpus(&cpus[..128])).expect("128 CPUs");
        assert_eq!(cores.workers.len(), 127);
    }

    #[test]
    fn an_unreadable_mask_is_reported_once() {
        let err = auto_on(&FakeHost::default()).expect_err("no mask");
        assert_eq!(
            err.to_string(),
            "s.yaml:1:8: cores: auto: cannot read the CPUs this process may run on: \
             sched_getaffinity: Operation not permitted"
        );
    }

    #[test]
    fn the_resolved_cores_pass_the_other_checks() {
        // Two workers: the ports' queues must be 2, as for a file that lists them.
        let text = format!(
            "cores: auto\n{}",
            PORTS.replace("net_null0,", "net_null0, queues: 3,")
        );
        let err = system_from_str_on(&text, "s.yaml", &FakeHost::cpus(&[2, 3, 4]))
            .expect_err("3 queues for 2 workers");
        assert!(
            err.to_string()
                .ends_with("n3.queues: 3 queues for 2 workers: each worker owns one receive and one transmit queue of each port, so give 2 (cores.workers), or leave the field out"),
            "{err}"
        );
    }

    #[test]
    fn the_mapping_still_reads_with_its_own_errors() {
        let host = FakeHost::cpus(&[0, 1]);
        let s = system_from_str_on(
            &format!("cores: {{main: 2, workers: [3]}}\n{PORTS}"),
            "s",
            &host,
        )
        .expect("valid");
        assert_eq!(
            (s.cores.main, s.cores.workers),
            (2, vec![3]),
            "not the mask's"
        );
        let err = system_from_str_on(
            &format!("cores: {{main: 0, wrkers: [1]}}\n{PORTS}"),
            "s",
            &host,
        )
        .expect_err("unknown field");
        assert!(err.to_string().contains("unknown field `wrkers`"), "{err}");
        let err = system_from_str_on(&format!("cores: automatic\n{PORTS}"), "s", &host)
            .expect_err("not the keyword");
        assert!(
            err.to_string()
                .contains("\"automatic\": write `auto` or {main: 0, workers: [1]}"),
            "{err}"
        );
    }

    #[test]
    fn the_reflector_file_takes_auto_too() {
        let r = reflector_from_str_on(
            "cores: auto\n\
             n3: {device: net_null0, address: 192.168.13.151/24}\n\
             n6: {device: net_null1, address: 192.168.16.151/24, peer: 192.168.16.152}\n\
             pfcp: {}\n",
            "r.yaml",
            &FakeHost::cpus(&[4, 6]),
        )
        .expect("valid");
        assert_eq!((r.cores.main, r.cores.workers), (0, vec![1]));
        assert_eq!(r.cores.cpus, BTreeMap::from([(0, 4), (1, 6)]));
    }

    #[test]
    fn cpu_lists_read_as_the_kernel_writes_them() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[]), "none");
    }
}
