//! The kernel's command line (`/proc/cmdline`): the parameters set at boot.

/// The kernel parameters, in order; those after `--` are init's and left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cmdline {
    params: Vec<(String, Option<String>)>,
}

impl Cmdline {
    /// Reads a command line as `/proc/cmdline` gives it.
    pub fn parse(text: &str) -> Cmdline {
        let params = text
            .split_whitespace()
            .take_while(|w| *w != "--")
            .map(|w| match w.split_once('=') {
                Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                None => (w.to_owned(), None),
            })
            .collect();
        Cmdline { params }
    }

    /// The value of the last `name=value` (the kernel takes the last), if any.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Whether `name` is there, with or without a value.
    pub fn has(&self, name: &str) -> bool {
        self.params.iter().any(|(k, _)| k == name)
    }

    /// The parameters of `names` that are set, as written: `intel_iommu=on iommu=pt`.
    pub fn shown(&self, names: &[&str]) -> Vec<String> {
        self.params
            .iter()
            .filter(|(k, _)| names.contains(&k.as_str()))
            .map(|(k, v)| match v {
                Some(v) => format!("{k}={v}"),
                None => k.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_before_the_double_dash() {
        let c = Cmdline::parse("ro quiet intel_iommu=on iommu=pt nohz_full=2-3 -- nohz_full=9\n");
        assert_eq!(c.value("intel_iommu"), Some("on"));
        assert_eq!(c.value("nohz_full"), Some("2-3"));
        assert!(c.has("quiet") && !c.has("isolcpus"));
        assert_eq!(c.value("quiet"), None);
        assert_eq!(
            c.shown(&["iommu", "intel_iommu", "amd_iommu"]),
            ["intel_iommu=on", "iommu=pt"]
        );
    }
}
