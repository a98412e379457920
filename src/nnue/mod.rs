//! The learned evaluation: a small efficiently updatable network (NNUE).
//!
//! Architecture `(768 x B -> H) x 2 -> 1`: each side's 768 king-relative
//! inputs in each of B king buckets (see `features`; the net's file gives
//! its bucket layout) feed an accumulator of `HIDDEN` values; the output
//! reads the side to move's accumulator and the other's through SCReLU
//! (clipped ReLU, squared). Weights are i16, quantised by `QA` (accumulator)
//! and `QB` (output); the output times `SCALE` is centipawns.
//!
//! * `features`: the input indices and the board changes of a move;
//! * `network`: the file format, loading, and the forward pass;
//! * `accumulator`: the per-side accumulators, refreshed or updated by a
//!   move's changes;
//! * `simd`: the output layer's dot product, one version per instruction
//!   set (AVX2, SSE2, plain Rust).

pub mod accumulator;
pub mod features;
pub mod network;
pub mod simd;

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::OnceLock;

pub use accumulator::Accumulator;
pub use features::{layout_by_name, BucketLayout, View, INPUTS, ONE_BUCKET};
pub use network::{Network, NetworkError};

/// Accumulator width.
pub const HIDDEN: usize = 256;
/// Quantisation of the accumulator (inputs to SCReLU clip at `QA`).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 256;
/// The float output times `SCALE` is centipawns.
pub const SCALE: i32 = 400;

/// The net built into the binary (`nets/default.nnue`, see `nets/README.md`).
pub const EMBEDDED_BYTES: &[u8] = include_bytes!("../../nets/default.nnue");

/// The `EvalFile` value that names the built-in net.
pub const EMBEDDED_NAME: &str = "<embedded>";

static EMBEDDED: OnceLock<Option<Network>> = OnceLock::new();
/// A net loaded with `EvalFile`; null while the embedded one is in use.
/// Loaded nets are leaked on purpose: a handful of loads per run, and the
/// search threads may still read the previous one.
static LOADED: AtomicPtr<Network> = AtomicPtr::new(std::ptr::null_mut());
/// `Use NNUE`'s default: the net searches unless asked not to, since the
/// built-in net passed an SPRT against the hand-crafted evaluation (see
/// `docs/evaluation.md`). `bench` follows it too.
pub const ENABLED_BY_DEFAULT: bool = true;

/// `Use NNUE`.
static ENABLED: AtomicBool = AtomicBool::new(ENABLED_BY_DEFAULT);

/// The built-in net; `None` only if the file built in were damaged, which
/// a unit test rules out.
pub fn embedded() -> Option<&'static Network> {
    EMBEDDED
        .get_or_init(|| Network::from_bytes(EMBEDDED_BYTES).ok())
        .as_ref()
}

/// The net the evaluation uses when NNUE is on.
#[inline]
pub fn current() -> Option<&'static Network> {
    let loaded = LOADED.load(Ordering::Acquire);
    if loaded.is_null() {
        embedded()
    } else {
        // SAFETY: LOADED only ever holds pointers from `Box::leak`, never freed.
        Some(unsafe { &*loaded })
    }
}

/// Makes `net` the current one (`None`: back to the built-in net).
pub fn set_network(net: Option<Network>) {
    let ptr = net.map_or(std::ptr::null_mut(), |n| {
        Box::leak(Box::new(n)) as *mut Network
    });
    LOADED.store(ptr, Ordering::Release);
}

/// Whether the search evaluates with the net (`Use NNUE`).
#[inline]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// The net a search evaluates with, `None` for the hand-crafted evaluation:
/// the current net when `Use NNUE` is on, except under `UCI_LimitStrength`,
/// whose `UCI_Elo` node budgets were calibrated with the hand-crafted
/// evaluation (`src/strength.rs`). The search and `eval` both ask here, so
/// `eval` names the evaluation the search really uses.
pub fn for_search(limited_strength: bool) -> Option<&'static Network> {
    (enabled() && !limited_strength).then(current).flatten()
}

/// How the tools' command lines (`datagen play --net`, `trainer
/// --augment-net`) name the built-in net.
pub const EMBEDDED_ARG: &str = "embedded";

/// A tool's `--net NAME`: the built-in net for [`EMBEDDED_ARG`], else the
/// file, loaded once and leaked.
pub fn load_named_for_run(name: &str) -> Result<&'static Network, String> {
    load_for_run(Some(name).filter(|n| *n != EMBEDDED_ARG))
}

/// A net for the whole run of a command-line tool: the built-in one for
/// `None`, else the file, loaded once and leaked.
pub fn load_for_run(path: Option<&str>) -> Result<&'static Network, String> {
    match path {
        None => embedded().ok_or_else(|| "the built-in net does not load".to_string()),
        Some(path) => Ok(Box::leak(Box::new(load_file(path)?))),
    }
}

/// Loads a net file for `EvalFile`.
pub fn load_file(path: &str) -> Result<Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_net_loads() {
        let net = embedded().expect("nets/default.nnue is a net of this architecture");
        assert_eq!(
            net.hash,
            network::fnv1a(&EMBEDDED_BYTES[network::HEADER_BYTES..])
        );
    }
}
