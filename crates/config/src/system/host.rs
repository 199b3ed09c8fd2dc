//! What a file's host-dependent forms are resolved against: `cores: auto` takes the CPUs this
//! process may run on, `device: {env: NAME}` an environment variable (docs/kubernetes.md: the
//! kubelet's static CPU manager picks the CPUs, the SR-IOV device plugin names the VF).
//!
//! The loaders resolve them where the rest of the file is checked, so that a problem is reported
//! at its field like any other; the [`Host`] they ask is a parameter, so that the resolution is
//! tested with any mask and environment (`*_from_str_on`), and [`ThisProcess`] is the one place
//! that asks the kernel.

use super::auto_cores::resolve_cores;
use super::device_env::resolve_device;
use super::{Pair, Port, System};
use crate::issues::Issues;
use crate::profile::Profile;
use crate::reflector::Reflector;

/// The environment a file is resolved in.
pub trait Host {
    /// The value of the environment variable `name`; `None` when it is unset (or not Unicode).
    fn var(&self, name: &str) -> Option<String>;

    /// The CPUs this process may run on (its affinity mask), in increasing order, or why they
    /// cannot be read.
    fn cpus(&self) -> Result<Vec<u32>, String>;
}

/// This process: its environment, and its affinity mask from `sched_getaffinity(2)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThisProcess;

impl Host for ThisProcess {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn cpus(&self) -> Result<Vec<u32>, String> {
        use rustix::thread::{CpuSet, sched_getaffinity};
        let set = sched_getaffinity(None).map_err(|e| format!("sched_getaffinity: {e}"))?;
        Ok((0..CpuSet::MAX_CPU)
            .filter(|&cpu| set.is_set(cpu))
            .filter_map(|cpu| u32::try_from(cpu).ok())
            .collect())
    }
}

/// A file type's host-dependent forms, resolved before its other checks.
pub(crate) trait OnHost {
    /// Replaces `auto` and `{env: NAME}` with what `host` gives, each problem at its field.
    fn resolve_on(&mut self, _host: &dyn Host, _issues: &mut Issues) {}
}

impl OnHost for Profile {}

impl OnHost for System {
    fn resolve_on(&mut self, host: &dyn Host, issues: &mut Issues) {
        let (cores, pairs, ports) = self.host_parts();
        resolve_all(cores, pairs, ports, host, issues);
    }
}

impl OnHost for Reflector {
    fn resolve_on(&mut self, host: &dyn Host, issues: &mut Issues) {
        let (cores, pairs, ports) = self.host_parts();
        resolve_all(cores, pairs, ports, host, issues);
    }
}

/// The cores and every port of a file as read (before its pairs are made): the top-level `n3`
/// and `n6`, and each pair's. `cores: auto` serves the short form's one pair: with `pairs`, each
/// pair lists its workers.
fn resolve_all<Peer>(
    cores: &mut super::Cores,
    pairs: &mut [Pair<Peer>],
    top: [(&str, Option<&mut Port<Peer>>); 2],
    host: &dyn Host,
    issues: &mut Issues,
) {
    if !pairs.is_empty() && cores.is_auto() {
        issues.add(
            "cores",
            "auto: the CPUs of this process make the workers of one pair (the top-level n3 and \
             n6); with `pairs`, give `cores: {main: ...}` and each pair's `workers`",
        );
        *cores = super::Cores::default();
    }
    resolve_cores(cores, host, issues);
    for (name, port) in top {
        if let Some(port) = port {
            resolve_port(port, name, host, issues);
        }
    }
    for (k, pair) in pairs.iter_mut().enumerate() {
        let at = crate::field::join_index("pairs", k);
        resolve_port(&mut pair.n3, &format!("{at}.n3"), host, issues);
        resolve_port(&mut pair.n6, &format!("{at}.n6"), host, issues);
    }
}

/// The device of the port named `name`.
fn resolve_port<Peer>(port: &mut Port<Peer>, name: &str, host: &dyn Host, issues: &mut Issues) {
    resolve_device(&mut port.device, &format!("{name}.device"), host, issues);
}

#[cfg(test)]
pub(crate) mod fake {
    use std::collections::BTreeMap;

    use super::Host;

    /// A host with the given variables and affinity mask.
    #[derive(Debug, Clone, Default)]
    pub(crate) struct FakeHost {
        pub(crate) vars: BTreeMap<String, String>,
        pub(crate) cpus: Option<Vec<u32>>,
    }

    impl FakeHost {
        pub(crate) fn cpus(cpus: &[u32]) -> FakeHost {
            FakeHost {
                cpus: Some(cpus.to_vec()),
                ..FakeHost::default()
            }
        }

        pub(crate) fn var(mut self, name: &str, value: &str) -> FakeHost {
            self.vars.insert(name.to_owned(), value.to_owned());
            self
        }
    }

    impl Host for FakeHost {
        fn var(&self, name: &str) -> Option<String> {
            self.vars.get(name).cloned()
        }

        fn cpus(&self) -> Result<Vec<u32>, String> {
            self.cpus
                .clone()
                .ok_or_else(|| "sched_getaffinity: Operation not permitted".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_reads_its_own_mask() {
        let cpus = ThisProcess.cpus().expect("the affinity mask");
        assert!(!cpus.is_empty(), "a process runs on some CPU");
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "{cpus:?}");
        let parallelism = std::thread::available_parallelism().expect("parallelism");
        // std reads the same mask (capped by a cgroup's quota, never above the mask).
        assert!(parallelism.get() <= cpus.len(), "{parallelism} > {cpus:?}");
    }
}
