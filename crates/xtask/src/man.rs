//! Man pages from the `Cli`: upfbench(1) and one page per subcommand, as git's are
//! (upfbench-run(1), ...), which upfbench(1)'s SUBCOMMANDS section names.

use std::path::{Path, PathBuf};

use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

/// Writes upfbench.1 and a page per visible subcommand (recursively) into `dir`; returns the
/// pages written.
pub(crate) fn write_pages(cli: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    // `help` is clap's, not ours: no page for it. Building sets each subcommand's display name
    // (upfbench-run), which is the page's title and file name.
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    // Subcommands carry no version of their own; every page's footer names the package's.
    let source = format!("upfbench {}", cli.get_version().unwrap_or_default());
    let mut pages = Vec::new();
    write_tree(&cli, &source, dir, true, &mut pages)?;
    Ok(pages)
}

fn write_tree(
    cmd: &clap::Command,
    source: &str,
    dir: &Path,
    top: bool,
    pages: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    let man = Man::new(cmd.clone())
        .source(source)
        .manual("upfbench manual");
    let mut page = Vec::new();
    man.render(&mut page)?;
    if top {
        page.extend(files_section().render().into_bytes());
    }
    let path = dir.join(man.get_filename());
    std::fs::write(&path, page)?;
    pages.push(path);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_tree(sub, source, dir, false, pages)?;
    }
    Ok(())
}

/// Where the package puts what a new user looks for first, which clap knows nothing of.
fn files_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["FILES"]);
    for (path, what) in [
        (
            "/usr/share/upfbench/systems/",
            "Example system and reflector files: memif.yaml and memif-reflector.yaml (the \
             quickstart), lab.yaml, connectx5.yaml, virtio-vm.yaml, ...",
        ),
        (
            "/usr/share/upfbench/profiles/",
            "Example profiles; README.md there is a guide to the three kinds of file.",
        ),
        (
            "/usr/share/upfbench/schema/",
            "JSON Schemas of the system, profile and reflector files, which each example names \
             on its first line for editors.",
        ),
        (
            "/usr/share/doc/upfbench/reference/",
            "Every field of each kind of file, its form and its default: system.md, \
             profile.md, reflector.md.",
        ),
        (
            "/usr/share/upfbench/quickstart.sh",
            "Runs upfbench reflect and upfbench sweep joined by memif on this machine (as \
             root); reports go to ./reports, or REPORTS=DIR.",
        ),
        (
            "/etc/upfbench/NAME.yaml",
            "The reflector file that upfbench-reflector@NAME.service runs.",
        ),
    ] {
        roff.control("TP", []);
        roff.text([bold(path)]);
        roff.text([roman(what)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "/usr/share/doc/upfbench/install.md (the package, the reflector's unit, the container)",
    )]);
    roff
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use upfbench_cli::Cli;

    use super::*;

    #[test]
    fn every_visible_subcommand_gets_a_page_that_names_its_options() {
        let dir = std::env::temp_dir().join(format!("upfbench-xtask-man-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let pages = write_pages(Cli::command(), &dir).expect("pages written");
        let cli = Cli::command();
        let subs: Vec<_> = cli.get_subcommands().filter(|s| !s.is_hide_set()).collect();
        assert_eq!(pages.len(), 1 + subs.len(), "{pages:?}");
        for sub in subs {
            let page = std::fs::read_to_string(dir.join(format!("upfbench-{}.1", sub.get_name())))
                .expect("the subcommand's page");
            assert!(
                page.contains(&format!("\n.TH upfbench-{} 1 ", sub.get_name())),
                "{page}"
            );
            // Hidden options (doctor's --root, for tests) stay out of the pages.
            let shown = sub.get_arguments().filter(|a| !a.is_hide_set());
            for arg in shown.filter_map(|a| a.get_long()) {
                assert!(
                    page.contains(&format!("\\-\\-{}", arg.replace('-', "\\-"))),
                    "{arg}"
                );
            }
        }
        let top = std::fs::read_to_string(dir.join("upfbench.1")).expect("upfbench.1");
        assert!(
            top.contains("upfbench\\-run(1)") && top.contains(".SH FILES"),
            "{top}"
        );
        std::fs::remove_dir_all(&dir).expect("scratch removed");
    }
}
