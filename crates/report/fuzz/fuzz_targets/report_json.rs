//! `Report::from_json` on arbitrary text: never panics, and whatever it accepts renders as a
//! table and CSV and re-reads to the same report.
#![no_main]

use libfuzzer_sys::fuzz_target;
use upfbench_report::Report;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(r) = Report::from_json(text) {
        let _ = r.to_table();
        let _ = r.to_csv();
        let again = Report::from_json(&r.to_json()).expect("a written report reads back");
        // NaN never equals itself; compare the text instead.
        assert_eq!(again.to_json(), r.to_json());
    }
});
