//! Runs a byte stream as a whole UCI conversation in-process, through the same
//! bounded line reader, parser and controller as the binary's stdin; the
//! fuzz target and the fuzz regression tests share it.
//!
//! Only what would make a run unbounded is clamped, as a host's limits
//! would: perft depth (a synchronous developer command), Hash (memory) and
//! Threads. Searches run on the real thread pool and are stopped by the next
//! command or when the engine is dropped at the end.

use crate::engine::Engine;
use crate::output::Output;
use crate::uci::{reader_loop, Command};

/// With `silent`, the engine writes nothing to stdout.
pub fn run_session(data: &[u8], silent: bool) {
    let (tx, rx) = crossbeam_channel::unbounded();
    reader_loop(data, tx);
    let output = if silent { Output::Silent } else { Output::Uci };
    let mut engine = Engine::new(output);
    for command in rx.try_iter() {
        if !engine.handle(clamp(command)) {
            break;
        }
    }
}

fn clamp(command: Command) -> Command {
    match command {
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
    }
}

/// Leaves non-numbers alone: the engine must reject them itself.
fn clamp_number(value: &str, max: u64) -> String {
    match value.trim().parse::<u64>() {
        Ok(n) if n > max => max.to_string(),
        _ => value.to_string(),
    }
}
