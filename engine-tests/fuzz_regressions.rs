//! Replays the inputs kept from fuzzing (`engine-tests/data/fuzz-regressions/`,
//! found with `cargo +nightly fuzz run uci_session`) through the same
//! in-process replay as the fuzz target: each must finish, without a panic,
//! well within its time.

use std::sync::mpsc;
use std::time::Duration;

#[test]
fn kept_fuzz_inputs_replay_cleanly() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/engine-tests/data/fuzz-regressions"
    );
    let mut inputs: Vec<_> = std::fs::read_dir(dir)
        .expect("the regression corpus")
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 20, "the corpus is missing");
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
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name}: no end after 30 s"),
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{name}: panicked"),
        }
    }
}
