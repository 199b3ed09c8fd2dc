//! The EAL command line of a run, from the system file: the user's arguments, the lcores, a file
//! prefix of the process's own, and one `-a` (PCI) or `--vdev` argument per port.

/// A port as the system file names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// A PCI address (`0000:01:00.0`, `01:00.0`) or a vdev name (`net_memif0`).
    pub name: String,
    /// Device arguments (`role=client,socket=/tmp/upfbench/n3.sock`), if any.
    pub args: Option<String>,
}

impl Device {
    /// Whether the name is a PCI address, `[domain:]bus:device.function` in hex.
    pub fn is_pci(&self) -> bool {
        let (bdf, domain) = match self.name.matches(':').count() {
            1 => (self.name.as_str(), None),
            2 => {
                let (d, rest) = self.name.split_once(':').unwrap_or_default();
                (rest, Some(d))
            }
            _ => return false,
        };
        let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
        let Some((bus, rest)) = bdf.split_once(':') else {
            return false;
        };
        let Some((dev, func)) = rest.split_once('.') else {
            return false;
        };
        domain.is_none_or(|d| hex(d, 4))
            && hex(bus, 2)
            && hex(dev, 2)
            && func.len() == 1
            && matches!(func.as_bytes()[0], b'0'..=b'7')
    }

    /// The name DPDK gives the port once probed: the PCI address with its domain, or the vdev
    /// name.
    pub fn port_name(&self) -> String {
        if self.is_pci() && self.name.matches(':').count() == 1 {
            format!("0000:{}", self.name)
        } else {
            self.name.clone()
        }
    }

    fn with_args(&self) -> String {
        match &self.args {
            Some(a) if !a.is_empty() => format!("{},{a}", self.name),
            _ => self.name.clone(),
        }
    }
}

/// The EAL arguments: `user` first, then `-l main,workers --main-lcore main`, `--file-prefix`
/// unless the user gave one, and the devices.
pub fn eal_args(
    user: &[String],
    main_lcore: u32,
    workers: &[u32],
    file_prefix: &str,
    devices: &[Device],
) -> Vec<String> {
    let mut args: Vec<String> = user.to_vec();
    let lcores: Vec<String> = std::iter::once(main_lcore)
        .chain(workers.iter().copied())
        .map(|l| l.to_string())
        .collect();
    args.extend([
        "-l".into(),
        lcores.join(","),
        "--main-lcore".into(),
        main_lcore.to_string(),
    ]);
    if !user
        .iter()
        .any(|a| a == "--file-prefix" || a.starts_with("--file-prefix="))
    {
        args.extend(["--file-prefix".into(), file_prefix.into()]);
    }
    for d in devices {
        let flag = if d.is_pci() { "-a" } else { "--vdev" };
        args.extend([flag.into(), d.with_args()]);
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

/// Removes what EAL leaves in its runtime directory for `prefix` (root's is /var/run/dpdk, a
/// user's $XDG_RUNTIME_DIR/dpdk): the directory and the files in it, if empty of anything else.
pub fn remove_runtime_dir(prefix: &str) {
    let base = if is_root() {
        std::path::PathBuf::from("/var/run/dpdk")
    } else {
        match std::env::var_os("XDG_RUNTIME_DIR") {
            Some(d) => std::path::Path::new(&d).join("dpdk"),
            None => std::path::PathBuf::from("/tmp/dpdk"),
        }
    };
    let dir = base.join(prefix);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(&p);
            } else {
                let _ = std::fs::remove_file(&p);
            }
        }
    }
    let _ = std::fs::remove_dir(&dir);
}

fn is_root() -> bool {
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

    fn dev(name: &str, args: Option<&str>) -> Device {
        Device {
            name: name.into(),
            args: args.map(Into::into),
        }
    }

    #[test]
    fn pci_addresses_are_told_from_vdevs() {
        for pci in ["0000:01:00.0", "01:00.1", "0000:af:1f.7"] {
            assert!(dev(pci, None).is_pci(), "{pci}");
        }
        for vdev in [
            "net_memif0",
            "net_af_packet0",
            "01:00.8",
            "1:00.0",
            "0000:01:00",
            "x:yz:00.0",
        ] {
            assert!(!dev(vdev, None).is_pci(), "{vdev}");
        }
        assert_eq!(dev("01:00.1", None).port_name(), "0000:01:00.1");
        assert_eq!(dev("net_memif0", None).port_name(), "net_memif0");
    }

    #[test]
    fn the_command_line_has_lcores_prefix_and_devices() {
        let args = eal_args(
            &["--no-huge".into(), "-m".into(), "512".into()],
            0,
            &[1, 2],
            "upfbench-gen",
            &[
                dev("net_memif0", Some("role=client,socket=/tmp/n3.sock")),
                dev("0000:01:00.0", None),
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
    fn a_users_file_prefix_is_kept() {
        let args = eal_args(&["--file-prefix=mine".into()], 3, &[], "ours", &[]);
        assert_eq!(args, ["--file-prefix=mine", "-l", "3", "--main-lcore", "3"]);
        assert_eq!(file_prefix(&args).as_deref(), Some("mine"));
    }
}
