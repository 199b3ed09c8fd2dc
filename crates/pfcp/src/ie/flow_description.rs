//! The Flow Description of an SDF Filter (TS 29.244 §8.2.5): an IPFilterRule (RFC 6733 §4.3.1)
//! as TS 29.212 §5.4.2 restricts it, read and written as text.
//!
//! ```text
//! action dir proto from src [ports] to dst [ports]
//! permit out 17 from 2001:db8::/64 to assigned 1000-2000
//! ```
//!
//! - action `permit` or `deny`, direction `in` (from the UE) or `out` (to the UE); TS 29.212
//!   sends only `permit out`, PFCP peers send both directions, so both are read;
//! - the protocol by number (0 to 255) or `ip` for any, as RFC 6733 writes it; and by the names
//!   `icmp`, `tcp`, `udp`, `icmp6` and `sctp`, which eUPF 0.7.1 needs (it refuses every number
//!   but 58, docs/upfs.md);
//! - an address is `any`, `assigned` (the UE's own addresses), an IPv4 or IPv6 address, or one
//!   with a prefix length (`10.45.0.0/16`, `2001:db8::/64`) whose host bits are clear (RFC 6733);
//! - ports are a port, a range `1000-2000`, or a list of both (`53,1000-2000`);
//! - TS 29.212 rules out the `!` modifier and the options after the destination: both are
//!   refused, with where they stand.
//!
//! A parse error names what failed and its byte offset in the text
//! ([`FlowDescriptionError`]). [`FlowDescription`]'s `Display` writes the canonical text
//! (single spaces, a full-length prefix as a bare address, a one-port range as one port), which
//! parses back to the same value.

use core::fmt;
use core::net::IpAddr;
use core::str::FromStr;

/// A parsed IPFilterRule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FlowDescription {
    /// `permit` or `deny`.
    pub action: FilterAction,
    /// `in` (from the UE) or `out` (to the UE).
    pub direction: FilterDirection,
    /// The IP protocol number; `None` is `ip`, any protocol.
    pub protocol: Option<u8>,
    /// The source address and ports.
    pub source: FilterEndpoint,
    /// The destination address and ports.
    pub destination: FilterEndpoint,
}

/// What a rule does with the packets it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterAction {
    /// `permit`.
    Permit,
    /// `deny`.
    Deny,
}

/// Which way the packets a rule matches go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterDirection {
    /// `in`: from the UE (uplink).
    In,
    /// `out`: to the UE (downlink).
    Out,
}

/// One side of a rule: an address and the ports (none: any port).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FilterEndpoint {
    /// The address.
    pub address: FilterAddress,
    /// The ports and port ranges; empty for any port.
    pub ports: Vec<PortRange>,
}

/// The address of one side of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterAddress {
    /// `any`: every address of either family.
    Any,
    /// `assigned`: the addresses assigned to the UE.
    Assigned,
    /// An address and a prefix length (32 or 128: the address alone); the bits past the prefix
    /// are clear ([`FilterAddress::network`] checks it).
    Network(IpAddr, u8),
}

/// Ports `first..=last`; one port when equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortRange {
    /// The first port.
    pub first: u16,
    /// The last port (not below `first`).
    pub last: u16,
}

/// A flow description that does not parse: what failed, and the byte offset in the text of the
/// token (or the end of the text, for what is missing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("flow description, at byte {offset}: {kind}")]
pub struct FlowDescriptionError {
    /// What failed.
    pub kind: FlowDescriptionErrorKind,
    /// Where: the offset of the token in the text.
    pub offset: usize,
}

/// The ways a flow description fails to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlowDescriptionErrorKind {
    /// The octets are not UTF-8 text.
    #[error("not UTF-8 text")]
    NotText,
    /// The text ends before a part of the rule.
    #[error("{expected} is missing")]
    Missing {
        /// The part that is missing.
        expected: &'static str,
    },
    /// The action is not `permit` or `deny`.
    #[error("{found:?} is not an action (permit or deny)")]
    Action {
        /// The token found.
        found: String,
    },
    /// The direction is not `in` or `out`.
    #[error("{found:?} is not a direction (in or out)")]
    Direction {
        /// The token found.
        found: String,
    },
    /// The protocol is not `ip` or a number up to 255.
    #[error("{found:?} is not a protocol (ip, a number up to 255, or icmp, tcp, udp, icmp6, sctp)")]
    Protocol {
        /// The token found.
        found: String,
    },
    /// Another token stands where `from` or `to` belongs.
    #[error("{found:?} where {expected:?} belongs")]
    Keyword {
        /// The keyword expected.
        expected: &'static str,
        /// The token found.
        found: String,
    },
    /// An address that is not `any`, `assigned`, an IPv4 or an IPv6 address.
    #[error("{found:?} is not an address (any, assigned, IPv4 or IPv6)")]
    Address {
        /// The token found.
        found: String,
    },
    /// A prefix length that is not a number up to the family's width.
    #[error("{found:?} is not a prefix length (0 to {max})")]
    PrefixLength {
        /// The length found.
        found: String,
        /// The family's width: 32 or 128.
        max: u8,
    },
    /// An address with bits set past its prefix length (RFC 6733 §4.3.1 forbids it).
    #[error("{found:?} has bits set past its prefix length")]
    HostBits {
        /// The address and length found.
        found: String,
    },
    /// The `!` (not) modifier, which TS 29.212 §5.4.2 rules out.
    #[error("the \"!\" modifier is not allowed (TS 29.212 §5.4.2)")]
    Inverted,
    /// A port that is not a number up to 65535.
    #[error("{found:?} is not a port (0 to 65535)")]
    Port {
        /// The port found.
        found: String,
    },
    /// A port range whose first port is above its last.
    #[error("port range {first}-{last} runs backwards")]
    PortRange {
        /// The first port.
        first: u16,
        /// The last port.
        last: u16,
    },
    /// Options after the destination, which TS 29.212 §5.4.2 rules out.
    #[error("{found:?} after the destination: options are not allowed (TS 29.212 §5.4.2)")]
    Options {
        /// The first token after the destination.
        found: String,
    },
}

