//! Checking a typed file completely: every problem is collected with the path of its field, and
//! placed in the file afterwards by the [`SourceMap`].

use std::time::Duration;

use super::error::Diagnostic;
use super::source::SourceMap;

/// Problems found in one file, each with the path of its field.
#[derive(Debug, Default)]
pub(crate) struct Issues {
    list: Vec<(String, String)>,
}

impl Issues {
    /// Records a problem with `field` (a path such as `streams[1].rate`).
    pub(crate) fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.list.push((field.into(), message.into()));
    }

    /// The problems' messages, in order.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|(_, m)| m.as_str())
    }

    /// Whether nothing was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The problems placed in the file `name` whose places `map` knows.
    pub(crate) fn located(self, map: &SourceMap, name: &str) -> Vec<Diagnostic> {
        self.list
            .into_iter()
            .map(|(field, message)| {
                let (line, column) = map.locate(&field);
                Diagnostic {
                    file: name.to_owned(),
                    line,
                    column,
                    field,
                    message,
                }
            })
            .collect()
    }
}

impl Issues {
    /// Splits off the problems with the fields under `path`: (those, the others).
    pub(crate) fn partition(self, path: &str) -> (Issues, Issues) {
        let (under, rest) = self
            .list
            .into_iter()
            .partition(|(f, _)| f.starts_with(path));
        (Issues { list: under }, Issues { list: rest })
    }

    /// Adds `other`'s problems.
    pub(crate) fn extend(&mut self, other: Issues) {
        self.list.extend(other.list);
    }

    /// The problems with the fields under `path`, which a command line option (`option`) gave in
    /// place of the file's: reported against the option (`command line: --payloads[1]: ...`).
    /// The others are dropped: the caller checked the file without the option first.
    pub(crate) fn on_command_line(self, path: &str, option: &str) -> Vec<Diagnostic> {
        self.list
            .into_iter()
            .filter_map(|(field, message)| {
                let rest = field.strip_prefix(path)?;
                Some(Diagnostic {
                    file: "command line".to_owned(),
                    line: 0,
                    column: 0,
                    field: format!("{option}{rest}"),
                    message,
                })
            })
            .collect()
    }
}

impl Issues {
    /// Every problem, reported against a command line option (`option`) that caused it:
    /// `command line: --duration: churn.start: ...`, the field named after `context`.
    pub(crate) fn caused_by(self, option: &str, context: &str) -> Vec<Diagnostic> {
        self.list
            .into_iter()
            .map(|(field, message)| Diagnostic {
                file: "command line".to_owned(),
                line: 0,
                column: 0,
                field: option.to_owned(),
                message: format!("{context}{field}: {message}"),
            })
            .collect()
    }
}

/// A file type's own checks: everything that can be known from the file alone.
pub(crate) trait Check {
    /// Fills in what the file leaves to other fields (one-port mode's N6 device), before the
    /// checks.
    fn resolve(&mut self) {}

    /// Adds every problem found to `issues`.
    fn check(&self, issues: &mut Issues);
}

/// A duration that must not be zero.
pub(crate) fn nonzero(d: Duration, field: &str, why: &str, issues: &mut Issues) {
    if d.is_zero() {
        issues.add(field, format!("must be longer than 0 ({why})"));
    }
}
