//! The EAL command line of a run, from the system file: the user's arguments, the lcores, a file
//! prefix of the process's own, and one `-a` (PCI) or `--vdev` argument per port; and the guard
//! that removes EAL's runtime directory of that prefix however the command ends.

use upfbench_config::{Cores, Device};

/// A port as the system file names it: the device and its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortDevice<'a> {
    /// The vdev or the NIC.
    pub device: &'a Device,
    /// Device arguments (`role=client,socket=/tmp/upfbench/n3.sock`), if any.
    pub args: Option<&'a str>,
}

impl PortDevice<'_> {
    /// The name DPDK gives the port once probed: the PCI address with its domain, or the vdev
    /// name.
    pub fn port_name(&self) -> String {
        match self.device {
            Device::Pci(a) if a.matches(':').count() == 1 => format!("0000:{a}"),
            d => d.name().to_owned(),
        }
    }

    fn argument(&self) -> (&'static str, String) {
        let flag = match self.device {
            Device::Pci(_) => "-a",
            Device::Vdev(_) => "--vdev",
        };
        match self.args {
            Some(a) if !a.is_empty() => (flag, format!("{},{a}", self.device.name())),
            _ => (flag, self.device.name().to_owned()),
        }
    }
}

/// The EAL arguments: `user` first, then `-l main,workers --main-lcore main` (`--lcores` with
/// `lcore@cpu` for the lcores `cores.cpus` maps), `--file-prefix` unless the user gave one, and
/// the devices.
pub fn eal_args(
    user: &[String],
    cores: &Cores,
    file_prefix: &str,
    devices: &[PortDevice<'_>],
) -> Vec<String> {
    let mut args: Vec<String> = user.to_vec();
    let lcores: Vec<String> = std::iter::once(cores.main)
        .chain(cores.workers.iter().copied())
        .map(|l| match cores.cpus.get(&l) {
            Some(cpu) => format!("{l}@{cpu}"),
            None => l.to_string(),
        })
        .collect();
    let option = if cores.cpus.is_empty() {
        "-l"
    } else {
        "--lcores"
    };
    args.extend([
        option.into(),
        lcores.join(","),
        "--main-lcore".into(),
        cores.main.to_string(),
    ]);
    if !user
        .iter()
        .any(|a| a == "--file-prefix" || a.starts_with("--file-prefix="))
    {
        args.extend(["--file-prefix".into(), file_prefix.into()]);
    }
    // One-port mode names N3's device for N6 too: it is probed once.
    let mut given: Vec<(&str, String)> = Vec::with_capacity(devices.len());
    for d in devices {
        let argument = d.argument();
        if !given.contains(&argument) {
            given.push(argument);
        }
    }
    for (flag, value) in given {
        args.extend([flag.into(), value]);
    }
    args
}

/// The file prefix EAL was given in `args`, if any.
pub fn file_prefix(args: &[String]) -> Option<String> {
    args.iter().enumerate().find_map(|(i, a)| {
        if a == "--file-prefix" {
            args.get(i + 1).cloned()
        } else {
            a.strip_prefix("--file-prefix=").map(str::to_owned)
        }
    })
}

/// Whether `args` ask for a secondary process (`--proc-type secondary`, or `auto`, which is
/// one when a primary runs): its runtime directory is the primary's, not its own to remove.
pub fn joins_a_primary(args: &[String]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        let value = if a == "--proc-type" {
            args.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix("--proc-type=")
        };
        matches!(value, Some("secondary" | "auto"))
    })
}

/// EAL's runtime directory for `prefix` (root's is /var/run/dpdk, a user's
/// $XDG_RUNTIME_DIR/dpdk).
pub fn runtime_dir(prefix: &str) -> std::path::PathBuf {
    let base = if is_root() {
        std::path::PathBuf::from("/var/run/dpdk")
    } else {
        match std::env::var_os("XDG_RUNTIME_DIR") {
            Some(d) => std::path::Path::new(&d).join("dpdk"),
            None => std::path::PathBuf::from("/tmp/dpdk"),
        }
    };
    base.join(prefix)
}