impl FlowDescriptionError {
    fn new(kind: FlowDescriptionErrorKind, offset: usize) -> Self {
        FlowDescriptionError { kind, offset }
    }
}

impl FilterAddress {
    /// `addr/len`, checked as a parsed one is: `len` within the family's width, no bit set past
    /// it.
    pub fn network(addr: IpAddr, len: u8) -> Result<Self, FlowDescriptionErrorKind> {
        let max = family_width(addr);
        if len > max {
            return Err(FlowDescriptionErrorKind::PrefixLength {
                found: len.to_string(),
                max,
            });
        }
        if host_bits(addr, len) != 0 {
            return Err(FlowDescriptionErrorKind::HostBits {
                found: format!("{addr}/{len}"),
            });
        }
        Ok(FilterAddress::Network(addr, len))
    }
}

impl PortRange {
    /// One port.
    pub const fn one(port: u16) -> Self {
        PortRange {
            first: port,
            last: port,
        }
    }

    /// Whether `port` is in the range.
    pub const fn contains(self, port: u16) -> bool {
        self.first <= port && port <= self.last
    }
}

fn family_width(addr: IpAddr) -> u8 {
    if addr.is_ipv4() { 32 } else { 128 }
}

/// The bits of `addr` past the first `len`.
fn host_bits(addr: IpAddr, len: u8) -> u128 {
    let (bits, width) = match addr {
        IpAddr::V4(a) => (u128::from(a.to_bits()), 32),
        IpAddr::V6(a) => (a.to_bits(), 128),
    };
    let host = u32::from(width - len.min(width));
    bits & 1u128.checked_shl(host).map_or(u128::MAX, |b| b - 1)
}

/// The whitespace-separated tokens of the text, each with its byte offset.
struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn next(&mut self) -> Option<(usize, &'a str)> {
        let rest = &self.text[self.at..];
        let start = self.at + (rest.len() - rest.trim_start().len());
        let rest = &self.text[start..];
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.at = start + len;
        (len > 0).then(|| (start, &rest[..len]))
    }

    fn peek(&self) -> Option<(usize, &'a str)> {
        Tokens {
            text: self.text,
            at: self.at,
        }
        .next()
    }

    /// The next token, or the error that `expected` is missing at the end of the text.
    fn expect(&mut self, expected: &'static str) -> Result<(usize, &'a str), FlowDescriptionError> {
        self.next().ok_or(FlowDescriptionError::new(
            FlowDescriptionErrorKind::Missing { expected },
            self.text.len(),
        ))
    }
}

impl FlowDescription {
    /// Parses the octets of an SDF Filter's Flow Description.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FlowDescriptionError> {
        let text = core::str::from_utf8(bytes).map_err(|e| {
            FlowDescriptionError::new(FlowDescriptionErrorKind::NotText, e.valid_up_to())
        })?;
        text.parse()
    }
}

impl FromStr for FlowDescription {
    type Err = FlowDescriptionError;

    fn from_str(text: &str) -> Result<Self, FlowDescriptionError> {
        use FlowDescriptionErrorKind as K;
        let mut t = Tokens { text, at: 0 };
        let action = match t.expect("the action")? {
            (_, "permit") => FilterAction::Permit,
            (_, "deny") => FilterAction::Deny,
            (at, found) => {
                return fail(
                    K::Action {
                        found: found.into(),
                    },
                    at,
                );
            }
        };
        let direction = match t.expect("the direction")? {
            (_, "in") => FilterDirection::In,
            (_, "out") => FilterDirection::Out,
            (at, found) => {
                return fail(
                    K::Direction {
                        found: found.into(),
                    },
                    at,
                );
            }
        };
        let protocol = match t.expect("the protocol")? {
            (_, "ip") => None,
            (at, found) => match decimal::<u8>(found).or_else(|| named_protocol(found)) {
                Some(p) => Some(p),
                None => {
                    return fail(
                        K::Protocol {
                            found: found.into(),
                        },
                        at,
                    );
                }
            },
        };
        keyword(&mut t, "from")?;
        let source = endpoint(&mut t, "the source address")?;
        keyword(&mut t, "to")?;
        let destination = endpoint(&mut t, "the destination address")?;
        if let Some((at, found)) = t.next() {
            return fail(
                K::Options {
                    found: found.into(),
                },
                at,
            );
        }
        Ok(FlowDescription {
            action,
            direction,
            protocol,
            source,
            destination,
        })
    }
}

