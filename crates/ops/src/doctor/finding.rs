//! One line of `upfbench doctor`: a need, whether the machine meets it, and the fix.

use std::fmt;

/// Whether a need is met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Met.
    Ok,
    /// Not met, and a run works without it, worse (measurements on shared cores, a NIC on
    /// the far NUMA node, a power-saving governor).
    Warn,
    /// Not met, and a run fails without it.
    Missing,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Missing => "missing",
        })
    }
}

/// A need and what the machine has of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Met or not.
    pub status: Status,
    /// What is needed, in a few words (`hugepages node 0`, `n3 driver`).
    pub need: String,
    /// What the machine has, with the numbers.
    pub detail: String,
    /// The command or kernel parameter that meets it, when it is not met.
    pub fix: Option<String>,
}

impl Finding {
    /// A need met.
    pub fn ok(need: impl Into<String>, detail: impl Into<String>) -> Finding {
        Finding {
            status: Status::Ok,
            need: need.into(),
            detail: detail.into(),
            fix: None,
        }
    }

    /// A need not met that a run survives.
    pub fn warn(
        need: impl Into<String>,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Finding {
        Finding {
            status: Status::Warn,
            need: need.into(),
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }

    /// A need not met that a run fails on.
    pub fn missing(
        need: impl Into<String>,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Finding {
        Finding {
            status: Status::Missing,
            need: need.into(),
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

impl fmt::Display for Finding {
    /// `missing n3 driver: 0000:00:04.0 is on virtio-pci ...; fix: upfbench bind 0000:00:04.0`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<7} {}: {}", self.status, self.need, self.detail)?;
        if let Some(fix) = &self.fix {
            write!(f, "; fix: {fix}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_per_need_with_its_fix() {
        assert_eq!(
            Finding::ok("hugepages node 0", "512 of 512 2 MB pages free").to_string(),
            "ok      hugepages node 0: 512 of 512 2 MB pages free"
        );
        assert_eq!(
            Finding::missing(
                "hugetlbfs",
                "none mounted",
                "mount -t hugetlbfs nodev /dev/hugepages"
            )
            .to_string(),
            "missing hugetlbfs: none mounted; fix: mount -t hugetlbfs nodev /dev/hugepages"
        );
        assert!(Status::Missing > Status::Warn && Status::Warn > Status::Ok);
    }
}
