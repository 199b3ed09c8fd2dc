//! The transmit side of a worker: one [`TxShare`] per (worker, stream).
//!
//! Each share owns a [`TemplatePool`] whose every mbuf already holds the stream's frame; per
//! packet only the patch window is written (the UE's TEID and address, both checksums, and the
//! measurement tag with its sequence number and transmit time). The pacer says how many packets
//! are due, never more than the share's allowance (its part of the profile's `max_burst`: a
//! share that falls behind lets its schedule slip instead of catching up at line rate); each
//! poll fills at most that many and hands them to the NIC in bursts of up to
//! [`BURST_CAPACITY`], so a share never puts more than its allowance back to back on the wire.
//! Packets the NIC does not take stay in the share's burst, in order, and go first next time
//! (and count against that poll's allowance): sequence numbers are consumed only by packets
//! that exist, and those still unsent at the end are rewound ([`TxShare::rewind_unsent`]) so
//! that every flow's `sent` is exact.

use std::net::{IpAddr, Ipv6Addr};

use upfbench_dpdk::{MbufBurst, TemplatePool, TxQueue};
use upfbench_gtpu::header::{MANDATORY_HEADER_LEN, OPTIONAL_FIELDS_LEN};
use upfbench_gtpu::{PacketTemplate, UeAddress, UePatch, WindowPatcher};
use upfbench_net::Teid;
use upfbench_stats::{Direction, TxStats};

use super::frames::StreamFrame;
use super::outer_switch::{OUTER_CHECKSUM_AT, OUTER_LEN, OuterSwitch};
use upfbench_net::tag::{TAG_LEN, Tag};
use upfbench_run::plan::{Pacer, Schedule, ScheduleSlip, Share, Spread, StreamPlan, UeTable};

/// Largest number of packets filled and handed to the NIC in one call; a larger allowance is
/// sent in several calls within one poll.
pub const BURST_CAPACITY: usize = 64;

/// The UL PDU Session Information of a container with only the QFI: one 4-octet unit
/// (TS 38.415 §5.5.2.2, with the extension header's length and next-type octets).
const UL_CONTAINER_LEN: usize = 4;

/// The patch windows of the frames [`stream_template`](super::frames::stream_template) builds:
/// the TX loop is compiled once for each, with the offsets as immediates.
const UPLINK: WindowPatcher = WindowPatcher::gpdu(MANDATORY_HEADER_LEN, UeAddress::Source, true);
const UPLINK_CONTAINER: WindowPatcher = WindowPatcher::gpdu(
    MANDATORY_HEADER_LEN + OPTIONAL_FIELDS_LEN + UL_CONTAINER_LEN,
    UeAddress::Source,
    true,
);
const DOWNLINK: WindowPatcher = WindowPatcher::plain(UeAddress::Destination, true);

/// Which of the generator's frame layouts a template has, chosen once per share so that the
/// per-packet loop runs on constant offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxLayout {
    /// An uplink G-PDU without extension headers.
    Uplink,
    /// An uplink G-PDU with a PDU Session Container that carries only the QFI.
    UplinkContainer,
    /// A plain downlink frame (N6).
    Downlink,
    /// Any other template: its offsets are read at run time.
    Other(WindowPatcher),
    /// A template without a patch window (IPv6 inside or outside: the outer UDP checksum
    /// covers the whole G-PDU, a UE address is 16 octets): each packet is written whole.
    Written,
}

impl TxLayout {
    /// The layout of `template`'s patch window.
    pub fn of(template: &PacketTemplate) -> TxLayout {
        match template.window_patcher() {
            p if p == UPLINK => TxLayout::Uplink,
            p if p == UPLINK_CONTAINER => TxLayout::UplinkContainer,
            p if p == DOWNLINK => TxLayout::Downlink,
            p => TxLayout::Other(p),
        }
    }

