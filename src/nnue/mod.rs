//! The learned evaluation: a small efficiently updatable network (NNUE).
//!
//! Architecture `(768 x B -> H) x 2 -> 1`: each side's 768 king-relative
//! inputs (see `features`) feed an accumulator of `HIDDEN` values; the output
//! reads the side to move's accumulator and the other's through SCReLU
//! (clipped ReLU, squared). Weights are i16, quantised by `QA` (accumulator)
//! and `QB` (output); the output times `SCALE` is centipawns.
//!
//! * `features`: the input indices and the board changes of a move;
//! * `network`: the file format, loading, and the forward pass;
//! * `accumulator`: the per-side accumulators, refreshed or updated by a
//!   move's changes.

pub mod accumulator;
pub mod features;
pub mod network;

pub use accumulator::Accumulator;
pub use features::{BucketLayout, View, INPUTS};
pub use network::{Network, NetworkError};

/// Accumulator width.
pub const HIDDEN: usize = 64;
/// King buckets of this build's architecture (one: inputs depend on the
/// king only through the file mirroring). A net with another layout is
/// refused when loaded.
pub const BUCKET_LAYOUT: BucketLayout = [0; 32];
/// Number of king buckets in `BUCKET_LAYOUT`.
pub const BUCKETS: usize = 1;
/// Quantisation of the accumulator (inputs to SCReLU clip at `QA`).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// The float output times `SCALE` is centipawns.
pub const SCALE: i32 = 400;
