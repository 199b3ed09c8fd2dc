//! Per-stream sequence tracking: loss, reordering, duplicates and late arrivals with a bounded
//! reorder window, correct across the 32-bit wrap of the sequence number.
//!
//! # Model
//!
//! A stream's sender numbers its packets `first_seq, first_seq + 1, ...` (32 bits, wrapping) and
//! knows at the end how many it sent (`sent`). The receiver maps each 32-bit number to a 64-bit
//! *position* (0 for `first_seq`) by taking the position nearest to the current head, as RFC 3550
//! §A.1 extends its 16-bit numbers: a packet is "ahead" when it is less than 2³¹ positions after
//! the head and "behind" otherwise. The numbers are therefore right across any number of wraps as
//! long as no gap or displacement reaches 2³¹ packets.
//!
//! * **head**: one past the highest position received so far (RFC 4737's `NextExp`).
//! * **window**: the `W` positions below the head, `[head - W, head)` (a power of two, 1024 by
//!   default). A bitmap of `W` bits records which of them arrived. With the head, the first
//!   sequence number and four counters this is all the memory a stream uses, whatever the
//!   traffic: 32 bytes inline plus `W / 8 + 48` bytes allocated once.
//!
//! Each arriving packet is classified exactly once ([`Arrival`]):
//!
//! | class | condition at arrival | counted in |
//! | --- | --- | --- |
//! | in order | position == head | `unique` |
//! | after a gap | position > head; positions in between become *provisionally* missing | `unique` |
//! | reordered | position < head, inside the window, not seen before | `unique`, `reordered` |
//! | duplicate | position below the head, inside the window, already seen | `duplicates` |
//! | late | position below the window (older than `W` behind the head) or before `first_seq` | `late` |
//!
//! "Reordered" is RFC 4737 §3.3's reordered packet (it arrives after a higher number was seen)
//! restricted to those that still fit the window; it fills a provisional gap, so the loss that
//! the gap suggested never gets counted. TRex's `out_of_order` and Spirent's "reordered" count
//! comparable things, though each tool bounds its window differently.
//!
//! **Lost** positions are decided when they leave the window: when the head advances, each
//! position that slides out of the window without its bit set is counted lost, once and for good
//! ([`SeqTracker::lost_confirmed`]). A packet that shows up after its position left the window is
//! *late*: it is not unique and does not reduce the loss (it cannot be told apart from a late
//! duplicate, the bitmap having forgotten that position). So a late packet is counted lost *and*
//! late, never received twice. At the end, [`SeqTracker::finish`] takes the number of packets
//! the sender sent and counts as lost the positions still missing inside the window and those
//! after the head that never arrived (tail loss).
//!
//! # Accounting identity
//!
//! For any input whatsoever (drops, reordering, duplicates, packets older than the window, wrap),
//! the counters returned by [`SeqTracker::finish`] satisfy exactly:
//!
//! * `unique + lost == sent`
//! * `received == unique + duplicates + late`
//! * `reordered <= unique`
//!
//! Relative to the truth, only late packets blur the picture, and by at most `late`:
//! `lost - late <= true_lost <= lost` and `duplicates <= true_duplicates <= duplicates + late`.
//! With no late packet (`late == 0`) loss and duplicates are exact.
//!
//! Only the rare classes (duplicates, reordered, late) and the confirmed losses are counted per
//! packet; `unique` is derived from the head, the confirmed losses and the window's bits (every
//! position below the head is exactly one of: left the window received, left it lost, in the
//! window present, in the window missing), and `received` from the classes. The property tests
//! check every counter against a reference model written with a set over true positions.
//!
//! If the receiver sees positions at or beyond what the sender claims to have sent (a wrong
//! `sent`, or a foreign packet carrying a valid stream id), `finish` raises `sent` to the head
//! so that the identity still holds on the reported numbers; [`SeqCounters::sent_raised`] says by
//! how much.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The library's default reorder window: 1024 positions (128 bytes of bitmap per stream). The
/// generator's profiles default to 64 (`reorder_window`), for the memory of a million flows.
pub(crate) const DEFAULT_REORDER_WINDOW: u32 = 1024;
/// Smallest reorder window accepted (one bitmap word).
pub(crate) const MIN_REORDER_WINDOW: u32 = 64;
/// Largest reorder window accepted (8 KiB of bitmap per stream).
pub(crate) const MAX_REORDER_WINDOW: u32 = 1 << 16;

