//! Checking a typed file completely: every problem is collected with the path of its field, and
//! placed in the file afterwards by the [`SourceMap`].

use std::time::Duration;

use super::error::Diagnostic;
use super::source::SourceMap;

/// Problems found in one file, each with the path of its field.
#[derive(Debug, Default)]
pub(crate) struct Issues {
    list: Vec<(String, String)>,
    /// Problems inside a text value: its field, the byte offset in the text, the message.
    within: Vec<(String, usize, String)>,
}

impl Issues {
    /// Records a problem with `field` (a path such as `streams[1].rate`).
    pub(crate) fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.list.push((field.into(), message.into()));
    }

    /// Records a problem at byte `offset` of the text of `field` (an SDF filter that does not
    /// parse): placed there when the file writes the text on one line, else at the value.
    pub(crate) fn add_within(
        &mut self,
        field: impl Into<String>,
        offset: usize,
        message: impl Into<String>,
    ) {
        self.within.push((field.into(), offset, message.into()));
    }

    /// The problems' messages, in order.
    pub(crate) fn messages(&self) -> impl Iterator<Item = &str> {
        let within = self.within.iter().map(|(_, _, m)| m.as_str());
        self.list.iter().map(|(_, m)| m.as_str()).chain(within)
    }

    /// Whether nothing was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty() && self.within.is_empty()
    }

    /// The problems placed in the file `name` whose places `map` knows.
    pub(crate) fn located(self, map: &SourceMap, name: &str) -> Vec<Diagnostic> {
        let within = self.within.into_iter().map(|(field, offset, message)| {
            let place = map.locate_within(&field, offset);
            (field, message, place)
        });
        self.list
            .into_iter()
            .map(|(field, message)| {
                let place = map.locate(&field);
                (field, message, place)
            })
            .chain(within)
            .map(|(field, message, (line, column))| Diagnostic {
                file: name.to_owned(),
                line,
                column,
                field,
                message,
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
        let under = Issues {
            list: under,
            within: Vec::new(),
        };
        let rest = Issues {
            list: rest,
            within: self.within,
        };
        (under, rest)
    }

    /// Adds `other`'s problems.
    pub(crate) fn extend(&mut self, other: Issues) {
        self.list.extend(other.list);
        self.within.extend(other.within);
    }

    /// Every problem as `(field, message)`, those inside a text at their field.
    fn all(self) -> impl Iterator<Item = (String, String)> {
        let within = self.within.into_iter().map(|(f, _, m)| (f, m));
        self.list.into_iter().chain(within)
    }

    /// The problems with the fields under `path`, which a command line option (`option`) gave in
    /// place of the file's: reported against the option (`command line: --payloads[1]: ...`).
    /// The others are dropped: the caller checked the file without the option first.
    pub(crate) fn on_command_line(self, path: &str, option: &str) -> Vec<Diagnostic> {
        self.all()
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
        self.all()
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
