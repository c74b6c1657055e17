//! Fuzzes the RON loader: any text must load or give an error (never one meant for warpsim's
//! own bugs), never panic or hang.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = std::str::from_utf8(data) {
        if let Err(d) = warpsim_lang::load_str("fuzz.ron", src, &warpsim_lang::Options::default()) {
            warpsim_runner::fuzz_limits::assert_not_a_bug(&d);
        }
    }
});
