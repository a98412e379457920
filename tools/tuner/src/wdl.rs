//! Fitting the win/draw/loss model of `kiraly::wdl` (`UCI_ShowWDL`) to
//! game results.
//!
//! From the side to move's view, with the search score `s` in centipawns
//! and `x = clamp(m, 17, 78) / 58` for the material count `m` of
//! `kiraly::wdl::material_count`:
//!
//! ```text
//! u = (s - a(x)) / b(x),  v = (-s - a(x)) / b(x)
//! win = sigmoid(u),  loss = sigmoid(v),  draw = 1 - win - loss
//! ```
//!
//! where `a` and `b` are polynomials in `x` (coefficients in ascending
//! powers). The coefficients are fitted by maximum likelihood: the mean
//! multinomial log loss `-ln p(outcome)` over the positions is minimised by
//! Fisher scoring (Newton's method with the expected Hessian, which is
//! positive definite) with a backtracking line search that also keeps
//! `a > 0` and `b > 0` at every material count, where the model is valid.
//! The work is split over positions with rayon, in fixed chunks summed in
//! order, so the result does not depend on the number of threads.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use kiraly::score::MATE_BOUND;
use kiraly::wdl::{material_count, model_input, poly, MATERIAL_MAX, MATERIAL_MIN};
use rayon::prelude::*;
use shakmaty::{Color, Position as _};

use crate::data::{parse_line, Labelled};
use crate::ordered_sum::ordered_sum;

/// The number of distinct (clamped) material counts.
const MATERIALS: usize = (MATERIAL_MAX - MATERIAL_MIN + 1) as usize;
/// Positions per parallel work item.
const CHUNK: usize = 16_384;

/// A game outcome from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win = 0,
    Draw = 1,
    Loss = 2,
}

/// One position as the model sees it, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    /// Search score in centipawns.
    pub score: f32,
    /// Material count of both sides, not clamped.
    pub material: u8,
    pub outcome: Outcome,
}

impl Position {
    /// The position of a datagen line (score and result from White's view),
    /// turned to the side to move's view; `None` for a mate score.
    pub fn from_labelled(item: &Labelled) -> Option<Position> {
        if !item.score.is_finite() || item.score.abs() >= MATE_BOUND as f32 {
            return None;
        }
        let white = item.pos.turn() == Color::White;
        let outcome = if item.result == 0.5 {
            Outcome::Draw
        } else if (item.result == 1.0) == white {
            Outcome::Win
        } else {
            Outcome::Loss
        };
        Some(Position {
            score: if white { item.score } else { -item.score },
            material: material_count(&item.pos).clamp(0, 255) as u8,
            outcome,
        })
    }

    /// Index of the clamped material count, `0..MATERIALS`.
    #[inline]
    fn material_index(&self) -> usize {
        (self.material as i32).clamp(MATERIAL_MIN, MATERIAL_MAX) as usize - MATERIAL_MIN as usize
    }
}

/// What [`load`] skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Lines that did not parse.
    pub bad: usize,
    /// Positions with a mate score.
    pub mate: usize,
}

