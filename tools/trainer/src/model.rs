//! The float model being trained, its gradient, AdamW, and the export to
//! the engine's quantised format.

use kiraly::huge_pages::HugePageSlice;
use kiraly::nnue::features::bucket_count;
use kiraly::nnue::{
    output_bucket, BucketLayout, Network, HIDDEN, INPUTS, MAX_OUTPUT_BUCKETS, ONE_BUCKET, QA, QB,
    SCALE,
};
use rayon::prelude::*;

use crate::data::Packed;

/// Where each kind of parameter starts in `Params::values`, for a king
/// bucket layout and a number of output buckets: feature weights
/// `[bucket * 768 + input][HIDDEN]` from 0 (with a factoriser, one more
/// block of 768 after the buckets' own), then the feature biases, the
/// output weights (per output bucket, side to move's half first) and the
/// output biases (one per output bucket).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub layout: BucketLayout,
    pub buckets: usize,
    /// Whether the model has a factoriser: a block of feature weights that
    /// every king bucket shares, added to each bucket's own. A position
    /// teaches the shared block whichever bucket its king is in, so a
    /// bucket the data rarely visits still learns what all buckets have in
    /// common. Only the trainer has it: the engine's net gets each bucket's
    /// own weights plus the shared ones (`quantise`).
    pub factoriser: bool,
    /// Output buckets (by the number of pieces: `kiraly::nnue::output_bucket`).
    pub outputs: usize,
    pub feature_bias: usize,
    pub output_weights: usize,
    pub output_bias: usize,
    /// The number of parameters.
    pub len: usize,
}

impl Shape {
    /// One output bucket.
    pub fn new(layout: BucketLayout) -> Result<Shape, String> {
        Shape::with_outputs(layout, 1)
    }

    pub fn with_outputs(layout: BucketLayout, outputs: usize) -> Result<Shape, String> {
        Shape::build(layout, outputs, false)
    }

    /// King buckets `layout`, `outputs` output buckets, and a factoriser
    /// if `factoriser` (which needs more than one king bucket to share).
    pub fn build(layout: BucketLayout, outputs: usize, factoriser: bool) -> Result<Shape, String> {
        if !(1..=MAX_OUTPUT_BUCKETS).contains(&outputs) {
            return Err(format!(
                "{outputs} output buckets: the engine reads 1 to {MAX_OUTPUT_BUCKETS}"
            ));
        }
        let buckets = bucket_count(&layout)?;
        if factoriser && buckets == 1 {
            return Err("a factoriser needs more than one king bucket".into());
        }
        let feature_bias = (buckets + usize::from(factoriser)) * INPUTS * HIDDEN;
        let output_weights = feature_bias + HIDDEN;
        let output_bias = output_weights + outputs * 2 * HIDDEN;
        Ok(Shape {
            layout,
            buckets,
            factoriser,
            outputs,
            feature_bias,
            output_weights,
            output_bias,
            len: output_bias + outputs,
        })
    }

    /// The first feature index of the shared block (the factoriser's).
    #[inline]
    fn shared_base(&self) -> usize {
        self.buckets * INPUTS
    }