/// Removes what EAL leaves in its runtime directory: the directory and the files in it.
fn remove_dir(dir: &std::path::Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(&p);
            } else {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// EAL's runtime directory, removed when this guard is dropped: on every way out of a command,
/// errors and panics (unwinding) included. Create it before `Eal::init` and let it outlive the
/// `Eal`, so that the directory goes after EAL's cleanup.
#[derive(Debug)]
#[must_use = "the directory is removed when the guard is dropped"]
pub struct RuntimeDirGuard {
    dir: std::path::PathBuf,
}

impl RuntimeDirGuard {
    /// The guard of `prefix`'s runtime directory.
    pub fn new(prefix: &str) -> RuntimeDirGuard {
        RuntimeDirGuard::at(runtime_dir(prefix))
    }

    /// The guard of the directory `dir`.
    pub fn at(dir: std::path::PathBuf) -> RuntimeDirGuard {
        RuntimeDirGuard { dir }
    }
}

impl Drop for RuntimeDirGuard {
    fn drop(&mut self) {
        remove_dir(&self.dir);
    }
}

/// Whether the process runs as root (EAL's runtime directory and the tests' needs depend on it).
pub fn is_root() -> bool {
    // The effective uid, without libc: /proc/self/status has "Uid: real effective ...".
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_name_is_what_dpdk_calls_the_device() {
        let pci = Device::Pci("01:00.1".into());
        let vdev = Device::Vdev("net_memif0".into());
        let d = |device| PortDevice { device, args: None };
        assert_eq!(d(&pci).port_name(), "0000:01:00.1");
        let full = Device::Pci("0000:af:00.0".into());
        assert_eq!(d(&full).port_name(), "0000:af:00.0");
        assert_eq!(d(&vdev).port_name(), "net_memif0");
    }

    #[test]
    fn the_command_line_has_lcores_prefix_and_devices() {
        let memif = Device::Vdev("net_memif0".into());
        let nic = Device::Pci("0000:01:00.0".into());
        let cores = Cores {
            main: 0,
            workers: vec![1, 2],
            ..Cores::default()
        };
        let args = eal_args(
            &["--no-huge".into(), "-m".into(), "512".into()],
            &cores,
            "upfbench-gen",
            &[
                PortDevice {
                    device: &memif,
                    args: Some("role=client,socket=/tmp/n3.sock"),
                },
                PortDevice {
                    device: &nic,
                    args: None,
                },
            ],
        );
        assert_eq!(
            args,
            [
                "--no-huge",
                "-m",
                "512",
                "-l",
                "0,1,2",
                "--main-lcore",
                "0",
                "--file-prefix",
                "upfbench-gen",
                "--vdev",
                "net_memif0,role=client,socket=/tmp/n3.sock",
                "-a",
                "0000:01:00.0",
            ]
        );
        assert_eq!(file_prefix(&args).as_deref(), Some("upfbench-gen"));
    }

    #[test]
    fn one_device_for_both_ports_is_probed_once() {
        let memif = Device::Vdev("net_memif0".into());
        let trunk = PortDevice {
            device: &memif,
            args: Some("role=client,socket=/tmp/trunk.sock"),
        };
        let args = eal_args(&[], &Cores::default(), "p", &[trunk, trunk]);
        let vdevs: Vec<_> = args.iter().filter(|a| *a == "--vdev").collect();
        assert_eq!(vdevs.len(), 1, "{args:?}");
        assert_eq!(
            args.last().map(String::as_str),
            Some("net_memif0,role=client,socket=/tmp/trunk.sock")
        );
    }

    #[test]
    fn the_guard_removes_the_runtime_directory_when_a_panic_unwinds_through_it() {
        let dir = std::env::temp_dir().join(format!("upfbench-guard-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("mp_socket_dir")).unwrap();
        std::fs::write(dir.join("config"), b"x").unwrap();
        std::fs::write(dir.join("mp_socket_dir/a"), b"x").unwrap();
        let d = dir.clone();
        let r = std::panic::catch_unwind(move || {
            let _guard = RuntimeDirGuard::at(d);
            panic!("a failure mid-run");
        });
        assert!(r.is_err());
        assert!(!dir.exists(), "{} left behind", dir.display());
    }

    #[test]
    fn a_secondary_process_is_recognised_in_both_spellings() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(joins_a_primary(&args(&["--proc-type", "secondary"])));
        assert!(joins_a_primary(&args(&["-l", "0", "--proc-type=auto"])));
        assert!(!joins_a_primary(&args(&["--proc-type=primary"])));
        assert!(!joins_a_primary(&args(&["--no-huge", "--proc-type"])));
        assert!(!joins_a_primary(&args(&["--file-prefix", "secondary"])));
    }

    #[test]
    fn a_users_file_prefix_is_kept() {
        let cores = Cores {
            main: 3,
            workers: vec![],
            ..Cores::default()
        };
        let args = eal_args(&["--file-prefix=mine".into()], &cores, "ours", &[]);
        assert_eq!(args, ["--file-prefix=mine", "-l", "3", "--main-lcore", "3"]);
        assert_eq!(file_prefix(&args).as_deref(), Some("mine"));
    }

    /// More lcores than CPUs: lcore 2 on CPU 1, beside worker 1; the others on their own.
    #[test]
    fn mapped_lcores_go_to_their_cpus_with_lcores() {
        let cores = Cores {
            main: 0,
            workers: vec![1, 2],
            cpus: [(2, 1)].into(),
        };
        let args = eal_args(&[], &cores, "gen", &[]);
        assert_eq!(
            args,
            [
                "--lcores",
                "0,1,2@1",
                "--main-lcore",
                "0",
                "--file-prefix",
                "gen"
            ]
        );
    }
}
