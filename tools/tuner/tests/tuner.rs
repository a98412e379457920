//! The tuner's checks: the params file round trip, the model against the
//! engine's evaluation, the analytic gradient against finite differences, a
//! synthetic dataset the optimiser must fit, and the binary end to end.

use std::path::PathBuf;
use std::process::Command;

use kiraly::eval::params::{kd, KING_DANGER, PARAMS, VALUES};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};
use tuner::data::Dataset;
use tuner::model::{self, Train, KD_OFFSET, THETA_LEN};
use tuner::params_file::ParamsFile;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn params_text() -> String {
    std::fs::read_to_string(root().join("src/eval/params.rs")).unwrap()
}

/// Positions of the EPD suites in `engine-tests/data` (legal, up to `n`).
fn positions(n: usize) -> Vec<Chess> {
    let mut out = Vec::new();
    for name in [
        "wac.epd",
        "bratko-kopec.epd",
        "sts.epd",
        "arasan2024.epd",
        "ecm-gcp.epd",
    ] {
        let text = std::fs::read_to_string(root().join("engine-tests/data").join(name)).unwrap();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().take(4).collect();
            if fields.len() < 4 {
                continue;
            }
            // Vary the halfmove clock so its factor is exercised too.
            let halfmoves = [0, 0, 30, 75][out.len() % 4];
            let fen = format!("{} {halfmoves} 1", fields.join(" "));
            let Ok(fen) = fen.parse::<Fen>() else {
                continue;
            };
            if let Ok(pos) = fen.into_position::<Chess>(CastlingMode::Standard) {
                out.push(pos);
                if out.len() == n {
                    return out;
                }
            }
        }
    }
    out
}

fn white_eval(pos: &Chess) -> i32 {
    let stm = kiraly::eval::evaluate(pos);
    if pos.turn() == Color::White {
        stm
    } else {
        -stm
    }
}

/// Results drawn from a logistic of the engine's own evaluation, so the
/// data is neither trivial nor random.
fn labelled(n: usize) -> Dataset {
    let mut data = Dataset::default();
    for (i, pos) in positions(n).into_iter().enumerate() {
        let e = white_eval(&pos) as f64;
        let p = model::sigmoid(1.0, e);
        let u = ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
        let result = if u < p * 0.8 {
            1.0
        } else if u < p {
            0.5
        } else {
            0.0
        };
        data.push(pos, result, e as f32);
    }
    data
}

#[test]
fn params_file_round_trips() {
    let text = params_text();
    let file = ParamsFile::parse(&text).unwrap();
    let names: Vec<(&str, usize)> = file
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.len))
        .collect();
    let built: Vec<(&str, usize)> = PARAMS.iter().map(|p| (p.name, p.values.len())).collect();
    assert_eq!(names, built);
    let values: Vec<(i32, i32)> = VALUES.iter().map(|v| (v.mg, v.eg)).collect();
    assert_eq!(
        file.values(),
        values,
        "parsed numbers differ from the compiled VALUES"
    );
    assert_eq!(file.king_danger(), KING_DANGER.to_vec());
    // Unchanged values give the same text, byte for byte.
    let (pairs, kd) = model::round_theta(&model::current_theta());
    assert_eq!(file.render(&pairs, &kd).unwrap(), text);
    // Changed values parse back as written, the rest of the file is kept.
    let bumped: Vec<(i32, i32)> = pairs.iter().map(|&(m, e)| (m + 1, e - 1)).collect();
    let kd2: Vec<i32> = kd.iter().map(|w| w * 2).collect();
    let new = file.render(&bumped, &kd2).unwrap();
    let again = ParamsFile::parse(&new).unwrap();
    assert_eq!(again.values(), bumped);
    assert_eq!(again.king_danger(), kd2);
    assert_eq!(new.lines().count(), text.lines().count());
    for marker in [
        "//! Every weight of the evaluation",
        "pub const KD_MAX: i32 = 1000;",
        "fn layout_is_consistent",
    ] {
        assert!(new.contains(marker), "{marker}");
    }
}

