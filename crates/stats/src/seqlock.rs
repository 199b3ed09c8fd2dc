//! A single-writer sequence lock over a fixed block of `AtomicU64`s: the writer never waits, a
//! reader retries until it has read a block that no write overlapped.
//!
//! The scheme is the classic seqlock (Linux `seqcount_t`; H.-J. Boehm, "Can seqlocks get along
//! with programming language memory models?", MSPC 2012) with every shared word an atomic, so it
//! is data-race free in safe Rust: a torn read is detected by the version, never undefined.
//!
//! Writer: version := odd (Relaxed), Release fence, words (Relaxed), version := even (Release).
//! Reader: version (Acquire), words (Relaxed), Acquire fence, version again (Relaxed); accept
//! when both versions are equal and even. On x86 every one of these is a plain `mov`; the fences
//! only stop the compiler from moving the accesses.

use std::sync::atomic::{AtomicU64, Ordering, fence};

/// `N` 64-bit words published together by one writer.
#[derive(Debug)]
pub(crate) struct SeqlockCell<const N: usize> {
    version: AtomicU64,
    words: [AtomicU64; N],
}

impl<const N: usize> SeqlockCell<N> {
    pub(crate) fn new() -> Self {
        SeqlockCell {
            version: AtomicU64::new(0),
            words: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// Publishes `values`. Only one thread may ever write a given cell (the owner of the worker
    /// side keeps it that way: the writer half is not `Clone`).
    #[inline]
    pub(crate) fn write(&self, values: &[u64; N]) {
        let v = self.version.load(Ordering::Relaxed);
        self.version.store(v.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        for (w, x) in self.words.iter().zip(values) {
            w.store(*x, Ordering::Relaxed);
        }
        self.version.store(v.wrapping_add(2), Ordering::Release);
    }

    /// Reads a consistent copy of the last complete write (spins while a write is under way,
    /// which lasts a few dozen nanoseconds).
    pub(crate) fn read(&self) -> [u64; N] {
        loop {
            let v1 = self.version.load(Ordering::Acquire);
            if v1 & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let out: [u64; N] = std::array::from_fn(|i| self.words[i].load(Ordering::Relaxed));
            fence(Ordering::Acquire);
            let v2 = self.version.load(Ordering::Relaxed);
            if v1 == v2 {
                return out;
            }
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn reads_what_was_written() {
        let c = SeqlockCell::<3>::new();
        assert_eq!(c.read(), [0, 0, 0]);
        c.write(&[1, 2, 3]);
        assert_eq!(c.read(), [1, 2, 3]);
    }

    #[test]
    fn concurrent_reader_never_sees_a_torn_block() {
        // Every write stores the same value in all words; a torn read would mix two values.
        let cell = Arc::new(SeqlockCell::<8>::new());
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let cell = Arc::clone(&cell);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    i += 1;
                    cell.write(&[i; 8]);
                    // A worker does a burst of packet work between publications.
                    for _ in 0..64 {
                        std::hint::spin_loop();
                    }
                }
                i
            })
        };
        while cell.read()[0] == 0 {
            std::hint::spin_loop();
        }
        // Read until a thousand different writes have been seen: the reads overlap the writes
        // however the two threads get scheduled.
        let mut last = 0;
        let mut changes = 0;
        while changes < 1000 {
            let r = cell.read();
            assert!(r.iter().all(|&x| x == r[0]), "torn read {r:?}");
            assert!(r[0] >= last, "went backwards");
            changes += u32::from(r[0] != last);
            last = r[0];
        }
        stop.store(true, Ordering::Relaxed);
        let written = writer.join().unwrap();
        assert_eq!(cell.read(), [written; 8]);
    }
}
