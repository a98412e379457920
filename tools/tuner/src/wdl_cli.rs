//! `tuner wdl`: fits the win/draw/loss model of `src/wdl.rs` and prints the
//! fit, its log loss against baselines, calibration tables and the
//! constants for `src/wdl.rs`.

use std::path::PathBuf;
use std::time::Instant;

use crate::wdl::{self, FitOptions, Model, Position};

/// What `tuner wdl --help` adds after the options.
const MODEL: &str = "\
Model, from the side to move's view, score s in centipawns, material m
(P=1, N=B=3, R=5, Q=9, both sides) and x = clamp(m, 17, 78) / 58:
  win  = 1 / (1 + exp((a(x) - s) / b(x)))
  loss = 1 / (1 + exp((a(x) + s) / b(x)))
  draw = 1 - win - loss
with a and b polynomials in x, fitted by maximum likelihood (mean
multinomial log loss, Fisher scoring with a line search). The report goes to
stdout, progress to stderr; it ends with the constants for src/wdl.rs.";

/// Settings of `tuner wdl`: fit the win/draw/loss model of src/wdl.rs
/// (UCI_ShowWDL).
#[derive(Clone, Debug, PartialEq, clap::Args)]
#[command(after_help = MODEL)]
pub struct Config {
    /// Datagen file, '<FEN> | <score cp> | <result>' per line, White's view
    /// (repeatable; only complete lines are read; positions with a mate
    /// score are skipped)
    #[arg(long, value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// Use at most N positions in total [default: all]
    #[arg(long, value_name = "N", default_value_t = usize::MAX, hide_default_value = true,
          value_parser = at_least_one)]
    pub limit: usize,
    /// Degree of the polynomials a(x) and b(x) (the engine holds a cubic at most)
    #[arg(long, value_name = "D", default_value_t = 3, value_parser = degree)]
    pub degree: usize,
    /// Hold out the last N positions loaded (whole games, as datagen writes
    /// them): not fitted on, losses and the calibration tables are reported
    /// on them
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub validation: usize,
    /// Fisher-scoring steps at most
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_iterations: usize,
    /// Worker threads [default: RAYON_NUM_THREADS or all cores]
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub threads: Option<usize>,
}

/// A count of 1 or more (shared with the tuner's own arguments).
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number, at least 1".into()),
    }
}

fn degree(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(d) if d <= 3 => Ok(d),
        _ => Err("expected 0..=3 (the engine holds a cubic at most)".into()),
    }
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
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        config: Config,
    }

    fn parse(s: &str) -> Result<Config, clap::Error> {
        Cli::try_parse_from(std::iter::once("wdl").chain(s.split_whitespace())).map(|c| c.config)
    }

    #[test]
    fn parses_arguments() {
        let c =
            parse("--data a.txt --data=b.txt --degree 1 --validation 500 --limit 9 --threads 2")
                .expect("parsed");
        assert_eq!(c.data, vec![PathBuf::from("a.txt"), PathBuf::from("b.txt")]);
        assert_eq!(
            (c.degree, c.validation, c.limit, c.threads),
            (1, 500, 9, Some(2))
        );
        let c = parse("--data a").expect("parsed");
        assert_eq!(
            (c.degree, c.validation, c.limit, c.max_iterations, c.threads),
            (3, 0, usize::MAX, 200, None)
        );
        assert_eq!(
            parse("--data x -h").map_err(|e| e.kind()).err(),
            Some(clap::error::ErrorKind::DisplayHelp)
        );
        for bad in [
            "",
            "--data",
            "--data a --degree 4",
            "--data a --limit 0",
            "--data a --threads 0",
            "--data a --bogus",
            "--data a --degree x",
        ] {
            let kind = parse(bad).map_err(|e| e.kind()).err();
            assert!(
                kind.is_some() && kind != Some(clap::error::ErrorKind::DisplayHelp),
                "{bad}"
            );
        }
    }
}
