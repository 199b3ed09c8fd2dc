//! The value forms of the files, each as a JSON Schema and written back as the files write it.
//!
//! A value the files write as text (a duration `10s`, a rate `10kpps`, an address with its
//! prefix `192.168.13.131/24`, ...) is a string whose pattern is the parser's form, so that a
//! validator or an editor refuses what the parser would; every such form is one named
//! definition (`$defs/Duration`, ...), which the reference describes once. Ranges and the
//! relations between fields stay with the checks, which report them at their place.
//!
//! The `serialize` side writes a value as the files do; schemars writes each field's default
//! with it, from the same `default = "..."` function serde reads the field with.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_pfcp::Seid;

use super::super::identifiers::{opt_qfi, qfi, seid, teid};
use super::super::profile::{ConsecutiveSpread, MovingUes, Spread, TeidAllocation, UeRange};
use super::super::profile::{TeidRange, UeSelection};
use super::super::system::Device;
use super::super::units::serde_text::{
    duration, n4_address, opt_bit_rate, opt_duration, opt_mac, opt_n4_address, opt_percent,
    opt_pps, percent,
};
use super::super::units::{IpPrefix, Rate};

/// A decimal number as the parsers read it: digits, a fraction, `_` between digits.
const NUMBER: &str = r"(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)";
/// SI prefixes of rates.
const SI: &str = "[kKMGT]?";
/// A dotted-quad IPv4 address, each octet without leading zeros (as Rust reads it).
const IPV4: &str = r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
/// An IPv6 address, loosely: groups of hex digits, two to seven colons, maybe an IPv4 tail.
const IPV6: &str = r"(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f.]*";

/// `^\s*BODY\s*$`: the parsers trim the text.
fn trimmed(body: &str) -> String {
    format!(r"^\s*(?:{body})\s*$")
}

/// A string form: its pattern, what it is, examples.
fn text_form(pattern: String, description: &str, examples: &[&str]) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": pattern,
        "description": description,
        "examples": examples,
    })
}

/// Implements [`JsonSchema`] for a form named `name`, referenced as `$defs/name`.
macro_rules! form {
    ($ty:ty, $name:literal, $schema:expr) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
            fn schema_id() -> Cow<'static, str> {
                Cow::Borrowed(concat!("upfbench::config::", $name))
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
}

/// Implements [`JsonSchema`] for an optional form: the form, or `~`.
macro_rules! optional_form {
    ($ty:ty, $inner:ty) => {
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                <Option<$inner>>::schema_name()
            }
            fn schema_id() -> Cow<'static, str> {
                <Option<$inner>>::schema_id()
            }
            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                <Option<$inner>>::json_schema(generator)
            }
        }
    };
}

form!(
    duration,
    "Duration",
    text_form(
        trimmed(&format!(r"{NUMBER}\s*(?:ns|us|µs|ms|s|min|h)")),
        "A duration: a number and its unit, `ns`, `us` (or `µs`), `ms`, `s`, `min` or `h`. A \
         bare number is an error.",
        &["10s", "500ms", "100us", "2min"],
    )
);
optional_form!(opt_duration, duration);
optional_form!(opt_percent, percent);

form!(
    percent,
    "Percent",
    text_form(
        trimmed(&format!(r"{NUMBER}\s*%")),
        "A percentage, with its sign.",
        &["10%", "2.5%", "0%"],
    )
);

/// A packet rate alone: `1Mpps`.
pub(crate) struct PacketRate;
form!(
    PacketRate,
    "PacketRate",
    text_form(
        trimmed(&format!(r"{NUMBER}\s*{SI}pps")),
        "A packet rate: packets per second, with an SI prefix (`k`, `M`, `G`, `T`) or none.",
        &["100000pps", "500kpps", "1.5Mpps"],
    )
);
optional_form!(opt_pps, PacketRate);

