//! A report folder's page: what ran, against which UPF, when and with which tool; the summary
//! tables; the plots; the warnings.

use std::fmt::Write as _;

use upfbench_report::{Report, agents_table};

use super::churn_tables::churn_tables;
use super::qos_tables::qos_tables;
use super::run_tables::direction_tables;
use super::search_tables::search_tables;
use super::{escape, facts, figures, page, render_table, warnings};
use crate::figures::Figure;

/// `run`, `sweep` or `search`: what wrote the report.
fn kind(report: &Report) -> &'static str {
    if report.search.is_some() {
        "search"
    } else if report.steps.iter().any(|s| s.payload_bytes.is_some()) {
        "sweep"
    } else {
        "run"
    }
}

/// The UPF as the report knows it: its N4 address when the run programmed it.
fn upf(report: &Report) -> String {
    match (&report.control, report.config.get("upf")) {
        (_, Some(upf)) => upf.clone(),
        (Some(c), None) => format!("N4 peer {}", c.upf),
        (None, None) => "not programmed over PFCP".to_owned(),
    }
}

/// The page of `report` with its `figures` (see [`crate::figures::report_figures`]).
pub fn report_page(report: &Report, plots: &[Figure]) -> String {
    let c = &report.config;
    let profile = c.get("profile").cloned().unwrap_or_else(|| "-".to_owned());
    let name = c.get("label").cloned().unwrap_or_else(|| profile.clone());
    let kind = kind(report);
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header>\n<h1>upfbench {kind}: {}</h1>",
        escape(&name)
    );
    let mut list = vec![
        ("Profile", profile),
        ("UPF", upf(report)),
        ("Started", report.started.clone()),
        ("Duration", format!("{:.1} s", report.duration_s)),
        (
            "Tool",
            format!("{} {}", report.tool.name, report.tool.version),
        ),
    ];
    if let Some(label) = c.get("label") {
        list.push(("Label", label.clone()));
    }
    if let Some(m) = &report.multiplier {
        list.push(("Rates", m.summary()));
    }
    for (key, name) in [
        ("ues", "UEs"),
        ("workers", "Workers"),
        ("n3", "N3 port"),
        ("n6", "N6 port"),
    ] {
        if let Some(v) = c.get(key) {
            list.push((name, v.clone()));
        }
    }
    facts(&mut body, &list);
    body.push_str("</header>\n");

    body.push_str("<section>\n<h2>Summary</h2>\n");
    match &report.search {
        Some(s) => search_tables(&mut body, s),
        None if report.steps.is_empty() => body.push_str("<p>Nothing was measured.</p>\n"),
        None => {
            direction_tables(&mut body, report);
            churn_tables(&mut body, report);
            qos_tables(&mut body, report);
        }
    }
    body.push_str("</section>\n");
    if report.search.is_none() {
        pair_sections(&mut body, report);
    }
    agents_section(&mut body, report);

    if !plots.is_empty() {
        body.push_str("<section>\n<h2>Plots</h2>\n");
        figures(&mut body, plots);
        body.push_str("</section>\n");
    }

    warnings_section(&mut body, report);
    let _ = writeln!(
        body,
        "<footer>Written by {} {} beside report.json, whose figures it shows (report.txt has \
         every table, report.csv every figure; the plots are also SVG files in this \
         folder).</footer>",
        escape(&report.tool.name),
        escape(&report.tool.version)
    );
    page(
        &format!("upfbench {kind}: {name}, {}", report.started),
        &body,
    )
}

/// Every warning, the run's and each step's (after its label).
fn warnings_section(body: &mut String, report: &Report) {
    body.push_str("<section>\n<h2>Warnings</h2>\n");
    let all: Vec<String> = report
        .warnings
        .iter()
        .cloned()
        .chain(
            report
                .steps
                .iter()
                .flat_map(|s| s.warnings.iter().map(move |w| format!("{}: {w}", s.label))),
        )
        .collect();
    warnings(body, &all);
    body.push_str("</section>\n");
}

/// A run over agents: each agent as it measured itself, a row per step, and what a lost
/// agent left out of the totals.
fn agents_section(body: &mut String, report: &Report) {
    let Some(t) = agents_table(&report.agents) else {
        return;
    };
    body.push_str("<section id=\"agents\">\n<h2>Agents</h2>\n");
    if let Some(i) = &report.incomplete {
        let _ = writeln!(body, "<p class=\"warning\">{}</p>", escape(&i.warning()));
    }
    render_table(body, &t);
    body.push_str(
        "<p class=\"note\">Each agent's own counts over its pairs, all directions; the summary's \
         are their sums, merged with the histograms bucket by bucket. Offset and round trip: its \
         clock against the coordinator's (Cristian's method); start late: how late its first \
         packet was due against the common start.</p>\n",
    );
    for a in &report.agents {
        let steps = report.of_agent(&a.name);
        if steps.is_empty() {
            continue;
        }
        let mut view = report.clone();
        view.steps = steps;
        let _ = writeln!(
            body,
            "<h3 id=\"agent-{0}\">Agent {0}: what it measured itself</h3>",
            escape(&a.name)
        );
        direction_tables(body, &view);
    }
    body.push_str("</section>\n");
}

