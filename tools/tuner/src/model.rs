//! The evaluation as a differentiable function of the parameters, the loss
//! and its gradient, the fit of K and the Adam optimiser.
//!
//! # Parameter vector
//!
//! `theta[2 * i]` and `theta[2 * i + 1]` are the middlegame and endgame
//! halves of `VALUES[i]`; `theta[2 * NUM_PARAMS + k]` is `KING_DANGER[k]`.
//!
//! # Model (White's view, floating point)
//!
//! ```text
//! mg = sum(coef * theta_mg) + king_mg(White king) - king_mg(Black king)
//! eg = sum(coef * theta_eg) + king_eg(White king) - king_eg(Black king)
//! danger = clamp(queen_scale * sum(inputs * theta_kd), 0, KD_MAX)
//! king_mg = -danger^2 / KD_MG_DIV, king_eg = -danger / KD_EG_DIV
//! eval = mg * w_mg + eg * w_eg
//! w_mg = phase/24 * hm/80, w_eg = scale/64 * (24 - phase)/24 * hm/80
//! ```
//!
//! which is the engine's integer formula without its truncating divisions.
//!
//! # Loss
//!
//! `p = 1 / (1 + 10^(-K * eval / 400))`, the expected score for White with
//! the usual Elo scaling (K = 1: a 400 cp advantage is 10:1 odds);
//! `target = (1 - lambda) * result + lambda * p(score)`;
//! `loss = mean((p - target)^2)`.

use std::time::Instant;

use kiraly::eval::params::{
    kd, KD_EG_DIV, KD_MAX, KD_MG_DIV, KD_NO_QUEEN_SCALE, KING_DANGER, NUM_PARAMS, VALUES,
};
use kiraly::eval::MAX_PHASE;
use rayon::prelude::*;

use crate::data::{Dataset, Sample};
use crate::ordered_sum::ordered_sum;

/// Number of tuned numbers: two per linear weight plus the king-danger weights.
pub const THETA_LEN: usize = 2 * NUM_PARAMS + kd::COUNT;
/// Offset of the king-danger weights in the parameter vector.
pub const KD_OFFSET: usize = 2 * NUM_PARAMS;

/// The engine's current parameters as a vector.
pub fn current_theta() -> Vec<f64> {
    let mut theta = Vec::with_capacity(THETA_LEN);
    for v in VALUES.iter() {
        theta.push(v.mg as f64);
        theta.push(v.eg as f64);
    }
    theta.extend(KING_DANGER.iter().map(|&w| w as f64));
    theta
}

/// Rounds a parameter vector to the engine's integers: `(mg, eg)` pairs and
/// king-danger weights.
pub fn round_theta(theta: &[f64]) -> (Vec<(i32, i32)>, Vec<i32>) {
    let pairs = (0..NUM_PARAMS)
        .map(|i| (theta[2 * i].round() as i32, theta[2 * i + 1].round() as i32))
        .collect();
    let kd = theta[KD_OFFSET..]
        .iter()
        .map(|w| w.round() as i32)
        .collect();
    (pairs, kd)
}

/// A parameter vector from `(mg, eg)` pairs and king-danger weights.
pub fn theta_from(pairs: &[(i32, i32)], kd: &[i32]) -> Vec<f64> {
    let mut theta: Vec<f64> = pairs
        .iter()
        .flat_map(|&(m, e)| [m as f64, e as f64])
        .collect();
    theta.extend(kd.iter().map(|&w| w as f64));
    theta
}

/// Danger of one king and its derivative with respect to the raw sum
/// (0 where clamped).
#[inline]
fn danger(theta: &[f64], inputs: &[i8; kd::COUNT], queen_scale: f32) -> (f64, f64) {
    let mut raw = 0.0;
    for (w, &x) in theta[KD_OFFSET..].iter().zip(inputs) {
        raw += w * x as f64;
    }
    let raw = raw * queen_scale as f64;
    let max = KD_MAX as f64;
    if raw <= 0.0 {
        (0.0, 0.0)
    } else if raw >= max {
        (max, 0.0)
    } else {
        (raw, 1.0)
    }
}

/// The evaluation of one sample, White's view, in centipawns.
#[inline]
pub fn evaluate(theta: &[f64], data: &Dataset, s: &Sample) -> f64 {
    if s.scale == 0 {
        return 0.0;
    }
    let (mut mg, mut eg) = (0.0, 0.0);
    for c in data.coefs_of(s) {
        let i = 2 * c.index as usize;
        mg += c.count as f64 * theta[i];
        eg += c.count as f64 * theta[i + 1];
    }
    for (sign, king) in [(1.0, &s.kings[0]), (-1.0, &s.kings[1])] {
        // kings[0] is Black's king (Color::Black as usize == 0).
        let (d, _) = danger(theta, &king.inputs, king.queen_scale);
        mg += sign * d * d / KD_MG_DIV as f64;
        eg += sign * d / KD_EG_DIV as f64;
    }
    let (wm, we) = s.weights();
    mg * wm + eg * we
}

