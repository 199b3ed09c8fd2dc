//! Shell completions for bash, zsh and fish, from the `Cli`.

use std::path::{Path, PathBuf};

use clap_complete::Shell;

/// The shells the package installs completions for, in Debian's places for each.
pub(crate) const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// Writes one completion file per shell of [`SHELLS`] into `dir` and returns their paths.
pub(crate) fn write_all(mut cli: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    SHELLS
        .into_iter()
        .map(|shell| clap_complete::generate_to(shell, &mut cli, "upfbench", dir))
        .collect()
}
