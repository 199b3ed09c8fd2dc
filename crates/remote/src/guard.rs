//! Guarding the door (docs/scale.md §4 "Guarding it"): the bearer token, compared in constant
//! time, and the rule that an address other hosts can reach is not served without one.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// The least length of a token, in bytes (`head -c 32 /dev/urandom | base64` gives 44).
pub const TOKEN_MIN_BYTES: usize = 32;

/// Why the server does not start.
#[derive(Debug, Error)]
pub enum ServeError {
    /// An address off loopback with no token.
    #[error("listening on {0} needs --token-file (or --insecure-no-token)")]
    NeedsToken(SocketAddr),
    /// The token file cannot be read.
    #[error("--token-file {path}: {source}")]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The token is too short to guess at.
    #[error(
        "--token-file {path}: {len} bytes, a token needs {TOKEN_MIN_BYTES} or more (head -c 32 \
         /dev/urandom | base64 > {path})"
    )]
    TokenTooShort {
        /// The file.
        path: PathBuf,
        /// Its token's length.
        len: usize,
    },
    /// The address cannot be bound.
    #[error("listening on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// A bearer token: a secret of at least [`TOKEN_MIN_BYTES`] bytes.
#[derive(Clone)]
pub struct Token(Vec<u8>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Token({} bytes)", self.0.len())
    }
}

impl Token {
    /// The token in `path`: its text without the white space around it (a trailing newline).
    pub fn from_file(path: &Path) -> Result<Token, ServeError> {
        let text = std::fs::read(path).map_err(|source| ServeError::TokenFile {
            path: path.to_owned(),
            source,
        })?;
        Token::new(&text).map_err(|len| ServeError::TokenTooShort {
            path: path.to_owned(),
            len,
        })
    }

    /// `secret` without the white space around it; its length if that is under
    /// [`TOKEN_MIN_BYTES`].
    pub fn new(secret: &[u8]) -> Result<Token, usize> {
        let secret = secret.trim_ascii();
        if secret.len() < TOKEN_MIN_BYTES {
            return Err(secret.len());
        }
        Ok(Token(secret.to_vec()))
    }

    /// The secret, for a client's `Authorization` header.
    pub fn secret(&self) -> &[u8] {
        &self.0
    }

    /// Whether `given` is the token, in time that depends on the lengths only: every byte
    /// of the longer is looked at, and nothing returns early.
    pub fn matches(&self, given: &[u8]) -> bool {
        let mine = &self.0;
        let n = mine.len().max(given.len());
        let mut diff = u8::from(mine.len() != given.len());
        for i in 0..n {
            let a = mine.get(i).copied().unwrap_or(0);
            let b = given.get(i).copied().unwrap_or(0);
            diff |= std::hint::black_box(a ^ b);
        }
        diff == 0
    }

    /// Whether an `Authorization` header's value carries the token (`Bearer <token>`, the
    /// scheme in any case, RFC 6750 §2.1).
    pub fn authorizes(&self, header: Option<&[u8]>) -> bool {
        let Some(value) = header else {
            return false;
        };
        let (scheme, rest) = value.split_at(value.len().min(7));
        scheme.eq_ignore_ascii_case(b"bearer ") && self.matches(rest.trim_ascii())
    }
}

/// Whether the server may listen on `addr`: anywhere with a token, only on loopback without
/// one unless the operator said `--insecure-no-token`.
pub fn check_listen(
    addr: SocketAddr,
    token: Option<&Token>,
    insecure_no_token: bool,
) -> Result<(), ServeError> {
    if token.is_none() && !insecure_no_token && !addr.ip().is_loopback() {
        return Err(ServeError::NeedsToken(addr));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn a_token_matches_itself_only() {
        let t = Token::new(SECRET).unwrap();
        assert!(t.matches(SECRET));
        assert!(!t.matches(&SECRET[..31]));
        assert!(!t.matches(b"0123456789abcdef0123456789abcdeF"));
        assert!(!t.matches(b"0123456789abcdef0123456789abcdef0"));
        assert!(!t.matches(b""));
        assert!(t.authorizes(Some(b"Bearer 0123456789abcdef0123456789abcdef")));
        assert!(t.authorizes(Some(b"bearer 0123456789abcdef0123456789abcdef")));
        assert!(!t.authorizes(Some(b"Basic 0123456789abcdef0123456789abcdef")));
        assert!(!t.authorizes(Some(b"Bearer")));
        assert!(!t.authorizes(None));
    }

    #[test]
    fn a_short_token_is_refused_and_white_space_is_not_counted() {
        assert_eq!(Token::new(b"short").unwrap_err(), 5);
        assert_eq!(Token::new(&[b' '; 40]).unwrap_err(), 0);
        let t = Token::new(b"0123456789abcdef0123456789abcdef\n").unwrap();
        assert_eq!(t.secret(), SECRET);
        assert_eq!(format!("{t:?}"), "Token(32 bytes)");
    }

    #[test]
    fn off_loopback_needs_a_token_or_the_insecure_flag() {
        let t = Token::new(SECRET).unwrap();
        let any: SocketAddr = "0.0.0.0:9800".parse().unwrap();
        let lo: SocketAddr = "127.0.0.1:9800".parse().unwrap();
        let lo6: SocketAddr = "[::1]:9800".parse().unwrap();
        let e = check_listen(any, None, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "listening on 0.0.0.0:9800 needs --token-file (or --insecure-no-token)"
        );
        assert!(check_listen(any, Some(&t), false).is_ok());
        assert!(check_listen(any, None, true).is_ok());
        assert!(check_listen(lo, None, false).is_ok());
        assert!(check_listen(lo6, None, false).is_ok());
    }
}
