//! The bytes each QoS flow passed in fixed windows of time, and what they say of the policer
//! that shaped them (issue 29's QER conformance).
//!
//! A QER's maximum bit rate (TS 29.244 §8.2.8, TS 23.501 §5.7.2.5) is enforced by the UPF over
//! time; whether it is, and with what burst, shows only in how the passed bytes are spread:
//! over the whole trial (the rate the flow got), per second (whether it held), and per 10 ms
//! window (how far above the rate a policer lets a burst go). Each RX core counts the bytes of
//! each *group* (one policed flow: a QFI of a session, as the caller numbers them) in the window
//! its receive timestamp falls in ([`RateWindows::record`]); the control thread adds the cores'
//! tables up ([`RateWindows::merge`]) and reads a group's figures against its limit
//! ([`Conformance::of`]).
//!
//! The RX path's cost: the window an arrival falls in is the current one unless the clock has
//! passed its end, so a packet costs one comparison and one addition; moving to the next
//! window (100 times a second) is the slow path.

#[cfg(test)]
mod tests;

use std::ops::Range;

/// The window the issue asks for: 10 ms.
pub const DEFAULT_WINDOW_NS: u64 = 10_000_000;

/// The most cells (groups × windows) one table holds: 128 MiB of counters.
pub const MAX_CELLS: usize = 1 << 24;

/// Why a window table cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowsConfigError {
    /// A window of no time.
    #[error("a rate window must be longer than 0 ns")]
    ZeroWindow,
    /// No windows, or no groups.
    #[error("a rate window table needs at least one group and one window")]
    Empty,
    /// More cells than [`MAX_CELLS`].
    #[error(
        "{groups} flows x {windows} windows of rates is more than {MAX_CELLS} counters: \
         fewer sessions with QoS flows, or a shorter trial"
    )]
    TooLarge {
        /// Groups asked for.
        groups: u32,
        /// Windows asked for.
        windows: u32,
    },
}

/// Why two window tables cannot be added up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowsMergeError {
    /// The tables differ in groups, windows, window length or start.
    #[error("rate window tables of different shapes or starts cannot be merged")]
    Shape,
}

/// Marks "no current window": the clock is before the start or after the last window.
const OUTSIDE: usize = usize::MAX;

/// Bytes per group per window, from a start time on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateWindows {
    groups: u32,
    windows: u32,
    window_ns: u64,
    start_ns: u64,
    /// `bytes[group * windows + window]`.
    bytes: Vec<u64>,
    /// The window the last arrival fell in, and its bounds; [`OUTSIDE`] when none.
    current: usize,
    current_start_ns: u64,
    current_end_ns: u64,
    /// Packets that arrived before the start, or after the last window.
    early: u64,
    late: u64,
    /// Packets of a group the table does not have.
    unknown_group: u64,
}

impl RateWindows {
    /// A table of `groups` groups and `windows` windows of `window_ns` each, starting at 0 until
    /// [`start`](Self::start) says when. Allocates everything the RX path will touch.
    pub fn new(groups: u32, window_ns: u64, windows: u32) -> Result<Self, WindowsConfigError> {
        if window_ns == 0 {
            return Err(WindowsConfigError::ZeroWindow);
        }
        if groups == 0 || windows == 0 {
            return Err(WindowsConfigError::Empty);
        }
        let cells = groups as usize * windows as usize;
        if cells > MAX_CELLS {
            return Err(WindowsConfigError::TooLarge { groups, windows });
        }
        let mut table = RateWindows {
            groups,
            windows,
            window_ns,
            start_ns: 0,
            bytes: vec![0; cells],
            current: OUTSIDE,
            current_start_ns: 0,
            current_end_ns: 0,
            early: 0,
            late: 0,
            unknown_group: 0,
        };
        table.start(0);
        Ok(table)
    }

    /// The windows needed to cover `span_ns` from the start, the last one perhaps partly.
    pub fn windows_for(span_ns: u64, window_ns: u64) -> u32 {
        let n = span_ns.div_ceil(window_ns.max(1));
        u32::try_from(n).unwrap_or(u32::MAX).max(1)
    }

    /// Empties the table and starts its first window at `start_ns` (the clock of `record`).
    pub fn start(&mut self, start_ns: u64) {
        self.bytes.fill(0);
        self.start_ns = start_ns;
        self.early = 0;
        self.late = 0;
        self.unknown_group = 0;
        self.current = OUTSIDE;
        // An empty range: the first arrival seeks its window.
        self.current_start_ns = u64::MAX;
        self.current_end_ns = 0;
    }

    /// Counts `bytes` of `group` received at `rx_ns`.
    #[inline(always)]
    pub fn record(&mut self, group: u32, rx_ns: u64, bytes: u32) {
        if rx_ns < self.current_start_ns || rx_ns >= self.current_end_ns {
            self.seek(rx_ns);
        }
        if self.current == OUTSIDE {
            if rx_ns < self.start_ns {
                self.early += 1;
            } else {
                self.late += 1;
            }
            return;
        }
        if group >= self.groups {
            self.unknown_group += 1;
            return;
        }
        let cell = group as usize * self.windows as usize + self.current;
        // In range: group < groups and current < windows.
        if let Some(c) = self.bytes.get_mut(cell) {
            *c += u64::from(bytes);
        }
    }

