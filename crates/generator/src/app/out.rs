//! Lines for the user on standard output (logs go to standard error through tracing).

use std::io::Write;

/// Writes `text` and a newline to standard output and flushes, so that a reader of a pipe sees
/// each line when it is made. A closed pipe is not an error worth stopping a run for.
pub fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Writes `text` as it is (several lines) and flushes.
pub fn text(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