/// A reorder window that is not a power of two in range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error(
    "reorder window {0} is not a power of two between {MIN_REORDER_WINDOW} and {MAX_REORDER_WINDOW}"
)]
pub struct WindowError(pub u32);

/// How one packet was classified by [`SeqTracker::observe`]. See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arrival {
    /// The next expected position.
    InOrder = 0,
    /// A position beyond the next expected one: the positions in between are missing for now.
    AfterGap = 1,
    /// Below the head, within the window, first time seen.
    Reordered = 2,
    /// Within the window and seen before.
    Duplicate = 3,
    /// Older than the window (or before the stream's first sequence number).
    Late = 4,
}

impl Arrival {
    /// Whether this packet counts as a first (unique) reception.
    #[inline]
    pub const fn is_unique(self) -> bool {
        matches!(
            self,
            Arrival::InOrder | Arrival::AfterGap | Arrival::Reordered
        )
    }
}

/// What one observation did: its class and how many positions it pushed out of the window
/// unreceived (losses confirmed by this packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observed {
    /// The class of the packet.
    pub arrival: Arrival,
    /// Positions confirmed lost by this packet's advance of the head.
    pub newly_lost: u64,
}

/// Final per-stream sequence counters (see the module documentation for the identities).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SeqCounters {
    /// Packets the sender sent (raised to the receiver's head if it saw more; see `sent_raised`).
    pub sent: u64,
    /// Every tagged packet received for the stream.
    pub received: u64,
    /// Distinct positions received within the window.
    pub unique: u64,
    /// Positions never received in time: `sent - unique`.
    pub lost: u64,
    /// Receptions of a position already received (detected within the window).
    pub duplicates: u64,
    /// Unique receptions that arrived after a higher position.
    pub reordered: u64,
    /// Receptions of positions older than the window.
    pub late: u64,
    /// How much `sent` was raised because the receiver saw positions beyond it.
    pub sent_raised: u64,
}

impl SeqCounters {
    /// Adds another stream's counters (for per-direction totals).
    pub fn merge(&mut self, o: &SeqCounters) {
        self.sent += o.sent;
        self.received += o.received;
        self.unique += o.unique;
        self.lost += o.lost;
        self.duplicates += o.duplicates;
        self.reordered += o.reordered;
        self.late += o.late;
        self.sent_raised += o.sent_raised;
    }
}

/// Sequence tracker for one stream with a fixed reorder window. See the module documentation.
///
/// No allocation after construction; [`observe`](Self::observe) is branch-light in the in-order
/// case and touches only the struct itself: the bitmap word that holds the head's slot is kept
/// inline (`current`), so the allocation is read and written once per 64 in-order packets (when
/// the head enters the next word) and on the rare paths. The struct is 32 bytes (the counters of
/// the rare classes live after the bitmap in the same allocation, reached through a thin
/// pointer), so that the RX worker's whole per-packet state of a stream fits one cache line.
#[derive(Clone)]
pub struct SeqTracker {
    /// One past the highest position received (0: nothing yet).
    head: u64,
    /// Ring word [`current_index`](Self::current_index) (the word of the head's slot): the
    /// authoritative copy; the allocation's copy of that word is stale.
    current: u64,
    /// The ring bitmap, `W / 64` words (bit `p % W` tells whether position `p` in the window
    /// arrived), then [`RARE_WORDS`] counters: duplicates, reordered, late, lost_confirmed.
    /// Unique and received are not counted: they follow from these (see `unique`). Boxed twice:
    /// a thin pointer in the struct, the slice's own pointer and length in the allocation.
    words: Box<Box<[u64]>>,
    first_seq: u32,
    /// `W`, kept inline so that the in-order path needs nothing from the allocation.
    window: u32,
}

