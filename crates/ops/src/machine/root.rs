//! The directory every sysfs and procfs path is read under: `/` on a real machine, a made-up
//! tree in tests (`--root DIR`, a hidden option of `doctor`, `nics` and `bind`).

use std::io;
use std::path::{Path, PathBuf};

/// The root of the file system the machine's facts are read from (and, for `bind`, written to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// Paths like `/sys/bus/pci/devices` are taken under `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Root {
        Root { dir: dir.into() }
    }

    /// `path` (written as on the machine, `/sys/...`) under the root.
    pub fn path(&self, path: &str) -> PathBuf {
        self.dir.join(path.trim_start_matches('/'))
    }

    /// A file's content, trimmed; `None` if it cannot be read.
    pub fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.path(path))
            .ok()
            .map(|s| s.trim().to_owned())
    }

    /// A file's content parsed as a decimal number.
    pub(crate) fn read_number(&self, path: &str) -> Option<u64> {
        self.read(path)?.parse().ok()
    }

    /// The names in a directory, sorted; empty if it cannot be read.
    pub fn list(&self, path: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(path))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Whether `path` exists (following links).
    pub fn exists(&self, path: &str) -> bool {
        self.path(path).exists()
    }

    /// Whether `path` is a directory (following links).
    pub fn is_dir(&self, path: &str) -> bool {
        self.path(path).is_dir()
    }

    /// Where the symbolic link `path` points, as written in the link (sysfs writes relative
    /// targets, which stay inside a made-up tree).
    pub(crate) fn link_target(&self, path: &str) -> Option<PathBuf> {
        std::fs::read_link(self.path(path)).ok()
    }

    /// The last component of the link's target: a driver's or a device's name.
    pub(crate) fn link_name(&self, path: &str) -> Option<String> {
        let target = self.link_target(path)?;
        Some(Path::new(&target).file_name()?.to_str()?.to_owned())
    }

    /// Writes `value` to the existing file `path`, in one write, as sysfs wants; never creates
    /// it (a missing sysfs file means a kernel without that interface).
    pub fn write(&self, path: &str, value: &str) -> io::Result<()> {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(self.path(path))?;
        file.write_all(value.as_bytes())
    }
}

impl Default for Root {
    /// The real machine: `/`.
    fn default() -> Self {
        Root::new("/")
    }
}