/// A bit rate with no layer: `1Gbps`.
pub(crate) struct BitRate;
form!(
    BitRate,
    "BitRate",
    text_form(
        trimmed(&format!(r"{NUMBER}\s*{SI}(?:bps|bit/s)")),
        "A bit rate: bits per second (`bps` or `bit/s`) with an SI prefix (`k`, `M`, `G`, `T`) \
         or none; no L1/L2 (QoS bit rates count IP packets, a line rate is the link's).",
        &["100Mbps", "1.5Gbps", "10Gbit/s"],
    )
);
optional_form!(opt_bit_rate, BitRate);

form!(
    Rate,
    "Rate",
    text_form(
        trimmed(&format!(
            r"{NUMBER}\s*{SI}pps|{NUMBER}\s*{SI}(?:bps|bit/s)\s+L[12]|{NUMBER}\s*%(?:\s*mbr)?"
        )),
        "A stream's rate, per direction: packets per second (`100000pps`, `500kpps`, \
         `1.5Mpps`); bits per second at layer 1 or 2 (`10Gbps L1`, `2Gbps L2`): L1 counts each \
         frame (FCS included) and 20 bytes of preamble and inter-frame gap, L2 the frame with \
         its FCS, and a bare `10Gbps` is an error; a percentage of the sending port's line \
         rate, at L1 (`50%`); or a percentage of the MBR of the stream's QoS flow in its \
         direction, counted on the inner IP packets as a QER counts them (`150%mbr`). Above 0, \
         at most 1 Gpps, 1 Tbps, 100% of the line, 1000% of the MBR.",
        &["100kpps", "10Gbps L1", "2Gbps L2", "50%", "150%mbr"],
    )
);

/// A MAC address: `02:00:00:00:00:01`.
pub(crate) struct Mac;
form!(
    Mac,
    "MacAddress",
    text_form(
        trimmed(r"[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}"),
        "A MAC address, six hex octets joined by `:` (or `-`).",
        &["02:00:00:00:00:01"],
    )
);
optional_form!(opt_mac, Mac);

/// An IP address of either family: what schemars makes of [`std::net::IpAddr`] is replaced by
/// this (`config::schema`).
pub(crate) struct IpAddress;
form!(
    IpAddress,
    "IpAddress",
    text_form(
        format!("^(?:{IPV4}|{IPV6})$"),
        "An IP address, IPv4 or IPv6 (`2001:db8::1`); N4 (PFCP) is IPv4 only for now.",
        &["192.168.13.151"],
    )
);

/// An IPv4 address: what schemars makes of [`std::net::Ipv4Addr`] is replaced by this.
pub(crate) struct Ipv4Address;
form!(
    Ipv4Address,
    "Ipv4Address",
    text_form(format!("^{IPV4}$"), "An IPv4 address.", &["192.168.13.132"])
);

form!(
    IpPrefix,
    "IpPrefix",
    text_form(
        trimmed(&format!(
            r"{IPV4}/(?:3[0-2]|[12]?[0-9])|{IPV6}/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9])"
        )),
        "An address and its prefix length: an interface address (`192.168.13.131/24`, \
         `2001:db8:13::131/64`) or a network (`10.45.0.0/16`, `2001:db8:45::/48`); 0 to 32 bits \
         for IPv4, 0 to 128 for IPv6.",
        &["192.168.13.131/24", "10.45.0.0/16", "2001:db8:13::131/64"],
    )
);

form!(
    n4_address,
    "N4Address",
    text_form(
        trimmed(&format!(
            r"{IPV4}(?::[0-9]{{1,5}})?|\[{IPV6}\]:[0-9]{{1,5}}|{IPV6}"
        )),
        "An N4 (PFCP) address: an IP address, port 8805 (`192.168.14.111`), or an address and a \
         port (`192.168.14.111:8806`). IPv4 only for now.",
        &["192.168.14.111", "127.0.0.2:8805"],
    )
);

optional_form!(opt_n4_address, n4_address);

