//! `upfbench compare REPORT...`: reports side by side. Reads each report (its report.json or
//! its folder), names it by its label or the part of its folder's path that differs from the
//! others' ([`report_names`]), and prints the comparison (Markdown, or CSV); with `--out`,
//! writes the tables, the plots and the page into a folder.

use std::path::Path;

use anyhow::{Context, Result, bail};
use upfbench_present::compare::{self, Comparison, Labelled, Named, report_names};
use upfbench_present::figures::compare_figures;
use upfbench_present::folder::{LoadedReport, REPORT_HTML, REPORT_JSON, load};
use upfbench_present::html::compare_page;

use upfbench_cli::CompareArgs;
use upfbench_cli::out;

/// Runs `upfbench compare`.
pub(crate) fn run(args: &CompareArgs) -> Result<()> {
    if let Some(dir) = &args.out
        && dir.join(REPORT_JSON).exists()
    {
        bail!(
            "--out {}: that folder holds a report, whose report.html the comparison's would \
             replace: give another folder",
            dir.display()
        );
    }
    let loaded: Vec<LoadedReport> = args
        .reports
        .iter()
        .map(|p| load(p))
        .collect::<Result<_, _>>()
        .context("reading the reports to compare")?;
    let labels = report_names(
        &loaded
            .iter()
            .map(|r| Named {
                label: r.report.config.get("label").map(String::as_str),
                folder: &r.folder,
            })
            .collect::<Vec<_>>(),
    );
    let reports: Vec<Labelled<'_>> = loaded
        .iter()
        .zip(&labels)
        .map(|(r, label)| Labelled {
            label,
            report: &r.report,
        })
        .collect();
    let comparison = Comparison::new(&reports);
    let markdown = compare::markdown::render(&comparison);
    let csv = compare::csv::render(&comparison);
    out::text(if args.csv { &csv } else { &markdown });
    if let Some(dir) = &args.out {
        write_folder(dir, &reports, &comparison, &markdown, &csv)?;
        // On standard error: standard output holds the table, perhaps for a pipe.
        tracing::info!("compare: wrote {}", dir.join(REPORT_HTML).display());
    }
    Ok(())
}

/// compare.md, compare.csv, the plots and the page, in `dir`.
fn write_folder(
    dir: &Path,
    reports: &[Labelled<'_>],
    comparison: &Comparison,
    markdown: &str,
    csv: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
    };
    write("compare.md", markdown.as_bytes())?;
    write("compare.csv", csv.as_bytes())?;
    let figures = compare_figures(reports);
    for f in &figures {
        match &f.svg {
            Ok(svg) => write(&f.file_name, svg.as_bytes())?,
            Err(e) => tracing::warn!("compare: {}: {e}", f.file_name),
        }
    }
    let page = compare_page(comparison, &figures, env!("CARGO_PKG_VERSION"));
    write(REPORT_HTML, page.as_bytes())
}
