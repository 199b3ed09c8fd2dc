//! The Internet checksum (RFC 1071) and its incremental update (RFC 1624).
//!
//! A *sum* here is the 16-bit one's complement sum of big-endian 16-bit words (folded, not yet
//! complemented); a *checksum* is its complement, as carried in IPv4, UDP and ICMPv6 headers.
//!
//! The incremental functions implement RFC 1624 eqn. 3, `HC' = ~(~HC + ~m + m')`, which, unlike
//! eqn. 2, never yields 0xFFFF for a header whose full recomputation gives 0x0000.
//!
//! Over IPv6 the UDP checksum is mandatory (RFC 8200 §8.1): [`udp_ipv6`] never gives 0, and the
//! `update_udp*` functions, whose "0 stays 0" rule is IPv4's "no checksum sent", update an
//! IPv6 one as well, since a valid IPv6 UDP checksum is never 0.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::ip_protocol::{PROTOCOL_ICMPV6, PROTOCOL_UDP};

/// Folds a wide accumulator of 16-bit words into a 16-bit one's complement sum.
#[inline]
fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// Adds `data` to the 16-bit one's complement sum `initial`; an odd last byte is padded with a
/// zero byte (RFC 1071 §4.1).
#[inline]
pub fn sum_with(initial: u16, data: &[u8]) -> u16 {
    // 2^16 ≡ 1 (mod 0xFFFF), so summing big-endian 32-bit words gives the same folded result as
    // summing 16-bit words, with half the additions. 65 535 bytes of 0xFFFFFFFF words cannot
    // overflow a u64.
    let mut acc = u64::from(initial);
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        acc += u64::from(u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
    }
    let rest = chunks.remainder();
    let mut tail = [0u8; 4];
    tail[..rest.len()].copy_from_slice(rest);
    acc += u64::from(u32::from_be_bytes(tail));
    fold(acc)
}

/// The 16-bit one's complement sum of `data`.
#[inline]
pub fn sum(data: &[u8]) -> u16 {
    sum_with(0, data)
}

/// One's complement addition of two 16-bit sums.
#[inline]
pub fn add(a: u16, b: u16) -> u16 {
    fold(u64::from(a) + u64::from(b))
}

/// The IPv4 header checksum (RFC 791 §3.1) over `header`, taking its checksum field (octets
/// 10–11) as zero, whatever it holds. `header` is the whole header including options.
#[inline]
pub fn ipv4_header(header: &[u8]) -> u16 {
    let split = header.len().min(10);
    let after = header.len().min(12);
    !sum_with(sum(&header[..split]), &header[after..])
}

/// The one's complement sum of the IPv4 pseudo header of a UDP or TCP segment (RFC 768).
#[inline]
pub(crate) fn ipv4_pseudo_header(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, length: u16) -> u16 {
    let s = src.octets();
    let d = dst.octets();
    let acc = u64::from(u32::from_be_bytes(s))
        + u64::from(u32::from_be_bytes(d))
        + u64::from(protocol)
        + u64::from(length);
    fold(acc)
}

/// The UDP checksum over IPv4 (RFC 768) of `segment`, the UDP header and payload, taking its
/// checksum field (octets 6–7) as zero. A computed 0x0000 is returned as 0xFFFF, since 0 in
/// the field means "no checksum".
#[inline]
pub fn udp_ipv4(src: Ipv4Addr, dst: Ipv4Addr, segment: &[u8]) -> u16 {
    // A segment longer than the length field can carry gets the sum of its first 65 535 bytes'
    // length; emitters never build one.
    let len = u16::try_from(segment.len()).unwrap_or(u16::MAX);
    let pseudo = ipv4_pseudo_header(src, dst, PROTOCOL_UDP, len);
    let split = segment.len().min(6);
    let after = segment.len().min(8);
    let s = sum_with(sum_with(pseudo, &segment[..split]), &segment[after..]);
    match !s {
        0 => 0xffff,
        c => c,
    }
}

/// The one's complement sum of the IPv6 pseudo header of an upper-layer packet (RFC 8200
/// §8.1): source and destination addresses, the upper-layer packet length as 32 bits, and the
/// next header (the upper-layer protocol).
#[inline]
pub fn ipv6_pseudo_header(src: &Ipv6Addr, dst: &Ipv6Addr, next_header: u8, length: u32) -> u16 {
    let words = |a: u128| {
        u64::from((a >> 96) as u32)
            + u64::from((a >> 64) as u32)
            + u64::from((a >> 32) as u32)
            + u64::from(a as u32)
    };
    let acc = words(u128::from(*src))
        + words(u128::from(*dst))
        + u64::from(length)
        + u64::from(next_header);
    fold(acc)
}