form!(
    Device,
    "Device",
    text_form(
        trimmed(r"net_[a-z0-9_]+|(?:[0-9A-Fa-f]{4}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]"),
        "A DPDK port: a vdev name, the driver's name and an index (`net_memif0`, \
         `net_af_packet0`, `net_af_xdp0`, `net_virtio_user0`, `net_vhost0`, `net_null0`), or a \
         NIC's PCI address (`0000:3b:00.0`; the domain may be left out). A vdev's arguments go \
         in `devargs`.",
        &["net_memif0", "0000:3b:00.0"],
    )
);

/// A port's device arguments: `key=value,...`.
pub(crate) struct Devargs;
form!(
    Devargs,
    "Devargs",
    text_form(
        r"^\s*[^,=\s][^,=]*=[^,]*(?:,\s*[^,=\s][^,=]*=[^,]*)*$".to_owned(),
        "A DPDK device's arguments: comma-separated `key=value` pairs, passed to the driver.",
        &["role=client,socket=/tmp/upfbench/n3.sock", "iface=n3"],
    )
);

form!(
    teid,
    "Teid",
    json_schema!({
        "type": "integer",
        "minimum": 1,
        "maximum": u32::MAX,
        "description": "A GTP-U Tunnel Endpoint Identifier: a 32-bit number, not 0 (reserved \
                        for signalling), decimal or hexadecimal.",
        "examples": [1, 0x1000_0000],
    })
);

form!(
    seid,
    "Seid",
    json_schema!({
        "type": "integer",
        "minimum": 1,
        "description": "A PFCP Session Endpoint Identifier: a 64-bit number, not 0.",
        "examples": [1],
    })
);

/// A QFI: 0 to 63.
pub(crate) struct QfiForm;
form!(
    QfiForm,
    "Qfi",
    json_schema!({
        "type": "integer",
        "minimum": 0,
        "maximum": Qfi::MAX,
        "description": "A QoS Flow Identifier: 6 bits, 0 to 63.",
        "examples": [1, 9],
    })
);
optional_form!(opt_qfi, QfiForm);

impl JsonSchema for qfi {
    fn schema_name() -> Cow<'static, str> {
        QfiForm::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        QfiForm::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        QfiForm::json_schema(generator)
    }
}

/// A keyword, or a mapping of another form: `{oneOf: [{const: keyword}, mapping]}`.
fn keyword_or(keyword: &str, what: &str, mapping: Schema) -> Schema {
    json_schema!({
        "oneOf": [
            {"const": keyword, "description": what},
            mapping,
        ]
    })
}

/// Implements [`JsonSchema`] for a keyword-or-mapping type, inline where it is used.
macro_rules! keyword_or_mapping {
    ($ty:ty, $name:literal, $keyword:literal, $what:literal, $mapping:ty) => {
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
            fn schema_id() -> Cow<'static, str> {
                Cow::Borrowed(concat!("upfbench::config::", $name))
            }
            fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                keyword_or($keyword, $what, generator.subschema_for::<$mapping>())
            }
        }
    };
}

keyword_or_mapping!(UeSelection, "UeSelection", "all", "every UE", UeRange);
keyword_or_mapping!(
    Spread,
    "Spread",
    "round_robin",
    "one packet per UE in turn",
    ConsecutiveSpread
);
keyword_or_mapping!(
    TeidAllocation,
    "TeidAllocation",
    "upf",
    "the UPF chooses (CH=1), read back from the Created PDR",
    TeidRange
);
keyword_or_mapping!(MovingUes, "MovingUes", "all", "every UE", percent);

// What the files write, for the defaults.

/// A duration in its largest whole unit: `10s`, `500ms`, `30min`, `0s`.
pub(crate) fn duration_text(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        return "0s".to_owned();
    }
    const UNITS: [(&str, u128); 5] = [
        ("h", 3_600_000_000_000),
        ("min", 60_000_000_000),
        ("s", 1_000_000_000),
        ("ms", 1_000_000),
        ("us", 1_000),
    ];
    UNITS
        .iter()
        .find(|(_, per)| ns.is_multiple_of(*per))
        .map_or_else(
            || format!("{ns}ns"),
            |(unit, per)| format!("{}{unit}", ns / per),
        )
}