    /// Makes the window `rx_ns` falls in the current one (the slow path: once a window).
    #[cold]
    fn seek(&mut self, rx_ns: u64) {
        let Some(since) = rx_ns.checked_sub(self.start_ns) else {
            self.current = OUTSIDE;
            self.current_start_ns = 0;
            self.current_end_ns = self.start_ns;
            return;
        };
        let index = since / self.window_ns;
        if index >= u64::from(self.windows) {
            self.current = OUTSIDE;
            self.current_start_ns = self.start_ns + u64::from(self.windows) * self.window_ns;
            self.current_end_ns = u64::MAX;
            return;
        }
        self.current = index as usize;
        self.current_start_ns = self.start_ns + index * self.window_ns;
        self.current_end_ns = self.current_start_ns + self.window_ns;
    }

    /// Adds `other`'s counts (another core's, of the same shape and start).
    pub fn merge(&mut self, other: &RateWindows) -> Result<(), WindowsMergeError> {
        if (self.groups, self.windows, self.window_ns, self.start_ns)
            != (other.groups, other.windows, other.window_ns, other.start_ns)
        {
            return Err(WindowsMergeError::Shape);
        }
        for (a, b) in self.bytes.iter_mut().zip(&other.bytes) {
            *a += b;
        }
        self.early += other.early;
        self.late += other.late;
        self.unknown_group += other.unknown_group;
        Ok(())
    }

    /// Group `group`'s bytes per window (empty for a group the table does not have).
    pub fn group(&self, group: u32) -> &[u64] {
        if group >= self.groups {
            return &[];
        }
        let w = self.windows as usize;
        let from = group as usize * w;
        self.bytes.get(from..from + w).unwrap_or(&[])
    }

    /// The window length (ns).
    pub fn window_ns(&self) -> u64 {
        self.window_ns
    }

    /// Packets that arrived before the start, after the last window, and of unknown groups.
    pub fn outside(&self) -> (u64, u64, u64) {
        (self.early, self.late, self.unknown_group)
    }
}

/// What a flow's passed bytes say against a bit rate limit (its MBR, or its GBR), over the
/// windows `span` of its table.
#[derive(Debug, Clone, PartialEq)]
pub struct Conformance {
    /// The limit (bit/s).
    pub limit_bps: f64,
    /// The rate passed over the span (bit/s).
    pub passed_bps: f64,
    /// `passed_bps / limit_bps`.
    pub ratio: f64,
    /// The rate passed in each whole second of the span (bit/s); a last part shorter than a
    /// second is left out.
    pub per_second_bps: Vec<f64>,
    /// The highest rate of one window (bit/s).
    pub peak_window_bps: f64,
    /// The most the bytes passed in any run of whole windows exceeded what the limit allows
    /// over that run (bytes, 0 when never): a token bucket of depth B at the limit never lets
    /// more than B through beyond the rate, so this is at most its burst, and near it when the
    /// flow was offered more than the limit.
    pub burst_bytes: f64,
}

impl Conformance {
    /// The figures of `bytes` (a group's windows of `window_ns`) over the windows `span`
    /// against `limit_bps`. `None` when the span is empty or out of the table, or the limit
    /// is not above 0.
    pub fn of(bytes: &[u64], window_ns: u64, span: Range<usize>, limit_bps: f64) -> Option<Self> {
        let windows = bytes.get(span)?;
        if windows.is_empty() || limit_bps.is_nan() || limit_bps <= 0.0 || window_ns == 0 {
            return None;
        }
        let window_s = window_ns as f64 / 1e9;
        let total: u64 = windows.iter().sum();
        let passed_bps = total as f64 * 8.0 / (windows.len() as f64 * window_s);
        let per_second = (1e9 / window_ns as f64).round() as usize;
        let per_second_bps = if per_second >= 1 && (per_second as u64) * window_ns == 1_000_000_000
        {
            windows
                .chunks_exact(per_second)
                .map(|c| c.iter().sum::<u64>() as f64 * 8.0)
                .collect()
        } else {
            Vec::new()
        };
        let peak = windows.iter().copied().max().unwrap_or(0);
        // max over i <= j of (bytes in windows i..=j - allowed over them): with the running
        // excess e_k = sum_{m<=k} (b_m - allowed per window), the most e_j - e_{i-1}.
        let allowed = limit_bps / 8.0 * window_s;
        let (mut excess, mut lowest, mut burst) = (0.0f64, 0.0f64, 0.0f64);
        for &b in windows {
            excess += b as f64 - allowed;
            burst = burst.max(excess - lowest);
            lowest = lowest.min(excess);
        }
        Some(Conformance {
            limit_bps,
            passed_bps,
            ratio: passed_bps / limit_bps,
            per_second_bps,
            peak_window_bps: peak as f64 * 8.0 / window_s,
            burst_bytes: burst,
        })
    }
}