/// The engine's own integer arithmetic on the stored coefficients, with
/// integer parameters (as rounded by [`round_theta`]): equal to
/// `kiraly::eval::evaluate` from White's view when they are the engine's.
pub fn evaluate_int(pairs: &[(i32, i32)], king_danger: &[i32], data: &Dataset, s: &Sample) -> i32 {
    if s.scale == 0 {
        return 0;
    }
    let (mut mg, mut eg) = (0, 0);
    for c in data.coefs_of(s) {
        let (m, e) = pairs[c.index as usize];
        mg += c.count as i32 * m;
        eg += c.count as i32 * e;
    }
    for (sign, king) in [(1, &s.kings[0]), (-1, &s.kings[1])] {
        let mut raw: i32 = king_danger
            .iter()
            .zip(&king.inputs)
            .map(|(w, &x)| w * x as i32)
            .sum();
        if king.queen_scale != 1.0 {
            raw = raw * KD_NO_QUEEN_SCALE / 128;
        }
        let d = raw.clamp(0, KD_MAX);
        mg += sign * (d * d / KD_MG_DIV);
        eg += sign * (d / KD_EG_DIV);
    }
    let phase = s.phase as i32;
    let eg = eg * s.scale as i32 / 64;
    let tapered = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    tapered * s.halfmove_factor as i32 / 80
}

/// `1 / (1 + 10^(-k * eval / 400))`.
#[inline]
pub fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// Training target of a sample.
#[inline]
fn target(k: f64, lambda: f64, s: &Sample) -> f64 {
    if lambda == 0.0 {
        s.result as f64
    } else {
        (1.0 - lambda) * s.result as f64 + lambda * sigmoid(k, s.score as f64)
    }
}

/// Mean squared error over the training positions.
pub fn loss(theta: &[f64], data: &Dataset, k: f64, lambda: f64) -> f64 {
    loss_on(theta, data, &data.samples, k, lambda)
}

/// Mean squared error over `samples` (training or validation positions of
/// `data`).
pub fn loss_on(theta: &[f64], data: &Dataset, samples: &[Sample], k: f64, lambda: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum = ordered_sum(samples, REDUCTION_CHUNK, |s| {
        let e = sigmoid(k, evaluate(theta, data, s)) - target(k, lambda, s);
        e * e
    });
    sum / samples.len() as f64
}

/// Positions per parallel work item of a reduction. Fixed, so that the
/// order of the floating-point additions never depends on how rayon
/// splits the work (see [`ordered_sum`]).
const REDUCTION_CHUNK: usize = 2048;

/// Adds `scale * d eval / d theta` of one sample to `grad`.
#[inline]
fn add_eval_gradient(theta: &[f64], data: &Dataset, s: &Sample, scale: f64, grad: &mut [f64]) {
    let (wm, we) = s.weights();
    let (wm, we) = (wm * scale, we * scale);
    for c in data.coefs_of(s) {
        let i = 2 * c.index as usize;
        grad[i] += c.count as f64 * wm;
        grad[i + 1] += c.count as f64 * we;
    }
    for (sign, king) in [(1.0, &s.kings[0]), (-1.0, &s.kings[1])] {
        let (d, slope) = danger(theta, &king.inputs, king.queen_scale);
        if slope == 0.0 {
            continue;
        }
        // d eval / d danger, then d danger / d weight = queen_scale * input.
        let de = sign * (wm * 2.0 * d / KD_MG_DIV as f64 + we / KD_EG_DIV as f64);
        let de = de * king.queen_scale as f64;
        for (g, &x) in grad[KD_OFFSET..].iter_mut().zip(&king.inputs) {
            *g += de * x as f64;
        }
    }
}

/// Gradient of the mean squared error over `samples` (a slice of
/// `data.samples`) with respect to every parameter.
pub fn gradient(
    theta: &[f64],
    data: &Dataset,
    samples: &[Sample],
    k: f64,
    lambda: f64,
) -> Vec<f64> {
    let n = samples.len().max(1) as f64;
    let dp = k * std::f64::consts::LN_10 / 400.0;
    let partial: Vec<Vec<f64>> = samples
        .par_chunks(REDUCTION_CHUNK)
        .map(|chunk| {
            let mut grad = vec![0.0; THETA_LEN];
            for s in chunk {
                let e = evaluate(theta, data, s);
                let p = sigmoid(k, e);
                // d loss / d eval for this sample.
                let dl = 2.0 * (p - target(k, lambda, s)) * p * (1.0 - p) * dp / n;
                add_eval_gradient(theta, data, s, dl, &mut grad);
            }
            grad
        })
        .collect();
    // Chunk order, not rayon's split order: see `REDUCTION_CHUNK`.
    let mut total = vec![0.0; THETA_LEN];
    for grad in partial {
        for (x, y) in total.iter_mut().zip(grad) {
            *x += y;
        }
    }
    total
}