impl PartialEq for SeqTracker {
    /// Compares the trackers' state (the bitmap as [`observe`](Self::observe) sees it), not the
    /// stale copy of the current word.
    fn eq(&self, o: &SeqTracker) -> bool {
        self.head == o.head
            && self.first_seq == o.first_seq
            && self.window == o.window
            && self.logical_words().eq(o.logical_words())
    }
}

impl Eq for SeqTracker {}

impl std::fmt::Debug for SeqTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeqTracker")
            .field("head", &self.head)
            .field("words", &self.logical_words().collect::<Vec<_>>())
            .field("first_seq", &self.first_seq)
            .finish()
    }
}

const DUPLICATES: usize = 0;
const REORDERED: usize = 1;
const LATE: usize = 2;
const LOST_CONFIRMED: usize = 3;
const RARE_WORDS: usize = 4;

impl SeqTracker {
    /// A tracker for a stream whose first packet carries `first_seq`, with a reorder window of
    /// `window` positions (a power of two in `64..=65536`).
    pub fn new(first_seq: u32, window: u32) -> Result<SeqTracker, WindowError> {
        if !window.is_power_of_two() || !(MIN_REORDER_WINDOW..=MAX_REORDER_WINDOW).contains(&window)
        {
            return Err(WindowError(window));
        }
        Ok(SeqTracker {
            head: 0,
            current: 0,
            words: Box::new(vec![0u64; (window / 64) as usize + RARE_WORDS].into_boxed_slice()),
            first_seq,
            window,
        })
    }

    /// Back to a new tracker's state, its first sequence number `first_seq`, keeping its
    /// allocation: what a later step of the same flows reuses instead of allocating again.
    pub fn reset(&mut self, first_seq: u32) {
        self.head = 0;
        self.current = 0;
        self.words.fill(0);
        self.first_seq = first_seq;
    }

    #[inline(always)]
    fn bitmap_words(&self) -> usize {
        (self.window >> 6) as usize
    }

    /// The ring word that holds the head's slot, the one mirrored in `current`.
    #[inline(always)]
    fn current_index(&self) -> usize {
        ((self.head & (self.window() - 1)) >> 6) as usize
    }

