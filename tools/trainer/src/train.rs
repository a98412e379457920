//! The training loop.

use std::path::PathBuf;
use std::time::Instant;

use crate::data::Packed;
use crate::model::{gradient, loss, AdamW, Params};

#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub epochs: usize,
    pub batch: usize,
    /// Learning rate at the start; it decays along a cosine to
    /// `lr * final_lr_ratio` at the end.
    pub lr: f32,
    pub final_lr_ratio: f32,
    pub weight_decay: f32,
    /// Weight of the game result in the target (the rest: the score).
    pub lambda: f32,
    pub seed: u64,
    /// Where checkpoints go (`epoch-N.nnue`, `epoch-N.f32`); none if unset.
    pub out_dir: Option<PathBuf>,
    /// Print a progress line every this many batches (0: per epoch only).
    pub progress_batches: usize,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            epochs: 20,
            batch: 16_384,
            lr: 0.001,
            final_lr_ratio: 0.05,
            weight_decay: 0.01,
            lambda: 0.5,
            seed: 1,
            out_dir: None,
            progress_batches: 0,
        }
    }
}

/// What one epoch did.
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    pub train_loss: f32,
    pub validation_loss: f32,
    pub positions_per_second: f64,
    pub lr: f32,
}

/// A deterministic shuffle (Fisher-Yates with the engine's SplitMix64).
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = kiraly::rng::Rng::new(seed);
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// Trains `params` on `train`, reporting the loss on `validation` after each
/// epoch through `report`. Writes checkpoints when `out_dir` is set.
pub fn train(
    params: &mut Params,
    train: &[Packed],
    validation: &[Packed],
    config: &TrainConfig,
    mut report: impl FnMut(&EpochReport),
) -> Result<(), String> {
    if train.is_empty() {
        return Err("no training positions".into());
    }
    let mut adam = AdamW::new(params.shape, config.weight_decay);
    let mut order: Vec<&Packed> = train.iter().collect();
    let batches_per_epoch = train.len().div_ceil(config.batch);
    let total_steps = (batches_per_epoch * config.epochs).max(1);
    let mut step = 0usize;
    if let Some(dir) = &config.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    for epoch in 1..=config.epochs {
        shuffle(&mut order, config.seed.wrapping_add(epoch as u64));
        let start = Instant::now();
        let mut epoch_loss = 0.0f64;
        let mut lr = config.lr;
        for (b, batch) in order.chunks(config.batch).enumerate() {
            let progress = step as f32 / total_steps as f32;
            let cosine = 0.5 * (1.0 + (std::f32::consts::PI * progress).cos());
            lr = config.lr * (config.final_lr_ratio + (1.0 - config.final_lr_ratio) * cosine);
            let (batch_loss, grad) = gradient(params, batch, config.lambda);
            adam.step(params, &grad, lr);
            epoch_loss += f64::from(batch_loss) * batch.len() as f64;
            step += 1;
            if config.progress_batches > 0 && (b + 1) % config.progress_batches == 0 {
                let done = (b + 1) * config.batch;
                eprintln!(
                    "epoch {epoch} | batch {}/{batches_per_epoch} | loss {:.6} | {:.0} pos/s",
                    b + 1,
                    epoch_loss / done as f64,
                    done as f64 / start.elapsed().as_secs_f64().max(1e-9)
                );
            }
        }
        let seconds = start.elapsed().as_secs_f64().max(1e-9);
        let epoch_report = EpochReport {
            epoch,
            train_loss: (epoch_loss / train.len() as f64) as f32,
            validation_loss: loss(params, validation, config.lambda),
            positions_per_second: train.len() as f64 / seconds,
            lr,
        };
        report(&epoch_report);
        if let Some(dir) = &config.out_dir {
            let net = dir.join(format!("epoch-{epoch}.nnue"));
            std::fs::write(&net, params.quantise().to_bytes())
                .map_err(|e| format!("{}: {e}", net.display()))?;
            let raw = dir.join(format!("epoch-{epoch}.f32"));
            std::fs::write(&raw, params.to_bytes())
                .map_err(|e| format!("{}: {e}", raw.display()))?;
        }
    }
    Ok(())
}
