//! `tuner wdl`: fits the win/draw/loss model of `src/wdl.rs` and prints the
//! fit, its log loss against baselines, calibration tables and the
//! constants for `src/wdl.rs`.

use std::path::PathBuf;
use std::time::Instant;

use crate::wdl::{self, FitOptions, Model, Position};

pub const HELP: &str = "\
tuner wdl: fit the win/draw/loss model of src/wdl.rs (UCI_ShowWDL)

Usage: tuner wdl --data FILE [--data FILE ...] [options]

  --data FILE         datagen file, '<FEN> | <score cp> | <result>' per line,
                      White's view (repeatable; only complete lines are read;
                      positions with a mate score are skipped)
  --limit N           use at most N positions in total (default: all)
  --degree D          degree of the polynomials a(x) and b(x), 0..=3 (default 3)
  --validation N      hold out the last N positions loaded (whole games, as
                      datagen writes them): not fitted on, losses and the
                      calibration tables are reported on them
  --max-iterations N  Fisher-scoring steps at most (default 200)
  --threads N         worker threads (default: RAYON_NUM_THREADS or all cores)
  -h, --help          this text

Model, from the side to move's view, score s in centipawns, material m
(P=1, N=B=3, R=5, Q=9, both sides) and x = clamp(m, 17, 78) / 58:
  win  = 1 / (1 + exp((a(x) - s) / b(x)))
  loss = 1 / (1 + exp((a(x) + s) / b(x)))
  draw = 1 - win - loss
with a and b polynomials in x, fitted by maximum likelihood (mean
multinomial log loss, Fisher scoring with a line search). The report goes to
stdout, progress to stderr; it ends with the constants for src/wdl.rs.
";

/// Settings of `tuner wdl`.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub data: Vec<PathBuf>,
    pub limit: usize,
    pub degree: usize,
    pub validation: usize,
    pub max_iterations: usize,
    pub threads: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Help,
    Run(Config),
}

/// Parses one option value, naming the option in the error (shared with
/// the tuner's own arguments).
pub fn num<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value
        .parse::<T>()
        .map_err(|_| format!("{name}: bad value '{value}'"))
}

/// Parses the arguments after `wdl`.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let mut c = Config {
        data: Vec::new(),
        limit: usize::MAX,
        degree: 3,
        validation: 0,
        max_iterations: 200,
        threads: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if name == "-h" || name == "--help" {
            return Ok(Command::Help);
        }
        let value = match inline {
            Some(v) => v,
            None => match name.as_str() {
                "--data" | "--limit" | "--degree" | "--validation" | "--max-iterations"
                | "--threads" => args.next().ok_or_else(|| format!("{name} needs a value"))?,
                _ => return Err(format!("unknown option '{arg}'")),
            },
        };
        match name.as_str() {
            "--data" => c.data.push(PathBuf::from(value)),
            "--limit" => c.limit = num(&name, &value)?,
            "--degree" => c.degree = num(&name, &value)?,
            "--validation" => c.validation = num(&name, &value)?,
            "--max-iterations" => c.max_iterations = num(&name, &value)?,
            "--threads" => c.threads = Some(num(&name, &value)?),
            _ => return Err(format!("unknown option '{arg}'")),
        }
    }
    if c.data.is_empty() {
        return Err("--data is required".into());
    }
    if c.degree > 3 {
        return Err("--degree must be 0..=3 (the engine holds a cubic at most)".into());
    }
    if c.limit == 0 {
        return Err("--limit must be at least 1".into());
    }
    if c.threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    Ok(Command::Run(c))
}

/// Score bucket edges (centipawns, side to move) of the calibration table.
pub const SCORE_EDGES: [f64; 20] = [
    -1000.0, -600.0, -400.0, -300.0, -200.0, -150.0, -100.0, -50.0, -25.0, -10.0, 10.0, 25.0, 50.0,
    100.0, 150.0, 200.0, 300.0, 400.0, 600.0, 1000.0,
];
/// Material bucket edges of the calibration table.
pub const MATERIAL_EDGES: [f64; 7] = [24.0, 32.0, 40.0, 48.0, 56.0, 64.0, 72.0];

