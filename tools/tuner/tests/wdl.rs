//! The win/draw/loss fit (`tuner wdl`): the side-to-move conversion of
//! datagen lines, recovery of known coefficients from synthetic outcomes,
//! calibration, and the binary end to end.

use std::path::PathBuf;
use std::process::Command;

use tuner::data::parse_line;
use tuner::wdl::{self, FitOptions, Model, Outcome, Position};

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal: mean 0, standard deviation `sd`.
    fn normal(&mut self, sd: f64) -> f64 {
        let sum: f64 = (0..12).map(|_| self.unit()).sum();
        (sum - 6.0) * sd
    }
}

/// `n` positions with material uniform in 10..=85 and integer scores, their
/// outcomes drawn from `truth`.
fn synthetic(truth: &Model, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let material = 10 + (rng.next() % 76) as u8;
            let score = rng.normal(300.0).round();
            let p = truth.probabilities(score, material as i32);
            let r = rng.unit();
            let outcome = if r < p[0] {
                Outcome::Win
            } else if r < p[0] + p[1] {
                Outcome::Draw
            } else {
                Outcome::Loss
            };
            Position {
                score: score as f32,
                material,
                outcome,
            }
        })
        .collect()
}

fn max_gap(a: &Model, b: &Model) -> (f64, f64) {
    let mut gap = (0.0f64, 0.0f64);
    for m in 17..=78 {
        let (a1, b1) = a.ab(m);
        let (a2, b2) = b.ab(m);
        gap.0 = gap.0.max((a1 - a2).abs());
        gap.1 = gap.1.max((b1 - b2).abs());
    }
    gap
}

#[test]
fn datagen_lines_turn_to_the_side_to_move() {
    let white = "4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1 | 120 | 1.0";
    let black = "4k3/8/8/8/8/8/4P3/R3K3 b - - 0 1 | 120 | 1.0";
    let p = Position::from_labelled(&parse_line(white).unwrap()).unwrap();
    assert_eq!((p.score, p.material, p.outcome), (120.0, 6, Outcome::Win));
    let p = Position::from_labelled(&parse_line(black).unwrap()).unwrap();
    assert_eq!((p.score, p.outcome), (-120.0, Outcome::Loss));
    let p = Position::from_labelled(&parse_line(&black.replace("1.0", "0.0")).unwrap()).unwrap();
    assert_eq!(p.outcome, Outcome::Win);
    let p = Position::from_labelled(&parse_line(&black.replace("1.0", "0.5")).unwrap()).unwrap();
    assert_eq!(p.outcome, Outcome::Draw);
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | -5 | 0.5";
    let p = Position::from_labelled(&parse_line(start).unwrap()).unwrap();
    assert_eq!((p.score, p.material, p.outcome), (-5.0, 78, Outcome::Draw));
    // Mate scores are skipped.
    let mate = format!("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1 | {} | 1.0", 31_990);
    assert!(Position::from_labelled(&parse_line(&mate).unwrap()).is_none());
}

#[test]
fn recovers_known_linear_coefficients() {
    let truth = Model {
        a: vec![250.0, -150.0],
        b: vec![110.0, 20.0],
    };
    let data = synthetic(&truth, 400_000, 7);
    let options = FitOptions {
        degree: 1,
        ..FitOptions::default()
    };
    let fit = wdl::fit(&data, &options, |_, _| {});
    assert!(fit.converged, "{fit:?}");
    assert!(fit.model.is_valid());
    // The maximum of the likelihood is at least as good as the truth.
    assert!(fit.loss <= wdl::log_loss(&truth, &data) + 1e-12);
    for (got, want, tol) in [
        (fit.model.a[0], 250.0, 4.0),
        (fit.model.a[1], -150.0, 5.0),
        (fit.model.b[0], 110.0, 3.0),
        (fit.model.b[1], 20.0, 4.0),
    ] {
        assert!(
            (got - want).abs() < tol,
            "{:?} against {truth:?}",
            fit.model
        );
    }
    let (da, db) = max_gap(&fit.model, &truth);
    assert!(da < 2.0 && db < 2.0, "{da} {db}: {:?}", fit.model);
}