/// The UDP checksum over IPv6 (RFC 8200 §8.1) of `segment`, the UDP header and payload, taking
/// its checksum field (octets 6–7) as zero. A computed 0x0000 is returned as 0xFFFF: over IPv6
/// a zero checksum is not allowed.
#[inline]
pub fn udp_ipv6(src: &Ipv6Addr, dst: &Ipv6Addr, segment: &[u8]) -> u16 {
    let len = u32::try_from(segment.len()).unwrap_or(u32::MAX);
    let pseudo = ipv6_pseudo_header(src, dst, PROTOCOL_UDP, len);
    let split = segment.len().min(6);
    let after = segment.len().min(8);
    let s = sum_with(sum_with(pseudo, &segment[..split]), &segment[after..]);
    match !s {
        0 => 0xffff,
        c => c,
    }
}

/// The ICMPv6 checksum (RFC 4443 §2.3) of `message`, taking its checksum field (octets 2–3) as
/// zero: over the IPv6 pseudo header with next header 58 and the message.
#[inline]
pub fn icmpv6(src: &Ipv6Addr, dst: &Ipv6Addr, message: &[u8]) -> u16 {
    let len = u32::try_from(message.len()).unwrap_or(u32::MAX);
    let pseudo = ipv6_pseudo_header(src, dst, PROTOCOL_ICMPV6, len);
    let split = message.len().min(2);
    let after = message.len().min(4);
    !sum_with(sum_with(pseudo, &message[..split]), &message[after..])
}

/// RFC 1624 eqn. 3 for a field of `N` bytes at byte offset `offset` of the checksummed data
/// changing from `old` to `new`: returns the new checksum. Only the parity of `offset` matters
/// (a field at an odd offset straddles 16-bit words).
#[inline]
pub fn update<const N: usize>(checksum: u16, offset: usize, old: &[u8; N], new: &[u8; N]) -> u16 {
    update_slices(checksum, offset, old, new)
}

/// [`update`] for slices: `old` and `new` are the bytes of the same field before and after, so
/// of one length; bytes past the shorter one are not counted.
#[inline]
pub fn update_slices(checksum: u16, offset: usize, old: &[u8], new: &[u8]) -> u16 {
    // Each byte is its own 16-bit word with the other half zero: one's complement addition is
    // linear, so the split changes nothing and works at either alignment.
    let odd = offset % 2 == 1;
    let mut acc = u64::from(!checksum);
    for (i, (&o, &n)) in old.iter().zip(new).enumerate() {
        let high = (i % 2 == 1) == odd;
        let (m, m2) = if high {
            (u16::from(o) << 8, u16::from(n) << 8)
        } else {
            (u16::from(o), u16::from(n))
        };
        acc += u64::from(!m) + u64::from(m2);
    }
    !fold(acc)
}

/// RFC 1624 eqn. 3 for one 16-bit word at an even offset changing from `old` to `new`.
#[inline]
pub fn update_u16(checksum: u16, old: u16, new: u16) -> u16 {
    !fold(u64::from(!checksum) + u64::from(!old) + u64::from(new))
}

/// RFC 1624 eqn. 3 for a 32-bit field at an even offset (an IPv4 address, a TEID, a sequence
/// number) changing from `old` to `new`.
#[inline]
pub fn update_u32(checksum: u16, old: u32, new: u32) -> u16 {
    let acc = u64::from(!checksum)
        + u64::from(!(old >> 16) & 0xffff)
        + u64::from(!old & 0xffff)
        + u64::from(new >> 16)
        + u64::from(new & 0xffff);
    !fold(acc)
}

/// RFC 1624 eqn. 3 for a 128-bit field at an even offset (an IPv6 address, in the header or the
/// pseudo header) changing from `old` to `new`.
#[inline]
pub fn update_u128(checksum: u16, old: u128, new: u128) -> u16 {
    let mut acc = u64::from(!checksum);
    for shift in [112u32, 96, 80, 64, 48, 32, 16, 0] {
        acc += u64::from(!((old >> shift) as u16)) + u64::from((new >> shift) as u16);
    }
    !fold(acc)
}