    /// Patches one packet's `window` for `ue` with `tag`, as the TX loop does.
    pub fn patch(self, window: &mut [u8], ue: &UePatch, tag: &Tag) {
        match self {
            TxLayout::Uplink => patch_packet(UPLINK, window, ue, tag),
            TxLayout::UplinkContainer => patch_packet(UPLINK_CONTAINER, window, ue, tag),
            TxLayout::Downlink => patch_packet(DOWNLINK, window, ue, tag),
            TxLayout::Other(p) => patch_packet(p, window, ue, tag),
            // Written whole by the share, not patched.
            TxLayout::Written => {}
        }
    }
}

/// One packet's fields: the UE's and the tag, the UDP checksum's tag part summed from the
/// tag's integers (in a loop, the stream's and time's parts are the same for a whole burst).
#[inline(always)]
fn patch_packet(patcher: WindowPatcher, window: &mut [u8], ue: &UePatch, tag: &Tag) {
    patcher.patch_summed(window, ue, &tag.to_bytes(), tag.word_sum());
}

/// Writes a packet of a [`TxLayout::Written`] frame into `window` (the whole frame): the
/// untagged `template` behind the room of the tags, to `ue` in tunnel `teid` with `tag`, then
/// `head` (the frame's addresses and tags, [`StreamFrame::head`]) in front of it. Returns the
/// frame's length.
#[inline(always)]
pub fn write_whole(
    template: &PacketTemplate,
    head: &[u8],
    window: &mut [u8],
    teid: Teid,
    ue: IpAddr,
    tag: &[u8; TAG_LEN],
) -> Result<usize, upfbench_gtpu::EmitError> {
    let tags_len = head.len() - upfbench_net::ethernet::field::ETHERTYPE.start;
    let out = window
        .get_mut(tags_len..)
        .ok_or(upfbench_gtpu::EmitError::BufferTooSmall {
            needed: tags_len,
            available: 0,
        })?;
    let n = match ue {
        IpAddr::V6(a) => template.write_ipv6(out, teid, a, tag)?,
        IpAddr::V4(a) => template.write(out, teid, a, tag)?,
    };
    window[..head.len()].copy_from_slice(head);
    Ok(n + tags_len)
}

/// One UE as a share sends to it: 24 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxUe {
    /// What its packets write besides the tag (TEID, address, both checksums' UE part),
    /// computed once from the share's template.
    pub patch: UePatch,
    /// Packets of the UE's flow filled so far in this phase; the low 32 bits are the next
    /// sequence number.
    pub sent: u64,
}

/// What the TX side needs of a share besides its frames.
#[derive(Debug, Clone)]
pub struct ShareSpec {
    /// The stream's id.
    pub stream: u16,
    /// Its direction.
    pub direction: Direction,
    /// Its first flow id and, for this share, first local UE and stride (see [`Share`]).
    pub flow_base: u32,
    /// First local UE index of the share.
    pub first: u32,
    /// Distance between the share's local UEs.
    pub stride: u32,
    /// The share's rate.
    pub rate_pps: f64,
    /// The share's schedule in the measured phase.
    pub schedule: Schedule,
    /// Consecutive packets per UE.
    pub per_ue: u32,
    /// Most packets due and unsent at once, and most handed to the NIC in one poll.
    pub allowance: u32,
    /// How much faster than its rate a late share may send (a fraction; see
    /// [`Pacer::with_catch_up`]).
    pub catch_up: f64,
}

impl ShareSpec {
    /// The spec of `share` of `stream`, catching up at `catch_up` (a fraction) when late.
    pub fn new(stream: &StreamPlan, share: &Share, catch_up: f64) -> ShareSpec {
        ShareSpec {
            stream: stream.id,
            direction: stream.direction,
            flow_base: stream.flow_base,
            first: share.first,
            stride: share.stride,
            rate_pps: share.rate_pps,
            schedule: share.schedule,
            per_ue: match stream.spread {
                Spread::RoundRobin => 1,
                Spread::PerUe(n) => n.max(1),
            },
            allowance: share.allowance.max(1),
            catch_up,
        }
    }
}