#[test]
fn model_reproduces_the_engine_evaluation() {
    let positions = positions(400);
    assert!(positions.len() >= 300, "only {} positions", positions.len());
    let theta = model::current_theta();
    let mut data = Dataset::default();
    for pos in &positions {
        data.push(pos.clone(), 0.5, 0.0);
    }
    assert_eq!(data.len(), positions.len());
    let (pairs, king_danger) = model::round_theta(&theta);
    let mut worst = 0.0f64;
    let mut total = 0.0;
    let mut within_one = 0;
    let mut with_danger = 0;
    for (pos, s) in positions.iter().zip(&data.samples) {
        let engine = white_eval(pos);
        let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        // The engine's integer formula on the stored coefficients: exact.
        let exact = model::evaluate_int(&pairs, &king_danger, &data, s);
        assert_eq!(exact, engine, "{fen}");
        // The floating-point model skips the engine's truncating divisions
        // (the king penalties, the scale, and above all the taper `/ 24` and
        // the halfmove factor `/ 80`, each worth up to 1 cp).
        let model = model::evaluate(&theta, &data, s);
        let diff = (model - engine as f64).abs();
        assert!(diff < 3.0, "{fen}: model {model:.3}, engine {engine}");
        worst = worst.max(diff);
        total += diff;
        if diff <= 1.0 {
            within_one += 1;
        }
        if s.kings.iter().any(|k| k.inputs[kd::ZONE_ATTACKS] > 0) {
            with_danger += 1;
        }
    }
    let n = positions.len();
    eprintln!(
        "model vs engine over {n} positions: mean {:.3} cp, worst {worst:.3} cp, {within_one} within 1 cp",
        total / n as f64
    );
    assert!(
        within_one * 100 >= n * 75,
        "only {within_one} of {n} within 1 cp"
    );
    assert!(total / (n as f64) < 0.75);
    assert!(
        with_danger > 50,
        "too few positions with king danger: {with_danger}"
    );
}

#[test]
fn analytic_gradient_matches_finite_differences() {
    let data = labelled(120);
    // Off the integer grid, so no king's danger sits exactly on a clamp
    // (where the loss has a kink and finite differences are one-sided).
    let theta: Vec<f64> = model::current_theta()
        .iter()
        .enumerate()
        .map(|(j, w)| w + 0.1 + 0.2 * (j as f64).sin())
        .collect();
    let k = 1.3;
    let lambda = 0.25;
    let grad = model::gradient(&theta, &data, &data.samples, k, lambda);
    let mut checked = 0;
    let mut kd_checked = 0;
    for j in 0..THETA_LEN {
        // All king-danger weights and every 5th linear one (nonzero ones).
        if j < KD_OFFSET && (j % 5 != 0 || grad[j] == 0.0) {
            continue;
        }
        let h = 1e-3;
        let mut plus = theta.clone();
        plus[j] += h;
        let mut minus = theta.clone();
        minus[j] -= h;
        let numeric = (model::loss(&plus, &data, k, lambda)
            - model::loss(&minus, &data, k, lambda))
            / (2.0 * h);
        let tol = 1e-4 * numeric.abs().max(grad[j].abs()) + 1e-10;
        assert!(
            (numeric - grad[j]).abs() <= tol,
            "parameter {j}: analytic {:e}, numeric {numeric:e}",
            grad[j]
        );
        checked += 1;
        if j >= KD_OFFSET && grad[j] != 0.0 {
            kd_checked += 1;
        }
    }
    assert!(checked > 50, "{checked}");
    assert!(
        kd_checked >= 10,
        "king-danger gradients checked: {kd_checked}"
    );
}

#[test]
fn tuner_lowers_the_loss_on_synthetic_data() {
    // Results follow a distorted evaluation (knights worth 100 cp more); the
    // tuner starts from the current weights and must fit them better.
    let data = knight_heavy_data(300);
    let mut theta = model::current_theta();
    let k = model::fit_k(&theta, &data, 0.0);
    assert!(k > 0.05 && k < 5.0, "K = {k}");
    let before = model::loss(&theta, &data, k, 0.0);
    let cfg = train_config(k, 60, 0.0, false);
    let mut losses = Vec::new();
    let anchor = theta[0];
    model::train(&mut theta, &data, &cfg, |r| losses.push(r.loss));
    let after = model::loss(&theta, &data, k, 0.0);
    assert_eq!(losses.len(), 60);
    assert!(after < before * 0.95, "loss {before} -> {after}");
    assert_eq!(theta[0], anchor, "the frozen pawn value moved");
    // The knight's value went up.
    let knight_mg = 2 * kiraly::eval::params::idx::MATERIAL + 2;
    assert!(theta[knight_mg] > VALUES[kiraly::eval::params::idx::MATERIAL + 1].mg as f64 + 10.0);
}

