//! Arbitrary bytes as a UCI session: through the same bounded line reader,
//! parser and controller as the binary's stdin. Searches run on the real
//! thread pool and are stopped by the next command or at the end.
//!
//! Only what would make a session unbounded is clamped, as a host's limits
//! would: perft depth (a synchronous developer command), Hash (memory) and
//! Threads.
#![no_main]

use kiraly::engine::Engine;
use kiraly::uci::{reader_loop, Command};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (tx, rx) = crossbeam_channel::unbounded();
    reader_loop(data, tx);
    let mut engine = Engine::new();
    for command in rx.try_iter() {
        let command = match command {
            Command::Go(mut params) => {
                params.perft = params.perft.map(|d| d.min(3));
                Command::Go(params)
            }
            Command::SetOption { name, value } => {
                let value = match name.to_ascii_lowercase().as_str() {
                    "hash" => value.map(|v| clamp_number(&v, 64)),
                    "threads" => value.map(|v| clamp_number(&v, 4)),
                    _ => value,
                };
                Command::SetOption { name, value }
            }
            other => other,
        };
        if !engine.handle(command) {
            break;
        }
    }
    // Dropping the engine stops any search still running and joins it.
});

/// Leaves non-numbers alone (the engine must reject them itself).
fn clamp_number(value: &str, max: u64) -> String {
    match value.trim().parse::<u64>() {
        Ok(n) if n > max => max.to_string(),
        _ => value.to_string(),
    }
}