/// The UEs of `share` of `stream` as `template`'s packets to them, with their TEIDs:
/// `uplink_teids[i]` is UE `i`'s uplink TEID (from the plan or, when the UPF chose them, from
/// the established sessions).
pub fn share_ues(
    stream: &StreamPlan,
    share: &Share,
    ues: &UeTable,
    template: &PacketTemplate,
    uplink_teids: &dyn Fn(u32) -> Teid,
) -> Box<[TxUe]> {
    share
        .local_ues()
        .map(|j| {
            let ue = stream.ues.start + j;
            let teid = match stream.direction {
                Direction::Uplink => uplink_teids(ue),
                Direction::Downlink => Teid::ZERO,
            };
            TxUe {
                patch: template.ue_patch::<TAG_LEN>(teid, ues.address_v4(ue)),
                sent: 0,
            }
        })
        .collect()
}

/// The IPv6 addresses of the UEs of `share` of `stream` (`address(ue)`), in the order of
/// [`share_ues`]; empty when the stream's UEs are not IPv6.
pub fn share_ues6(
    stream: &StreamPlan,
    share: &Share,
    address: &dyn Fn(u32) -> IpAddr,
) -> Box<[Ipv6Addr]> {
    share
        .local_ues()
        .map_while(|j| match address(stream.ues.start + j) {
            IpAddr::V6(a) => Some(a),
            IpAddr::V4(_) => None,
        })
        .collect()
}

/// A worker's part of one stream.
pub struct TxShare<'e> {
    spec: ShareSpec,
    frame_len: u32,
    pool: TemplatePool<'e>,
    template: PacketTemplate,
    layout: TxLayout,
    ues: Box<[TxUe]>,
    /// The UE the next packet goes to, and how many more it gets before the next UE.
    cursor: usize,
    left_on_ue: u32,
    pacer: Pacer,
    /// Packets filled so far in this phase (sequence numbers consumed).
    filled: u64,
    /// Packets the NIC took in this phase.
    sent: u64,
    burst: MbufBurst<'e, BURST_CAPACITY>,
    /// The pool had no free mbuf when packets were due (they stay due).
    pub(crate) pool_empty: u64,
    /// Each UE's outer source when the share has moving UEs (its pool then patches from
    /// [`OUTER_CHECKSUM_AT`]).
    moving: Option<Box<[OuterSwitch]>>,
    /// Octets of VLAN tags after the Ethernet addresses: the template's offsets are this much
    /// further in the frame.
    tags_len: usize,
    /// The addresses and tags of a [`TxLayout::Written`] frame, written back after each packet.
    head: Box<[u8]>,
    /// The IPv6 address of each UE of a [`TxLayout::Written`] share of IPv6 UEs (empty
    /// otherwise: the IPv4 shares keep 24 bytes a UE).
    ues6: Box<[Ipv6Addr]>,
}

