//! Packaging helpers for upfbench, run at packaging time (deploy/package/build.sh): the man
//! pages and the shell completions, made from the same `Cli` the binary parses, so that a
//! subcommand or an option added there shows up in both with no change here; and the
//! configuration reference, made from the config types (`config-reference`); and the HTTP
//! API's OpenAPI document, made from the api crate's routes and types (`openapi`).
#![forbid(unsafe_code)]

mod completions;
mod config_reference;
mod man;

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};
use upfbench_cli::Cli;

/// upfbench's packaging helpers.
#[derive(Debug, Parser)]
#[command(name = "xtask")]
struct Args {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Write upfbench.1 and a page per subcommand (upfbench-run.1, ...) into DIR.
    Man {
        /// The directory to write into, made if missing.
        dir: PathBuf,
    },
    /// Write the bash, zsh and fish completions (upfbench.bash, _upfbench, upfbench.fish)
    /// into DIR.
    Completions {
        /// The directory to write into, made if missing.
        dir: PathBuf,
    },
    /// Write the configuration reference, made from the config types: the JSON Schemas
    /// schema/{system,profile,reflector}.schema.json and the pages docs/reference/*.md.
    ConfigReference {
        /// The repository to write into (default: this one).
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// Write the HTTP API's OpenAPI document, made from the api crate's route table and
    /// types: schema/api/v1/openapi.json.
    Openapi {
        /// The repository to write into (default: this one).
        #[arg(long)]
        root: Option<PathBuf>,
    },
}

fn main() -> anyhow::Result<()> {
    let (dir, write): (PathBuf, fn(clap::Command, &Path) -> std::io::Result<_>) =
        match Args::parse().task {
            Task::Man { dir } => (dir, man::write_pages),
            Task::Completions { dir } => (dir, completions::write_all),
            Task::ConfigReference { root } => {
                let root =
                    root.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
                let changed = config_reference::write_all(&root)
                    .with_context(|| format!("writing the reference into {}", root.display()))?;
                #[allow(clippy::print_stdout)]
                for path in &changed {
                    println!("wrote {path}");
                }
                return Ok(());
            }
            Task::Openapi { root } => {
                let root =
                    root.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
                let path = root.join(upfbench_api::v1::openapi::PATH);
                let text = upfbench_api::v1::openapi::text();
                if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
                    return Ok(());
                }
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("making {}", dir.display()))?;
                }
                std::fs::write(&path, text)
                    .with_context(|| format!("writing {}", path.display()))?;
                #[allow(clippy::print_stdout)]
                {
                    println!("wrote {}", upfbench_api::v1::openapi::PATH);
                }
                return Ok(());
            }
        };
    std::fs::create_dir_all(&dir).with_context(|| format!("making {}", dir.display()))?;
    write(Cli::command(), &dir).with_context(|| format!("writing into {}", dir.display()))?;
    Ok(())
}
