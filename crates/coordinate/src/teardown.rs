//! After the last step (docs/scale.md §3): every agent still counted unloads its segment, so
//! that it ends its session and writes its own report of the run at once (an agent keeps only
//! its last step's result, and writes its report when its segment goes), before the sessions
//! are deleted on the UPF.

use upfbench_remote::Client;

/// Every agent of `names` but the `lost` ones unloads its segment, side by side; a line for
/// each that could not.
pub async fn unload(clients: &[Client], names: &[String], lost: &[String]) -> Vec<String> {
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
