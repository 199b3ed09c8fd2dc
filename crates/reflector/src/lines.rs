//! What the reflector prints: its line each second and its counters at exit. Impairments are
//! named by kind in both, the delay included: a reflector that delays every packet and says
//! "impaired 0" reads as one that did nothing.

use crate::datapath::counters::ReflectorCounters;
use crate::datapath::forward::Drop;
use crate::datapath::impair::ImpairCounters;

/// The sum of the workers' counters.
pub(crate) fn sum(per_core: &[ReflectorCounters]) -> ReflectorCounters {
    per_core
        .iter()
        .fold(ReflectorCounters::default(), |mut a, c| {
            a.merge(c);
            a
        })
}

/// Each impairment's name in the reflector's lines, and its count.
fn impairments(i: &ImpairCounters) -> [(&'static str, u64); 5] {
    [
        ("dropped", i.dropped),
        ("rate capped", i.rate_dropped),
        ("duplicated", i.duplicated),
        ("reordered", i.reordered),
        ("delayed", i.delayed),
    ]
}

/// The per-second line: the rates of the interval, the drops so far, the impairments so far
/// (those that did something, by kind), the Error Indications so far (sent/suppressed), and per
/// worker what it forwarded and dropped in the interval.
///
/// ```text
///     3.0s  UL      50012 pps  DL      50012 pps  echo          0 pps  dropped 0  impaired: none  err-ind 0/0  [w0 fwd 100024 drop 0]
///     3.0s  UL      50012 pps  DL      50012 pps  echo          0 pps  dropped 0  impaired: dropped 1000, delayed 99024  err-ind 0/0  [w0 fwd 99024 drop 0]
/// ```
///
/// benches/reflector_memif.sh reads the third and sixth fields (UL and DL pps).
pub(crate) fn live_line(
    elapsed: std::time::Duration,
    interval: std::time::Duration,
    per_core: &[ReflectorCounters],
    previous: &[ReflectorCounters],
) -> String {
    let total = sum(per_core);
    let before = sum(previous);
    let s = interval.as_secs_f64().max(1e-9);
    let rate = |now: u64, before: u64| now.saturating_sub(before) as f64 / s;
    let cores: Vec<String> = per_core
        .iter()
        .zip(
            previous
                .iter()
                .chain(std::iter::repeat(&ReflectorCounters::default())),
        )
        .enumerate()
        .map(|(i, (c, p))| {
            format!(
                "w{i} fwd {} drop {}",
                c.forwarded().saturating_sub(p.forwarded()),
                c.drops().saturating_sub(p.drops())
            )
        })
        .collect();
    let impaired: Vec<String> = impairments(&total.impair)
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    format!(
        "{:7.1}s  UL {:>10.0} pps  DL {:>10.0} pps  echo {:>10.0} pps  dropped {}  impaired: {}  err-ind {}/{}  [{}]",
        elapsed.as_secs_f64(),
        rate(total.uplink, before.uplink),
        rate(total.downlink, before.downlink),
        rate(total.echoed, before.echoed),
        total.drops(),
        if impaired.is_empty() {
            "none".to_owned()
        } else {
            impaired.join(", ")
        },
        total.service.error_indications,
        total.service.error_indications_suppressed,
        cores.join(", "),
    )
}

/// The counters at exit, one line per figure, per core when there are several.
pub(crate) fn render_totals(total: &ReflectorCounters, per_core: &[ReflectorCounters]) -> String {
    let mut out = String::new();
    let mut line = |name: &str, f: &dyn Fn(&ReflectorCounters) -> u64| {
        let v = f(total);
        if v == 0
            && !matches!(
                name,
                "received N3" | "received N6" | "uplink forwarded" | "downlink forwarded"
            )
        {
            return;
        }
        out.push_str(&format!("  {name:<30} {v:>14}"));
        if per_core.len() > 1 {
            let cores: Vec<String> = per_core.iter().map(|c| f(c).to_string()).collect();
            out.push_str(&format!("  ({})", cores.join(" + ")));
        }
        out.push('\n');
    };
    line("received N3", &|c| c.received[0]);
    line("received N6", &|c| c.received[1]);
    line("uplink forwarded", &|c| c.uplink);
    line("downlink forwarded", &|c| c.downlink);
    line("echoed", &|c| c.echoed);
    for (i, name) in Drop::NAMES.iter().enumerate() {
        line(&format!("dropped {name}"), &|c| c.dropped[i]);
    }
    for (k, name) in impairments(&total.impair).iter().map(|x| x.0).enumerate() {
        line(&format!("impaired: {name}"), &|c| {
            impairments(&c.impair)[k].1
        });
    }
    line("service frames N3", &|c| c.service.frames[0]);
    line("service frames N6", &|c| c.service.frames[1]);
    line("service replies", &|c| c.service.replies);
    line("arp requests", &|c| c.service.arp_requests);
    line("neighbor solicitations", &|c| {
        c.service.neighbor_solicitations
    });
    line("next hops resolved", &|c| c.service.next_hops_resolved);
    line("next hops unanswered", &|c| c.service.next_hops_given_up);
    line("error indications sent", &|c| c.service.error_indications);
    line("error indications suppressed", &|c| {
        c.service.error_indications_suppressed
    });
    line("end markers sent", &|c| c.service.end_markers);
    line("service no buffer", &|c| c.service.no_buffer);
    line("service not taken by the port", &|c| c.service.tx_refused);
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A worker that forwarded `up` and `down` packets, each delayed, and dropped `dropped`.
    fn worker(up: u64, down: u64, dropped: u64) -> ReflectorCounters {
        let mut c = ReflectorCounters {
            uplink: up,
            downlink: down,
            ..ReflectorCounters::default()
        };
        c.impair.dropped = dropped;
        c.impair.delayed = up + down;
        c
    }

    #[test]
    fn the_per_second_line_names_each_impairment_that_did_something() {
        let s = Duration::from_secs(1);
        let idle = ReflectorCounters::default();
        let line = live_line(3 * s, s, &[idle], &[idle]);
        assert!(
            line.contains("  dropped 0  impaired: none  err-ind 0/0  "),
            "{line}"
        );
        let line = live_line(3 * s, s, &[worker(50_012, 50_012, 0)], &[idle]);
        assert!(
            line.contains("  impaired: delayed 100024  err-ind 0/0  [w0 fwd 100024 drop 0]"),
            "{line}"
        );
        let line = live_line(
            3 * s,
            s,
            &[worker(500, 490, 10), worker(500, 500, 0)],
            &[idle],
        );
        assert!(
            line.contains("  impaired: dropped 10, delayed 1990  "),
            "summed over the workers: {line}"
        );
        // benches/reflector_memif.sh reads the UL and DL rates as fields 3 and 6.
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((fields[2], fields[5]), ("1000", "990"), "{line}");
    }

    #[test]
    fn the_totals_have_a_line_per_impairment_per_core_when_several() {
        let cores = [worker(500, 490, 10), worker(500, 500, 0)];
        let text = render_totals(&sum(&cores), &cores);
        let line = |name: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap_or_else(|| panic!("no {name:?} in\n{text}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            line("impaired: delayed"),
            "impaired: delayed 1990 (990 + 1000)"
        );
        assert_eq!(line("impaired: dropped"), "impaired: dropped 10 (10 + 0)");
        // An impairment that did nothing is left out, as every other zero but the traffic.
        assert!(!text.contains("impaired: reordered"), "{text}");
        assert_eq!(
            line("uplink forwarded"),
            "uplink forwarded 1000 (500 + 500)"
        );
    }
}
