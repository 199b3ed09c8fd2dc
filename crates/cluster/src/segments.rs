//! Segments: what each agent does of a run (docs/scale.md §3 "Segments"). The run's UEs are cut
//! into contiguous blocks by agent weight with [`split`] (the function that cuts an agent's
//! block over its pairs too, `run::plan::segment`), each stream's rate and packets shared by
//! its UEs in each block, and each block given its UEs' uplink TEIDs. UE indices are global:
//! UE i has the same addresses, TEIDs and flows on whichever agent sends it.

use std::ops::Range;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use thiserror::Error;
use upfbench_api::v1::{Segment, UeBlock, UplinkTeids};
pub use upfbench_run::plan::segment::{SplitError, packets_of_block, split};

/// A stream of the profile as the coordinator cuts it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamSpan {
    /// Its UEs (indices of the run's sessions).
    pub ues: Range<u32>,
    /// Its rate over all its UEs, in whatever unit the profile gives (pps, bit/s): a share is a
    /// fraction of it.
    pub rate: f64,
    /// The packets it sends over a step.
    pub packets: u64,
}

/// One stream's part on one agent.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamPart {
    /// The stream's UEs in the agent's block (global indices; empty when none).
    pub ues: Range<u32>,
    /// `rate × ues / n`.
    pub rate: f64,
    /// The packets of those UEs: [`packets_of_block`], the stream's first `packets % n` UEs
    /// one more.
    pub packets: u64,
}

/// One agent's share of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentShare {
    /// Its UEs.
    pub ues: Range<u32>,
    /// Each stream's part, in the profile's order.
    pub streams: Vec<StreamPart>,
}

impl AgentShare {
    /// Its UEs as a fraction of the run's `sessions`: a search trial at total load L gives this
    /// agent L × this.
    pub fn fraction(&self, sessions: u32) -> f64 {
        f64::from(self.ues.end - self.ues.start) / f64::from(sessions.max(1))
    }
}

/// Cuts `sessions` UEs over agents of `weights` and shares every stream over the blocks.
pub fn cut(
    sessions: u32,
    weights: &[u32],
    streams: &[StreamSpan],
) -> Result<Vec<AgentShare>, SplitError> {
    let blocks = split(0..sessions, weights)?;
    Ok(blocks
        .into_iter()
        .map(|ues| AgentShare {
            streams: streams.iter().map(|s| part(s, &ues)).collect(),
            ues,
        })
        .collect())
}

/// Stream `s`'s part on the UEs `block`.
fn part(s: &StreamSpan, block: &Range<u32>) -> StreamPart {
    let n = s.ues.end.saturating_sub(s.ues.start);
    let start = block.start.clamp(s.ues.start, s.ues.end);
    let end = block.end.clamp(start, s.ues.end);
    let here = end - start;
    let local = start - s.ues.start..end - s.ues.start;
    StreamPart {
        ues: start..end,
        rate: if n == 0 {
            0.0
        } else {
            s.rate * f64::from(here) / f64::from(n)
        },
        packets: packets_of_block(s.packets, n, local),
    }
}

/// Where the run's uplink TEIDs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeidSource<'a> {
    /// The tester's: `first + i × step` for UE i of the run (CH=0).
    Sequence {
        /// UE 0's.
        first: u32,
        /// Between two UEs.
        step: u32,
    },
    /// The UPF's, one per UE of the run, from the coordinator's establishment answers (CH=1).
    Chosen(&'a [u32]),
}

/// A block's TEIDs that cannot be given.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TeidError {
    /// Fewer chosen TEIDs than UEs.
    #[error("the UPF chose {have} TEIDs, UEs {} to {} need {}", block.start, block.end.saturating_sub(1), block.end)]
    TooFew {
        /// How many there are.
        have: usize,
        /// The block that needs them.
        block: Range<u32>,
    },
    /// `chosen` is not base64 of a whole number of u32s.
    #[error("chosen uplink TEIDs: {0}")]
    Encoding(String),
}

/// The uplink TEIDs of the UEs `block`, as its segment carries them.
pub fn uplink_teids(source: TeidSource<'_>, block: &Range<u32>) -> Result<UplinkTeids, TeidError> {
    match source {
        TeidSource::Sequence { first, step } => Ok(UplinkTeids::Sequence { first, step }),
        TeidSource::Chosen(all) => {
            let ues = all
                .get(block.start as usize..block.end as usize)
                .ok_or_else(|| TeidError::TooFew {
                    have: all.len(),
                    block: block.clone(),
                })?;
            let bytes: Vec<u8> = ues.iter().flat_map(|t| t.to_be_bytes()).collect();
            Ok(UplinkTeids::Chosen(STANDARD.encode(bytes)))
        }
    }
}

/// The TEIDs of `count` UEs from `first` that `teids` gives (an agent's reading of its
/// segment).
pub fn teids_of(teids: &UplinkTeids, first: u32, count: u32) -> Result<Vec<u32>, TeidError> {
    match teids {
        UplinkTeids::Sequence { first: t0, step } => Ok((first..first + count)
            .map(|i| t0.wrapping_add(i.wrapping_mul(*step)))
            .collect()),
        UplinkTeids::Chosen(text) => {
            let bytes = STANDARD
                .decode(text)
                .map_err(|e| TeidError::Encoding(e.to_string()))?;
            if bytes.len() != count as usize * 4 {
                return Err(TeidError::Encoding(format!(
                    "{} bytes for {count} UEs (4 each)",
                    bytes.len()
                )));
            }
            Ok(bytes
                .chunks_exact(4)
                .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                .collect())
        }
    }
}

/// What every segment of a run shares.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSegments<'a> {
    /// The run's name.
    pub run: &'a str,
    /// The profile, as JSON of the profile file's schema.
    pub profile: &'a serde_json::Value,
    /// The uplink TEIDs.
    pub teids: TeidSource<'a>,
    /// The UPF's N3 address, when the coordinator knows it.
    pub upf_n3: Option<&'a str>,
}

impl RunSegments<'_> {
    /// The segment of agent `index` (named `agent`) of `agents`, holding `share`.
    pub fn segment(
        &self,
        index: usize,
        agents: usize,
        agent: &str,
        share: &AgentShare,
    ) -> Result<Segment, TeidError> {
        Ok(Segment {
            run: self.run.to_owned(),
            agent: agent.to_owned(),
            index: index as u32,
            agents: agents as u32,
            profile: self.profile.clone(),
            ues: UeBlock {
                first: share.ues.start,
                count: share.ues.end - share.ues.start,
            },
            uplink_teids: uplink_teids(self.teids, &share.ues)?,
            upf_n3: self.upf_n3.map(str::to_owned),
        })
    }
}

#[cfg(test)]
mod tests;