fn fail<T>(kind: FlowDescriptionErrorKind, at: usize) -> Result<T, FlowDescriptionError> {
    Err(FlowDescriptionError::new(kind, at))
}

/// A decimal number of plain digits (no sign, no spaces) that fits `T`.
fn decimal<T: FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn keyword(t: &mut Tokens<'_>, expected: &'static str) -> Result<(), FlowDescriptionError> {
    match t.expect(expected)? {
        (_, found) if found == expected => Ok(()),
        (at, found) => Err(FlowDescriptionError::new(
            FlowDescriptionErrorKind::Keyword {
                expected,
                found: found.into(),
            },
            at,
        )),
    }
}

/// An address and, when the next token starts with a digit, its ports.
fn endpoint(
    t: &mut Tokens<'_>,
    expected: &'static str,
) -> Result<FilterEndpoint, FlowDescriptionError> {
    let (at, token) = t.expect(expected)?;
    let address = address(token).map_err(|kind| FlowDescriptionError::new(kind, at))?;
    let mut ports = Vec::new();
    if let Some((at, token)) = t
        .peek()
        .filter(|(_, s)| s.starts_with(|c: char| c.is_ascii_digit()))
    {
        t.next();
        ports = port_list(token, at)?;
    }
    Ok(FilterEndpoint { address, ports })
}

fn address(token: &str) -> Result<FilterAddress, FlowDescriptionErrorKind> {
    use FlowDescriptionErrorKind as K;
    match token {
        "any" => return Ok(FilterAddress::Any),
        "assigned" => return Ok(FilterAddress::Assigned),
        _ if token.starts_with('!') => return Err(K::Inverted),
        _ => {}
    }
    let (ip, len) = match token.split_once('/') {
        Some((ip, len)) => (ip, Some(len)),
        None => (token, None),
    };
    let ip: IpAddr = ip.parse().map_err(|_| K::Address {
        found: token.into(),
    })?;
    let max = family_width(ip);
    let len = match len {
        None => max,
        Some(l) => decimal::<u8>(l)
            .filter(|&l| l <= max)
            .ok_or(K::PrefixLength {
                found: l.into(),
                max,
            })?,
    };
    FilterAddress::network(ip, len).map_err(|_| K::HostBits {
        found: token.into(),
    })
}

/// `53,1000-2000`: ports and ranges separated by commas, the offsets counted from `at`.
fn port_list(token: &str, at: usize) -> Result<Vec<PortRange>, FlowDescriptionError> {
    use FlowDescriptionErrorKind as K;
    let mut ranges = Vec::new();
    let mut offset = at;
    for item in token.split(',') {
        let port = |s: &str, at: usize| {
            decimal::<u16>(s)
                .ok_or_else(|| FlowDescriptionError::new(K::Port { found: s.into() }, at))
        };
        let range = match item.split_once('-') {
            None => PortRange::one(port(item, offset)?),
            Some((a, b)) => {
                let (first, last) = (port(a, offset)?, port(b, offset + a.len() + 1)?);
                if first > last {
                    let kind = K::PortRange { first, last };
                    return Err(FlowDescriptionError::new(kind, offset));
                }
                PortRange { first, last }
            }
        };
        ranges.push(range);
        offset += item.len() + 1;
    }
    Ok(ranges)
}

/// The protocols a rule may name instead of giving their number (IANA's protocol numbers).
fn named_protocol(name: &str) -> Option<u8> {
    Some(match name {
        "icmp" => 1,
        "tcp" => 6,
        "udp" => 17,
        "icmp6" => 58,
        "sctp" => 132,
        _ => return None,
    })
}

impl fmt::Display for FlowDescription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = match self.action {
            FilterAction::Permit => "permit",
            FilterAction::Deny => "deny",
        };
        let direction = match self.direction {
            FilterDirection::In => "in",
            FilterDirection::Out => "out",
        };
        write!(f, "{action} {direction} ")?;
        match self.protocol {
            None => f.write_str("ip")?,
            Some(p) => write!(f, "{p}")?,
        }
        write!(f, " from {} to {}", self.source, self.destination)
    }
}

impl fmt::Display for FilterEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.address)?;
        for (i, p) in self.ports.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { "," })?;
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl fmt::Display for FilterAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FilterAddress::Any => f.write_str("any"),
            FilterAddress::Assigned => f.write_str("assigned"),
            FilterAddress::Network(ip, len) if len == family_width(ip) => write!(f, "{ip}"),
            FilterAddress::Network(ip, len) => write!(f, "{ip}/{len}"),
        }
    }
}

impl fmt::Display for PortRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}
