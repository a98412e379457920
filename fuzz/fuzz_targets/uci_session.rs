//! Arbitrary bytes as UCI input (see `kiraly::replay`): run with
//! `cargo +nightly fuzz run uci_session`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiraly::replay::run_session(data, true);
});