#[test]
fn recovers_a_cubic_and_beats_the_baselines() {
    // Shaped like the engine's fit.
    let truth = Model {
        a: vec![740.0, -2240.0, 2520.0, -910.0],
        b: vec![270.0, -750.0, 1000.0, -395.0],
    };
    assert!(truth.is_valid());
    let data = synthetic(&truth, 400_000, 11);
    let fit = wdl::fit(&data, &FitOptions::default(), |_, _| {});
    assert!(fit.converged && fit.model.is_valid(), "{fit:?}");
    assert!(fit.loss <= wdl::log_loss(&truth, &data) + 1e-12);
    // Cubic coefficients trade off against each other; the curves must
    // match.
    let (da, db) = max_gap(&fit.model, &truth);
    assert!(da < 3.0 && db < 3.0, "{da} {db}: {:?}", fit.model);

    // A score-only model and constant rates are worse, on fresh data too.
    let flat = wdl::fit(
        &data,
        &FitOptions {
            degree: 0,
            ..FitOptions::default()
        },
        |_, _| {},
    );
    let fresh = synthetic(&truth, 100_000, 12);
    let rates = wdl::rates(&data);
    let model = wdl::log_loss(&fit.model, &fresh);
    assert!(model < wdl::log_loss(&flat.model, &fresh));
    assert!(wdl::log_loss(&flat.model, &fresh) < wdl::constant_log_loss(rates, &fresh));
    assert!(model < wdl::log_loss(&truth, &fresh) + 0.001);

    // Calibrated: predicted and observed rates agree bucket by bucket.
    let rows = wdl::calibration(
        &fit.model,
        &fresh,
        &[-300.0, -100.0, 0.0, 100.0, 300.0],
        |p| p.score as f64,
    );
    assert_eq!(rows.len(), 6);
    assert_eq!(rows.iter().map(|r| r.count).sum::<usize>(), fresh.len());
    assert!(wdl::max_deviation(&rows, 1000) < 0.015);
    let rows = wdl::calibration(&fit.model, &fresh, &[30.0, 50.0, 70.0], |p| {
        p.material as f64
    });
    assert!(wdl::max_deviation(&rows, 1000) < 0.015);
}

#[test]
fn the_fit_does_not_depend_on_the_thread_count() {
    let truth = Model {
        a: vec![200.0, -50.0],
        b: vec![100.0, 0.0],
    };
    let data = synthetic(&truth, 100_000, 3);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| wdl::fit(&data, &FitOptions::default(), |_, _| {}))
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.model, two.model);
    assert_eq!(one.loss, two.loss);
}

#[test]
fn the_engine_constants_are_a_valid_fit() {
    // The coefficients compiled into the engine give sane probabilities.
    let engine = Model::engine();
    assert_eq!(engine.degree(), 3);
    assert!(engine.is_valid());
    let out = wdl::rust_constants(&engine);
    assert!(out.starts_with("pub const A: [f64; 4] = ["), "{out}");
}

fn tuner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tuner"))
}

#[test]
fn binary_fits_a_datagen_file() {
    let truth = Model {
        a: vec![150.0, 0.0],
        b: vec![100.0, 0.0],
    };
    // Positions of a few material counts, White or Black to move.
    let fens = [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 78),
        ("r3k2r/pp3ppp/8/8/8/8/PP3PPP/R3K2R", 32),
        ("4k3/pp6/8/8/8/8/6PP/4K2R", 9),
    ];
    let mut rng = Rng(5);
    let mut text = String::new();
    for i in 0..3000 {
        let (board, material) = fens[i % 3];
        let black = i % 2 == 1;
        let stm_score = rng.normal(200.0).round();
        let p = truth.probabilities(stm_score, material);
        let r = rng.unit();
        let stm_result = if r < p[0] {
            1.0
        } else if r < p[0] + p[1] {
            0.5
        } else {
            0.0
        };
        let (score, result) = if black {
            (-stm_score, 1.0 - stm_result)
        } else {
            (stm_score, stm_result)
        };
        let turn = if black { "b" } else { "w" };
        text.push_str(&format!("{board} {turn} - - 0 1 | {score} | {result:.1}\n"));
    }
    text.push_str("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1 | 31990 | 1.0\n");
    text.push_str("not a position | 1 | 1.0\n");
    text.push_str("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1 | 12 | 0."); // being written
    let dir = std::env::temp_dir().join(format!("tuner-wdl-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("data.txt");
    std::fs::write(&file, text).unwrap();

    let out = tuner()
        .args([
            "wdl",
            "--degree",
            "1",
            "--validation",
            "300",
            "--threads",
            "1",
        ])
        .arg("--data")
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("2700 positions fitted, 300 held out, 1 with a mate score skipped"),
        "{stdout}"
    );
    assert!(stderr.contains("1 bad lines skipped"), "{stderr}");
    assert!(stderr.contains("data.txt:3002: skipped: "), "{stderr}");
    assert!(stdout.contains("converged"), "{stdout}");
    assert!(stdout.contains("log loss (held out, 300 positions): model"));
    assert!(stdout.contains("calibration by score"));
    assert!(stdout.contains("calibration by material"));
    assert!(stdout.contains("pub const A: [f64; 4] = ["));
    // The fitted a and b are near the truth (a small sample).
    let line = stdout
        .lines()
        .find(|l| l.starts_with("a(x) coefficients"))
        .unwrap();
    let a0: f64 = line
        .split(": ")
        .nth(1)
        .unwrap()
        .split(", ")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((a0 - 150.0).abs() < 60.0, "{stdout}");

    let out = tuner()
        .args(["wdl", "--degree", "0", "--limit", "500", "--threads", "1"])
        .arg("--data")
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("(500 positions fitted, 0 held out"),
        "{stdout}"
    );

    let help = tuner().args(["wdl", "--help"]).output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("tuner wdl"));
    let bad = tuner().args(["wdl", "--degree", "5"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
