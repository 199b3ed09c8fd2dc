//! Lines for the user on standard output (logs go to standard error through tracing).
//!
//! On a terminal, progress (the live line, establishment) is one line rewritten in place and
//! other lines print above it; in a pipe or a file every progress update is a line of its own,
//! which is what a log reader or `tee` wants.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// A progress line is on screen (terminal only) and must be cleared before other output.
static PROGRESS_SHOWN: AtomicBool = AtomicBool::new(false);

const CLEAR_LINE: &str = "\r\x1b[2K";

fn clear_progress(out: &mut impl Write) {
    if PROGRESS_SHOWN.swap(false, Ordering::Relaxed) {
        let _ = out.write_all(CLEAR_LINE.as_bytes());
    }
}

/// Writes `text` and a newline to standard output and flushes, so that a reader of a pipe sees
/// each line when it is made. A closed pipe is not an error worth stopping a run for.
pub fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    clear_progress(&mut out);
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Writes `text` as it is (several lines) and flushes.
pub fn text(text: &str) {
    let mut out = std::io::stdout().lock();
    clear_progress(&mut out);
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Shows a progress update: in place on a terminal, as a line otherwise.
pub fn progress(text: &str) {
    let mut out = std::io::stdout().lock();
    if out.is_terminal() {
        let _ = write!(out, "{CLEAR_LINE}{text}");
        PROGRESS_SHOWN.store(true, Ordering::Relaxed);
    } else {
        let _ = writeln!(out, "{text}");
    }
    let _ = out.flush();
}

/// Whether standard output is a terminal (progress is rewritten in place there).
pub fn is_terminal() -> bool {
    std::io::stdout().is_terminal()
}
