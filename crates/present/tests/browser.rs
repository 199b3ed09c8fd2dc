//! report.html in a real browser: Debian's Chromium, headless, loads the page made from a real
//! report (`fixtures/memif-sweep`: `upfbench sweep` against `upfbench reflect` over memif, its
//! report.json and its interval logs as written), and the DOM it built must hold the header,
//! the tables and every plot with its texts; the screenshot it takes is kept under target/.
//!
//! Without a Chromium (`apt-get install chromium`; `make test` installs it) it fails under CI
//! (`CI` set and not empty) and outside CI skips, saying so on standard error (past libtest's
//! capture, so that the skip shows although the test passes).
//! `UPFBENCH_CHROMIUM` names another browser binary.
#![allow(clippy::print_stderr)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use upfbench_present::figures::report_figures;
use upfbench_present::folder::{REPORT_HTML, load};
use upfbench_present::html::report_page;

/// How long the browser may take for one page (it takes about 2 s on a loaded 2-vCPU VM).
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// The browser, if one is installed.
fn chromium() -> Option<PathBuf> {
    if let Some(b) = std::env::var_os("UPFBENCH_CHROMIUM") {
        return Some(PathBuf::from(b));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Whether this runs under CI: `CI` set and not empty, as CI services and .ci/run set it.
fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Runs the browser headless on `page` with `args`; its standard output.
fn browse(browser: &Path, page: &Path, args: &[&str]) -> String {
    let out_file = page.with_extension(format!("{}.out", args.len()));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        // Nothing may be fetched: every request fails to resolve.
        .arg("--host-resolver-rules=MAP * ~NOTFOUND")
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(std::fs::File::create(&out_file).expect("browser output file"))
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", browser.display()));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waiting for the browser") {
            assert!(status.success(), "{} {args:?}: {status}", browser.display());
            break;
        }
        if start.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            panic!(
                "{} {args:?} took over {BROWSER_TIMEOUT:?}",
                browser.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(&out_file).expect("browser output")
}

/// The width and height of a PNG, from its IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

#[test]
fn a_real_reports_page_renders_its_tables_and_plots_in_chromium() {
    let Some(browser) = chromium() else {
        let missing = "no chromium in PATH (Debian: apt-get install chromium; or set \
                       UPFBENCH_CHROMIUM)";
        // Under CI a missing browser fails the test: make test installs Chromium, so a CI
        // machine without one is set up wrong, and a pass would say the page was checked.
        assert!(
            !under_ci(),
            "{missing}: under CI (CI={:?}) the browser test must run",
            std::env::var("CI").unwrap_or_default()
        );
        // Straight to the standard error, past libtest's capture: a skip that passes is seen.
        let _ = writeln!(
            std::io::stderr(),
            "browser test SKIPPED, nothing was checked: {missing}"
        );
        return;
    };
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/memif-sweep");
    let loaded = load(&fixture).expect("the fixture report");
    assert!(
        loaded.hlogs.iter().all(Option::is_some),
        "every step's .hlog"
    );
    let logs: Vec<Option<&[u8]>> = loaded.hlogs.iter().map(Option::as_deref).collect();
    let figures = report_figures(&loaded.report, &logs);
    assert!(figures.iter().all(|f| f.svg.is_ok()));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&out).unwrap();
    let page = out.join(REPORT_HTML);
    std::fs::write(&page, report_page(&loaded.report, &figures)).unwrap();

    let dom = browse(&browser, &page, &["--dump-dom"]);
    for text in [
        "<h1>upfbench sweep: reflector (memif)</h1>",
        "<dt>UPF</dt><dd>N4 peer 127.0.1.241:8805</dd>",
        "<h3>Uplink: GTP-U sent on N3, received plain on N6</h3>",
        "<h3>Downlink: plain sent on N6, received as GTP-U on N3</h3>",
        "<tr><td>1400 B</td><td class=\"num\">1400</td>",
        "10 B: latency by percentile",
        "1400 B: each second",
        "99.99%",
        "one-way latency (µs)",
        "loss in the second (%)",
        "<h2>Warnings</h2>",
    ] {
        assert!(dom.contains(text), "the rendered page has no {text:?}");
    }
    // Three steps: a distribution and a timeline each, every one an <svg> in a <figure>.
    assert_eq!(figures.len(), 6);
    assert_eq!(dom.matches("<svg ").count(), 6);
    assert_eq!(dom.matches("<figure>").count(), 6);
    assert_eq!(dom.matches("<table>").count(), 2);
    // Each step's rows: one per direction.
    for step in ["10 B", "300 B", "1400 B"] {
        assert_eq!(
            dom.matches(&format!("<tr><td>{step}</td>")).count(),
            2,
            "{step}"
        );
    }

    let shot = out.join("report.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        &browser,
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000",
            "--hide-scrollbars",
        ],
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert_eq!(png_size(&png), (1280, 2000));
    // A blank page compresses to a few kB; tables and plots do not.
    assert!(png.len() > 60_000, "{} bytes: a blank page?", png.len());
    eprintln!("browser test: screenshot {}", shot.display());
}

#[test]
fn a_page_of_two_pairs_has_a_section_per_pair_in_chromium() {
    let Some(browser) = chromium() else {
        assert!(!under_ci(), "under CI the browser test must run");
        let _ = writeln!(
            std::io::stderr(),
            "browser test SKIPPED, nothing was checked: no chromium in PATH"
        );
        return;
    };
    // The real sweep's steps, each split in two pairs: a with the figures as measured, b
    // with its uplink's Tx Kpps marked.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/memif-sweep");
    let mut report = load(&fixture).expect("the fixture report").report;
    for step in &mut report.steps {
        let a = upfbench_report::StepFigures::of(step.clone());
        let mut b = a.clone();
        b.directions[0].tx.kpps = 4321.5;
        step.pairs = vec![
            upfbench_report::PairSection {
                name: "a".into(),
                figures: a,
            },
            upfbench_report::PairSection {
                name: "b".into(),
                figures: b,
            },
        ];
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-pairs");
    std::fs::create_dir_all(&out).unwrap();
    let page = out.join(REPORT_HTML);
    std::fs::write(&page, report_page(&report, &[])).unwrap();
    let dom = browse(&browser, &page, &["--dump-dom"]);
    let (totals, pairs) = dom
        .split_once("<section class=\"pair\" id=\"pair-a\">")
        .expect("pair a's section");
    let (a, b) = pairs
        .split_once("<section class=\"pair\" id=\"pair-b\">")
        .expect("pair b's section after a's");
    assert!(totals.contains("<h2>Summary</h2>"));
    assert!(a.starts_with("\n<h2>Pair a</h2>") && b.starts_with("\n<h2>Pair b</h2>"));
    // The totals' two tables, then two a pair, a row per step and direction in each.
    assert_eq!(dom.matches("<table>").count(), 6);
    for part in [totals, a, b] {
        assert_eq!(part.matches("<tr><td>300 B</td>").count(), 2);
    }
    assert!(b.contains("4321.5") && !a.contains("4321.5") && !totals.contains("4321.5"));
    eprintln!("browser test: the pairs' page {}", page.display());
}