/// Results drawn from the evaluation with knights worth 100 cp more.
fn knight_heavy_data(n: usize) -> Dataset {
    let mut data = Dataset::default();
    for (i, pos) in positions(n).iter().enumerate() {
        let knights = pos.board().knights();
        let diff = (knights & pos.board().white()).count() as f64
            - (knights & pos.board().black()).count() as f64;
        let e = white_eval(pos) as f64 + 100.0 * diff;
        let p = model::sigmoid(1.0, e);
        let u =
            ((i as u64 + 7).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
        data.push(pos.clone(), if u < p { 1.0 } else { 0.0 }, e as f32);
    }
    data
}

fn train_config(k: f64, epochs: usize, l2: f64, keep_best: bool) -> Train {
    let mut frozen = vec![false; THETA_LEN];
    tuner::freeze(&mut frozen, "MATERIAL[0].mg").unwrap();
    Train {
        epochs,
        lr: 2.0,
        batch: 64,
        k,
        lambda: 0.0,
        frozen,
        l2,
        keep_best,
    }
}

#[test]
fn l2_penalty_holds_weights_near_their_start() {
    let data = knight_heavy_data(300);
    let start = model::current_theta();
    let k = model::fit_k(&start, &data, 0.0);
    let drift = |l2: f64| {
        let mut theta = start.clone();
        model::train(&mut theta, &data, &train_config(k, 30, l2, false), |_| {});
        theta
            .iter()
            .zip(&start)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt()
    };
    let free = drift(0.0);
    let held = drift(1e-3);
    assert!(free > 20.0, "unregularised drift {free}");
    assert!(
        held < free / 4.0,
        "drift {held} with L2 against {free} without"
    );
}

/// The loss and the gradient add their terms in one fixed order: the same
/// bits with one thread or several, run after run. Training keeps the epoch
/// with the lowest held-out loss and compares losses exactly, so a sum whose
/// order follows rayon's work stealing made that choice (and a test) flaky.
#[test]
fn loss_and_gradient_do_not_depend_on_the_thread_count() {
    let data = knight_heavy_data(6000);
    let theta = model::current_theta();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let loss = model::loss_on(&theta, &data, &data.samples, 1.1, 0.3);
            let grad = model::gradient(&theta, &data, &data.samples, 1.1, 0.3);
            let k = model::fit_k(&theta, &data, 0.3);
            (
                loss.to_bits(),
                grad.iter().map(|g| g.to_bits()).collect::<Vec<_>>(),
                k.to_bits(),
            )
        })
    };
    let one = run(1);
    for threads in [2, 3, 4, 7, 4, 3] {
        assert!(run(threads) == one, "{threads} threads changed the sums");
    }
}

#[test]
fn keeps_the_epoch_best_on_held_out_positions() {
    let mut data = knight_heavy_data(300);
    data.hold_out(100);
    let start = model::current_theta();
    let k = model::fit_k(&start, &data, 0.0);
    let mut theta = start.clone();
    let mut validation = Vec::new();
    let kept = model::train(&mut theta, &data, &train_config(k, 40, 0.0, true), |r| {
        validation.push(r.validation)
    });
    let best = validation
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i + 1)
        .unwrap();
    let start_loss = model::loss_on(&start, &data, &data.validation, k, 0.0);
    let kept_loss = model::loss_on(&theta, &data, &data.validation, k, 0.0);
    if validation[best - 1] < start_loss {
        assert_eq!(kept, best);
        assert_eq!(kept_loss, validation[best - 1]);
    } else {
        assert_eq!(kept, 0);
        assert_eq!(theta, start);
    }
    // Without it, the last epoch's weights are kept.
    let mut last = start.clone();
    let kept = model::train(&mut last, &data, &train_config(k, 40, 0.0, false), |_| {});
    assert_eq!(kept, 40);
    assert_eq!(
        model::loss_on(&last, &data, &data.validation, k, 0.0),
        validation[39]
    );
}

fn temp_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("tuner-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn tuner(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tuner"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("tuner runs")
}

