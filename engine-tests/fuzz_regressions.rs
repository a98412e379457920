//! Replays the inputs kept from fuzzing (`engine-tests/data/fuzz-regressions/`,
//! found with `cargo +nightly fuzz run uci_session`) through the same
//! in-process replay as the fuzz target: each must finish well within its
//! time, and no thread may panic.
//!
//! The engine catches a panic in a search thread and reports it as
//! `info string internal error`, which the silenced replay would hide; so a
//! panic hook, which runs for every panic in the process before any
//! unwinding or catching, records them all.

use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

/// Every panic message seen, with the thread it happened on.
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The inputs kept so far; a replay that finds fewer lost some.
const KEPT_INPUTS: usize = 63;

#[test]
fn kept_fuzz_inputs_replay_cleanly() {
    std::panic::set_hook(Box::new(|info| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("unnamed").to_string();
        PANICS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(format!("thread {name}: {info}"));
    }));
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/engine-tests/data/fuzz-regressions"
    );
    let mut inputs: Vec<_> = std::fs::read_dir(dir)
        .expect("the regression corpus")
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= KEPT_INPUTS,
        "{} inputs in the corpus, {KEPT_INPUTS} were kept",
        inputs.len()
    );
    let mut failures = Vec::new();
    for path in inputs {
        let data = std::fs::read(&path).unwrap();
        let (done_tx, done_rx) = mpsc::channel();
        let name = path.display().to_string();
        std::thread::spawn(move || {
            kiraly::replay::run_session(&data, true);
            let _ = done_tx.send(());
        });
        match done_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(()) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                failures.push(format!("{name}: no end after 30 s"));
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                failures.push(format!("{name}: the replay panicked"))
            }
        }
        let panics: Vec<String> =
            std::mem::take(&mut *PANICS.lock().unwrap_or_else(|p| p.into_inner()));
        for p in panics {
            failures.push(format!("{name}: {p}"));
        }
    }
    // The default hook again, so that the failure below is printed.
    let _ = std::panic::take_hook();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