/// [`update_u128`] for a UDP checksum (an IPv6 address under an IPv6 UDP checksum), with the
/// zero rules of [`update_udp`].
#[inline]
pub fn update_udp_u128(checksum: u16, old: u128, new: u128) -> u16 {
    udp_result(checksum, || update_u128(checksum, old, new))
}

/// [`update`] for a UDP checksum over IPv4: a checksum of 0 ("none sent", RFC 768) stays 0, and
/// a result of 0x0000 is sent as 0xFFFF.
#[inline]
pub fn update_udp<const N: usize>(
    checksum: u16,
    offset: usize,
    old: &[u8; N],
    new: &[u8; N],
) -> u16 {
    udp_result(checksum, || update(checksum, offset, old, new))
}

/// [`update_slices`] for a UDP checksum over IPv4, with the zero rules of [`update_udp`].
#[inline]
pub fn update_udp_slices(checksum: u16, offset: usize, old: &[u8], new: &[u8]) -> u16 {
    udp_result(checksum, || update_slices(checksum, offset, old, new))
}

/// The one's-complement sum under a (non-zero) UDP checksum `checksum`, with the 32-bit word
/// `old` replaced by `new` and the `N` bytes `without` (at an even offset) taken out: what
/// [`udp_finish`] completes with the bytes that replace them (RFC 1624 split in two, so that the
/// first part is computed once per UE and the second per packet).
#[inline]
pub fn udp_sum_without<const N: usize>(
    checksum: u16,
    old: u32,
    new: u32,
    without: &[u8; N],
) -> u16 {
    let mut acc = u64::from(!checksum)
        + u64::from(!(old >> 16) & 0xffff)
        + u64::from(!old & 0xffff)
        + u64::from(new >> 16)
        + u64::from(new & 0xffff);
    let mut i = 0;
    while i + 1 < N {
        acc += u64::from(!u16::from_be_bytes([without[i], without[i + 1]]));
        i += 2;
    }
    if N % 2 == 1 {
        acc += u64::from(!(u16::from(without[N - 1]) << 8));
    }
    fold(acc)
}

/// The UDP checksum from a sum of [`udp_sum_without`] and the `N` bytes (at an even offset)
/// that go where the taken-out ones were, with the zero rule of [`update_udp`].
#[inline(always)]
pub fn udp_finish<const N: usize>(sum: u16, bytes: &[u8; N]) -> u16 {
    udp_finish_sum(sum, word_sum(bytes))
}

/// The sum of the 16-bit big-endian words of `bytes` (an odd last byte is the high half of a
/// word), not folded: what [`udp_finish_sum`] takes. A transmitter that builds those bytes from
/// integers may sum the integers' halves instead (the same value) and keep the parts that do
/// not change from packet to packet.
#[inline(always)]
pub fn word_sum<const N: usize>(bytes: &[u8; N]) -> u32 {
    // At most 2^15 words of 16 bits: the sum stays below 2^31.
    const { assert!(N <= 1 << 16, "word_sum sums at most 2^15 words") };
    let mut acc = 0u32;
    let mut i = 0;
    while i + 1 < N {
        acc += u32::from(u16::from_be_bytes([bytes[i], bytes[i + 1]]));
        i += 2;
    }
    if N % 2 == 1 {
        acc += u32::from(bytes[N - 1]) << 8;
    }
    acc
}

/// [`udp_finish`] with the replacement bytes given as their [`word_sum`] (any `u32`).
#[inline(always)]
pub fn udp_finish_sum(sum: u16, words: u32) -> u16 {
    // At most 0x1_0000_FFFE: two end-around-carry steps take it to 16 bits (at most 0x1FFFE,
    // then 0xFFFF), with no loop on the per-packet path.
    let acc = u64::from(sum) + u64::from(words);
    let acc = (acc & 0xffff) + (acc >> 16);
    let acc = (acc & 0xffff) + (acc >> 16);
    match !(acc as u16) {
        0 => 0xffff,
        c => c,
    }
}

/// [`update_u32`] for a UDP checksum over IPv4, with the zero rules of [`update_udp`].
#[inline]
pub fn update_udp_u32(checksum: u16, old: u32, new: u32) -> u16 {
    udp_result(checksum, || update_u32(checksum, old, new))
}