/// With several port pairs, a section per pair after the summary: its direction tables as its
/// workers measured them on its ports (the summary's are the totals).
fn pair_sections(body: &mut String, report: &Report) {
    for name in report.pair_names() {
        let mut view = report.clone();
        view.steps = report.of_pair(&name);
        let _ = writeln!(
            body,
            "<section class=\"pair\" id=\"pair-{0}\">\n<h2>Pair {0}</h2>",
            escape(&name)
        );
        direction_tables(body, &view);
        body.push_str("</section>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::report_figures;
    use crate::samples::{search, sweep};

    #[test]
    fn a_sweeps_page_has_its_header_tables_plots_and_warnings() {
        let mut report = sweep("open5gs 2.7.7", 100);
        report.steps[1].warnings.push("TX fell behind".into());
        let plots = report_figures(&report, &[]);
        let html = report_page(&report, &plots);
        assert!(
            html.contains("<h1>upfbench sweep: open5gs 2.7.7</h1>"),
            "{html}"
        );
        assert!(html.contains("<dt>Profile</dt><dd>published</dd>"));
        assert!(html.contains("<dt>UPF</dt><dd>not programmed over PFCP</dd>"));
        assert!(html.contains("<dt>Tool</dt><dd>upfbench 0.1.0</dd>"));
        assert_eq!(html.matches("<svg ").count(), plots.len());
        assert_eq!(html.matches("<figcaption>").count(), 6);
        assert!(html.contains(
            "<li class=\"warning\">a &lt;run-wide&gt; warning &amp; its &quot;quotes&quot;</li>"
        ));
        assert!(html.contains("<li class=\"warning\">300 B: TX fell behind</li>"));
        for never in ["http:", "https:", "<script", "<link", "<img", "url("] {
            assert!(!html.contains(never), "{never}");
        }
    }

    #[test]
    fn a_run_over_agents_shows_each_agent_and_what_a_lost_one_left_out() {
        use upfbench_report::events::StepFigures;
        use upfbench_report::{
            AgentEnd, AgentSection, AgentStep, Incomplete, LostAgent, StepCount,
        };
        use upfbench_stats::Direction;
        let mut report = sweep("x", 100);
        assert!(!report_page(&report, &[]).contains("<h2>Agents</h2>"));
        let agent = |name: &str, state, sent| AgentSection {
            name: name.into(),
            url: format!("http://{name}:9800"),
            clock_offset_us: Some(152.0),
            rtt_us: Some(635.8),
            state,
            steps: vec![AgentStep {
                step: 1,
                counted: state == AgentEnd::Counted,
                start_late_us: 0.0,
                figures: vec![StepFigures {
                    direction: Direction::Uplink,
                    sent,
                    received: sent - 2,
                    lost: 2,
                }],
                measured: None,
            }],
        };
        report.agents = vec![
            agent("gnb-a", AgentEnd::Counted, 2_578),
            agent("gnb-b", AgentEnd::Lost, 1_000),
        ];
        report.incomplete = Some(Incomplete {
            lost: vec![LostAgent {
                agent: "gnb-b".into(),
                step: Some(1),
                t_s: 2.38,
                reason: "connection refused".into(),
            }],
            steps: vec![StepCount {
                step: 1,
                agents_counted: "1 of 2".into(),
            }],
        });
        // gnb-a's own figures: its tables under its heading.
        report.agents[0].steps[0].measured =
            Some(upfbench_report::StepFigures::of(report.steps[0].clone()));
        let html = report_page(&report, &[]);
        let agents = &html[html.find("<h2>Agents</h2>").expect("the section")..];
        let own = &agents[agents
            .find("Agent gnb-a: what it measured itself")
            .expect("gnb-a's")..];
        assert!(own.contains("<table>"), "{own}");
        assert!(agents.contains("<td>gnb-a</td><td>http://gnb-a:9800</td><td>counted</td>"));
        assert!(agents.contains("<td>gnb-b</td><td>http://gnb-b:9800</td><td>lost</td>"));
        assert!(agents.contains("<td class=\"num\">2578</td><td class=\"num\">2576</td>"));
        assert!(
            agents.contains("<p class=\"warning\">incomplete: gnb-b lost in step 1 at 2.4 s"),
            "{agents}"
        );
        assert!(agents.contains("step 1 counts 1 of 2 agents"), "{agents}");
    }

    #[test]
    fn the_label_names_the_page_and_the_multiplier_shows_its_rates() {
        use upfbench_report::{MultipliedStep, MultiplierReport};
        let mut report = sweep("eupf-maps32768-1", 100);
        report.multiplier = Some(MultiplierReport {
            given: "50%".into(),
            steps: vec![MultipliedStep {
                step: "10 B".into(),
                factor: 0.5,
                pps: 100e3,
                gbps_l1: 0.067,
                gbps_l2: 0.051,
            }],
        });
        let html = report_page(&report, &[]);
        assert!(
            html.contains("<title>upfbench sweep: eupf-maps32768-1, 2026-"),
            "{html}"
        );
        assert!(html.contains("<h1>upfbench sweep: eupf-maps32768-1</h1>"));
        assert!(html.contains("<dt>Label</dt><dd>eupf-maps32768-1</dd>"));
        assert!(
            html.contains("<dt>Rates</dt><dd>-m 50%: 10 B x0.5 (100.0 Kpps, 0.067 Gbps L1)</dd>")
        );
    }

    #[test]
    fn a_searchs_page_has_its_results_and_plots() {
        let report = search("upg-vpp");
        let html = report_page(&report, &report_figures(&report, &[]));
        assert!(html.contains("<h1>upfbench search: upg-vpp</h1>"));
        assert!(html.contains("<h3>Results</h3>"));
        assert_eq!(html.matches("<svg ").count(), 3);
        assert!(html.contains("<p>None.</p>"));
    }
}
