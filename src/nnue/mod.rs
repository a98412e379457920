//! The learned evaluation: a small efficiently updatable network (NNUE).
//!
//! Architecture `(768 x B -> H) x 2 -> 1 x O`: each side's 768 king-relative
//! inputs in each of B king buckets (see `features`; the net's file gives
//! its bucket layout) feed an accumulator of `HIDDEN` values; the output
//! reads the side to move's accumulator and the other's through SCReLU
//! (clipped ReLU, squared), with one set of output weights per output
//! bucket: O buckets by the number of pieces on the board (see
//! `output_bucket`), so the net can weigh its features differently in the
//! opening, the middlegame and the endgame at no cost to the accumulators.
//! Weights are i16, quantised by `QA` (accumulator) and `QB` (output); the
//! output times `SCALE` is centipawns.
//!
//! * `features`: the input indices and the board changes of a move;
//! * `network`: the file format, loading, and the forward pass;
//! * `accumulator`: the per-side accumulators, refreshed or updated by a
//!   move's changes;
//! * `stack`: the accumulators along the search's line, behind push a
//!   move, push a null move and evaluate, updated lazily;
//! * `refresh_cache`: per king view, the last values rebuilt there, from
//!   which a king's change of view rebuilds its side by the difference;
//! * `simd`: the vector kernels (column additions, the output layer's dot
//!   product), one module per instruction
//!   set (AVX2, SSE2, NEON, plain Rust).

pub mod accumulator;
pub mod features;
pub mod network;
pub mod refresh_cache;
pub mod simd;
pub mod stack;

use std::sync::OnceLock;

pub use accumulator::Accumulator;
pub use features::{layout_by_name, BucketLayout, View, INPUTS, ONE_BUCKET};
pub use network::{Network, NetworkError};
pub use stack::AccumulatorStack;

/// Accumulator width.
pub const HIDDEN: usize = 256;
/// Quantisation of the accumulator (inputs to SCReLU clip at `QA`).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 256;
/// The float output times `SCALE` is centipawns.
pub const SCALE: i32 = 400;

/// The most output buckets a net may have.
pub const MAX_OUTPUT_BUCKETS: usize = 8;

/// The output bucket of a position with `pieces` pieces on the board (kings
/// included, so 2 to 32) in a net of `buckets` output buckets: equal
/// ranges of the piece count, `ceil(32 / buckets)` wide, from two pieces up
/// (with 8 buckets: 2-5 pieces, 6-9, ..., 30-32).
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    let width = 32usize.div_ceil(buckets.max(1));
    (pieces.saturating_sub(2) / width).min(buckets.max(1) - 1)
}

/// The net built into the binary (`nets/default.nnue`, see `nets/README.md`).
pub const EMBEDDED_BYTES: &[u8] = include_bytes!("../../nets/default.nnue");

/// The `EvalFile` value that names the built-in net.
pub const EMBEDDED_NAME: &str = "<embedded>";

static EMBEDDED: OnceLock<Option<Network>> = OnceLock::new();
/// `Use NNUE`'s default: the net searches unless asked not to, since the
/// built-in net passed an SPRT against the hand-crafted evaluation (see
/// `docs/evaluation.md`). `bench` follows it too.
pub const ENABLED_BY_DEFAULT: bool = true;

/// The built-in net; `None` only if the file built in were damaged, which
/// a unit test rules out.
pub fn embedded() -> Option<&'static Network> {
    EMBEDDED
        .get_or_init(|| Network::from_bytes(EMBEDDED_BYTES).ok())
        .as_ref()
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
    fn output_buckets_split_the_piece_count_evenly() {
        for pieces in 2..=32 {
            assert_eq!(output_bucket(pieces, 1), 0);
        }
        let eight: Vec<usize> = (2..=32).map(|p| output_bucket(p, 8)).collect();
        assert_eq!(&eight[..8], &[0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(eight[eight.len() - 3..], [7, 7, 7]);
        for buckets in 1..=MAX_OUTPUT_BUCKETS {
            let used: std::collections::BTreeSet<usize> =
                (2..=32).map(|p| output_bucket(p, buckets)).collect();
            assert_eq!(used.len(), buckets, "{buckets} buckets");
        }
    }

    #[test]
    fn the_embedded_net_loads() {
        let net = embedded().expect("nets/default.nnue is a net of this architecture");
        assert_eq!(
            net.hash,
            network::fnv1a(&EMBEDDED_BYTES[network::HEADER_BYTES..])
        );
    }
}
