//! Reading a file as its type, then checking it completely.

use serde::de::DeserializeOwned;

use super::error::ConfigError;
use super::issues::{Check, Issues};
use super::source::{SourceMap, options, serde_diagnostic, source_map};
use super::system::{Host, OnHost, ThisProcess};

/// Reads `text` as a `T`, then checks it completely: every problem that the checks find is
/// reported, each at its place; a serde error (unknown field, wrong type, bad value) stops at
/// the first.
pub(crate) fn load<T: DeserializeOwned + Check + OnHost>(
    text: &str,
    name: &str,
) -> Result<(T, SourceMap), ConfigError> {
    load_on(text, name, &ThisProcess)
}

/// [`load`], with `auto` and `{env: NAME}` resolved on `host`.
pub(crate) fn load_on<T: DeserializeOwned + Check + OnHost>(
    text: &str,
    name: &str,
    host: &dyn Host,
) -> Result<(T, SourceMap), ConfigError> {
    let map = source_map(text, name)?;
    let mut value: T = serde_saphyr::from_str_with_options(text, options())
        .map_err(|e| ConfigError::invalid(vec![serde_diagnostic(&e, &map, name)]))?;
    let mut issues = Issues::default();
    value.resolve_on(host, &mut issues);
    value.resolve();
    value.check(&mut issues);
    if issues.is_empty() {
        Ok((value, map))
    } else {
        Err(ConfigError::invalid(issues.located(&map, name)))
    }
}
