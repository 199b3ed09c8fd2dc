//! Located diagnostics and the error the loaders return.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;

use thiserror::Error;

/// One problem in a configuration file, at a place in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name as given to the loader (its path, or the name passed to `*_from_str`).
    pub file: String,
    /// 1-based line; 0 when the problem has no place in the file (it could not be read).
    pub line: u64,
    /// 1-based column (characters); 0 with `line` 0.
    pub column: u64,
    /// The field, as a path from the document's root: `streams[1].rate`, `n3.address`; empty
    /// for the document as a whole (a YAML syntax error).
    pub field: String,
    /// What is wrong, and where it helps, what to write instead.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    /// `file:line:column: field: message`, leaving out what is unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// An IPv6 address where a part of this version carries IPv4 only: the files take IPv6 ports and
/// UEs, and a part that does not carry them yet asks for the IPv4 form through this, and stops
/// with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("{0}: IPv6 is not supported yet (IPv4 only)")]
pub struct NotIpv4(pub IpAddr);

/// `addr` as IPv4, or [`NotIpv4`].
pub fn ipv4(addr: IpAddr) -> Result<std::net::Ipv4Addr, NotIpv4> {
    match addr {
        IpAddr::V4(a) => Ok(a),
        IpAddr::V6(_) => Err(NotIpv4(addr)),
    }
}

/// A configuration that cannot be used: a file that cannot be read, or one or more diagnostics.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read and is wrong: every problem found, in file and line order.
    #[error("{}", DiagnosticLines(diagnostics))]
    Invalid {
        /// One entry per problem, never empty.
        diagnostics: Vec<Diagnostic>,
    },
}

impl ConfigError {
    /// The located diagnostics (empty for a read error).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            ConfigError::Read { .. } => &[],
            ConfigError::Invalid { diagnostics } => diagnostics,
        }
    }

    /// Sorts by file, line and column, drops exact repeats, and wraps them.
    pub(crate) fn invalid(mut diagnostics: Vec<Diagnostic>) -> ConfigError {
        diagnostics.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.field).cmp(&(&b.file, b.line, b.column, &b.field))
        });
        diagnostics.dedup();
        ConfigError::Invalid { diagnostics }
    }
}

/// One diagnostic per line.
struct DiagnosticLines<'a>(&'a [Diagnostic]);

impl fmt::Display for DiagnosticLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(line: u64, field: &str, message: &str) -> Diagnostic {
        Diagnostic {
            file: "p.yaml".into(),
            line,
            column: 3,
            field: field.into(),
            message: message.into(),
        }
    }

    #[test]
    fn prints_one_diagnostic_per_line_in_file_order() {
        let err = ConfigError::invalid(vec![
            diag(12, "streams[1].rate", "\"10 Gbps\" needs L1 or L2"),
            diag(2, "", "did not find expected key"),
            diag(12, "streams[1].rate", "\"10 Gbps\" needs L1 or L2"),
        ]);
        assert_eq!(err.diagnostics().len(), 2);
        assert_eq!(
            err.to_string(),
            "p.yaml:2:3: did not find expected key\n\
             p.yaml:12:3: streams[1].rate: \"10 Gbps\" needs L1 or L2"
        );
    }

    #[test]
    fn an_unlocated_diagnostic_names_only_the_file() {
        assert_eq!(diag(0, "", "empty").to_string(), "p.yaml: empty");
    }
}