#[inline]
fn udp_result(checksum: u16, f: impl FnOnce() -> u16) -> u16 {
    if checksum == 0 {
        return 0;
    }
    match f() {
        0 => 0xffff,
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2.
        assert_eq!(
            sum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0xddf2
        );
    }

    #[test]
    fn odd_length_pads_with_zero() {
        assert_eq!(sum(&[0x12, 0x34, 0x56]), 0x1234 + 0x5600);
    }

    #[test]
    fn rfc1624_example() {
        // RFC 1624 §4: HC = 0xDD2F, m = 0x5555 -> m' = 0x3285 gives HC' = 0x0000.
        assert_eq!(update_u16(0xdd2f, 0x5555, 0x3285), 0x0000);
        assert_eq!(update(0xdd2f, 0, &[0x55, 0x55], &[0x32, 0x85]), 0x0000);
    }

    #[test]
    fn update_at_odd_offset_matches_recomputation() {
        let mut data = [0x45u8, 0x00, 0x00, 0x54, 0x12, 0x34, 0xab, 0xcd, 0x01, 0x02];
        let before = !sum(&data);
        data[3..5].copy_from_slice(&[0x99, 0x77]);
        assert_eq!(update(before, 3, &[0x54, 0x12], &[0x99, 0x77]), !sum(&data));
    }

    #[test]
    fn udp_zero_checksum_stays_zero() {
        assert_eq!(update_udp_u32(0, 1, 2), 0);
        assert_eq!(update_udp(0, 0, &[1, 2], &[3, 4]), 0);
    }

    proptest::proptest! {
        /// The split update of an address and an even-offset field gives what updating them one
        /// after the other gives, and what summing the changed datagram again gives.
        #[test]
        fn one_pass_update_matches_two_updates_and_recomputation(
            mut data in proptest::collection::vec(proptest::num::u8::ANY, 24..64),
            new_addr: u32,
            new_tag: [u8; 11],
            odd in proptest::bool::ANY,
        ) {
            // An address at 4..8 and a tag at 10.. (even offsets), summed like a UDP checksum.
            let full = |d: &[u8]| match !sum(d) { 0 => 0xffff, c => c };
            let before = full(&data);
            let old_addr = u32::from_be_bytes([data[4], data[5], data[6], data[7]]);
            let old_tag: [u8; 11] = data[10..21].try_into().unwrap();
            let (one_pass, two) = if odd {
                let (o, n): (&[u8; 11], &[u8; 11]) = (&old_tag, &new_tag);
                (
                    udp_finish(udp_sum_without(before, old_addr, new_addr, o), n),
                    update_udp_slices(update_udp_u32(before, old_addr, new_addr), 10, o, n),
                )
            } else {
                let (o, n): (&[u8; 10], &[u8; 10]) =
                    (old_tag[..10].try_into().unwrap(), new_tag[..10].try_into().unwrap());
                (
                    udp_finish(udp_sum_without(before, old_addr, new_addr, o), n),
                    update_udp_slices(update_udp_u32(before, old_addr, new_addr), 10, o, n),
                )
            };
            proptest::prop_assert_eq!(one_pass, two);
            data[4..8].copy_from_slice(&new_addr.to_be_bytes());
            let n = if odd { 11 } else { 10 };
            data[10..10 + n].copy_from_slice(&new_tag[..n]);
            // Recomputation and incremental update agree up to the two forms of zero.
            let again = full(&data);
            proptest::prop_assert!(one_pass == again || (one_pass, again) == (0xffff, 0xffff));
        }

        /// The loop-free fold of any sum and word sum is the looping one, and a word sum is the
        /// sum of the bytes' words.
        #[test]
        fn udp_finish_sum_folds_any_word_sum(sum: u16, words: u32, bytes: [u8; 11]) {
            let reference = match !fold(u64::from(sum) + u64::from(words)) { 0 => 0xffff, c => c };
            proptest::prop_assert_eq!(udp_finish_sum(sum, words), reference);
            let words_of = |b: &[u8]| b.chunks(2).map(|w| u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0))).sum::<u32>();
            proptest::prop_assert_eq!(word_sum(&bytes), words_of(&bytes));
            let even: &[u8; 10] = bytes[..10].try_into().unwrap();
            proptest::prop_assert_eq!(word_sum(even), words_of(even));
        }
    }
}
