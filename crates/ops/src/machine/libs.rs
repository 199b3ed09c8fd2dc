//! Shared libraries on the machine, found where the dynamic loader looks for them by default.

use super::Root;

/// The directories searched, in order: the multiarch ones of this architecture first.
pub fn library_dirs() -> Vec<String> {
    let triple = format!("{}-linux-gnu", std::env::consts::ARCH);
    vec![
        format!("/usr/lib/{triple}"),
        format!("/lib/{triple}"),
        "/usr/lib64".to_owned(),
        "/lib64".to_owned(),
        "/usr/lib".to_owned(),
        "/lib".to_owned(),
        "/usr/local/lib".to_owned(),
    ]
}

/// Where the library file `name` (`libibverbs.so.1`) is, as a path on the machine.
pub fn find_library(root: &Root, name: &str) -> Option<String> {
    library_dirs()
        .into_iter()
        .map(|d| format!("{d}/{name}"))
        .find(|p| root.exists(p))
}
