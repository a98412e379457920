//! Fault injection for the reliability tests, compiled only with the cargo
//! feature `fault-injection` (`make test` builds it apart, in
//! target/faults): with the environment variable
//! `KIRALY_INJECT_PANIC` set to `main`, `helper` or `all`, the chosen search
//! threads panic at the start of every search, so the tests can prove through
//! the real binary that a failing thread costs neither the game nor the
//! engine. Read once.

use std::sync::OnceLock;

static TARGET: OnceLock<Option<String>> = OnceLock::new();

pub fn maybe_panic(thread_id: usize) {
    let target = TARGET.get_or_init(|| std::env::var("KIRALY_INJECT_PANIC").ok());
    let hit = match target.as_deref() {
        Some("all") => true,
        Some("main") => thread_id == 0,
        Some("helper") => thread_id > 0,
        _ => false,
    };
    if hit {
        panic!("injected panic in search thread {thread_id} (KIRALY_INJECT_PANIC)");
    }
}