    /// The allocation's words with the current word in place of its stale copy.
    fn logical_words(&self) -> impl Iterator<Item = u64> + '_ {
        let cur = self.current_index();
        self.words
            .iter()
            .enumerate()
            .map(move |(i, &w)| if i == cur { self.current } else { w })
    }

    /// Writes the current word back so that the allocation holds the whole bitmap.
    #[inline(always)]
    fn flush_current(&mut self) {
        let i = self.current_index();
        self.words[i] = self.current;
    }

    /// Loads the current word for the head as it now stands (after `flush_current` and any
    /// change of the head or of the allocation's words).
    #[inline(always)]
    fn load_current(&mut self) {
        self.current = self.words[self.current_index()];
    }

    #[inline(always)]
    fn rare(&self, which: usize) -> u64 {
        self.words[self.bitmap_words() + which]
    }

    #[inline(always)]
    fn bump(&mut self, which: usize, n: u64) {
        let i = self.bitmap_words() + which;
        self.words[i] += n;
    }

    /// The reorder window in positions.
    #[inline(always)]
    pub fn window(&self) -> u64 {
        u64::from(self.window)
    }

    /// The stream's first sequence number.
    pub fn first_seq(&self) -> u32 {
        self.first_seq
    }

    /// One past the highest position received so far.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// Every packet observed so far.
    pub fn received(&self) -> u64 {
        self.unique() + self.rare(DUPLICATES) + self.rare(LATE)
    }

    /// Distinct positions received so far. Every position below the head either left the window
    /// (received, or counted in `lost_confirmed`) or is still in it (bit set or not), so this is
    /// `head - lost_confirmed - (missing in window)`: no per-packet counter needed.
    pub fn unique(&self) -> u64 {
        self.head - self.lost_confirmed() - self.missing_in_window()
    }

    fn missing_in_window(&self) -> u64 {
        let in_window = self.head - self.head.saturating_sub(self.window());
        in_window - self.present()
    }

    fn present(&self) -> u64 {
        self.logical_words()
            .take(self.bitmap_words())
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// Positions that have left the window unreceived so far (final, never revised).
    pub fn lost_confirmed(&self) -> u64 {
        self.rare(LOST_CONFIRMED)
    }

    /// Classifies one packet carrying sequence number `seq` and updates the counters.
    #[inline(always)]
    pub fn observe(&mut self, seq: u32) -> Observed {
        // Distance from the head in the 32-bit space, read as signed: the nearest 64-bit position.
        let rel = seq.wrapping_sub(self.first_seq);
        let delta = rel.wrapping_sub(self.head as u32) as i32;
        if delta >= 0 {
            let newly_lost = if delta == 0 {
                self.advance_one()
            } else {
                self.advance_to(self.head + delta as u64)
            };
            if newly_lost != 0 {
                self.bump(LOST_CONFIRMED, newly_lost);
            }
            let arrival = if delta == 0 {
                Arrival::InOrder
            } else {
                Arrival::AfterGap
            };
            return Observed {
                arrival,
                newly_lost,
            };
        }
        let back = u64::from(delta.unsigned_abs());
        let arrival = if back > self.head || back > self.window() {
            // Before the stream's first position, or older than the window.
            self.bump(LATE, 1);
            Arrival::Late
        } else {
            let pos = self.head - back;
            let (word, bit) = self.slot(pos);
            self.flush_current();
            let arrival = if self.words[word] & bit != 0 {
                self.bump(DUPLICATES, 1);
                Arrival::Duplicate
            } else {
                self.words[word] |= bit;
                self.bump(REORDERED, 1);
                Arrival::Reordered
            };
            self.load_current();
            arrival
        };
        Observed {
            arrival,
            newly_lost: 0,
        }
    }

    /// Final counters given the number of packets the sender sent. Does not change the tracker,
    /// so a live view can call it too (it then counts the current provisional gaps as lost).
    pub fn finish(&self, sent: u64) -> SeqCounters {
        let unique = self.unique();
        let sent_raised = self.head.saturating_sub(sent);
        let sent = sent.max(self.head);
        let (duplicates, late) = (self.rare(DUPLICATES), self.rare(LATE));
        SeqCounters {
            sent,
            received: unique + duplicates + late,
            unique,
            lost: self.lost_confirmed() + self.missing_in_window() + (sent - self.head),
            duplicates,
            reordered: self.rare(REORDERED),
            late,
            sent_raised,
        }
    }

    #[inline(always)]
    fn slot(&self, pos: u64) -> (usize, u64) {
        let idx = pos & (self.window() - 1);
        ((idx >> 6) as usize, 1u64 << (idx & 63))
    }

    /// Head moves by one: the slot of `pos == head` is the slot of `pos - W`, which leaves the
    /// window. That slot is in the current word; when the head then enters the next word, the
    /// current word is written back and the next one loaded.
    #[inline(always)]
    fn advance_one(&mut self) -> u64 {
        let pos = self.head;
        let bit = 1u64 << (pos & 63);
        let was_set = self.current & bit != 0;
        self.current |= bit;
        self.head = pos + 1;
        if self.head & 63 == 0 {
            self.next_word(pos);
        }
        u64::from(pos >= self.window() && !was_set)
    }

    /// The head left the word of `pos` for the next one (the same word when `W` is 64).
    #[cold]
    #[inline(never)]
    fn next_word(&mut self, pos: u64) {
        let (word, _) = self.slot(pos);
        self.words[word] = self.current;
        self.load_current();
    }

    /// Head jumps to `pos + 1`: positions `[head - W, pos + 1 - W)` leave the window; their
    /// slots are the slots of the new positions `head..=pos`, cleared and then `pos` set.
    fn advance_to(&mut self, pos: u64) -> u64 {
        let w = self.window();
        self.flush_current();
        let entering = pos + 1 - self.head;
        let evicted = (pos + 1).saturating_sub(w) - self.head.saturating_sub(w);
        let present = if entering >= w {
            let n = self.present();
            let words = self.bitmap_words();
            self.words[..words].fill(0);
            n
        } else {
            self.take_slots(self.head, entering)
        };
        let (word, bit) = self.slot(pos);
        self.words[word] |= bit;
        self.head = pos + 1;
        self.load_current();
        evicted - present
    }

    /// Clears the `len < W` ring slots of positions `start..start + len`, returning how many were
    /// set.
    fn take_slots(&mut self, start: u64, len: u64) -> u64 {
        let mask = self.window() - 1;
        let mut idx = start & mask;
        let mut left = len;
        let mut taken = 0u64;
        while left > 0 {
            let word = (idx >> 6) as usize;
            let off = idx & 63;
            // W is a multiple of 64, so a word never straddles the end of the ring.
            let span = (64 - off).min(left);
            let m = if span == 64 {
                u64::MAX
            } else {
                ((1u64 << span) - 1) << off
            };
            taken += u64::from((self.words[word] & m).count_ones());
            self.words[word] &= !m;
            idx = (idx + span) & mask;
            left -= span;
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(first: u32, window: u32, seqs: &[u32], sent: u64) -> (Vec<Arrival>, SeqCounters) {
        let mut t = SeqTracker::new(first, window).unwrap();
        let a = seqs.iter().map(|&s| t.observe(s).arrival).collect();
        (a, t.finish(sent))
    }

    fn check_identity(c: &SeqCounters) {
        assert_eq!(c.unique + c.lost, c.sent, "{c:?}");
        assert_eq!(c.unique + c.duplicates + c.late, c.received, "{c:?}");
    }

    #[test]
    fn rejects_bad_windows() {
        for w in [0, 1, 32, 63, 100, 1000, 1 << 17] {
            assert_eq!(SeqTracker::new(0, w), Err(WindowError(w)));
        }
        for w in [64, 128, 1024, 1 << 16] {
            assert_eq!(SeqTracker::new(0, w).unwrap().window(), u64::from(w));
        }
    }

    #[test]
    fn in_order_stream_has_no_loss() {
        let seqs: Vec<u32> = (0..5000).collect();
        let (a, c) = run(0, 64, &seqs, 5000);
        assert!(a.iter().all(|&x| x == Arrival::InOrder));
        assert_eq!(
            c,
            SeqCounters {
                sent: 5000,
                received: 5000,
                unique: 5000,
                ..Default::default()
            }
        );
    }

    #[test]
    fn single_gap_is_lost_once_it_leaves_the_window() {
        let mut t = SeqTracker::new(0, 64).unwrap();
        let mut lost_seen = 0;
        for s in (0..200u32).filter(|&s| s != 10) {
            let o = t.observe(s);
            lost_seen += o.newly_lost;
            if s == 11 {
                assert_eq!(o.arrival, Arrival::AfterGap);
            }
            if s == 10 + 64 {
                // Position 74 evicts position 10.
                assert_eq!(o.newly_lost, 1);
            }
        }
        assert_eq!(lost_seen, 1);
        assert_eq!(t.lost_confirmed(), 1);
        let c = t.finish(200);
        assert_eq!(c.lost, 1);
        assert_eq!(c.unique, 199);
        check_identity(&c);
    }

    #[test]
    fn reorder_inside_window_fills_the_gap() {
        let (a, c) = run(0, 64, &[0, 1, 3, 4, 2, 5], 6);
        assert_eq!(a[2], Arrival::AfterGap);
        assert_eq!(a[4], Arrival::Reordered);
        assert_eq!(c.lost, 0);
        assert_eq!(c.reordered, 1);
        assert_eq!(c.unique, 6);
        check_identity(&c);
    }

    #[test]
    fn duplicates_inside_window_are_detected() {
        let (a, c) = run(0, 64, &[0, 1, 1, 2, 0, 2], 3);
        assert_eq!(
            a,
            vec![
                Arrival::InOrder,
                Arrival::InOrder,
                Arrival::Duplicate,
                Arrival::InOrder,
                Arrival::Duplicate,
                Arrival::Duplicate
            ]
        );
        assert_eq!(c.duplicates, 3);
        assert_eq!(c.lost, 0);
        check_identity(&c);
    }

    #[test]
    fn packet_older_than_window_is_late_and_stays_lost() {
        let mut seqs: Vec<u32> = (1..100).collect();
        seqs.push(0); // 99 positions behind the head, window 64.
        let (a, c) = run(0, 64, &seqs, 100);
        assert_eq!(*a.last().unwrap(), Arrival::Late);
        assert_eq!(c.late, 1);
        assert_eq!(c.lost, 1);
        assert_eq!(c.unique, 99);
        check_identity(&c);
    }

    #[test]
    fn window_edge_is_exact() {
        // Head is 64 after 1..=63; position 0 is exactly W behind: the window's oldest slot.
        let mut seqs: Vec<u32> = (1..=63).collect();
        seqs.push(0);
        let (a, c) = run(0, 64, &seqs, 64);
        assert_eq!(*a.last().unwrap(), Arrival::Reordered);
        assert_eq!(c.lost, 0);
        // One more ahead (position 64 takes position 0's slot) and position 0 has left.
        let mut seqs: Vec<u32> = (1..=64).collect();
        seqs.push(0);
        let (a, c) = run(0, 64, &seqs, 65);
        assert_eq!(*a.last().unwrap(), Arrival::Late);
        assert_eq!(c.lost, 1);
    }

    #[test]
    fn tail_loss_and_untouched_stream() {
        let (_, c) = run(0, 64, &[0, 1, 2], 10);
        assert_eq!(c.lost, 7);
        check_identity(&c);
        let (_, c) = run(0, 64, &[], 10);
        assert_eq!(c.lost, 10);
        assert_eq!(c.unique, 0);
        check_identity(&c);
    }

    #[test]
    fn counts_are_right_across_the_32_bit_wrap() {
        let first = u32::MAX - 99;
        let seqs: Vec<u32> = (0..300u32)
            .map(|i| first.wrapping_add(i))
            .filter(|s| *s != 5 && *s != u32::MAX)
            .collect();
        let (a, c) = run(first, 64, &seqs, 300);
        assert_eq!(a.iter().filter(|&&x| x == Arrival::AfterGap).count(), 2);
        assert_eq!(c.lost, 2);
        assert_eq!(c.unique, 298);
        check_identity(&c);
    }

    #[test]
    fn long_streams_cross_many_wraps_by_position() {
        // Jumps of 2^30 walk the head through several wraps; each is a gap of 2^30 - 1.
        let mut t = SeqTracker::new(7, 1024).unwrap();
        let mut seq = 7u32;
        t.observe(seq);
        for _ in 0..10 {
            seq = seq.wrapping_add(1 << 30);
            assert_eq!(t.observe(seq).arrival, Arrival::AfterGap);
        }
        assert_eq!(t.head(), 10 * (1u64 << 30) + 1);
        let c = t.finish(t.head());
        assert_eq!(c.unique, 11);
        assert_eq!(c.lost, 10 * ((1u64 << 30) - 1));
        check_identity(&c);
    }

    #[test]
    fn big_gap_counts_positions_that_never_fit_the_window() {
        let mut t = SeqTracker::new(0, 64).unwrap();
        for s in 0..10 {
            t.observe(s);
        }
        let o = t.observe(1_000_000);
        // Positions 10..1_000_000 are missing; of them all but the last 63 have left the window.
        assert_eq!(o.newly_lost, 1_000_000 - 10 - 63);
        let c = t.finish(1_000_001);
        assert_eq!(c.lost, 1_000_000 - 10);
        check_identity(&c);
    }

    #[test]
    fn packet_before_first_seq_is_late() {
        let (a, c) = run(100, 64, &[100, 101, 99], 2);
        assert_eq!(a[2], Arrival::Late);
        assert_eq!(c.late, 1);
        assert_eq!(c.lost, 0);
        check_identity(&c);
    }

    #[test]
    fn sent_is_raised_when_receiver_saw_more() {
        let (_, c) = run(0, 64, &[0, 1, 2, 3, 9], 5);
        assert_eq!(c.sent_raised, 5);
        assert_eq!(c.sent, 10);
        assert_eq!(c.lost, 5);
        check_identity(&c);
    }

    #[test]
    fn mid_size_gap_spanning_ring_end_takes_the_right_slots() {
        // Window 128: fill 0..100, skip 100..150 (wraps the ring), then reorder some back.
        let mut seqs: Vec<u32> = (0..100).collect();
        seqs.extend(150..200);
        seqs.extend([120, 149, 100]);
        let (a, c) = run(0, 128, &seqs, 200);
        assert_eq!(&a[a.len() - 3..], &[Arrival::Reordered; 3]);
        assert_eq!(c.lost, 47);
        assert_eq!(c.reordered, 3);
        check_identity(&c);
    }
}

#[cfg(test)]
mod current_word_tests {
    use super::*;

    fn fed(seqs: impl IntoIterator<Item = u32>) -> SeqTracker {
        let mut t = SeqTracker::new(0, 128).unwrap();
        for s in seqs {
            t.observe(s);
        }
        t
    }

    #[test]
    fn equality_and_debug_compare_the_state_not_the_stale_copy() {
        // The same state, with the allocation's copy of word 1 stale in `a` (in-order packets
        // after the reordered one) and up to date in `b` (the reordered one came last).
        let a = fed((0..66).chain([67, 66, 68, 69]));
        let b = fed((0..66).chain([67, 68, 69, 66]));
        assert_eq!(
            a.words[1], 0b1111,
            "in-order packets stay in the current word"
        );
        assert_eq!(b.words[1], 0b11_1111);
        assert_eq!(a, b);
        assert_eq!(a.clone(), b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert!(format!("{a:?}").contains("words: [18446744073709551615, 63, 0, 1, 0, 0]"));
        // One position of the current word differs.
        let c = fed((0..66).chain([67, 66, 69]));
        assert_ne!(a, c);
        assert_ne!(format!("{a:?}"), format!("{c:?}"));
    }

    #[test]
    fn current_word_is_written_back_when_the_head_leaves_it() {
        let t = fed(0..64);
        assert_eq!((t.head(), t.words[0], t.current), (64, u64::MAX, 0));
        // Window 128: at head 128 word 1 is written back and word 0 (position 1 missing) becomes
        // the current word again; position 129 takes slot 1 and confirms position 1 lost.
        let t = fed((0..130).filter(|&s| s != 1));
        assert_eq!(
            (t.head(), t.words[0], t.words[1], t.current),
            (130, !0b10, u64::MAX, u64::MAX)
        );
        assert_eq!((t.lost_confirmed(), t.unique()), (1, 129));
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    #[test]
    fn tracker_is_small() {
        // Head, the allocation's pointer and length, the first sequence number.
        assert_eq!(size_of::<SeqTracker>(), 32);
    }
}