/// A bit rate in its largest whole SI prefix: `10Gbps`, `1500Mbps`.
fn bit_rate_text(bps: u64) -> String {
    [
        (1_000_000_000_000, "T"),
        (1_000_000_000, "G"),
        (1_000_000, "M"),
        (1_000, "k"),
    ]
    .iter()
    .find(|(m, _)| bps > 0 && bps.is_multiple_of(*m))
    .map_or_else(
        || format!("{bps}bps"),
        |(m, p)| format!("{}{p}bps", bps / m),
    )
}

fn mac_text(MacAddr(mac): MacAddr) -> String {
    let mut text = String::new();
    for (i, b) in mac.iter().enumerate() {
        let sep = if i == 0 { "" } else { ":" };
        let _ = write!(text, "{sep}{b:02x}");
    }
    text
}

fn some_text<S: Serializer, T>(
    value: &Option<T>,
    s: S,
    text: impl Fn(&T) -> String,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.serialize_some(&text(v)),
        None => s.serialize_none(),
    }
}

impl duration {
    pub(crate) fn serialize<S: Serializer>(value: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&duration_text(*value))
    }
}

impl opt_duration {
    pub(crate) fn serialize<S: Serializer>(
        value: &Option<Duration>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        some_text(value, s, |d| duration_text(*d))
    }
}

impl percent {
    pub(crate) fn serialize<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{value}%"))
    }
}

impl opt_percent {
    pub(crate) fn serialize<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        some_text(value, s, |p| format!("{p}%"))
    }
}

impl opt_pps {
    pub(crate) fn serialize<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        some_text(value, s, |pps| Rate::Pps(*pps).to_string())
    }
}

impl opt_bit_rate {
    pub(crate) fn serialize<S: Serializer>(value: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        some_text(value, s, |bps| bit_rate_text(*bps))
    }
}

impl opt_mac {
    pub(crate) fn serialize<S: Serializer>(
        value: &Option<MacAddr>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        some_text(value, s, |mac| mac_text(*mac))
    }
}

impl n4_address {
    pub(crate) fn serialize<S: Serializer>(value: &SocketAddr, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }
}

impl opt_n4_address {
    pub(crate) fn serialize<S: Serializer>(
        value: &Option<SocketAddr>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        some_text(value, s, ToString::to_string)
    }
}

impl teid {
    pub(crate) fn serialize<S: Serializer>(value: &Teid, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(value.get())
    }
}

impl seid {
    pub(crate) fn serialize<S: Serializer>(value: &Seid, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(value.0)
    }
}

impl qfi {
    pub(crate) fn serialize<S: Serializer>(value: &Qfi, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(value.get())
    }
}

impl opt_qfi {
    pub(crate) fn serialize<S: Serializer>(value: &Option<Qfi>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(q) => s.serialize_some(&q.get()),
            None => s.serialize_none(),
        }
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for IpPrefix {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for Device {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.is_unset() {
            s.serialize_none()
        } else {
            s.serialize_str(self.name())
        }
    }
}

impl Serialize for UeSelection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            UeSelection::All => s.serialize_str("all"),
            UeSelection::Range { first, count } => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("first", &first)?;
                map.serialize_entry("count", &count)?;
                map.end()
            }
        }
    }
}

impl Serialize for Spread {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Spread::RoundRobin => s.serialize_str("round_robin"),
            Spread::Consecutive(n) => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("consecutive", &n)?;
                map.end()
            }
        }
    }
}

impl Serialize for TeidAllocation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TeidAllocation::ChosenByUpf => s.serialize_str("upf"),
            TeidAllocation::Range(range) => range.serialize(s),
        }
    }
}

impl Serialize for MovingUes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            MovingUes::All => s.serialize_str("all"),
            MovingUes::Percent(p) => percent::serialize(&p, s),
        }
    }
}