impl<'e> TxShare<'e> {
    /// A share sending `template`'s frames from `pool` (whose patch range is the template's) to
    /// `ues`, at most `spec.allowance` at once.
    pub fn new(
        spec: ShareSpec,
        pool: TemplatePool<'e>,
        template: PacketTemplate,
        ues: Box<[TxUe]>,
    ) -> TxShare<'e> {
        debug_assert_eq!(Some(pool.patch_range()), template.patch_range(TAG_LEN));
        Self::with_moving_ues(spec, pool, template, ues, None)
    }

    /// A share of `ues`, some of which move (`moving`, one per UE): `pool`'s patch range starts
    /// at [`OUTER_CHECKSUM_AT`] and ends with the template's.
    pub(crate) fn with_moving_ues(
        spec: ShareSpec,
        pool: TemplatePool<'e>,
        template: PacketTemplate,
        ues: Box<[TxUe]>,
        moving: Option<Box<[OuterSwitch]>>,
    ) -> TxShare<'e> {
        debug_assert!(moving.as_ref().is_none_or(|m| m.len() == ues.len()));
        let left_on_ue = spec.per_ue;
        TxShare {
            frame_len: template.len() as u32,
            pacer: Pacer::new(0.0, 1, &spec.schedule),
            spec,
            pool,
            layout: TxLayout::of(&template),
            template,
            ues,
            cursor: 0,
            left_on_ue,
            filled: 0,
            sent: 0,
            burst: MbufBurst::new(),
            pool_empty: 0,
            moving,
            tags_len: 0,
            head: Box::default(),
            ues6: Box::default(),
        }
    }

    /// A share sending `frame` (tagged, of either family) from `pool`, whose patch range is
    /// [`StreamFrame::patch_range`], to `ues`; `ues6` are their IPv6 addresses when the
    /// stream's UEs are IPv6 (one per UE), else empty.
    pub fn of_frame(
        spec: ShareSpec,
        pool: TemplatePool<'e>,
        frame: StreamFrame,
        ues: Box<[TxUe]>,
        ues6: Box<[Ipv6Addr]>,
    ) -> TxShare<'e> {
        debug_assert_eq!(pool.patch_range(), frame.patch_range(TAG_LEN));
        debug_assert!(ues6.is_empty() || ues6.len() == ues.len());
        let written = frame.written_whole(TAG_LEN);
        let mut share = Self::with_moving_ues(spec, pool, frame.template.clone(), ues, None);
        share.frame_len = frame.len() as u32;
        share.tags_len = frame.tags_len;
        if written {
            share.layout = TxLayout::Written;
            share.head = frame.head().into();
            share.ues6 = ues6;
        }
        share
    }

    /// Gives its template pool back, for a later step sending the same frames.
    pub(crate) fn into_pool(self) -> TemplatePool<'e> {
        self.pool
    }

    /// The stream's id.
    pub fn stream(&self) -> u16 {
        self.spec.stream
    }

    /// The stream's direction.
    pub fn direction(&self) -> Direction {
        self.spec.direction
    }

    /// Starts a phase at tick `start`: `schedule` at the share's rate, sequence numbers from 0.
    pub fn start(&mut self, schedule: &Schedule, tsc_hz: u64, start: u64) {
        self.pacer = Pacer::new(self.spec.rate_pps, tsc_hz, schedule)
            .with_allowance(u64::from(self.spec.allowance))
            .with_catch_up(self.spec.catch_up);
        self.pacer.start(start);
        for ue in self.ues.iter_mut() {
            ue.sent = 0;
        }
        // Warm-up: every UE at its source gNB.
        for m in self.moving.iter_mut().flat_map(|m| m.iter_mut()) {
            m.at_tick = u64::MAX;
        }
        self.cursor = 0;
        self.left_on_ue = self.spec.per_ue;
        self.filled = 0;
        self.sent = 0;
    }

    /// Starts the measured phase at tick `start`.
    pub fn start_measured(&mut self, tsc_hz: u64, start: u64) {
        let schedule = self.spec.schedule;
        self.start(&schedule, tsc_hz, start);
        for m in self.moving.iter_mut().flat_map(|m| m.iter_mut()) {
            if let Some(ns) = m.at_ns {
                m.at_tick = start + (u128::from(ns) * u128::from(tsc_hz) / 1_000_000_000) as u64;
            }
        }
    }

    /// Whether every packet of the phase has been handed to the NIC.
    pub fn done(&self) -> bool {
        self.sent >= self.pacer.total()
    }

    /// Packets the NIC took in this phase.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Packets of this phase still to be handed to the NIC (in the burst or not yet filled).
    pub fn outstanding(&self) -> u64 {
        self.pacer.total() - self.sent
    }

    /// Sends what is due at tick `now` (`now_ns` on the run clock, whose low 32 bits go into the
    /// tags): first what the NIC refused last time, then new packets, at most the allowance in
    /// all. Returns how many the NIC took.
    #[inline]
    pub fn poll(&mut self, now: u64, now_ns: u64, txq: &mut TxQueue<'e>) -> u64 {
        let mut sent = 0;
        if !self.burst.is_empty() {
            sent = self.transmit(txq);
            if !self.burst.is_empty() {
                return sent;
            }
        }
        let due = self.pacer.due(now, self.filled).saturating_sub(self.filled);
        let mut left = due.min(u64::from(self.spec.allowance).saturating_sub(sent));
        while left != 0 {
            let n = left.min(BURST_CAPACITY as u64) as usize;
            if !self.fill(n, now_ns as u32, now) {
                self.pool_empty += 1;
                break;
            }
            sent += self.transmit(txq);
            left -= n as u64;
            // A full queue: the rest stays due.
            if !self.burst.is_empty() {
                break;
            }
        }
        sent
    }

    /// Fills `n` packets (at most [`BURST_CAPACITY`]) into the empty burst, stamped `stamp`
    /// (at tick `now`); false when the pool has not that many free mbufs.
    #[inline(always)]
    fn fill(&mut self, n: usize, stamp: u32, now: u64) -> bool {
        if self.moving.is_some() {
            return self.fill_moving(n, stamp, now);
        }
        match self.layout {
            TxLayout::Uplink => self.fill_as(n, stamp, UPLINK),
            TxLayout::UplinkContainer => self.fill_as(n, stamp, UPLINK_CONTAINER),
            TxLayout::Downlink => self.fill_as(n, stamp, DOWNLINK),
            TxLayout::Other(p) => self.fill_as(n, stamp, p),
            TxLayout::Written => self.fill_written(n, stamp),
        }
    }

    /// [`fill_as`](Self::fill_as) for a share whose packets are written whole
    /// ([`TxLayout::Written`]): the untagged template written behind the tags' room, then the
    /// addresses and tags put back in front. Out of line: the IPv4 patch loops stay as they are.
    #[inline(never)]
    fn fill_written(&mut self, n: usize, stamp: u32) -> bool {
        let stream = self.spec.stream;
        let per_ue = self.spec.per_ue;
        let (template, head, ues6) = (&self.template, &self.head[..], &self.ues6[..]);
        let ues = &mut self.ues;
        let (mut cursor, mut left) = (self.cursor, self.left_on_ue);
        let filled = self.pool.alloc_overwriting(&mut self.burst, n, |window| {
            let ue = &mut ues[cursor];
            let tag = Tag {
                stream,
                sequence: ue.sent as u32,
                tx_time: stamp,
            }
            .to_bytes();
            let address = match ues6.get(cursor) {
                Some(&a) => IpAddr::V6(a),
                None => IpAddr::V4(ue.patch.address()),
            };
            let written = write_whole(template, head, window, ue.patch.teid(), address, &tag);
            debug_assert!(written.is_ok(), "{written:?}");
            ue.sent += 1;
            next_packet(&mut cursor, &mut left, per_ue, ues.len());
        });
        self.cursor = cursor;
        self.left_on_ue = left;
        let ok = filled.is_ok();
        self.filled += if ok { n as u64 } else { 0 };
        ok
    }

    /// [`fill`](Self::fill) with `patcher`: inlined with a constant, the loop's offsets are
    /// immediates.
    #[inline(always)]
    fn fill_as(&mut self, n: usize, stamp: u32, patcher: WindowPatcher) -> bool {
        let stream = self.spec.stream;
        let per_ue = self.spec.per_ue;
        let ues = &mut self.ues;
        // Copies, written back after the fill: the loop keeps them in registers.
        let (mut cursor, mut left) = (self.cursor, self.left_on_ue);
        let filled = self.pool.alloc_overwriting(
            &mut self.burst,
            n,
            // With four copies of the loop LLVM no longer inlines the closure by itself, and a
            // call per packet costs more than the constant offsets save.
            #[inline(always)]
            |window| {
                let ue = &mut ues[cursor];
                let tag = Tag {
                    stream,
                    sequence: ue.sent as u32,
                    tx_time: stamp,
                };
                patch_packet(patcher, window, &ue.patch, &tag);
                ue.sent += 1;
                next_packet(&mut cursor, &mut left, per_ue, ues.len());
            },
        );
        self.cursor = cursor;
        self.left_on_ue = left;
        let ok = filled.is_ok();
        self.filled += if ok { n as u64 } else { 0 };
        ok
    }

    /// [`fill_as`](Self::fill_as) for a share of moving UEs: each packet also gets its UE's
    /// outer checksum and source as of `now` (the template's offsets read at run time).
    #[cold]
    fn fill_moving(&mut self, n: usize, stamp: u32, now: u64) -> bool {
        let stream = self.spec.stream;
        let per_ue = self.spec.per_ue;
        let patcher = self.template.window_patcher();
        let skip = self.template.patch_range(TAG_LEN).map_or(0, |r| r.start) - OUTER_CHECKSUM_AT;
        let (ues, moving) = (&mut self.ues, self.moving.as_deref().unwrap_or(&[]));
        let (mut cursor, mut left) = (self.cursor, self.left_on_ue);
        let filled = self.pool.alloc_overwriting(&mut self.burst, n, |window| {
            let ue = &mut ues[cursor];
            if let Some(m) = moving.get(cursor) {
                window[..OUTER_LEN].copy_from_slice(m.outer(now));
            }
            let tag = Tag {
                stream,
                sequence: ue.sent as u32,
                tx_time: stamp,
            };
            patch_packet(patcher, &mut window[skip..], &ue.patch, &tag);
            ue.sent += 1;
            next_packet(&mut cursor, &mut left, per_ue, ues.len());
        });
        self.cursor = cursor;
        self.left_on_ue = left;
        let ok = filled.is_ok();
        self.filled += if ok { n as u64 } else { 0 };
        ok
    }

    #[inline]
    fn transmit(&mut self, txq: &mut TxQueue<'e>) -> u64 {
        let n = txq.tx_burst(&mut self.burst) as u64;
        self.sent += n;
        n
    }

    /// Offers what is left in the burst to the NIC once; returns how many it took.
    pub fn flush(&mut self, txq: &mut TxQueue<'e>) -> u64 {
        if self.burst.is_empty() {
            return 0;
        }
        self.transmit(txq)
    }

    /// Packets filled but not yet taken by the NIC.
    pub fn unsent(&self) -> usize {
        self.burst.len()
    }

    /// How far the share's schedule slipped in this phase (ticks).
    pub fn slip(&self) -> ScheduleSlip {
        self.pacer.slip()
    }

    /// Length of the share's frames (L2, without FCS).
    pub fn frame_len(&self) -> u32 {
        self.frame_len
    }

    /// Frees the packets the NIC never took and gives their sequence numbers back: each one is
    /// the latest packet of its UE, so the UE's count goes down by one. Returns how many were
    /// rewound.
    pub fn rewind_unsent(&mut self) -> u64 {
        let at = self.template.ue_offset() + self.tags_len;
        let mut rewound = 0;
        while let Some(m) = self.burst.pop() {
            let d = m.data();
            if !self.ues6.is_empty() {
                // IPv6 UEs: found by address (at most a burst, at the end of a phase).
                let k = d
                    .get(at..at + 16)
                    .and_then(|b| <[u8; 16]>::try_from(b).ok())
                    .and_then(|b| self.ues6.iter().position(|u| u.octets() == b));
                if let Some(ue) = k.and_then(|k| self.ues.get_mut(k)) {
                    ue.sent -= 1;
                    rewound += 1;
                }
                self.filled -= 1;
                continue;
            }
            let Some(b) = d.get(at..at + 4) else { continue };
            let address = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            // The share's UEs are `stride` addresses apart from its first one.
            let first = self.ues.first().map_or(0, |u| u32::from(u.patch.address()));
            let offset = address.wrapping_sub(first);
            let stride = self.spec.stride.max(1);
            let k = (offset / stride) as usize;
            if offset % stride == 0
                && let Some(ue) = self.ues.get_mut(k)
            {
                ue.sent -= 1;
                rewound += 1;
            }
            self.filled -= 1;
        }
        rewound
    }

    /// Gives each flow's sent count to `stats`. Call after the measured phase and
    /// [`rewind_unsent`](Self::rewind_unsent).
    pub fn account(&self, stats: &mut TxStats) {
        for (k, ue) in self.ues.iter().enumerate() {
            let local = self.spec.first + k as u32 * self.spec.stride;
            stats.add_sent(self.spec.flow_base + local, ue.sent);
        }
    }
}

/// After a packet of the UE at `cursor`: `per_ue` packets a UE, then the next of `ues`, round.
#[inline(always)]
fn next_packet(cursor: &mut usize, left: &mut u32, per_ue: u32, ues: usize) {
    *left -= 1;
    if *left == 0 {
        *left = per_ue;
        *cursor += 1;
        if *cursor == ues {
            *cursor = 0;
        }
    }
}
