//! Values written as text in the files: rates, bit rates, durations, IPv4 prefixes, MAC and
//! N4 addresses. Each parses from a string with a message that says what is accepted; ranges
//! (a rate above zero, a percentage up to 100) are checked later with the rest of the file, so
//! that every such problem is reported at once.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use serde::de::{self, Deserialize, Deserializer};
use upfbench_net::MacAddr;

/// The PFCP port (TS 29.244 §4.2.2), used when an N4 address gives none.
pub const PFCP_PORT: u16 = 8805;

/// A packet rate: what a stream sends per second, per direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rate {
    /// Packets per second: `100000pps`, `500kpps`, `1.5Mpps`.
    Pps(f64),
    /// Bits per second counted at layer 1: the frame with its FCS plus 20 bytes of preamble and
    /// inter-frame gap: `10Gbps L1`.
    BitsL1(f64),
    /// Bits per second counted at layer 2: the Ethernet frame with its FCS: `2Gbps L2`.
    BitsL2(f64),
    /// Percent of the sending port's line rate, counted at layer 1: `50%`.
    LinePercent(f64),
    /// Percent of the maximum bit rate of the stream's QoS flow in its direction, counted on the
    /// inner IP packets as a QER counts them: `150%mbr` offers a flow 1.5 times its MBR.
    MbrPercent(f64),
}

impl Rate {
    /// Packets per second for frames of `frame_len` bytes (layer 2, FCS included) on a port whose
    /// line rate is `line_rate_bps`; `None` for a percentage with no known line rate.
    pub fn pps(&self, frame_len: usize, line_rate_bps: Option<f64>) -> Option<f64> {
        let l2_bits = frame_len as f64 * 8.0;
        let l1_bits = (frame_len + super::frame::L1_OVERHEAD) as f64 * 8.0;
        match *self {
            Rate::Pps(pps) => Some(pps),
            Rate::BitsL1(bps) => Some(bps / l1_bits),
            Rate::BitsL2(bps) => Some(bps / l2_bits),
            Rate::LinePercent(p) => line_rate_bps.map(|line| line * p / 100.0 / l1_bits),
            Rate::MbrPercent(_) => None,
        }
    }

    /// Packets per second of a `%mbr` rate for a flow whose MBR is `mbr_bps` in the stream's
    /// direction, with inner IP packets of `ip_len` bytes; `None` for other rates.
    pub fn mbr_pps(&self, mbr_bps: u64, ip_len: usize) -> Option<f64> {
        match *self {
            Rate::MbrPercent(p) => Some(mbr_bps as f64 * p / 100.0 / (ip_len as f64 * 8.0)),
            _ => None,
        }
    }

    /// The number as written (pps, bit/s or percent).
    pub fn value(&self) -> f64 {
        match *self {
            Rate::Pps(v)
            | Rate::BitsL1(v)
            | Rate::BitsL2(v)
            | Rate::LinePercent(v)
            | Rate::MbrPercent(v) => v,
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rate::Pps(v) => write!(f, "{}pps", si(v)),
            Rate::BitsL1(v) => write!(f, "{}bps L1", si(v)),
            Rate::BitsL2(v) => write!(f, "{}bps L2", si(v)),
            Rate::LinePercent(v) => write!(f, "{v}%"),
            Rate::MbrPercent(v) => write!(f, "{v}%mbr"),
        }
    }
}

/// `1.5M`, `500k`, `64`, `-5k`.
fn si(v: f64) -> String {
    if v < 0.0 {
        return format!("-{}", si(-v));
    }
    for (scale, prefix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if v >= scale {
            return format!("{}{prefix}", v / scale);
        }
    }
    format!("{v}")
}

/// Splits `"1.5 Mpps"` into `(1.5, "Mpps")`; the number may be signed and have a fraction.
fn number_and_unit(text: &str) -> Result<(f64, &str), String> {
    let t = text.trim();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || c == '_' || (i == 0 && c == '-')))
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = t.split_at(end);
    let num: f64 = num
        .replace('_', "")
        .parse()
        .map_err(|_| format!("{text:?} does not start with a number"))?;
    Ok((num, unit.trim_start()))
}

/// Multiplier of a decimal SI prefix.
fn prefix(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return None,
    })
}

