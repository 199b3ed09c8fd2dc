//! The TEID ranges of a profile's sessions, and the exact test that two of them never meet.

use serde::Deserialize;
use serde::de::Deserializer;
use upfbench_net::Teid;

use super::one_u32;
use crate::field::join_key;
use crate::identifiers;
use crate::issues::Issues;
use crate::serde_forms::keyword_or_map;

/// TEIDs `first, first + step, first + 2 × step, ...`, one per UE.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(deny_unknown_fields)]
pub struct TeidRange {
    /// UE 0's TEID (not 0).
    #[serde(with = "identifiers::teid")]
    pub first: Teid,
    /// Added per UE (at least 1 with more than one UE).
    #[serde(default = "one_u32")]
    pub step: u32,
}

impl TeidRange {
    /// UE `i`'s TEID.
    pub fn teid(&self, i: u32) -> Teid {
        Teid(self.first.get().wrapping_add(self.step.wrapping_mul(i)))
    }

    /// The last TEID for `count` UEs, if it fits 32 bits.
    pub fn last(&self, count: u32) -> Option<Teid> {
        let last = u64::from(self.first.get()) + u64::from(self.step) * u64::from(count.max(1) - 1);
        u32::try_from(last).ok().map(Teid)
    }
}

/// Who picks the uplink TEIDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeidAllocation {
    /// We do, from a range: `uplink_teid: {first: 1, step: 2}`.
    Range(TeidRange),
    /// The UPF does (CH=1 in the F-TEID, read back from the Created PDR): `uplink_teid: upf`.
    ChosenByUpf,
}

impl<'de> Deserialize<'de> for TeidAllocation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        keyword_or_map(
            deserializer,
            "a range {first: 1, step: 2}",
            "upf",
            || TeidAllocation::ChosenByUpf,
            TeidAllocation::Range,
        )
    }
}

/// Whether two TEID ranges of `count` TEIDs each share a TEID: `a.first + a.step·i ==
/// b.first + b.step·j` for some `i, j < count`, solved exactly.
pub(crate) fn ranges_share_a_teid(a: TeidRange, b: TeidRange, count: u32) -> Option<Teid> {
    let n = i128::from(count);
    if n == 0 {
        return None;
    }
    let (a0, s, b0, t) = (
        i128::from(a.first.get()),
        i128::from(a.step),
        i128::from(b.first.get()),
        i128::from(b.step),
    );
    let teid_at = |i: i128| u32::try_from(a0 + s * i).ok().map(Teid);
    // s·i − t·j = b0 − a0.
    let d = b0 - a0;
    match (s, t) {
        (0, 0) => return (d == 0).then_some(a.first),
        (0, _) => {
            // a0 == b0 + t·j
            return ((-d) % t == 0 && (0..n).contains(&(-d / t))).then_some(a.first);
        }
        (_, 0) => {
            return (d % s == 0 && (0..n).contains(&(d / s))).then(|| teid_at(d / s))?;
        }
        _ => {}
    }
    let (g, x, _) = ext_gcd(s, t);
    if d % g != 0 {
        return None;
    }
    // A solution: i0 = x·d/g (then j follows); the rest are i0 + k·t/g, j0 + k·s/g.
    let (ts, ss) = (t / g, s / g);
    let i0 = x * (d / g);
    let j0 = (s * i0 - d) / t;
    // 0 <= i0 + k·ts < n and 0 <= j0 + k·ss < n
    let k_range = |v0: i128, step: i128| -> (i128, i128) {
        // step > 0
        (div_ceil(-v0, step), div_floor(n - 1 - v0, step))
    };
    let (lo1, hi1) = k_range(i0, ts);
    let (lo2, hi2) = k_range(j0, ss);
    let (lo, hi) = (lo1.max(lo2), hi1.min(hi2));
    (lo <= hi).then(|| teid_at(i0 + lo * ts))?
}

fn ext_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    if b == 0 {
        (a, 1, 0)
    } else {
        let (g, x, y) = ext_gcd(b, a % b);
        (g, y, x - (a / b) * y)
    }
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -div_floor(-a, b)
}

/// A TEID range for `count` UEs: not 0, distinct per UE, within 32 bits.
pub(super) fn check_teid_range(r: TeidRange, count: u32, field: &str, issues: &mut Issues) {
    if r.first == Teid::ZERO {
        issues.add(
            join_key(field, "first"),
            "TEID 0 is reserved for GTP-U signalling (TS 29.281 §5.1): start at 1 or above",
        );
    }
    if r.step == 0 && count > 1 {
        issues.add(
            join_key(field, "step"),
            format!("step 0 gives all {count} UEs the same TEID"),
        );
    }
    if r.last(count).is_none() {
        issues.add(
            field,
            format!(
                "{count} TEIDs from {:#x} in steps of {} go past 0xffffffff",
                r.first.get(),
                r.step
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn brute(a: TeidRange, b: TeidRange, n: u32) -> Option<u32> {
        let set: HashSet<u64> = (0..n)
            .map(|i| u64::from(a.first.get()) + u64::from(a.step) * u64::from(i))
            .collect();
        (0..n)
            .map(|j| u64::from(b.first.get()) + u64::from(b.step) * u64::from(j))
            .filter(|t| set.contains(t))
            .min()
            .map(|t| t as u32)
    }

    #[test]
    fn teid_overlap_is_solved_exactly() {
        let r = |first, step| TeidRange {
            first: Teid(first),
            step,
        };
        // The default: interleaved odd and even TEIDs never meet.
        assert_eq!(ranges_share_a_teid(r(1, 2), r(2, 2), 1_000_000), None);
        assert_eq!(
            ranges_share_a_teid(r(1, 1), r(1000, 1), 1000),
            Some(Teid(1000))
        );
        assert_eq!(ranges_share_a_teid(r(1, 1), r(1001, 1), 1000), None);
        for a0 in 0..12 {
            for s in 0..5 {
                for b0 in 0..12 {
                    for t in 0..5 {
                        for n in [1, 2, 3, 7] {
                            let (a, b) = (r(a0, s), r(b0, t));
                            assert_eq!(
                                ranges_share_a_teid(a, b, n).is_some(),
                                brute(a, b, n).is_some(),
                                "{a:?} {b:?} {n}"
                            );
                        }
                    }
                }
            }
        }
    }
}
