//! Prometheus' text format read back as a scraper reads it (over HTTP, [`get`]), checked by
//! Prometheus' own `promtool` where installed: what the tests of every role's metrics read.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use crate::families::{self, Role};

/// One sample as the text format writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSample {
    /// The sample's name (a histogram's has its `_bucket`, `_sum` or `_count`).
    pub name: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its value.
    pub value: f64,
}

/// One family: `# HELP`, `# TYPE` and its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedFamily {
    /// The family's name.
    pub name: String,
    /// Its `# TYPE`.
    pub kind: String,
    /// Its samples.
    pub samples: Vec<ParsedSample>,
}

/// Parses Prometheus' text format 0.0.4 as a scraper does, strictly: every sample after its
/// family's `# HELP` and `# TYPE`, named as its type allows, labels quoted and escaped.
pub fn parse(text: &str) -> Result<Vec<ParsedFamily>, String> {
    let mut out: Vec<ParsedFamily> = Vec::new();
    let mut help: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let at = |m: &str| format!("line {}: {m}: {line:?}", n + 1);
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, _) = rest
                .split_once(' ')
                .ok_or_else(|| at("help without text"))?;
            help = Some(name.to_owned());
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest
                .split_once(' ')
                .ok_or_else(|| at("type without kind"))?;
            if help.as_deref() != Some(name) {
                return Err(at("TYPE not after its HELP"));
            }
            if !["counter", "gauge", "histogram"].contains(&kind) {
                return Err(at("unknown type"));
            }
            out.push(ParsedFamily {
                name: name.to_owned(),
                kind: kind.to_owned(),
                samples: Vec::new(),
            });
        } else if line.starts_with('#') || line.is_empty() {
            return Err(at("unexpected line"));
        } else {
            let family = out.last_mut().ok_or_else(|| at("sample before TYPE"))?;
            let sample = parse_sample(line).map_err(|e| at(&e))?;
            let allowed: Vec<String> = match family.kind.as_str() {
                "histogram" => ["_bucket", "_sum", "_count"]
                    .iter()
                    .map(|s| format!("{}{s}", family.name))
                    .collect(),
                _ => vec![family.name.clone()],
            };
            if !allowed.contains(&sample.name) {
                return Err(at("sample of another family"));
            }
            family.samples.push(sample);
        }
    }
    Ok(out)
}

fn parse_sample(line: &str) -> Result<ParsedSample, String> {
    let name_end = line.find(['{', ' ']).ok_or_else(|| "no value".to_owned())?;
    let name = &line[..name_end];
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
    {
        return Err("bad metric name".into());
    }
    let mut rest = &line[name_end..];
    let mut labels = BTreeMap::new();
    if let Some(r) = rest.strip_prefix('{') {
        rest = r;
        loop {
            if let Some(r) = rest.strip_prefix('}') {
                rest = r;
                break;
            }
            let (key, r) = rest.split_once("=\"").ok_or("label without =\"")?;
            let mut value = String::new();
            let mut chars = r.char_indices();
            let end = loop {
                match chars.next().ok_or("unterminated label value")? {
                    (i, '"') => break i,
                    (_, '\\') => match chars.next().ok_or("dangling escape")?.1 {
                        'n' => value.push('\n'),
                        c @ ('\\' | '"') => value.push(c),
                        c => return Err(format!("bad escape \\{c}")),
                    },
                    (_, c) => value.push(c),
                }
            };
            if labels.insert(key.to_owned(), value).is_some() {
                return Err(format!("label {key} twice"));
            }
            rest = &r[end + 1..];
            rest = rest.strip_prefix(',').unwrap_or(rest);
        }
    }
    let value = rest.strip_prefix(' ').ok_or("no space before the value")?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().map_err(|_| format!("bad value {v:?}"))?,
    };
    Ok(ParsedSample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// The value of sample `name` with exactly these labels, if the scrape has it.
pub fn value(parsed: &[ParsedFamily], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let want: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    parsed
        .iter()
        .flat_map(|f| &f.samples)
        .find(|s| s.name == name && s.labels == want)
        .map(|s| s.value)
}

/// Checks what a scraper relies on beyond the syntax: every family one of the table's, with
/// its labels; each histogram's buckets cumulative, ending at `+Inf` = `_count`.
pub fn check_semantics(role: Role, parsed: &[ParsedFamily]) {
    let expected: Vec<String> = families::of(role)
        .iter()
        .map(|f| match f.kind {
            families::Kind::Counter => format!("{}_total", f.name),
            _ => f.name.to_owned(),
        })
        .collect();
    let names: Vec<&str> = parsed.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, expected, "every family of the role, in order");
    for (f, table) in parsed.iter().zip(families::of(role)) {
        for s in &f.samples {
            let mut keys: Vec<&str> = s.labels.keys().map(String::as_str).collect();
            let mut want: Vec<&str> = table.labels.to_vec();
            if s.name.ends_with("_bucket") {
                want.push("le");
            }
            keys.sort_unstable();
            want.sort_unstable();
            assert_eq!(keys, want, "labels of {}", s.name);
        }
        if f.kind != "histogram" {
            continue;
        }
        // Series by their labels less `le`.
        let mut series: BTreeMap<Vec<(String, String)>, Vec<&ParsedSample>> = BTreeMap::new();
        for s in &f.samples {
            let key = s
                .labels
                .iter()
                .filter(|(k, _)| *k != "le")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            series.entry(key).or_default().push(s);
        }
        for (key, samples) in series {
            let buckets: Vec<(f64, f64)> = samples
                .iter()
                .filter(|s| s.name.ends_with("_bucket"))
                .map(|s| (s.labels["le"].parse::<f64>().expect("le"), s.value))
                .collect();
            let count = samples
                .iter()
                .find(|s| s.name.ends_with("_count"))
                .expect("_count")
                .value;
            assert!(
                buckets
                    .windows(2)
                    .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1)
            );
            assert_eq!(
                buckets.last().copied(),
                Some((f64::INFINITY, count)),
                "{key:?}"
            );
        }
    }
}

/// `promtool check metrics` (Debian's `prometheus` package) on `text`: `None` when promtool is
/// not installed (outside CI; under CI it must be), else its verdict and output.
pub fn promtool(text: &str) -> Option<(bool, String)> {
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var_os("CI").is_none_or(|v| v.is_empty()),
                "promtool is needed under CI (deploy/setup.sh --test installs prometheus)"
            );
            return None;
        }
        Err(e) => panic!("promtool: {e}"),
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to promtool");
    let out = child.wait_with_output().expect("promtool");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.success() && said.trim().is_empty(), said))
}

/// `GET path` over HTTP/1.1: the status, the content type and the body.
pub fn get(addr: SocketAddr, path: &str) -> (u16, String, String) {
    request(addr, "GET", path)
}

/// `METHOD path` over HTTP/1.1: the status, the content type and the body.
pub fn request(addr: SocketAddr, method: &str, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/plain\r\n\r\n"
    )
    .expect("request");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
    let status = head
        .split(' ')
        .nth(1)
        .expect("status")
        .parse()
        .expect("u16");
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Type: "))
        .unwrap_or_default()
        .to_owned();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .expect("Content-Length")
        .parse()
        .expect("length");
    assert_eq!(length, body.len(), "Content-Length");
    (status, content_type, body.to_owned())
}