/// Loads the complete lines (ending in a newline) of a datagen text file,
/// or the positions of a file of datagen's game records that the training
/// filter keeps (no opening plies, none in check, no capture or promotion
/// played, no mate score), into `out`, until `out` holds `limit`
/// positions. FENs are parsed in parallel.
pub fn load(path: &Path, limit: usize, out: &mut Vec<Position>) -> Result<Skipped, String> {
    if crate::data::is_game_records(path)? {
        return load_records(path, limit, out);
    }
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut skipped = Skipped::default();
    // (line number, text) of the non-empty lines of a batch.
    let mut lines: Vec<(usize, String)> = Vec::with_capacity(CHUNK * 4);
    let mut raw = Vec::new();
    let mut line_no = 0usize;
    let mut done = false;
    while !done && out.len() < limit {
        lines.clear();
        while lines.len() < CHUNK * 4 {
            raw.clear();
            let n = reader
                .read_until(b'\n', &mut raw)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            // End of file, or a last line still being written.
            if n == 0 || raw.last() != Some(&b'\n') {
                done = true;
                break;
            }
            line_no += 1;
            let text = String::from_utf8_lossy(&raw);
            if !text.trim().is_empty() {
                lines.push((line_no, text.trim().to_string()));
            }
        }
        let parsed: Vec<Result<Option<Position>, String>> = lines
            .par_iter()
            .map(|(_, line)| parse_line(line).map(|item| Position::from_labelled(&item)))
            .collect();
        for ((number, _), r) in lines.iter().zip(parsed) {
            match r {
                Ok(Some(p)) => {
                    if out.len() >= limit {
                        return Ok(skipped);
                    }
                    out.push(p);
                }
                Ok(None) => skipped.mate += 1,
                Err(e) => {
                    if skipped.bad < 5 {
                        eprintln!("{}:{number}: skipped: {e}", path.display());
                    }
                    skipped.bad += 1;
                }
            }
        }
    }
    Ok(skipped)
}

/// Numerically stable `ln(sigmoid(z))`.
#[inline]
fn log_sigmoid(z: f64) -> f64 {
    z.min(0.0) - (-z.abs()).exp().ln_1p()
}

