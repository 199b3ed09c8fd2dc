//! Self-contained HTML pages: a report folder's (`report.html` beside `report.json`) and a
//! comparison's. Everything is in the page: CSS in a `<style>`, the plots as inline `<svg>`,
//! no script, no font, no image and no URL, so that it reads offline, from a mail or an
//! archive, as it did the day it was written.

mod churn_tables;
mod compare_page;
mod qos_tables;
mod report_page;
mod run_tables;
mod search_tables;

pub use compare_page::compare_page;
pub use report_page::report_page;

use std::fmt::Write as _;

use upfbench_report::{Align, Cell, Column, Table};

use crate::figures::Figure;
use crate::plot::inline_svg;

/// The pages' style: readable on a screen and printed, figures in columns of numbers aligned.
const CSS: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;\
margin:0 auto;max-width:1180px;padding:16px 24px;color:#1a1a1a;line-height:1.4}\
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}\
h3{font-size:1.05em;margin:1.2em 0 .4em}\
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:.6em 0}\
dl.facts dt{font-weight:600;color:#555}dl.facts dd{margin:0}\
.scroll{overflow-x:auto}\
table{border-collapse:collapse;font-size:.9em;margin:.4em 0 .8em}\
th,td{border:1px solid #d0d0d0;padding:3px 8px}th{background:#f0f0f0;font-weight:600}\
td{white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}\
th.group{background:#e2e8f0}\
figure{margin:1em 0 1.6em}figure svg{max-width:100%;height:auto;display:block}\
figcaption{font-size:.9em;color:#444;margin-top:.3em}\
.warning{color:#8a1c1c}.note{color:#555;font-size:.9em}\
footer{margin-top:2em;font-size:.85em;color:#666;border-top:1px solid #ccc;padding-top:.5em}\
details summary{cursor:pointer;font-weight:600}";

/// `s` with HTML's special characters escaped, for text and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page around `body` (already HTML).
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// Whether a cell is a figure, set right-aligned: it starts like a number (`1.5`, `-`, `≥ 0.8`,
/// `< 0.01`).
fn is_figure(cell: &str) -> bool {
    cell.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || "-≥<+".contains(c))
}

/// A table of the rows model ([`Table`]): the groups' names above the header, spanning their
/// columns, when it has groups; the columns' names; a line per row, figures right-aligned
/// (`class="num"`); CSV-only columns left out.
pub(crate) fn render_table(out: &mut String, t: &Table) {
    let shown = t.shown();
    out.push_str("<div class=\"scroll\"><table>\n<thead>\n");
    if !t.groups.is_empty() {
        out.push_str("<tr>");
        let mut i = 0;
        while i < shown.len() {
            let group = t.columns[shown[i]].group;
            let span = shown[i..]
                .iter()
                .take_while(|&&c| t.columns[c].group == group)
                .count();
            match group.and_then(|g| t.groups.get(g)) {
                Some(name) => {
                    let _ = write!(
                        out,
                        "<th class=\"group\" colspan=\"{span}\">{}</th>",
                        escape(name)
                    );
                }
                None => out.push_str(&"<th></th>".repeat(span)),
            }
            i += span;
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr>");
    for &i in &shown {
        let _ = write!(out, "<th>{}</th>", escape(&t.columns[i].name));
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for r in &t.rows {
        out.push_str("<tr>");
        for &i in &shown {
            let text = escape(&r[i].text);
            let _ = match t.columns[i].align {
                Align::Left => write!(out, "<td>{text}</td>"),
                Align::Right => write!(out, "<td class=\"num\">{text}</td>"),
            };
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
}

/// A table of plain text: `header`, then `rows` (the first column the rows' names, a column
/// whose cells are all figures right-aligned); `groups` above the header, when given, spans
/// each group's name over its columns after the first. Made a [`Table`] and rendered by
/// [`render_table`].
pub(crate) fn table(
    out: &mut String,
    groups: Option<&[(String, usize)]>,
    header: &[String],
    rows: &[Vec<String>],
) {
    let figures = |i: usize| i > 0 && rows.iter().all(|r| is_figure(&r[i]));
    let mut t = Table::new(
        header
            .iter()
            .enumerate()
            .map(|(i, h)| {
                if figures(i) {
                    Column::right(h.clone())
                } else {
                    Column::left(h.clone())
                }
            })
            .collect(),
    );
    let mut at = 1;
    for (name, span) in groups.into_iter().flatten() {
        let g = t.group(name.clone());
        for c in t.columns.iter_mut().skip(at).take(*span) {
            c.group = Some(g);
        }
        at += span;
    }
    for r in rows {
        t.push(r.iter().map(|c| Cell::text(c.clone())).collect());
    }
    render_table(out, &t);
}

/// The facts of a page's header: a name and its value per line.
pub(crate) fn facts(out: &mut String, facts: &[(&str, String)]) {
    out.push_str("<dl class=\"facts\">\n");
    for (name, value) in facts {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(name), escape(value));
    }
    out.push_str("</dl>\n");
}

/// The figures, each its SVG inline and its caption, or why it could not be drawn.
pub(crate) fn figures(out: &mut String, figures: &[Figure]) {
    for f in figures {
        match &f.svg {
            Ok(svg) => {
                let _ = writeln!(
                    out,
                    "<figure>\n{}<figcaption>{} <span class=\"note\">({})</span></figcaption>\n</figure>",
                    inline_svg(svg),
                    escape(&f.caption),
                    escape(&f.file_name)
                );
            }
            Err(e) => {
                let _ = writeln!(
                    out,
                    "<p class=\"warning\">{}: the plot could not be drawn: {}</p>",
                    escape(&f.caption),
                    escape(&e.to_string())
                );
            }
        }
    }
}

/// A list of warnings, or a line saying there are none.
pub(crate) fn warnings(out: &mut String, warnings: &[String]) {
    if warnings.is_empty() {
        out.push_str("<p>None.</p>\n");
        return;
    }
    out.push_str("<ul>\n");
    for w in warnings {
        let _ = writeln!(out, "<li class=\"warning\">{}</li>", escape(w));
    }
    out.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_groups_span_their_columns() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
        let mut out = String::new();
        table(
            &mut out,
            Some(&[("open5gs <2.7>".to_owned(), 2)]),
            &["Payload B".into(), "Tx".into(), "Rx".into()],
            &[vec!["10".into(), "1.0".into(), "0.9".into()]],
        );
        assert!(
            out.contains("<th class=\"group\" colspan=\"2\">open5gs &lt;2.7&gt;</th>"),
            "{out}"
        );
        assert!(
            out.contains(
                "<tr><td>10</td><td class=\"num\">1.0</td><td class=\"num\">0.9</td></tr>"
            ),
            "{out}"
        );
    }

    #[test]
    fn a_page_fetches_nothing() {
        let p = page("t <1>", "<p>x</p>\n");
        assert!(p.starts_with("<!DOCTYPE html>"));
        assert!(p.contains("<title>t &lt;1&gt;</title>"));
        for never in ["http:", "https:", "<script", "<link", "@import", "url("] {
            assert!(!p.contains(never), "{never}");
        }
    }
}
