//! The float model being trained, its gradient, AdamW, and the export to
//! the engine's quantised format.

use kiraly::nnue::features::bucket_count;
use kiraly::nnue::{BucketLayout, Network, HIDDEN, INPUTS, ONE_BUCKET, QA, QB, SCALE};
use rayon::prelude::*;

use crate::data::Packed;

/// Where each kind of parameter starts in `Params::values`, for a king
/// bucket layout: feature weights `[bucket * 768 + input][HIDDEN]` from 0,
/// then the feature biases, the output weights (side to move's half first)
/// and the output bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub layout: BucketLayout,
    pub buckets: usize,
    pub feature_bias: usize,
    pub output_weights: usize,
    pub output_bias: usize,
    /// The number of parameters.
    pub len: usize,
}

impl Shape {
    pub fn new(layout: BucketLayout) -> Result<Shape, String> {
        let buckets = bucket_count(&layout)?;
        let feature_bias = buckets * INPUTS * HIDDEN;
        let output_weights = feature_bias + HIDDEN;
        let output_bias = output_weights + 2 * HIDDEN;
        Ok(Shape {
            layout,
            buckets,
            feature_bias,
            output_weights,
            output_bias,
            len: output_bias + 1,
        })
    }
}

impl Default for Shape {
    /// One king bucket.
    fn default() -> Shape {
        Shape::new(ONE_BUCKET).unwrap_or_else(|_| unreachable!("one bucket is a layout"))
    }
}

/// Every parameter of the model, flat, in `shape`'s order.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub shape: Shape,
    pub values: Vec<f32>,
}