    /// Where the output weights of output bucket `bucket` start.
    #[inline]
    fn output_weights_of(&self, bucket: usize) -> usize {
        self.output_weights + bucket * 2 * HIDDEN
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

/// Room for the feature indices of a position: 32 pieces, twice with a
/// factoriser.
pub const MAX_FEATURES: usize = 64;

/// The first 32 entries of a feature list, where `Packed::features` writes.
#[inline]
fn first_32(list: &mut [u16; MAX_FEATURES]) -> &mut [u16; 32] {
    list.first_chunk_mut::<32>()
        .unwrap_or_else(|| unreachable!("64 entries hold 32"))
}

/// Weights are kept within this, so they quantise into i16: times QA or QB
/// an output weight is at most +-507, which the engine's output layer
/// relies on (see `MAX_OUTPUT_WEIGHT` in src/nnue/network.rs).
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

    /// The input indices of a position in this model's buckets (see
    /// `Packed::features`), and with a factoriser each piece's index in
    /// the shared block after them: `2n` indices for `n` pieces.
    #[inline]
    pub fn features(
        &self,
        pos: &Packed,
        us: &mut [u16; MAX_FEATURES],
        them: &mut [u16; MAX_FEATURES],
    ) -> Option<usize> {
        let (own_us, own_them) = (first_32(us), first_32(them));
        let n = pos.features(&self.shape.layout, own_us, own_them)?;
        if !self.shape.factoriser {
            return Some(n);
        }
        let shared = self.shape.shared_base();
        for list in [&mut *us, &mut *them] {
            for i in 0..n {
                list[n + i] = (shared + usize::from(list[i]) % INPUTS) as u16;
            }
        }
        Some(2 * n)
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

    /// The output bucket of a position.
    #[inline]
    fn output_bucket(&self, pos: &Packed) -> usize {
        output_bucket(pos.occupied.count_ones() as usize, self.shape.outputs)
    }

    /// The raw output (centipawns / SCALE) of a position, side to move's view.
    pub fn output(&self, pos: &Packed) -> f32 {
        let (mut us, mut them) = ([0u16; MAX_FEATURES], [0u16; MAX_FEATURES]);
        let Some(n) = self.features(pos, &mut us, &mut them) else {
            return 0.0;
        };
        let (mut a_us, mut a_them) = ([0.0f32; HIDDEN], [0.0f32; HIDDEN]);
        self.accumulate(&us[..n], &mut a_us);
        self.accumulate(&them[..n], &mut a_them);
        self.screlu_output(&a_us, &a_them, self.output_bucket(pos))
    }

    /// The output layer of output bucket `bucket`: SCReLU of both
    /// accumulators times its output weights, plus its bias.
    #[inline]
    fn screlu_output(&self, a_us: &[f32; HIDDEN], a_them: &[f32; HIDDEN], bucket: usize) -> f32 {
        let start = self.shape.output_weights_of(bucket);
        let w = &self.values[start..start + 2 * HIDDEN];
        let mut out = self.values[self.shape.output_bias + bucket];
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
    /// the output bias times QA * QB. With a factoriser, each bucket's
    /// feature weights are its own plus the shared ones, so the engine
    /// evaluates as the model does.
    pub fn quantise(&self) -> Network {
        let q = |w: f32, scale: i32| (w * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
        let shape = self.shape;
        let mut feature_weights = HugePageSlice::<[i16; HIDDEN]>::zeroed(shape.buckets * INPUTS);
        for (i, column) in feature_weights.iter_mut().enumerate() {
            let shared = shape.factoriser.then(|| shape.shared_base() + i % INPUTS);
            for (j, w) in column.iter_mut().enumerate() {
                let own = self.values[i * HIDDEN + j];
                let common = shared.map_or(0.0, |s| self.values[s * HIDDEN + j]);
                *w = q(own + common, QA);
            }
        }
        let mut feature_bias = [0i16; HIDDEN];
        for (j, b) in feature_bias.iter_mut().enumerate() {
            *b = q(self.values[shape.feature_bias + j], QA);
        }
        let mut output_weights = vec![[[0i16; HIDDEN]; 2]; shape.outputs];
        for (bucket, halves) in output_weights.iter_mut().enumerate() {
            let start = shape.output_weights_of(bucket);
            for (half, weights) in halves.iter_mut().enumerate() {
                for (j, w) in weights.iter_mut().enumerate() {
                    *w = q(self.values[start + half * HIDDEN + j], QB);
                }
            }
        }
        let output_bias = self.values[shape.output_bias..]
            .iter()
            .map(|b| (b * (QA * QB) as f32).round() as i32)
            .collect();
        let mut net = Network {
            layout: shape.layout,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            hash: 0,
        };
        net.hash = kiraly::nnue::network::fnv1a(&net.param_bytes());
        net
    }

    /// The raw f32 values, for checkpoints (the layout is not stored: the
    /// trainer's `--buckets` and `--output-buckets` give it).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// The shapes a checkpoint may have to start a model of `shape`: its
    /// own, or one king bucket, or one output bucket, or both (each spread
    /// by `spread`). Their sizes all differ, so the size tells them apart.
    fn sources(shape: Shape) -> [Shape; 4] {
        let one = |layout, outputs, factoriser| {
            Shape::build(layout, outputs, factoriser).unwrap_or(shape)
        };
        [
            shape,
            one(ONE_BUCKET, shape.outputs, false),
            one(shape.layout, 1, shape.factoriser),
            one(ONE_BUCKET, 1, false),
        ]
    }

    /// A checkpoint of `shape`, or of one king bucket and/or one output
    /// bucket spread to every bucket of `shape`: each bucket starts as that
    /// net, so training begins from what it knew and lets the buckets part
    /// where the data says so.
    pub fn from_bytes(bytes: &[u8], shape: Shape) -> Result<Params, String> {
        let values: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        match Params::sources(shape)
            .into_iter()
            .find(|s| s.len * 4 == bytes.len())
        {
            Some(source) if source == shape => Ok(Params { shape, values }),
            Some(source) => Ok(Params {
                shape: source,
                values,
            }
            .spread(shape)),
            None => Err(format!(
                "a checkpoint of {} king bucket(s) and {} output bucket(s) has {} bytes \
                 (one king bucket: {}, one output bucket: {}, one of each: {}), not {}",
                shape.buckets,
                shape.outputs,
                shape.len * 4,
                Params::sources(shape)[1].len * 4,
                Params::sources(shape)[2].len * 4,
                Shape::default().len * 4,
                bytes.len()
            )),
        }
    }

    /// The float model of an engine net (each weight divided by its scale:
    /// `quantise` gives the same net back), in `shape`: the net's own
    /// layout, or a net of one king bucket and/or one output bucket spread
    /// to every bucket of `shape`. A net whose float checkpoint is gone
    /// (the built-in one, say) can start the next training from what it
    /// knows.
    pub fn from_network(net: &Network, shape: Shape) -> Result<Params, String> {
        let own = Shape::with_outputs(net.layout, net.output_buckets())?;
        let mut values = Vec::with_capacity(own.len);
        let unscale = |w: i16, scale: i32| f32::from(w) / scale as f32;
        for column in &net.feature_weights {
            values.extend(column.iter().map(|&w| unscale(w, QA)));
        }
        values.extend(net.feature_bias.iter().map(|&b| unscale(b, QA)));
        for half in net.output_weights.iter().flatten() {
            values.extend(half.iter().map(|&w| unscale(w, QB)));
        }
        values.extend(net.output_bias.iter().map(|&b| b as f32 / (QA * QB) as f32));
        let params = Params { shape: own, values };
        let kings_fit = own.layout == shape.layout || own.buckets == 1;
        let outputs_fit = own.outputs == shape.outputs || own.outputs == 1;
        if own == shape {
            Ok(params)
        } else if kings_fit && outputs_fit {
            Ok(params.spread(shape))
        } else {
            Err(format!(
                "a net of {} king bucket(s) and {} output bucket(s) cannot start a net of {} and {}",
                own.buckets, own.outputs, shape.buckets, shape.outputs
            ))
        }
    }

    /// This model in `shape`: a single king bucket's feature weights copied
    /// into every king bucket (or, in a model with a factoriser, into the
    /// shared block, the buckets' own weights zero), a single output
    /// bucket's weights and bias into every output bucket (the rest as it
    /// is; a model without a factoriser gets a shared block of zeros). The
    /// result evaluates every position exactly as this model does.
    fn spread(&self, shape: Shape) -> Params {
        let from = self.shape;
        debug_assert!(from.buckets == 1 || from.layout == shape.layout);
        debug_assert!(from.outputs == 1 || from.outputs == shape.outputs);
        debug_assert!(!from.factoriser || shape.factoriser);
        let columns = &self.values[..from.feature_bias];
        let mut values = Vec::with_capacity(shape.len);
        if shape.factoriser && !from.factoriser && from.buckets == 1 {
            values.resize(shape.shared_base() * HIDDEN, 0.0);
            values.extend_from_slice(columns);
        } else {
            for _ in 0..shape.buckets / from.buckets {
                values.extend_from_slice(columns);
            }
            values.resize(shape.feature_bias, 0.0);
        }
        values.extend_from_slice(&self.values[from.feature_bias..from.output_weights]);
        let source = |bucket: usize| if from.outputs == 1 { 0 } else { bucket };
        for bucket in 0..shape.outputs {
            let start = from.output_weights_of(source(bucket));
            values.extend_from_slice(&self.values[start..start + 2 * HIDDEN]);
        }
        for bucket in 0..shape.outputs {
            values.push(self.values[from.output_bias + source(bucket)]);
        }
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
            let (mut us, mut them) = ([0u16; MAX_FEATURES], [0u16; MAX_FEATURES]);
            let (mut a_us, mut a_them) = ([0.0f32; HIDDEN], [0.0f32; HIDDEN]);
            for pos in part {
                let Some(n) = params.features(pos, &mut us, &mut them) else {
                    continue;
                };
                params.accumulate(&us[..n], &mut a_us);
                params.accumulate(&them[..n], &mut a_them);
                let bucket = params.output_bucket(pos);
                let out = params.screlu_output(&a_us, &a_them, bucket);
                let out_start = shape.output_weights_of(bucket);
                let w = &params.values[out_start..out_start + 2 * HIDDEN];
                let p = sigmoid(out);
                let error = p - target(pos, lambda);
                loss += error * error;
                let g_out = 2.0 * error * p * (1.0 - p);
                grad[shape.output_bias + bucket] += g_out;
                let (mut g_us, mut g_them) = ([0.0f32; HIDDEN], [0.0f32; HIDDEN]);
                for j in 0..HIDDEN {
                    let x = a_us[j].clamp(0.0, 1.0);
                    let y = a_them[j].clamp(0.0, 1.0);
                    grad[out_start + j] += g_out * x * x;
                    grad[out_start + HIDDEN + j] += g_out * y * y;
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
                    || i >= shape.output_bias;
                let wd = if is_bias { 0.0 } else { decay * *p };
                *p -= lr * (update + wd);
            });
        params.clip();
    }
}