fn coefficients(c: &[f64]) -> String {
    c.iter()
        .map(|x| format!("{x:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `tuner wdl`: returns the report.
pub fn run(c: &Config) -> Result<String, String> {
    if let Some(n) = c.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| format!("thread pool: {e}"))?;
    }
    let start = Instant::now();
    let mut data: Vec<Position> = Vec::new();
    let mut mates = 0;
    for path in &c.data {
        let skipped = wdl::load(path, c.limit, &mut data)?;
        if skipped.bad > 0 {
            eprintln!("{}: {} bad lines skipped", path.display(), skipped.bad);
        }
        mates += skipped.mate;
        eprintln!(
            "{}: {} positions in all ({:.1} s)",
            path.display(),
            data.len(),
            start.elapsed().as_secs_f64()
        );
    }
    let held = c.validation.min(data.len());
    let validation = data.split_off(data.len() - held);
    if data.is_empty() {
        return Err("no positions to fit".into());
    }

    let mut out = String::new();
    let files: Vec<String> = c.data.iter().map(|p| p.display().to_string()).collect();
    out.push_str(&format!(
        "data: {} ({} positions fitted, {} held out, {} with a mate score skipped)\n",
        files.join(", "),
        data.len(),
        validation.len(),
        mates
    ));
    let rates = wdl::rates(&data);
    out.push_str(&format!(
        "observed (side to move): win {:.2}%, draw {:.2}%, loss {:.2}%\n",
        100.0 * rates[0],
        100.0 * rates[1],
        100.0 * rates[2]
    ));

    let options = FitOptions {
        degree: c.degree,
        max_iterations: c.max_iterations,
        ..FitOptions::default()
    };
    let fit_start = Instant::now();
    let fit = wdl::fit(&data, &options, |i, loss| {
        eprintln!("iteration {i:3} | log loss {loss:.8}");
    });
    out.push_str(&format!(
        "fit: degree {}, {} Fisher-scoring steps ({}), {:.1} s\n",
        c.degree,
        fit.iterations,
        if fit.converged {
            "converged"
        } else {
            "iteration limit"
        },
        fit_start.elapsed().as_secs_f64()
    ));
    let model = &fit.model;
    out.push_str(&format!(
        "a(x) coefficients (x^0..x^{}): {}\nb(x) coefficients (x^0..x^{}): {}\n",
        c.degree,
        coefficients(&model.a),
        c.degree,
        coefficients(&model.b)
    ));
    out.push_str("material     ");
    let ms = [17, 24, 32, 40, 48, 56, 64, 72, 78];
    for m in ms {
        out.push_str(&format!("{m:>7}"));
    }
    out.push_str("\na (cp)       ");
    for m in ms {
        out.push_str(&format!("{:>7.1}", model.ab(m).0));
    }
    out.push_str("\nb (cp)       ");
    for m in ms {
        out.push_str(&format!("{:>7.1}", model.ab(m).1));
    }
    out.push('\n');

    let flat = (c.degree > 0).then(|| {
        wdl::fit(
            &data,
            &FitOptions {
                degree: 0,
                ..options.clone()
            },
            |_, _| {},
        )
    });
    let mut losses = |name: &str, set: &[Position]| {
        out.push_str(&format!(
            "log loss ({name}, {} positions): model {:.6}",
            set.len(),
            wdl::log_loss(model, set)
        ));
        if let Some(f) = &flat {
            out.push_str(&format!(
                ", material-independent (a {:.1}, b {:.1}) {:.6}",
                f.model.a[0],
                f.model.b[0],
                wdl::log_loss(&f.model, set)
            ));
        }
        out.push_str(&format!(
            ", constant rates {:.6} nats\n",
            wdl::constant_log_loss(rates, set)
        ));
    };
    losses("fitted", &data);
    if !validation.is_empty() {
        losses("held out", &validation);
    }

    let (set, which) = if validation.is_empty() {
        (&data[..], "fitted positions")
    } else {
        (&validation[..], "held-out positions")
    };
    let by_score = wdl::calibration(model, set, &SCORE_EDGES, |p| p.score as f64);
    let by_material = wdl::calibration(model, set, &MATERIAL_EDGES, |p| p.material as f64);
    out.push('\n');
    out.push_str(&wdl::render_calibration(
        &format!("calibration by score (cp, side to move), {which}: predicted | observed"),
        &by_score,
    ));
    out.push_str(&format!(
        "largest |predicted - observed| over score buckets of 1000+ positions: {:.1} points\n\n",
        100.0 * wdl::max_deviation(&by_score, 1000)
    ));
    out.push_str(&wdl::render_calibration(
        &format!("calibration by material, {which}: predicted | observed"),
        &by_material,
    ));
    out.push_str(&format!(
        "largest |predicted - observed| over material buckets of 1000+ positions: {:.1} points\n\n",
        100.0 * wdl::max_deviation(&by_material, 1000)
    ));
    out.push_str("constants for src/wdl.rs:\n");
    out.push_str(&wdl::rust_constants(model));
    if *model != Model::engine() && c.degree == 3 {
        let engine = wdl::log_loss(&Model::engine(), &data);
        out.push_str(&format!(
            "(the engine's current constants: log loss {engine:.6} on the fitted positions)\n"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_arguments() {
        let Ok(Command::Run(c)) = parse_args(args(
            "--data a.txt --data=b.txt --degree 1 --validation 500 --limit 9 --threads 2",
        )) else {
            panic!("not parsed");
        };
        assert_eq!(c.data, vec![PathBuf::from("a.txt"), PathBuf::from("b.txt")]);
        assert_eq!(
            (c.degree, c.validation, c.limit, c.threads),
            (1, 500, 9, Some(2))
        );
        assert_eq!(parse_args(args("--data x -h")), Ok(Command::Help));
        for bad in [
            "",
            "--data",
            "--data a --degree 4",
            "--data a --limit 0",
            "--data a --threads 0",
            "--data a --bogus",
            "--data a --degree x",
        ] {
            assert!(parse_args(args(bad)).is_err(), "{bad}");
        }
    }
}
