//! The measurement tag: the first [`TAG_LEN`] bytes of the inner UDP payload of every generated
//! packet (docs/measurement.md, "The measurement tag").
//!
//! It fits the smallest payload a profile allows (10 bytes) and carries what the receiver cannot
//! learn from the headers: the profile stream, the packet's sequence number within its flow, and
//! the transmit time. The flow itself (one per stream and UE) follows from the stream and the
//! UE address in the inner IPv4 header, which no UPF rewrites; outer headers are never used.
//!
//! ```text
//!  0       2               6               10
//!  +-------+---------------+---------------+
//!  |stream |   sequence    |    tx time    |   all big endian
//!  +-------+---------------+---------------+
//! ```
//!
//! The transmit time is the low 32 bits of the run clock in nanoseconds: the receiver takes the
//! difference modulo 2^32 and reads it as signed, so one-way latencies up to 2.1 s are exact.

use thiserror::Error;

/// Length of the tag in bytes.
pub const TAG_LEN: usize = 10;

/// Field offsets.
pub mod field {
    use core::ops::Range;
    /// Stream id (u16).
    pub(crate) const STREAM: Range<usize> = 0..2;
    /// Sequence number within the flow (u32).
    pub const SEQUENCE: Range<usize> = 2..6;
    /// Low 32 bits of the transmit time in ns (u32).
    pub(crate) const TX_TIME: Range<usize> = 6..10;
}

/// A payload too short to hold a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("measurement tag: payload of {available} bytes, {TAG_LEN} needed")]
pub struct TagTooShort {
    /// Bytes available.
    pub available: usize,
}

/// A checked view of the tag at the start of a payload.
#[derive(Debug, Clone, Copy)]
pub struct TagView<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TagView<T> {
    /// The tag at the start of `buffer`, if it is long enough.
    #[inline(always)]
    pub fn new_checked(buffer: T) -> Result<Self, TagTooShort> {
        let available = buffer.as_ref().len();
        if available < TAG_LEN {
            return Err(TagTooShort { available });
        }
        Ok(TagView { buffer })
    }

    #[inline(always)]
    fn bytes(&self) -> &[u8; TAG_LEN] {
        self.buffer
            .as_ref()
            .first_chunk::<TAG_LEN>()
            .expect("checked by new_checked")
    }

    /// The stream id.
    #[inline(always)]
    pub fn stream(&self) -> u16 {
        let b = self.bytes();
        u16::from_be_bytes([b[field::STREAM.start], b[field::STREAM.start + 1]])
    }

    /// The sequence number within the flow.
    #[inline(always)]
    pub fn sequence(&self) -> u32 {
        let b = self.bytes();
        let at = field::SEQUENCE.start;
        u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    /// The low 32 bits of the transmit time (ns).
    #[inline(always)]
    pub fn tx_time(&self) -> u32 {
        let b = self.bytes();
        let at = field::TX_TIME.start;
        u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }
}

/// The tag's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tag {
    /// The profile stream (dense id).
    pub stream: u16,
    /// The packet's sequence number within its flow (stream, UE).
    pub sequence: u32,
    /// Low 32 bits of the transmit time (ns).
    pub tx_time: u32,
}

impl Tag {
    /// Reads the tag at the start of `payload`.
    #[inline(always)]
    pub fn parse(payload: &[u8]) -> Result<Tag, TagTooShort> {
        let v = TagView::new_checked(payload)?;
        Ok(Tag {
            stream: v.stream(),
            sequence: v.sequence(),
            tx_time: v.tx_time(),
        })
    }

    /// Bytes [`emit`](Self::emit) writes.
    pub const fn buffer_len(&self) -> usize {
        TAG_LEN
    }

    /// The tag's bytes.
    #[inline(always)]
    pub fn to_bytes(&self) -> [u8; TAG_LEN] {
        let mut b = [0u8; TAG_LEN];
        b[field::STREAM].copy_from_slice(&self.stream.to_be_bytes());
        b[field::SEQUENCE].copy_from_slice(&self.sequence.to_be_bytes());
        b[field::TX_TIME].copy_from_slice(&self.tx_time.to_be_bytes());
        b
    }

    /// The sum of the tag's 16-bit words (`checksum::word_sum` of [`to_bytes`](Self::to_bytes)),
    /// from the fields: the TX loop keeps the UDP checksum's tag part without reading the bytes
    /// back, and the stream's and time's words are the same for a whole burst.
    #[inline(always)]
    pub fn word_sum(&self) -> u32 {
        let halves = |v: u32| (v >> 16) + (v & 0xffff);
        u32::from(self.stream) + halves(self.sequence) + halves(self.tx_time)
    }

    /// Writes the tag at the start of `payload`.
    #[inline(always)]
    pub fn emit(&self, payload: &mut [u8]) -> Result<(), TagTooShort> {
        let available = payload.len();
        let out = payload
            .first_chunk_mut::<TAG_LEN>()
            .ok_or(TagTooShort { available })?;
        *out = self.to_bytes();
        Ok(())
    }
}

/// One-way transit time from a tag's truncated transmit time and the receive time (ns on the
/// same clock): the 32-bit difference read as signed, so a receive clock that wrapped past
/// 2^32 ns still gives the right small positive value.
#[inline(always)]
pub fn transit_ns(tx_time: u32, rx_ns: u64) -> i64 {
    i64::from((rx_ns as u32).wrapping_sub(tx_time) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_big_endian_stream_sequence_time() {
        let t = Tag {
            stream: 0x0102,
            sequence: 0x0304_0506,
            tx_time: 0x0708_090a,
        };
        assert_eq!(t.to_bytes(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(Tag::parse(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), Ok(t));
    }

    #[test]
    fn short_payloads_are_errors() {
        assert_eq!(Tag::parse(&[0; 9]), Err(TagTooShort { available: 9 }));
        let mut b = [0u8; 4];
        assert_eq!(
            Tag::default().emit(&mut b),
            Err(TagTooShort { available: 4 })
        );
    }

    #[test]
    fn transit_survives_the_wrap_of_the_truncated_clock() {
        let tx_ns: u64 = (1 << 32) - 100;
        assert_eq!(transit_ns(tx_ns as u32, tx_ns + 250), 250);
        assert_eq!(transit_ns(1000, 900), -100);
    }

    proptest::proptest! {
        #[test]
        fn round_trip(stream: u16, sequence: u32, tx_time: u32, tail in proptest::collection::vec(0u8.., 0..20)) {
            let t = Tag { stream, sequence, tx_time };
            let mut payload = t.to_bytes().to_vec();
            payload.extend_from_slice(&tail);
            proptest::prop_assert_eq!(Tag::parse(&payload), Ok(t));
            let mut again = vec![0u8; payload.len()];
            t.emit(&mut again).unwrap();
            proptest::prop_assert_eq!(&again[..TAG_LEN], &payload[..TAG_LEN]);
        }

        #[test]
        fn word_sum_is_the_bytes_word_sum(stream: u16, sequence: u32, tx_time: u32) {
            let t = Tag { stream, sequence, tx_time };
            proptest::prop_assert_eq!(t.word_sum(), crate::checksum::word_sum(&t.to_bytes()));
        }

        #[test]
        fn transit_is_exact_below_two_seconds(tx in 0u64..(1 << 40), d in 0i64..2_000_000_000) {
            proptest::prop_assert_eq!(transit_ns(tx as u32, tx + d as u64), d);
        }
    }
}