/// `Gbps`, `Gbit/s`, `bps` → the multiplier.
fn bits_unit(unit: &str) -> Option<f64> {
    let p = unit
        .strip_suffix("bps")
        .or_else(|| unit.strip_suffix("bit/s"))?;
    prefix(p)
}

const RATE_FORMS: &str = "write packets per second (100000pps, 500kpps, 1.5Mpps), bits per second at layer 1 or 2 \
     (10Gbps L1, 2Gbps L2), a percentage of the line rate (50%) or of the QoS flow's MBR (150%mbr)";

impl FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Rate, String> {
        let (num, unit) = number_and_unit(text).map_err(|e| format!("{e}: {RATE_FORMS}"))?;
        if unit == "%" {
            return Ok(Rate::LinePercent(num));
        }
        if let Some(rest) = unit.strip_prefix('%')
            && rest.trim_start() == "mbr"
        {
            return Ok(Rate::MbrPercent(num));
        }
        if unit.is_empty() {
            return Err(format!("{text:?} has no unit: {RATE_FORMS}"));
        }
        let (unit, layer) = match unit.rsplit_once(char::is_whitespace) {
            Some((u, l)) => (u.trim_end(), Some(l)),
            None => (unit, None),
        };
        if let Some(p) = unit.strip_suffix("pps").and_then(prefix) {
            return match layer {
                None => Ok(Rate::Pps(num * p)),
                Some(_) => Err(format!(
                    "{text:?}: L1 and L2 qualify bit rates; a packet rate has none"
                )),
            };
        }
        let Some(mult) = bits_unit(unit) else {
            return Err(format!("{text:?}: unknown unit {unit:?}: {RATE_FORMS}"));
        };
        match layer {
            Some("L1") => Ok(Rate::BitsL1(num * mult)),
            Some("L2") => Ok(Rate::BitsL2(num * mult)),
            None => Err(format!(
                "{text:?} needs L1 or L2: L1 counts each frame plus 20 bytes of preamble and \
                 gap ({} L1), L2 the frame with its FCS ({} L2)",
                text.trim(),
                text.trim()
            )),
            Some(other) => Err(format!("{text:?}: {other:?} is not L1 or L2")),
        }
    }
}

/// Deserializes a type from its text through `FromStr`.
fn from_text<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err = String>,
{
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(de::Error::custom)
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_text(deserializer)
    }
}

/// A bit rate with no layer (a QER's MBR or GBR, counted on IP packets): `1Gbps`, `100Mbps`.
pub(crate) fn parse_bit_rate(text: &str) -> Result<u64, String> {
    let (num, unit) = number_and_unit(text)?;
    let Some(mult) = bits_unit(unit) else {
        return Err(format!(
            "{text:?}: write a bit rate such as 100Mbps or 1.5Gbps (no L1/L2: QoS bit rates \
             count IP packets)"
        ));
    };
    if num < 0.0 {
        return Err(format!("{text:?}: a bit rate cannot be negative"));
    }
    Ok((num * mult).round() as u64)
}

/// A duration: `10s`, `500ms`, `100us` (or `µs`), `250ns`, `2min`, `1h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    const FORMS: &str = "write a number and a unit: 10s, 500ms, 100us, 2min";
    let (num, unit) = number_and_unit(text).map_err(|e| format!("{e}: {FORMS}"))?;
    let secs = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        "" => return Err(format!("{text:?} has no unit: {FORMS}")),
        _ => return Err(format!("{text:?}: unknown unit {unit:?}: {FORMS}")),
    };
    if num < 0.0 {
        return Err(format!("{text:?}: a duration cannot be negative"));
    }
    Duration::try_from_secs_f64(num * secs).map_err(|_| format!("{text:?} is too long"))
}

/// A percentage: `10%`, `2.5%`, as the number of percent.
pub(crate) fn parse_percent(text: &str) -> Result<f64, String> {
    const FORM: &str = "write a percentage: 10%, 2.5%, 0%";
    let (num, unit) = number_and_unit(text).map_err(|e| format!("{e}: {FORM}"))?;
    match unit {
        "%" if num >= 0.0 => Ok(num),
        "%" => Err(format!("{text:?}: a percentage cannot be negative")),
        _ => Err(format!("{text:?}: {FORM}")),
    }
}

/// A packet rate alone (`1Mpps`), as packets per second.
pub(crate) fn parse_pps(text: &str) -> Result<f64, String> {
    match text.parse::<Rate>() {
        Ok(Rate::Pps(pps)) => Ok(pps),
        Ok(_) => Err(format!(
            "{text:?}: write a packet rate (100kpps, 1Mpps), not a bit rate or a percentage"
        )),
        Err(e) => Err(e),
    }
}

