//! The sequence tracker on arbitrary inputs: never panics, and the accounting identities hold
//! exactly for any window, first sequence number, sequence of numbers and sent count.
#![no_main]

use libfuzzer_sys::fuzz_target;
use upfbench_stats::SeqTracker;

fuzz_target!(|data: &[u8]| {
    if data.len() < 13 {
        return;
    }
    let window = 64u32 << (data[0] % 6);
    let first = u32::from_le_bytes(data[1..5].try_into().unwrap());
    let sent = u64::from_le_bytes(data[5..13].try_into().unwrap()) >> (data[0] / 6 % 64);
    let mut t = SeqTracker::new(first, window).unwrap();
    let mut confirmed = 0;
    let mut n = 0u64;
    for chunk in data[13..].chunks_exact(4) {
        // Numbers near the previous one are the interesting ones: mix small deltas and jumps.
        let raw = u32::from_le_bytes(chunk.try_into().unwrap());
        let seq = if raw & 1 == 0 {
            first.wrapping_add((raw >> 1) % 4096)
        } else {
            raw
        };
        confirmed += t.observe(seq).newly_lost;
        n += 1;
    }
    let c = t.finish(sent);
    assert_eq!(c.received, n);
    assert_eq!(c.unique + c.lost, c.sent);
    assert_eq!(c.unique + c.duplicates + c.late, c.received);
    assert!(c.reordered <= c.unique);
    assert!(confirmed <= c.lost);
    assert_eq!(confirmed, t.lost_confirmed());
    assert_eq!(c.sent, sent.max(t.head()));
});
