//! Trains Kiraly's learned evaluation (`kiraly::nnue`) on Kiraly's own
//! games, on the CPU with rayon.
//!
//! * [`data`]: positions from datagen files, packed; features computed with
//!   the engine's own indexing.
//! * [`model`]: the float model, its loss and gradient, AdamW, and the
//!   export to the engine's quantised network file.
//! * [`rescore`]: scores for positions from no game (`--augment`): the
//!   hand-crafted evaluation's, static or searched.
//! * [`train`]: the loop: shuffled batches, a learning-rate schedule, a
//!   held-out loss each epoch, checkpoints, progress.

pub mod data;
pub mod model;
pub mod rescore;
pub mod train;
