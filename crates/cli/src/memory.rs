//! The tester's own memory, as the kernel counts it (`/proc/self/status`).

/// Resident memory now and at its peak (bytes): `VmRSS` and `VmHWM`; zeros where the kernel
/// does not say.
pub fn resident() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (field_kb(&status, "VmRSS:"), field_kb(&status, "VmHWM:"))
}

fn field_kb(status: &str, name: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_kernels_figures_for_this_process() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(
            (field_kb(status, "VmRSS:"), field_kb(status, "VmHWM:")),
            (1 << 20, 2 << 20)
        );
        let (now, peak) = resident();
        assert!(now > 0 && peak >= now, "{now} {peak}");
    }
}