/// A MAC address: `02:00:00:00:00:01` (or with `-`).
pub(crate) fn parse_mac(text: &str) -> Result<MacAddr, String> {
    let err = || format!("{text:?} is not a MAC address like 02:00:00:00:00:01");
    let mut mac = [0u8; 6];
    let mut parts = text.trim().split([':', '-']);
    for byte in &mut mac {
        let part = parts.next().ok_or_else(err)?;
        if part.len() != 2 {
            return Err(err());
        }
        *byte = u8::from_str_radix(part, 16).map_err(|_| err())?;
    }
    if parts.next().is_some() {
        return Err(err());
    }
    Ok(MacAddr(mac))
}

/// An N4 address: `192.168.14.111` (port 8805) or `192.168.14.111:8806`; IPv6 in brackets with
/// a port, or bare.
pub(crate) fn parse_n4_address(text: &str) -> Result<SocketAddr, String> {
    let t = text.trim();
    if let Ok(addr) = t.parse::<SocketAddr>() {
        return Ok(addr);
    }
    t.parse::<IpAddr>()
        .map(|ip| SocketAddr::new(ip, PFCP_PORT))
        .map_err(|_| {
            format!("{text:?} is not an address like 192.168.14.111 or 192.168.14.111:8805")
        })
}

/// An IPv4 address with a prefix length: an interface address (`192.168.13.131/24`) or a
/// network (`10.45.0.0/16`); the IPv4 arithmetic of an [`IpPrefix`] that validation found to be
/// IPv4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv4Prefix {
    /// The address as written.
    pub addr: Ipv4Addr,
    /// Prefix length, 0..=32.
    pub len: u8,
}

impl Ipv4Prefix {
    /// The netmask as a number.
    pub fn mask(&self) -> u32 {
        u32::MAX.checked_shl(32 - u32::from(self.len)).unwrap_or(0)
    }

    /// The network address (host bits cleared).
    pub fn network(&self) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.addr) & self.mask())
    }

    /// The last address of the prefix (the broadcast address for lengths up to 30).
    pub fn last(&self) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.addr) | !self.mask())
    }

    /// Whether the address as written is the network address.
    pub fn is_network(&self) -> bool {
        self.addr == self.network()
    }

    /// Number of addresses in the prefix.
    pub fn size(&self) -> u64 {
        1u64 << (32 - u32::from(self.len))
    }

    /// Whether `addr` lies in the prefix.
    pub fn contains(&self, addr: Ipv4Addr) -> bool {
        u32::from(addr) & self.mask() == u32::from(self.network())
    }

    /// Whether the two prefixes share an address.
    pub fn overlaps(&self, other: &Ipv4Prefix) -> bool {
        self.contains(other.network()) || other.contains(self.network())
    }

    /// The address `n` after the network address, if it is in the prefix.
    pub fn nth(&self, n: u32) -> Option<Ipv4Addr> {
        let a = u32::from(self.network()).checked_add(n)?;
        (u64::from(n) < self.size()).then(|| Ipv4Addr::from(a))
    }
}

impl fmt::Display for Ipv4Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

impl FromStr for Ipv4Prefix {
    type Err = String;

    fn from_str(text: &str) -> Result<Ipv4Prefix, String> {
        let p = text.parse::<IpPrefix>()?;
        p.v4()
            .ok_or_else(|| format!("{text:?}: {} is not an IPv4 address", p.addr))
    }
}

/// An address with a prefix length, of either family: an interface address
/// (`192.168.13.131/24`, `2001:db8::1/64`) or a network (`10.45.0.0/16`, `2001:db8::/48`). The
/// length is checked for the address's family where it is read; what this version does not
/// carry yet (IPv6) is refused by validation, at its place, so that files can already say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpPrefix {
    /// The address as written.
    pub addr: IpAddr,
    /// Prefix length, 0..=32 (IPv4) or 0..=128 (IPv6).
    pub len: u8,
}

impl IpPrefix {
    /// The IPv4 prefix, if this is one.
    pub fn v4(&self) -> Option<Ipv4Prefix> {
        match self.addr {
            IpAddr::V4(addr) => Some(Ipv4Prefix {
                addr,
                len: self.len,
            }),
            IpAddr::V6(_) => None,
        }
    }

