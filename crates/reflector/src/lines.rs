//! What the reflector prints: its line each second and its counters at exit, in all and, with
//! several pairs, per pair. Impairments are named by kind in both, the delay included: a
//! reflector that delays every packet and says "impaired 0" reads as one that did nothing.

use std::ops::Range;

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

/// A pair as the lines name it: its name and its workers (indices into the per-worker
/// counters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PairSpan {
    /// The pair's name.
    pub name: String,
    /// Its workers' indices.
    pub workers: Range<usize>,
}

/// The drops `no_route`, as a line names them.
fn no_route(c: &ReflectorCounters) -> u64 {
    c.dropped[Drop::NoRoute as usize]
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

/// The per-second line: the rates of the interval, the drops so far (`no_route` among them), the
/// impairments so far (those that did something, by kind), the Error Indications so far
/// (sent/suppressed), with several `pairs` each pair's rates and drops (in braces), and per
/// worker what it forwarded and dropped in the interval.
///
/// ```text
///     3.0s  UL      50012 pps  DL      50012 pps  echo          0 pps  dropped 0 (no-route 0)  impaired: none  err-ind 0/0  [w0 fwd 100024 drop 0]
///     3.0s  UL      50012 pps  DL      50012 pps  echo          0 pps  dropped 0 (no-route 0)  impaired: dropped 1000, delayed 99024  err-ind 0/0  [w0 fwd 99024 drop 0]
///     3.0s  UL      50012 pps  DL      50012 pps  echo          0 pps  dropped 0 (no-route 0)  impaired: none  err-ind 0/0  {a UL 25006 DL 25006 drop 0 no-route 0 | b UL 25006 DL 25006 drop 0 no-route 0}  [w0 fwd 50012 drop 0, w1 fwd 50012 drop 0]
/// ```
///
/// benches/reflector_memif.sh reads the third and sixth fields (UL and DL pps).
pub(crate) fn live_line(
    elapsed: std::time::Duration,
    interval: std::time::Duration,
    per_core: &[ReflectorCounters],
    previous: &[ReflectorCounters],
    pairs: &[PairSpan],
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
    let by_pair = if pairs.len() > 1 {
        let of = |c: &[ReflectorCounters], r: &Range<usize>| sum(c.get(r.clone()).unwrap_or(&[]));
        let parts: Vec<String> = pairs
            .iter()
            .map(|p| {
                let (now, then) = (of(per_core, &p.workers), of(previous, &p.workers));
                format!(
                    "{} UL {:.0} DL {:.0} drop {} no-route {}",
                    p.name,
                    rate(now.uplink, then.uplink),
                    rate(now.downlink, then.downlink),
                    now.drops(),
                    no_route(&now)
                )
            })
            .collect();
        format!("  {{{}}}", parts.join(" | "))
    } else {
        String::new()
    };
    format!(
        "{:7.1}s  UL {:>10.0} pps  DL {:>10.0} pps  echo {:>10.0} pps  dropped {} (no-route {})  impaired: {}  err-ind {}/{}{}  [{}]",
        elapsed.as_secs_f64(),
        rate(total.uplink, before.uplink),
        rate(total.downlink, before.downlink),
        rate(total.echoed, before.echoed),
        total.drops(),
        no_route(&total),
        if impaired.is_empty() {
            "none".to_owned()
        } else {
            impaired.join(", ")
        },
        total.service.error_indications,
        total.service.error_indications_suppressed,
        by_pair,
        cores.join(", "),
    )
}

/// The counters at exit of every worker: the sum, one line per figure, per worker when there
/// are several; then with several `pairs` each pair's, its lines named `pair a: ...` (so that
/// no line of the sum is named twice).
///
/// ```text
///   uplink forwarded                        300000  (150000 + 150000)
///   ...
///   pair a: uplink forwarded                150000
/// ```
pub(crate) fn render_all_totals(per_core: &[ReflectorCounters], pairs: &[PairSpan]) -> String {
    let mut out = render_totals("", &sum(per_core), per_core);
    if pairs.len() > 1 {
        for p in pairs {
            let cores = per_core.get(p.workers.clone()).unwrap_or(&[]);
            out.push_str(&render_totals(
                &format!("pair {}: ", p.name),
                &sum(cores),
                cores,
            ));
        }
    }
    out
}

/// The counters at exit, one line per figure (each name after `prefix`), per core when there
/// are several.
fn render_totals(
    prefix: &str,
    total: &ReflectorCounters,
    per_core: &[ReflectorCounters],
) -> String {
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
        let name = format!("{prefix}{name}");
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
        let one = [PairSpan {
            name: "p0".into(),
            workers: 0..1,
        }];
        let line = live_line(3 * s, s, &[idle], &[idle], &one);
        assert!(
            line.contains("  dropped 0 (no-route 0)  impaired: none  err-ind 0/0  ["),
            "{line}"
        );
        let line = live_line(3 * s, s, &[worker(50_012, 50_012, 0)], &[idle], &one);
        assert!(
            line.contains("  impaired: delayed 100024  err-ind 0/0  [w0 fwd 100024 drop 0]"),
            "{line}"
        );
        let line = live_line(
            3 * s,
            s,
            &[worker(500, 490, 10), worker(500, 500, 0)],
            &[idle],
            &one,
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
        let text = render_all_totals(&cores, &[]);
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

    /// Two pairs of one worker each: pair a's worker forwarded 600/600 and dropped 3 without a
    /// route, pair b's 400/400.
    fn two_pairs() -> ([ReflectorCounters; 2], [PairSpan; 2]) {
        let mut a = worker(600, 600, 0);
        a.dropped[Drop::NoRoute as usize] = 3;
        let b = worker(400, 400, 0);
        let spans = [("a", 0..1), ("b", 1..2)].map(|(name, workers)| PairSpan {
            name: name.into(),
            workers,
        });
        ([a, b], spans)
    }

    #[test]
    fn with_several_pairs_the_line_gives_each_pair_and_the_sum() {
        let s = Duration::from_secs(1);
        let idle = ReflectorCounters::default();
        let (cores, spans) = two_pairs();
        let line = live_line(3 * s, s, &cores, &[idle, idle], &spans);
        assert!(
            line.contains("  dropped 3 (no-route 3)  "),
            "the sum's drops: {line}"
        );
        assert!(
            line.contains(
                "  {a UL 600 DL 600 drop 3 no-route 3 | b UL 400 DL 400 drop 0 no-route 0}  \
                 [w0 fwd 1200 drop 3, w1 fwd 800 drop 0]"
            ),
            "{line}"
        );
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((fields[2], fields[5]), ("1000", "1000"), "{line}");
        // One pair: no braces, the line as it always was.
        let one = [PairSpan {
            name: "p0".into(),
            workers: 0..2,
        }];
        assert!(!live_line(3 * s, s, &cores, &[idle, idle], &one).contains('{'));
    }

    #[test]
    fn with_several_pairs_the_totals_give_each_pair_after_the_sum() {
        let (cores, spans) = two_pairs();
        let text = render_all_totals(&cores, &spans);
        let value = |name: &str| {
            let l = text
                .lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap_or_else(|| panic!("no {name:?} in\n{text}"));
            let l = l.split(" (").next().unwrap_or(l).trim_end();
            l.rsplit_once(' ').and_then(|(_, v)| v.parse::<u64>().ok())
        };
        assert_eq!(value("uplink forwarded"), Some(1000));
        assert_eq!(value("dropped no_route"), Some(3));
        assert_eq!(value("pair a: uplink forwarded"), Some(600));
        assert_eq!(value("pair b: downlink forwarded"), Some(400));
        assert_eq!(value("pair a: dropped no_route"), Some(3));
        // A zero is left out, as in the sum.
        assert!(!text.contains("pair b: dropped no_route"), "{text}");
        // Each pair's lines come after every line of the sum.
        let last_sum = text.rfind("\n  dropped no_route").expect("the sum's");
        assert!(text.find("pair a:").is_some_and(|i| i > last_sum), "{text}");
    }
}
