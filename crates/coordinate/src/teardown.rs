//! After the last step (docs/scale.md §3): every agent still counted unloads its segment, so
//! that it ends its session and writes its own report of the run at once (an agent keeps only
//! its last step's result, and writes its report when its segment goes), before the sessions
//! are deleted on the UPF.

use upfbench_pfcp::driver::Release;
use upfbench_remote::Client;

use crate::held::end_n4;
use crate::smf::Smf;

/// How a run over agents ended after its last step.
#[derive(Debug)]
pub struct Ended {
    /// What went wrong in the end (a segment not unloaded, N4 not ended), a line each, already
    /// said: the report's warnings.
    pub warnings: Vec<String>,
    /// With the coordinator on N4: the sessions deleted and how the release went.
    pub n4_end: Option<(usize, Release)>,
    /// N4's end failed: sessions may be left on the UPF.
    pub n4_failed: bool,
}

impl Ended {
    /// The exit status of a run that ended so, from `status` (1 when N4's end failed, unless
    /// the run lost an agent: 3).
    pub fn exit_status(&self, status: i32) -> i32 {
        if self.n4_failed && status == 0 {
            1
        } else {
            status
        }
    }
}

/// The end of a run over `clients` (named `names`, the `lost` ones left out): every segment
/// unloaded, then N4's sessions deleted and the association released; each problem said.
pub async fn end_run(
    clients: &[Client],
    (names, lost): (&[String], &[String]),
    smf: Option<Smf>,
    say: &(dyn Fn(&str) + Sync),
) -> Ended {
    let mut warnings = unload(clients, names, lost).await;
    for line in &warnings {
        say(line);
    }
    let (n4_end, n4_failure) = end_n4(smf, say).await;
    let n4_failed = n4_failure.is_some();
    warnings.extend(n4_failure);
    Ended {
        warnings,
        n4_end,
        n4_failed,
    }
}

/// Every agent of `names` but the `lost` ones unloads its segment, side by side; a line for
/// each that could not.
async fn unload(clients: &[Client], names: &[String], lost: &[String]) -> Vec<String> {
    let tasks: Vec<_> = clients
        .iter()
        .zip(names)
        .filter(|(_, name)| !lost.contains(name))
        .map(|(c, name)| {
            let c = c.clone();
            let name = name.clone();
            tokio::spawn(async move { (name, c.unload_segment().await) })
        })
        .collect();
    let mut problems = Vec::new();
    for task in tasks {
        match task.await {
            Ok((_, Ok(()))) => {}
            Ok((name, Err(e))) => problems.push(format!("{name}: unloading its segment: {e}")),
            Err(e) => problems.push(format!("unloading a segment: {e}")),
        }
    }
    problems
}