    /// The network address (host bits cleared).
    pub fn network(&self) -> IpAddr {
        match self.addr {
            IpAddr::V4(a) => IpAddr::V4(Ipv4Addr::from(u32::from(a) & v4_mask(self.len))),
            IpAddr::V6(a) => IpAddr::V6(Ipv6Addr::from(u128::from(a) & v6_mask(self.len))),
        }
    }

    /// Whether the address as written is the network address.
    pub fn is_network(&self) -> bool {
        self.addr == self.network()
    }

    /// Whether `addr` lies in the prefix (never for an address of the other family).
    pub fn contains(&self, addr: IpAddr) -> bool {
        match (self.network(), addr) {
            (IpAddr::V4(n), IpAddr::V4(a)) => u32::from(a) & v4_mask(self.len) == u32::from(n),
            (IpAddr::V6(n), IpAddr::V6(a)) => u128::from(a) & v6_mask(self.len) == u128::from(n),
            _ => false,
        }
    }

    /// Whether the two prefixes share an address.
    pub fn overlaps(&self, other: &IpPrefix) -> bool {
        self.contains(other.network()) || other.contains(self.network())
    }
}

fn v4_mask(len: u8) -> u32 {
    u32::MAX
        .checked_shl(32 - u32::from(len.min(32)))
        .unwrap_or(0)
}

fn v6_mask(len: u8) -> u128 {
    u128::MAX
        .checked_shl(128 - u32::from(len.min(128)))
        .unwrap_or(0)
}

impl From<Ipv4Prefix> for IpPrefix {
    fn from(p: Ipv4Prefix) -> IpPrefix {
        IpPrefix {
            addr: IpAddr::V4(p.addr),
            len: p.len,
        }
    }
}

impl fmt::Display for IpPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

impl FromStr for IpPrefix {
    type Err = String;

    fn from_str(text: &str) -> Result<IpPrefix, String> {
        let t = text.trim();
        let Some((addr, len)) = t.split_once('/') else {
            return Err(format!(
                "{text:?} needs a prefix length, like 192.168.13.131/24"
            ));
        };
        let addr = addr
            .parse::<IpAddr>()
            .map_err(|_| format!("{text:?}: {addr:?} is not an IP address"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let len = len
            .parse::<u8>()
            .ok()
            .filter(|&l| l <= max)
            .ok_or_else(|| format!("{text:?}: the prefix length must be 0 to {max}"))?;
        Ok(IpPrefix { addr, len })
    }
}

impl<'de> Deserialize<'de> for IpPrefix {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_text(deserializer)
    }
}

/// serde adapters for std types written as text, for `#[serde(with = "...")]`. Each is a type
/// (named as the module it stands for) rather than a module, so that schemars, which takes
/// `with` for a type, finds its schema too (`config::schema`), and so that the schema's default
/// is written by its `serialize`, as the files write it.
pub(crate) mod serde_text {
    #![allow(non_camel_case_types)]
    use super::*;

    fn parse<'de, D, T>(d: D, f: fn(&str) -> Result<T, String>) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
    {
        let text = String::deserialize(d)?;
        f(&text).map_err(de::Error::custom)
    }

    fn parse_opt<'de, D, T>(d: D, f: fn(&str) -> Result<T, String>) -> Result<Option<T>, D::Error>
    where
        D: Deserializer<'de>,
    {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => f(&text).map(Some).map_err(de::Error::custom),
        }
    }