/// Weights are kept within this, so they quantise into i16 (and output
/// weights into the engine's +-127).
pub const CLIP: f32 = 1.98;

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Params {
    /// Small random weights from a fixed seed (uniform, scaled by fan-in).
    pub fn random(shape: Shape, seed: u64) -> Params {
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        let mut uniform = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let mut p = vec![0.0f32; shape.len];
        let ft = 1.0 / (32.0f32).sqrt();
        for w in &mut p[..shape.feature_bias] {
            *w = uniform() * ft;
        }
        let out = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        for w in &mut p[shape.output_weights..shape.output_bias] {
            *w = uniform() * out;
        }
        Params { shape, values: p }
    }

    /// The input indices of a position in this model's buckets: see
    /// `Packed::features`.
    #[inline]
    pub fn features(
        &self,
        pos: &Packed,
        us: &mut [u16; 32],
        them: &mut [u16; 32],
    ) -> Option<usize> {
        pos.features(&self.shape.layout, us, them)
    }

    /// The accumulator of a feature list (before the activation).
    fn accumulate(&self, features: &[u16], acc: &mut [f32; HIDDEN]) {
        let bias = self.shape.feature_bias;
        acc.copy_from_slice(&self.values[bias..bias + HIDDEN]);
        for &f in features {
            let column = &self.values[f as usize * HIDDEN..(f as usize + 1) * HIDDEN];
            for (a, w) in acc.iter_mut().zip(column) {
                *a += w;
            }
        }
    }

    /// The raw output (centipawns / SCALE) of a position, side to move's view.
    pub fn output(&self, pos: &Packed) -> f32 {
        let (mut us, mut them) = ([0u16; 32], [0u16; 32]);
        let Some(n) = self.features(pos, &mut us, &mut them) else {
            return 0.0;
        };
        let (mut a_us, mut a_them) = ([0.0f32; HIDDEN], [0.0f32; HIDDEN]);
        self.accumulate(&us[..n], &mut a_us);
        self.accumulate(&them[..n], &mut a_them);
        self.screlu_output(&a_us, &a_them)
    }

    /// The output layer: SCReLU of both accumulators times the output
    /// weights, plus the bias.
    #[inline]
    fn screlu_output(&self, a_us: &[f32; HIDDEN], a_them: &[f32; HIDDEN]) -> f32 {
        let w = &self.values[self.shape.output_weights..self.shape.output_bias];
        let mut out = self.values[self.shape.output_bias];
        for j in 0..HIDDEN {
            let x = a_us[j].clamp(0.0, 1.0);
            let y = a_them[j].clamp(0.0, 1.0);
            out += w[j] * x * x + w[HIDDEN + j] * y * y;
        }
        out
    }

    /// The evaluation in centipawns.
    pub fn eval_cp(&self, pos: &Packed) -> f32 {
        self.output(pos) * SCALE as f32
    }

    /// Keeps the weights quantisable.
    pub fn clip(&mut self) {
        let shape = self.shape;
        for w in &mut self.values[..shape.feature_bias] {
            *w = w.clamp(-CLIP, CLIP);
        }
        for w in &mut self.values[shape.output_weights..shape.output_bias] {
            *w = w.clamp(-CLIP, CLIP);
        }
    }

    /// The engine's network: weights times QA (features) and QB (output),
    /// the output bias times QA * QB.
    pub fn quantise(&self) -> Network {
        let q = |w: f32, scale: i32| (w * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
        let shape = self.shape;
        let mut feature_weights = vec![[0i16; HIDDEN]; shape.buckets * INPUTS];
        for (i, column) in feature_weights.iter_mut().enumerate() {
            for (j, w) in column.iter_mut().enumerate() {
                *w = q(self.values[i * HIDDEN + j], QA);
            }
        }
        let mut feature_bias = [0i16; HIDDEN];
        for (j, b) in feature_bias.iter_mut().enumerate() {
            *b = q(self.values[shape.feature_bias + j], QA);
        }
        let mut output_weights = [[0i16; HIDDEN]; 2];
        for (half, weights) in output_weights.iter_mut().enumerate() {
            for (j, w) in weights.iter_mut().enumerate() {
                *w = q(self.values[shape.output_weights + half * HIDDEN + j], QB);
            }
        }
        let output_bias = (self.values[shape.output_bias] * (QA * QB) as f32).round() as i32;
        let mut net = Network {
            layout: shape.layout,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            hash: 0,
        };
        net.hash =
            kiraly::nnue::network::fnv1a(&net.to_bytes()[kiraly::nnue::network::HEADER_BYTES..]);
        net
    }

    /// The raw f32 values, for checkpoints (the layout is not stored: the
    /// trainer's `--buckets` gives it).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A checkpoint of `shape`, or of one bucket spread to every bucket of
    /// `shape`: each bucket starts as that net, so training begins from
    /// what it knew and lets the buckets part where the data says so.
    pub fn from_bytes(bytes: &[u8], shape: Shape) -> Result<Params, String> {
        let values: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let one = Shape::default();
        if bytes.len() == shape.len * 4 {
            return Ok(Params { shape, values });
        }
        if bytes.len() != one.len * 4 {
            return Err(format!(
                "a checkpoint of {} king bucket(s) has {} bytes (one bucket: {}), not {}",
                shape.buckets,
                shape.len * 4,
                one.len * 4,
                bytes.len()
            ));
        }
        Ok(Params { shape: one, values }.spread(shape))
    }

    /// The float model of an engine net (each weight divided by its scale:
    /// `quantise` gives the same net back), in `shape`: the net's own
    /// layout, or a one-bucket net spread to every bucket of `shape`. A
    /// net whose float checkpoint is gone (the built-in one, say) can
    /// start the next training from what it knows.
    pub fn from_network(net: &Network, shape: Shape) -> Result<Params, String> {
        let own = Shape::new(net.layout)?;
        let mut values = Vec::with_capacity(own.len);
        let unscale = |w: i16, scale: i32| f32::from(w) / scale as f32;
        for column in &net.feature_weights {
            values.extend(column.iter().map(|&w| unscale(w, QA)));
        }
        values.extend(net.feature_bias.iter().map(|&b| unscale(b, QA)));
        for half in &net.output_weights {
            values.extend(half.iter().map(|&w| unscale(w, QB)));
        }
        values.push(net.output_bias as f32 / (QA * QB) as f32);
        let params = Params { shape: own, values };
        if own == shape {
            Ok(params)
        } else if own.buckets == 1 {
            Ok(params.spread(shape))
        } else {
            Err(format!(
                "a net of {} king buckets in another layout cannot start a net of {}",
                own.buckets, shape.buckets
            ))
        }
    }

    /// This one-bucket model with its feature weights copied into every
    /// bucket of `shape`.
    fn spread(&self, shape: Shape) -> Params {
        let one = self.shape;
        debug_assert_eq!(one.buckets, 1);
        let columns = &self.values[..one.feature_bias];
        let mut values = Vec::with_capacity(shape.len);
        for _ in 0..shape.buckets {
            values.extend_from_slice(columns);
        }
        values.extend_from_slice(&self.values[one.feature_bias..]);
        Params { shape, values }
    }
}

/// The training target: `lambda` of the game result, the rest the search
/// score through the same sigmoid as the output.
pub fn target(pos: &Packed, lambda: f32) -> f32 {
    let score = sigmoid(f32::from(pos.score) / SCALE as f32);
    if pos.result == crate::data::NO_RESULT {
        return score;
    }
    let result = f32::from(pos.result) / 2.0;
    lambda * result + (1.0 - lambda) * score
}

/// Loss and gradient of a batch: mean of (sigmoid(output) - target)^2.
/// The batch is split among rayon's threads, each with a gradient of its own.
pub fn gradient(params: &Params, batch: &[&Packed], lambda: f32) -> (f32, Vec<f32>) {
    let threads = rayon::current_num_threads().max(1);
    let chunk = batch.len().div_ceil(threads).max(1);
    let parts: Vec<(f32, Vec<f32>)> = batch
        .par_chunks(chunk)
        .map(|part| {
            let shape = params.shape;
            let mut grad = vec![0.0f32; shape.len];
            let mut loss = 0.0f32;
            let (mut us, mut them) = ([0u16; 32], [0u16; 32]);
            let (mut a_us, mut a_them) = ([0.0f32; HIDDEN], [0.0f32; HIDDEN]);
            for pos in part {
                let Some(n) = params.features(pos, &mut us, &mut them) else {
                    continue;
                };
                params.accumulate(&us[..n], &mut a_us);
                params.accumulate(&them[..n], &mut a_them);
                let out = params.screlu_output(&a_us, &a_them);
                let w = &params.values[shape.output_weights..shape.output_bias];
                let p = sigmoid(out);
                let error = p - target(pos, lambda);
                loss += error * error;
                let g_out = 2.0 * error * p * (1.0 - p);
                grad[shape.output_bias] += g_out;
                let (mut g_us, mut g_them) = ([0.0f32; HIDDEN], [0.0f32; HIDDEN]);
                for j in 0..HIDDEN {
                    let x = a_us[j].clamp(0.0, 1.0);
                    let y = a_them[j].clamp(0.0, 1.0);
                    grad[shape.output_weights + j] += g_out * x * x;
                    grad[shape.output_weights + HIDDEN + j] += g_out * y * y;
                    // d(x^2)/d(acc) = 2x inside the clip, 0 outside.
                    g_us[j] = if a_us[j] > 0.0 && a_us[j] < 1.0 {
                        g_out * w[j] * 2.0 * x
                    } else {
                        0.0
                    };
                    g_them[j] = if a_them[j] > 0.0 && a_them[j] < 1.0 {
                        g_out * w[HIDDEN + j] * 2.0 * y
                    } else {
                        0.0
                    };
                }
                for j in 0..HIDDEN {
                    grad[shape.feature_bias + j] += g_us[j] + g_them[j];
                }
                for (features, g) in [(&us[..n], &g_us), (&them[..n], &g_them)] {
                    for &f in features {
                        let column = &mut grad[f as usize * HIDDEN..(f as usize + 1) * HIDDEN];
                        for (c, d) in column.iter_mut().zip(g.iter()) {
                            *c += d;
                        }
                    }
                }
            }
            (loss, grad)
        })
        .collect();
    let mut loss = 0.0;
    let mut grad = vec![0.0f32; params.shape.len];
    for (l, g) in parts {
        loss += l;
        for (a, b) in grad.iter_mut().zip(g) {
            *a += b;
        }
    }
    let n = batch.len().max(1) as f32;
    grad.iter_mut().for_each(|g| *g /= n);
    (loss / n, grad)
}

/// The mean loss of a prediction (a logit: centipawns / SCALE) over the
/// positions it gives one for, in parallel; 0 for none.
fn mean_loss(
    positions: &[Packed],
    lambda: f32,
    predict: impl Fn(&Packed) -> Option<f32> + Sync,
) -> f32 {
    let (total, count) = positions
        .par_iter()
        .filter_map(|pos| {
            let e = sigmoid(predict(pos)?) - target(pos, lambda);
            Some((f64::from(e * e), 1usize))
        })
        .reduce(|| (0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if count == 0 {
        return 0.0;
    }
    (total / count as f64) as f32
}

/// The loss of predicting each position's own search score: the figure a
/// net's validation loss is read against (below it, the net predicts the
/// games better than the searches that played them).
pub fn score_loss(positions: &[Packed], lambda: f32) -> f32 {
    mean_loss(positions, lambda, |pos| {
        Some(f32::from(pos.score) / SCALE as f32)
    })
}

/// The hand-crafted evaluation of a position (side to move's view, static);
/// `None` for a position shakmaty rejects.
pub fn hand_crafted_eval(pos: &Packed) -> Option<i32> {
    Some(kiraly::eval::evaluate(&pos.chess()?))
}

/// How far the engine's evaluation with the quantised `net` is from the
/// float model on `positions`: mean and largest absolute difference, cp.
pub fn quantisation_error(
    params: &Params,
    net: &Network,
    positions: &[Packed],
) -> Option<(f32, f32)> {
    let diffs: Vec<f32> = positions
        .par_iter()
        .filter_map(|pos| {
            let engine = kiraly::nnue::accumulator::evaluate(net, &pos.chess()?) as f32;
            Some((engine - params.eval_cp(pos)).abs())
        })
        .collect();
    if diffs.is_empty() {
        return None;
    }
    let mean = diffs.iter().sum::<f32>() / diffs.len() as f32;
    Some((mean, diffs.iter().fold(0.0f32, |a, &b| a.max(b))))
}

/// The loss of the hand-crafted evaluation (static, side to move's view) on
/// the same positions and scale: what a net has to beat to be worth using.
pub fn hand_crafted_loss(positions: &[Packed], lambda: f32) -> f32 {
    mean_loss(positions, lambda, |pos| {
        Some(hand_crafted_eval(pos)? as f32 / SCALE as f32)
    })
}

/// Mean loss of the net over positions, in parallel.
pub fn loss(params: &Params, positions: &[Packed], lambda: f32) -> f32 {
    mean_loss(positions, lambda, |pos| Some(params.output(pos)))
}

/// AdamW's moments.
pub struct AdamW {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
    pub beta1: f32,
    pub beta2: f32,
    pub weight_decay: f32,
}

impl AdamW {
    pub fn new(shape: Shape, weight_decay: f32) -> AdamW {
        AdamW {
            m: vec![0.0; shape.len],
            v: vec![0.0; shape.len],
            t: 0,
            beta1: 0.9,
            beta2: 0.999,
            weight_decay,
        }
    }

    /// One step with learning rate `lr`; weight decay spares the biases.
    pub fn step(&mut self, params: &mut Params, grad: &[f32], lr: f32) {
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        let c1 = 1.0 - b1.powi(self.t);
        let c2 = 1.0 - b2.powi(self.t);
        let decay = self.weight_decay;
        let shape = params.shape;
        params
            .values
            .par_iter_mut()
            .zip(self.m.par_iter_mut())
            .zip(self.v.par_iter_mut())
            .zip(grad.par_iter())
            .enumerate()
            .for_each(|(i, (((p, m), v), &g))| {
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                let update = (*m / c1) / ((*v / c2).sqrt() + 1e-8);
                let is_bias = (shape.feature_bias..shape.output_weights).contains(&i)
                    || i == shape.output_bias;
                let wd = if is_bias { 0.0 } else { decay * *p };
                *p -= lr * (update + wd);
            });
        params.clip();
    }
}