#[inline]
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The model: `a(x)` and `b(x)` as coefficients of ascending powers of `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

impl Model {
    /// Constant `a` and `b` as polynomials of `degree`.
    pub fn constant(a: f64, b: f64, degree: usize) -> Model {
        let mut m = Model {
            a: vec![0.0; degree + 1],
            b: vec![0.0; degree + 1],
        };
        m.a[0] = a;
        m.b[0] = b;
        m
    }

    /// The coefficients compiled into the engine (`kiraly::wdl`).
    pub fn engine() -> Model {
        Model {
            a: kiraly::wdl::A.to_vec(),
            b: kiraly::wdl::B.to_vec(),
        }
    }

    pub fn degree(&self) -> usize {
        self.a.len() - 1
    }

    /// `a` and `b` at a material count.
    pub fn ab(&self, material: i32) -> (f64, f64) {
        let x = model_input(material);
        (poly(&self.a, x), poly(&self.b, x))
    }

    /// `a` and `b` at every clamped material count.
    fn table(&self) -> Vec<(f64, f64)> {
        (MATERIAL_MIN..=MATERIAL_MAX).map(|m| self.ab(m)).collect()
    }

    /// Whether `a > 0` and `b > 0` (finite) at every material count, so that
    /// all three probabilities are positive.
    pub fn is_valid(&self) -> bool {
        self.table()
            .iter()
            .all(|&(a, b)| a.is_finite() && b.is_finite() && a > 0.0 && b > 0.0)
    }

    /// Win, draw and loss probabilities.
    pub fn probabilities(&self, score: f64, material: i32) -> [f64; 3] {
        let (a, b) = self.ab(material);
        probabilities(score, a, b)
    }
}

/// Win, draw and loss probabilities for `a` and `b`; the draw computed
/// without cancellation as `sigmoid(-u) sigmoid(-v) (1 - exp(-2a/b))`.
#[inline]
fn probabilities(s: f64, a: f64, b: f64) -> [f64; 3] {
    let u = (s - a) / b;
    let v = (-s - a) / b;
    let draw = sigmoid(-u) * sigmoid(-v) * -(-2.0 * a / b).exp_m1();
    [sigmoid(u), draw, sigmoid(v)]
}

/// `ln p` of each outcome and its gradient with respect to `(a, b)`.
#[inline]
fn log_probs_and_gradients(s: f64, a: f64, b: f64) -> ([f64; 3], [[f64; 2]; 3]) {
    let u = (s - a) / b;
    let v = (-s - a) / b;
    let r = 2.0 * a / b;
    let em1 = r.exp_m1();
    let (su, sv) = (sigmoid(u), sigmoid(v));
    let (snu, snv) = (sigmoid(-u), sigmoid(-v));
    let log_win = log_sigmoid(u);
    let log_loss = log_sigmoid(v);
    let log_draw = log_sigmoid(-u) + log_sigmoid(-v) + (-(-r).exp_m1()).ln();
    let g_win = [-snu / b, -snu * u / b];
    let g_loss = [-snv / b, -snv * v / b];
    let g_draw = [(su + sv + 2.0 / em1) / b, (su * u + sv * v - r / em1) / b];
    ([log_win, log_draw, log_loss], [g_win, g_draw, g_loss])
}

/// Mean log loss (nats) of the model on the positions; infinite if the model
/// is not valid.
pub fn log_loss(model: &Model, data: &[Position]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    if !model.is_valid() {
        return f64::INFINITY;
    }
    let table = model.table();
    let sum = ordered_sum(data, CHUNK, |p| {
        let (a, b) = table[p.material_index()];
        let s = p.score as f64;
        let u = (s - a) / b;
        let v = (-s - a) / b;
        -match p.outcome {
            Outcome::Win => log_sigmoid(u),
            Outcome::Loss => log_sigmoid(v),
            Outcome::Draw => log_sigmoid(-u) + log_sigmoid(-v) + (-(-2.0 * a / b).exp_m1()).ln(),
        }
    });
    sum / data.len() as f64
}

/// Observed win, draw and loss rates.
pub fn rates(data: &[Position]) -> [f64; 3] {
    let mut n = [0usize; 3];
    for p in data {
        n[p.outcome as usize] += 1;
    }
    let total = data.len().max(1) as f64;
    n.map(|k| k as f64 / total)
}

/// Mean log loss of predicting the constant `rates` for every position (the
/// baseline that knows neither score nor material).
pub fn constant_log_loss(rates: [f64; 3], data: &[Position]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let observed = self::rates(data);
    -(0..3)
        .filter(|&j| observed[j] > 0.0)
        .map(|j| observed[j] * rates[j].ln())
        .sum::<f64>()
}

/// Per material count: log-likelihood, its gradient in `(a, b)` and the
/// Fisher information in `(a, b)` (`aa`, `ab`, `bb`), summed over positions.
#[derive(Clone, Copy, Default)]
struct Stats {
    loglik: f64,
    grad: [f64; 2],
    fisher: [f64; 3],
}

fn stats(table: &[(f64, f64)], data: &[Position]) -> Vec<Stats> {
    let parts: Vec<Vec<Stats>> = data
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut acc = vec![Stats::default(); MATERIALS];
            for p in chunk {
                let i = p.material_index();
                let (a, b) = table[i];
                let s = p.score as f64;
                let (logs, grads) = log_probs_and_gradients(s, a, b);
                let probs = probabilities(s, a, b);
                let st = &mut acc[i];
                let y = p.outcome as usize;
                st.loglik += logs[y];
                st.grad[0] += grads[y][0];
                st.grad[1] += grads[y][1];
                for j in 0..3 {
                    let g = grads[j];
                    st.fisher[0] += probs[j] * g[0] * g[0];
                    st.fisher[1] += probs[j] * g[0] * g[1];
                    st.fisher[2] += probs[j] * g[1] * g[1];
                }
            }
            acc
        })
        .collect();
    let mut total = vec![Stats::default(); MATERIALS];
    for part in parts {
        for (t, s) in total.iter_mut().zip(part) {
            t.loglik += s.loglik;
            t.grad[0] += s.grad[0];
            t.grad[1] += s.grad[1];
            for k in 0..3 {
                t.fisher[k] += s.fisher[k];
            }
        }
    }
    total
}

/// Solves `m x = y` (Gaussian elimination, partial pivoting); `None` if
/// singular.
fn solve(mut m: Vec<Vec<f64>>, mut y: Vec<f64>) -> Option<Vec<f64>> {
    let n = y.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 || !m[pivot][col].is_finite() {
            return None;
        }
        m.swap(col, pivot);
        y.swap(col, pivot);
        let (top, rest) = m.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (i, row) in rest.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (r, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *r -= f * p;
            }
            y[col + 1 + i] -= f * y[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (y[row] - rest) / m[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Fit settings.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Degree of the polynomials `a` and `b`.
    pub degree: usize,
    /// At most this many Fisher-scoring steps.
    pub max_iterations: usize,
    /// Stop once a step lowers the mean log loss by less than this.
    pub tolerance: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            degree: 3,
            max_iterations: 200,
            tolerance: 1e-12,
        }
    }
}

/// A fitted model.
#[derive(Clone, Debug)]
pub struct Fit {
    pub model: Model,
    /// Mean log loss on the fitted positions.
    pub loss: f64,
    pub iterations: usize,
    /// Whether the last step gained less than the tolerance (rather than
    /// running out of iterations).
    pub converged: bool,
}

/// Fits the model to the positions by maximum likelihood, starting from
/// constant `a = 100`, `b = 100`; `progress` gets the iteration and loss.
pub fn fit(data: &[Position], options: &FitOptions, mut progress: impl FnMut(usize, f64)) -> Fit {
    let d = options.degree + 1;
    let mut model = Model::constant(100.0, 100.0, options.degree);
    let mut loss = log_loss(&model, data);
    let n = data.len().max(1) as f64;
    let xs: Vec<f64> = (MATERIAL_MIN..=MATERIAL_MAX).map(model_input).collect();
    let mut converged = false;
    let mut iterations = 0;
    while iterations < options.max_iterations && !data.is_empty() {
        iterations += 1;
        let st = stats(&model.table(), data);
        // Gradient of the log-likelihood and Fisher information in the
        // coefficients: a's first, then b's.
        let mut grad = vec![0.0; 2 * d];
        let mut fisher = vec![vec![0.0; 2 * d]; 2 * d];
        for (s, &x) in st.iter().zip(&xs) {
            let pow: Vec<f64> = (0..d).map(|k| x.powi(k as i32)).collect();
            for k in 0..d {
                grad[k] += s.grad[0] * pow[k] / n;
                grad[d + k] += s.grad[1] * pow[k] / n;
                for l in 0..d {
                    let xx = pow[k] * pow[l] / n;
                    fisher[k][l] += s.fisher[0] * xx;
                    fisher[k][d + l] += s.fisher[1] * xx;
                    fisher[d + k][l] += s.fisher[1] * xx;
                    fisher[d + k][d + l] += s.fisher[2] * xx;
                }
            }
        }
        // Scale to unit diagonal (the powers of x make it badly
        // conditioned), with a little damping if it is singular.
        let scale: Vec<f64> = (0..2 * d)
            .map(|i| 1.0 / fisher[i][i].max(1e-300).sqrt())
            .collect();
        let mut step = None;
        for damping in [0.0, 1e-12, 1e-9, 1e-6, 1e-3, 1.0] {
            let m: Vec<Vec<f64>> = (0..2 * d)
                .map(|i| {
                    (0..2 * d)
                        .map(|j| {
                            fisher[i][j] * scale[i] * scale[j] + if i == j { damping } else { 0.0 }
                        })
                        .collect()
                })
                .collect();
            let y: Vec<f64> = (0..2 * d).map(|i| grad[i] * scale[i]).collect();
            if let Some(z) = solve(m, y) {
                step = Some((0..2 * d).map(|i| z[i] * scale[i]).collect::<Vec<f64>>());
                break;
            }
        }
        let Some(step) = step else {
            break;
        };
        // Backtracking line search on the loss itself.
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..50 {
            let mut next = model.clone();
            for k in 0..d {
                next.a[k] += t * step[k];
                next.b[k] += t * step[d + k];
            }
            let next_loss = log_loss(&next, data);
            if next_loss < loss {
                accepted = Some((next, next_loss));
                break;
            }
            t *= 0.5;
        }
        let Some((next, next_loss)) = accepted else {
            converged = true;
            break;
        };
        let gain = loss - next_loss;
        model = next;
        loss = next_loss;
        progress(iterations, loss);
        if gain < options.tolerance {
            converged = true;
            break;
        }
    }
    Fit {
        model,
        loss,
        iterations,
        converged,
    }
}

/// One row of a calibration table.
#[derive(Clone, Debug, PartialEq)]
pub struct Bucket {
    /// The bucket holds keys in `lo..hi`.
    pub lo: f64,
    pub hi: f64,
    pub count: usize,
    pub mean_score: f64,
    /// Mean predicted and observed win, draw and loss rates.
    pub predicted: [f64; 3],
    pub observed: [f64; 3],
}

/// Predicted against observed rates of the positions grouped by `key`
/// (score or material) into the ranges between consecutive `edges` (the
/// first and last buckets open-ended); empty buckets are left out.
pub fn calibration(
    model: &Model,
    data: &[Position],
    edges: &[f64],
    key: impl Fn(&Position) -> f64,
) -> Vec<Bucket> {
    let mut lows = vec![f64::NEG_INFINITY];
    lows.extend_from_slice(edges);
    let mut highs = edges.to_vec();
    highs.push(f64::INFINITY);
    let mut rows: Vec<Bucket> = lows
        .iter()
        .zip(&highs)
        .map(|(&lo, &hi)| Bucket {
            lo,
            hi,
            count: 0,
            mean_score: 0.0,
            predicted: [0.0; 3],
            observed: [0.0; 3],
        })
        .collect();
    for p in data {
        let k = key(p);
        let i = edges.partition_point(|&e| e <= k);
        let row = &mut rows[i];
        let pred = model.probabilities(p.score as f64, p.material as i32);
        row.count += 1;
        row.mean_score += p.score as f64;
        for (sum, p) in row.predicted.iter_mut().zip(pred) {
            *sum += p;
        }
        row.observed[p.outcome as usize] += 1.0;
    }
    rows.retain(|r| r.count > 0);
    for r in &mut rows {
        let n = r.count as f64;
        r.mean_score /= n;
        for j in 0..3 {
            r.predicted[j] /= n;
            r.observed[j] /= n;
        }
    }
    rows
}

/// The largest absolute difference between predicted and observed rates
/// over the buckets holding at least `min_count` positions.
pub fn max_deviation(rows: &[Bucket], min_count: usize) -> f64 {
    rows.iter()
        .filter(|r| r.count >= min_count)
        .flat_map(|r| (0..3).map(move |j| (r.predicted[j] - r.observed[j]).abs()))
        .fold(0.0, f64::max)
}

/// A calibration table as text, rates in percent.
pub fn render_calibration(title: &str, rows: &[Bucket]) -> String {
    let range = |lo: f64, hi: f64| match (lo.is_finite(), hi.is_finite()) {
        (false, true) => format!("< {hi}"),
        (true, false) => format!(">= {lo}"),
        (true, true) => format!("{lo} .. {hi}"),
        (false, false) => "all".to_string(),
    };
    let mut out = format!(
        "{title}\n{:>14} {:>8} {:>7} | {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6}\n",
        "range", "n", "score", "W%", "D%", "L%", "obs W%", "obs D%", "obs L%"
    );
    for r in rows {
        out.push_str(&format!(
            "{:>14} {:>8} {:>7.0} | {:>6.1} {:>6.1} {:>6.1} | {:>6.1} {:>6.1} {:>6.1}\n",
            range(r.lo, r.hi),
            r.count,
            r.mean_score,
            100.0 * r.predicted[0],
            100.0 * r.predicted[1],
            100.0 * r.predicted[2],
            100.0 * r.observed[0],
            100.0 * r.observed[1],
            100.0 * r.observed[2],
        ));
    }
    out
}

/// The coefficients as the constants of `src/wdl.rs` (padded to the
/// engine's four coefficients; the engine holds at most a cubic).
pub fn rust_constants(model: &Model) -> String {
    let list = |c: &[f64]| {
        let mut v: Vec<String> = c.iter().map(|x| format!("{x:.6}")).collect();
        while v.len() < 4 {
            v.push("0.0".into());
        }
        v.join(", ")
    };
    format!(
        "pub const A: [f64; 4] = [{}];\npub const B: [f64; 4] = [{}];\n",
        list(&model.a),
        list(&model.b)
    )
}

/// [`load`] for a file of datagen's game records.
fn load_records(path: &Path, limit: usize, out: &mut Vec<Position>) -> Result<Skipped, String> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut skipped = Skipped::default();
    let filter = datagen::format::Filter::default();
    datagen::format::for_each_sample(&mut reader, &filter, |s| {
        if out.len() >= limit {
            return;
        }
        match Position::from_labelled(&Labelled::from_sample(s)) {
            Some(p) => out.push(p),
            None => skipped.mate += 1,
        }
    })
    .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sigmoid_is_stable() {
        for z in [-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0] {
            let l = log_sigmoid(z);
            assert!(l.is_finite() && l <= 0.0, "{z}: {l}");
            if z.abs() < 30.0 {
                assert!((l - sigmoid(z).ln()).abs() < 1e-12, "{z}");
            }
        }
        assert!((log_sigmoid(-800.0) + 800.0).abs() < 1e-9);
        assert!(log_sigmoid(800.0).abs() < 1e-300);
    }

    #[test]
    fn probabilities_sum_to_one_and_are_stable() {
        for (a, b) in [(50.0, 40.0), (200.0, 80.0), (1.0, 300.0)] {
            for s in [-30000.0, -2000.0, -100.0, 0.0, 37.0, 500.0, 30000.0] {
                let p = probabilities(s, a, b);
                assert!(p.iter().all(|x| x.is_finite() && *x >= 0.0));
                assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{s} {a} {b}");
                let (logs, _) = log_probs_and_gradients(s, a, b);
                for j in 0..3 {
                    assert!(logs[j].is_finite(), "{s} {a} {b} {j}");
                    if p[j] > 1e-300 {
                        assert!((logs[j] - p[j].ln()).abs() < 1e-9 * logs[j].abs().max(1.0));
                    }
                }
            }
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        for (s, a, b) in [
            (0.0, 120.0, 70.0),
            (250.0, 80.0, 50.0),
            (-900.0, 200.0, 90.0),
        ] {
            let (_, g) = log_probs_and_gradients(s, a, b);
            let h = 1e-5;
            for (j, g) in g.iter().enumerate() {
                let da = (log_probs_and_gradients(s, a + h, b).0[j]
                    - log_probs_and_gradients(s, a - h, b).0[j])
                    / (2.0 * h);
                let db = (log_probs_and_gradients(s, a, b + h).0[j]
                    - log_probs_and_gradients(s, a, b - h).0[j])
                    / (2.0 * h);
                assert!((da - g[0]).abs() < 1e-6 * da.abs().max(1e-3), "{j}");
                assert!((db - g[1]).abs() < 1e-6 * db.abs().max(1e-3), "{j}");
            }
        }
    }

    #[test]
    fn the_model_agrees_with_the_engine() {
        let model = Model::engine();
        assert!(model.is_valid());
        for m in [0, 17, 30, 45, 60, 78, 90] {
            for s in [-1500, -300, -50, 0, 20, 150, 800, 2500] {
                let p = model.probabilities(s as f64, m);
                let (w, d, l) = kiraly::wdl::probabilities(s, m);
                assert!((p[0] - w).abs() < 1e-12 && (p[1] - d).abs() < 1e-12);
                assert!((p[2] - l).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn solve_solves() {
        let m = vec![
            vec![0.0, 2.0, 1.0],
            vec![1.0, 1.0, 0.0],
            vec![3.0, 0.0, 1.0],
        ];
        let x = solve(m, vec![7.0, 3.0, 6.0]).unwrap();
        for (got, want) in x.iter().zip([1.0, 2.0, 3.0]) {
            assert!((got - want).abs() < 1e-12);
        }
        assert!(solve(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 2.0]).is_none());
    }
}