/// The K minimising the loss for fixed parameters (coarse scan, then a
/// golden-section search).
pub fn fit_k(theta: &[f64], data: &Dataset, lambda: f64) -> f64 {
    // Each sample's evaluation, computed once for the whole scan.
    let evaluated: Vec<(f64, &Sample)> = data
        .samples
        .par_iter()
        .map(|s| (evaluate(theta, data, s), s))
        .collect();
    let loss_k = |k: f64| -> f64 {
        let sum = ordered_sum(&evaluated, REDUCTION_CHUNK, |&(e, s)| {
            let d = sigmoid(k, e) - target(k, lambda, s);
            d * d
        });
        sum / evaluated.len().max(1) as f64
    };
    let mut best = (f64::INFINITY, 1.0);
    let mut k = 0.05;
    while k <= 5.0 + 1e-9 {
        let l = loss_k(k);
        if l < best.0 {
            best = (l, k);
        }
        k += 0.05;
    }
    let (mut lo, mut hi) = ((best.1 - 0.05).max(1e-3), best.1 + 0.05);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - phi * (hi - lo);
    let mut b = lo + phi * (hi - lo);
    let (mut la, mut lb) = (loss_k(a), loss_k(b));
    for _ in 0..40 {
        if la < lb {
            hi = b;
            b = a;
            lb = la;
            a = hi - phi * (hi - lo);
            la = loss_k(a);
        } else {
            lo = a;
            a = b;
            la = lb;
            b = lo + phi * (hi - lo);
            lb = loss_k(b);
        }
    }
    (lo + hi) / 2.0
}

/// Optimiser settings.
#[derive(Clone, Debug)]
pub struct Train {
    pub epochs: usize,
    /// Adam step size in centipawns (king-danger weight units).
    pub lr: f64,
    /// Positions per step; 0 = the whole dataset (full batch).
    pub batch: usize,
    pub k: f64,
    pub lambda: f64,
    /// `frozen[j]`: `theta[j]` is not changed.
    pub frozen: Vec<bool>,
    /// Weight of the L2 penalty `l2 * sum((theta - start)^2)` that holds
    /// each weight near its starting value unless the data insist. Adam
    /// scales every weight's step alike, so a rarely seen weight (a queen
    /// with 25 safe squares) otherwise drifts on the noise of a few samples.
    pub l2: f64,
    /// Return the weights of the epoch with the lowest validation loss
    /// (early stopping) rather than those of the last epoch.
    pub keep_best: bool,
}

/// Per-epoch report: epoch (1-based), losses after it, seconds it took.
pub struct EpochReport {
    pub epoch: usize,
    pub loss: f64,
    /// Loss on the held-out positions (0 without any).
    pub validation: f64,
    pub seconds: f64,
}

/// Runs Adam on `theta`, calling `report` after every epoch. Returns the
/// epoch whose weights `theta` holds at the end (with `keep_best` and
/// held-out positions, the best on them; 0 for the starting weights).
pub fn train(
    theta: &mut [f64],
    data: &Dataset,
    cfg: &Train,
    mut report: impl FnMut(EpochReport),
) -> usize {
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    const EPS: f64 = 1e-8;
    let mut m = vec![0.0; THETA_LEN];
    let mut v = vec![0.0; THETA_LEN];
    let mut step = 0i32;
    let start_theta = theta.to_vec();
    let keep_best = cfg.keep_best && !data.validation.is_empty();
    let mut best = (
        0,
        if keep_best {
            loss_on(theta, data, &data.validation, cfg.k, cfg.lambda)
        } else {
            f64::INFINITY
        },
        theta.to_vec(),
    );
    let batch = if cfg.batch == 0 {
        data.len().max(1)
    } else {
        cfg.batch
    };
    for epoch in 1..=cfg.epochs {
        let start = Instant::now();
        for samples in data.samples.chunks(batch) {
            let mut grad = gradient(theta, data, samples, cfg.k, cfg.lambda);
            if cfg.l2 > 0.0 {
                for ((g, &x), &x0) in grad.iter_mut().zip(theta.iter()).zip(&start_theta) {
                    *g += 2.0 * cfg.l2 * (x - x0);
                }
            }
            step += 1;
            let c1 = 1.0 - BETA1.powi(step);
            let c2 = 1.0 - BETA2.powi(step);
            for j in 0..THETA_LEN {
                if cfg.frozen[j] {
                    continue;
                }
                m[j] = BETA1 * m[j] + (1.0 - BETA1) * grad[j];
                v[j] = BETA2 * v[j] + (1.0 - BETA2) * grad[j] * grad[j];
                theta[j] -= cfg.lr * (m[j] / c1) / ((v[j] / c2).sqrt() + EPS);
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        let loss = loss(theta, data, cfg.k, cfg.lambda);
        let validation = loss_on(theta, data, &data.validation, cfg.k, cfg.lambda);
        report(EpochReport {
            epoch,
            loss,
            validation,
            seconds,
        });
        if keep_best && validation < best.1 {
            best = (epoch, validation, theta.to_vec());
        }
    }
    if keep_best {
        theta.copy_from_slice(&best.2);
        best.0
    } else {
        cfg.epochs
    }
}