    /// `10s`, `500ms`.
    pub(crate) struct duration;
    impl duration {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
            parse(d, parse_duration)
        }
    }

    /// A percentage, as the number of percent: `10%`.
    pub(crate) struct percent;
    impl percent {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
            parse(d, parse_percent)
        }
    }

    /// An optional percentage; `~` for none.
    pub(crate) struct opt_percent;
    impl opt_percent {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<f64>, D::Error> {
            parse_opt(d, parse_percent)
        }
    }

    /// An optional duration; `~` for none.
    pub(crate) struct opt_duration;
    impl opt_duration {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Duration>, D::Error> {
            parse_opt(d, parse_duration)
        }
    }

    /// An optional bit rate in bit/s.
    pub(crate) struct opt_bit_rate;
    impl opt_bit_rate {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<u64>, D::Error> {
            parse_opt(d, parse_bit_rate)
        }
    }

    /// An optional packet rate in pps.
    pub(crate) struct opt_pps;
    impl opt_pps {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<f64>, D::Error> {
            parse_opt(d, parse_pps)
        }
    }

    /// An optional MAC address.
    pub(crate) struct opt_mac;
    impl opt_mac {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<MacAddr>, D::Error> {
            parse_opt(d, parse_mac)
        }
    }

    /// An optional N4 address, port 8805 unless given; `~` for none.
    pub(crate) struct opt_n4_address;
    impl opt_n4_address {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<SocketAddr>, D::Error> {
            parse_opt(d, parse_n4_address)
        }
    }

    /// An N4 address, port 8805 unless given.
    pub(crate) struct n4_address;
    impl n4_address {
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SocketAddr, D::Error> {
            parse(d, parse_n4_address)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_need_their_sign() {
        assert_eq!(parse_percent("10%"), Ok(10.0));
        assert_eq!(parse_percent("2.5%"), Ok(2.5));
        assert_eq!(parse_percent("0%"), Ok(0.0));
        assert!(parse_percent("0.1").is_err());
        assert!(parse_percent("-1%").is_err());
        assert!(parse_percent("10pps").is_err());
    }

    #[test]
    fn rates_in_every_form() {
        assert_eq!("100000pps".parse(), Ok(Rate::Pps(100_000.0)));
        assert_eq!("1.5Mpps".parse(), Ok(Rate::Pps(1_500_000.0)));
        assert_eq!("500 kpps".parse(), Ok(Rate::Pps(500_000.0)));
        assert_eq!("10Gbps L1".parse(), Ok(Rate::BitsL1(10e9)));
        assert_eq!("2 Gbps L2".parse(), Ok(Rate::BitsL2(2e9)));
        assert_eq!("100Mbit/s L2".parse(), Ok(Rate::BitsL2(100e6)));
        assert_eq!("50%".parse(), Ok(Rate::LinePercent(50.0)));
        assert_eq!(
            "-5pps".parse(),
            Ok(Rate::Pps(-5.0)),
            "ranges are checked later"
        );
    }

    #[test]
    fn rates_that_do_not_parse_say_why() {
        let e = "10 Gbps".parse::<Rate>().unwrap_err();
        assert!(e.starts_with("\"10 Gbps\" needs L1 or L2"), "{e}");
        let e = "100000".parse::<Rate>().unwrap_err();
        assert!(e.starts_with("\"100000\" has no unit"), "{e}");
        let e = "5 furlongs".parse::<Rate>().unwrap_err();
        assert!(e.contains("unknown unit \"furlongs\""), "{e}");
        let e = "1Mpps L1".parse::<Rate>().unwrap_err();
        assert!(e.contains("a packet rate has none"), "{e}");
        let e = "fast".parse::<Rate>().unwrap_err();
        assert!(e.contains("does not start with a number"), "{e}");
        let e = "1Gbps L3".parse::<Rate>().unwrap_err();
        assert!(e.contains("\"L3\" is not L1 or L2"), "{e}");
    }

    #[test]
    fn rates_convert_to_packets_per_second() {
        // 64-byte frames: 84 bytes on the wire at L1.
        let pps = Rate::BitsL1(10e9).pps(64, None).unwrap();
        assert!((pps - 14_880_952.38).abs() < 0.01, "{pps}");
        assert_eq!(Rate::BitsL2(512e6).pps(64, None), Some(1e6));
        assert_eq!(Rate::LinePercent(50.0).pps(64, None), None);
        let pps = Rate::LinePercent(50.0).pps(64, Some(10e9)).unwrap();
        assert!((pps - 7_440_476.19).abs() < 0.01, "{pps}");
        assert_eq!(Rate::Pps(7.0).pps(1518, Some(1e9)), Some(7.0));
    }

    #[test]
    fn rates_print_as_written() {
        assert_eq!(Rate::Pps(1.5e6).to_string(), "1.5Mpps");
        assert_eq!(Rate::BitsL1(10e9).to_string(), "10Gbps L1");
        assert_eq!(Rate::LinePercent(50.0).to_string(), "50%");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("100us"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("100µs"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("2min"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert!(parse_duration("10").unwrap_err().contains("has no unit"));
        assert!(parse_duration("-1s").unwrap_err().contains("negative"));
        assert!(
            parse_duration("3 days")
                .unwrap_err()
                .contains("unknown unit")
        );
    }

    #[test]
    fn bit_rates_macs_and_n4_addresses() {
        assert_eq!(parse_bit_rate("1.5Gbps"), Ok(1_500_000_000));
        assert!(parse_bit_rate("1Gbps L1").is_err());
        assert_eq!(parse_pps("2Mpps"), Ok(2e6));
        assert!(parse_pps("2Gbps L1").is_err());
        assert_eq!(
            parse_mac("02:00:0a:0B:00:ff"),
            Ok(MacAddr([2, 0, 0x0a, 0x0b, 0, 0xff]))
        );
        assert!(parse_mac("02:00:0a:0b:00").is_err());
        assert!(parse_mac("02:00:0a:0b:00:ff:01").is_err());
        assert_eq!(
            parse_n4_address("192.168.14.111"),
            Ok("192.168.14.111:8805".parse().unwrap())
        );
        assert_eq!(
            parse_n4_address("127.0.0.2:9000"),
            Ok("127.0.0.2:9000".parse().unwrap())
        );
        assert_eq!(parse_n4_address("::1"), Ok("[::1]:8805".parse().unwrap()));
        assert!(parse_n4_address("upf.local").is_err());
    }

    #[test]
    fn prefixes() {
        let p: Ipv4Prefix = "192.168.13.131/24".parse().unwrap();
        assert_eq!(p.network(), Ipv4Addr::new(192, 168, 13, 0));
        assert_eq!(p.last(), Ipv4Addr::new(192, 168, 13, 255));
        assert!(!p.is_network());
        assert!(p.contains(Ipv4Addr::new(192, 168, 13, 151)));
        assert!(!p.contains(Ipv4Addr::new(192, 168, 16, 151)));
        let pool: Ipv4Prefix = "10.45.0.0/16".parse().unwrap();
        assert_eq!(pool.size(), 65536);
        assert_eq!(pool.nth(2), Some(Ipv4Addr::new(10, 45, 0, 2)));
        assert_eq!(pool.nth(65536), None);
        assert!(pool.overlaps(&"10.0.0.0/8".parse().unwrap()));
        assert!(!pool.overlaps(&p));
        let all: Ipv4Prefix = "0.0.0.0/0".parse().unwrap();
        assert_eq!(all.mask(), 0);
        assert!(all.contains(Ipv4Addr::new(1, 2, 3, 4)));
        assert!("10.45.0.0".parse::<Ipv4Prefix>().is_err());
        assert!("10.45.0.0/33".parse::<Ipv4Prefix>().is_err());
        assert!("10.45.0/16".parse::<Ipv4Prefix>().is_err());
    }

    #[test]
    fn ip_prefixes_read_both_families_with_their_own_lengths() {
        let v4: IpPrefix = "192.168.13.131/24".parse().unwrap();
        assert_eq!(v4.v4(), Some("192.168.13.131/24".parse().unwrap()));
        assert_eq!(v4.network().to_string(), "192.168.13.0");
        let v6: IpPrefix = "2001:db8::1/64".parse().unwrap();
        assert_eq!((v6.v4(), v6.len), (None, 64));
        assert_eq!(v6.network().to_string(), "2001:db8::");
        assert!(!v6.is_network());
        assert!(v6.contains("2001:db8::ffff".parse().unwrap()));
        assert!(!v6.contains("2001:db8:0:1::1".parse().unwrap()));
        assert!(
            !v6.contains("192.168.13.1".parse().unwrap()),
            "other family"
        );
        assert!(!v4.overlaps(&v6) && !v6.overlaps(&v4));
        let pool: IpPrefix = "2001:db8::/48".parse().unwrap();
        assert!(pool.overlaps(&v6) && v6.overlaps(&pool));
        assert_eq!("2001:db8::/128".parse::<IpPrefix>().unwrap().len, 128);
        assert_eq!(
            "2001:db8::/129".parse::<IpPrefix>(),
            Err("\"2001:db8::/129\": the prefix length must be 0 to 128".to_owned())
        );
        assert_eq!(
            "10.45.0.0/33".parse::<IpPrefix>(),
            Err("\"10.45.0.0/33\": the prefix length must be 0 to 32".to_owned())
        );
        assert!("2001:db8::".parse::<IpPrefix>().is_err());
        assert!("0.0.0.0/0".parse::<IpPrefix>().unwrap().overlaps(&v4));
    }
}