#[test]
fn binary_round_trip_and_short_run() {
    // Zero epochs: the file comes back unchanged.
    let out = temp_path("params0.rs");
    let run = tuner(&["--epochs", "0", "--output", out.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), params_text());
    std::fs::remove_file(&out).unwrap();

    // A short run on a small datagen-format file, including a partial last
    // line (a file still being written) that must be ignored.
    let data_path = temp_path("data.txt");
    let mut text = String::new();
    for (i, pos) in positions(200).iter().enumerate() {
        let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        let result = ["1.0", "0.5", "0.0"][i % 3];
        text.push_str(&format!("{fen} | {} | {result}\n", white_eval(pos)));
    }
    text.push_str("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 1");
    std::fs::write(&data_path, text).unwrap();
    let out = temp_path("params2.rs");
    let run = tuner(&[
        "--data",
        data_path.to_str().unwrap(),
        "--epochs",
        "2",
        "--batch",
        "50",
        "--threads",
        "1",
        "--validation",
        "40",
        "--freeze",
        "TEMPO",
        // The labels are noise, so the best epoch on the held-out positions
        // may be the start; this run checks that the weights move.
        "--last-epoch",
        "--l2",
        "1e-9",
        "--output",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("loaded 200 positions"), "{stderr}");
    assert!(stderr.contains("K = "), "{stderr}");
    assert!(stderr.contains("epoch    2 | loss"), "{stderr}");
    assert!(stderr.contains("(40 held out)"), "{stderr}");
    assert!(stderr.contains("validation loss before"), "{stderr}");
    // The training loss fell: "loss before B, after A (rounded ...".
    let figure = |label: &str| -> f64 {
        let at = stderr
            .find(label)
            .unwrap_or_else(|| panic!("no '{label}': {stderr}"));
        let text = &stderr[at + label.len()..];
        let end = text
            .find(|c: char| c != '.' && !c.is_ascii_digit())
            .unwrap_or(text.len());
        text[..end]
            .parse()
            .unwrap_or_else(|_| panic!("'{label}' figure: {stderr}"))
    };
    let (before, after) = (figure("\nloss before "), figure(", after "));
    assert!(after < before, "loss {before} -> {after}: {stderr}");
    let tuned = ParamsFile::parse(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let original = ParamsFile::parse(&params_text()).unwrap();
    assert_eq!(tuned.entries.len(), original.entries.len());
    let tempo = kiraly::eval::params::idx::TEMPO;
    assert_eq!(tuned.values()[tempo], original.values()[tempo]);
    assert_eq!(
        tuned.values()[0].0,
        original.values()[0].0,
        "pawn mg anchor moved"
    );
    assert_ne!(tuned.values(), original.values());
    std::fs::remove_file(&out).unwrap();

    // Refuses to overwrite the params file without --write-params. The run
    // works on a copy (the tuner accepts only the params it was built with,
    // and an epoch-0 run would write them back unchanged), so a write is
    // seen in the copy's modification time, set far in the past first. It
    // gets valid data, so that the refusal is the only way to fail.
    let copy = temp_path("params-copy.rs");
    std::fs::write(&copy, params_text()).unwrap();
    let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    let modified = || std::fs::metadata(&copy).unwrap().modified().unwrap();
    std::fs::File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    assert_eq!(modified(), long_ago);
    let refused = |extra: &[&str]| {
        let mut args = vec![
            "--data",
            data_path.to_str().unwrap(),
            "--epochs",
            "0",
            "--threads",
            "1",
            "--params",
            copy.to_str().unwrap(),
            "--output",
            copy.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        tuner(&args)
    };
    let run = refused(&[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(stderr.contains("add --write-params"), "{stderr}");
    assert_eq!(modified(), long_ago, "the params file was written");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), params_text());
    // With --write-params the same run does write it: the check above can
    // see a write.
    let run = refused(&["--write-params"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_ne!(modified(), long_ago);
    std::fs::remove_file(&copy).unwrap();
    std::fs::remove_file(&data_path).unwrap();
    // Bad arguments.
    assert_eq!(tuner(&["--epochs", "3"]).status.code(), Some(2));
    assert_eq!(tuner(&["--bogus"]).status.code(), Some(2));
    assert!(tuner(&["--help"]).status.success());
}
