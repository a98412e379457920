//! `tuner`: Texel tuning of Kiraly's evaluation weights, and (`tuner wdl`)
//! the fit of the win/draw/loss model. See `tuner --help`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{CommandFactory, Parser, Subcommand};
use kiraly::eval::params::{KING_DANGER, PARAMS, VALUES};
use tuner::data::Dataset;
use tuner::model::{self, Train, THETA_LEN};
use tuner::params_file::ParamsFile;
use tuner::wdl_cli::{self, at_least_one};
use tuner::{freeze, DEFAULT_FREEZE};

const AFTER_HELP: &str = "\
The prediction is 1 / (1 + 10^(-K * eval / 400)) with eval in centipawns from
White's view; the loss is the mean squared error against the target. Tuned
values are rounded to integers; names, lengths, order, comments and all other
constants of params.rs are kept.";

/// Texel tuning of Kiraly's evaluation (src/eval/params.rs)
#[derive(Parser)]
#[command(name = "tuner", after_help = AFTER_HELP)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Tool>,
    #[command(flatten)]
    tune: Config,
}

#[derive(Subcommand)]
enum Tool {
    /// Fit the win/draw/loss model of src/wdl.rs (UCI_ShowWDL)
    Wdl(wdl_cli::Config),
}

#[derive(clap::Args)]
struct Config {
    /// Datagen file, '<FEN> | <score cp> | <result>' per line, White's view
    /// (repeatable; only complete lines are read)
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    data: Vec<PathBuf>,
    /// Use at most N positions in total [default: all]
    #[arg(long, value_name = "N", default_value_t = usize::MAX, hide_default_value = true,
          value_parser = at_least_one, help_heading = "Input")]
    limit: usize,
    /// Params file to read and rewrite; it must hold the values the tuner
    /// was built with
    #[arg(
        long,
        value_name = "PATH",
        default_value = "src/eval/params.rs",
        help_heading = "Input"
    )]
    params: PathBuf,
    /// Skip the fit of K and use this one
    #[arg(long, value_parser = |t: &str| float(t, 1e-6, 100.0), help_heading = "Model")]
    k: Option<f64>,
    /// Target = (1-L)*result + L*sigmoid(score); 0 trains on results only
    #[arg(long, value_name = "L", default_value_t = 0.0,
          value_parser = |t: &str| float(t, 0.0, 1.0), help_heading = "Model")]
    lambda: f64,
    /// Passes over the data (0 = only fit K / round trip)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 20,
        help_heading = "Optimiser (Adam)"
    )]
    epochs: usize,
    /// Step size in centipawns
    #[arg(long, value_name = "X", default_value_t = 1.0,
          value_parser = |t: &str| float(t, 0.0, 1e6), help_heading = "Optimiser (Adam)")]
    lr: f64,
    /// Positions per step (0 = full batch)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 16384,
        help_heading = "Optimiser (Adam)"
    )]
    batch: usize,
    /// Worker threads [default: RAYON_NUM_THREADS or all cores]
    #[arg(long, value_name = "N", value_parser = at_least_one, help_heading = "Optimiser (Adam)")]
    threads: Option<usize>,
    /// Shuffle seed
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        help_heading = "Optimiser (Adam)"
    )]
    seed: u64,
    /// Hold out the last N positions loaded (whole games, as datagen writes
    /// them) and report their loss every epoch
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        help_heading = "Optimiser (Adam)"
    )]
    validation: usize,
    /// Penalty X * sum((w - w_start)^2) on the loss, holding each weight near
    /// its starting value unless the data insist (try 1e-9 .. 1e-7)
    #[arg(long, value_name = "X", default_value_t = 0.0,
          value_parser = |t: &str| float(t, 0.0, 1.0), help_heading = "Optimiser (Adam)")]
    l2: f64,
    /// Write the last epoch's weights; by default, with --validation, those
    /// of the epoch best on the held-out positions (early stopping)
    #[arg(long, help_heading = "Optimiser (Adam)")]
    last_epoch: bool,
    /// Keep NAME, NAME[i], NAME[i].mg, NAME[i].eg, KING_DANGER or
    /// KING_DANGER[i] fixed (repeatable); MATERIAL[0].mg (the pawn's
    /// middlegame value, the scale anchor) is always frozen unless
    /// --no-default-freeze is given
    #[arg(long, value_name = "SPEC", help_heading = "Optimiser (Adam)")]
    freeze: Vec<String>,
    /// Let the tuner move MATERIAL[0].mg too
    #[arg(long, help_heading = "Optimiser (Adam)")]
    no_default_freeze: bool,
    /// Write the tuned params.rs there [default: stdout]
    #[arg(long, value_name = "PATH", help_heading = "Output")]
    output: Option<PathBuf>,
    /// Overwrite the --params file itself
    #[arg(long, help_heading = "Output")]
    write_params: bool,
}

fn float(value: &str, min: f64, max: f64) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= min && x <= max => Ok(x),
        _ => Err(format!("expected a number in {min}..={max}")),
    }
}

/// Checks that the file holds the layout and values the tuner was built with.
fn check_file(file: &ParamsFile) -> Result<(), String> {
    let names: Vec<(&str, usize)> = file
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.len))
        .collect();
    let built: Vec<(&str, usize)> = PARAMS.iter().map(|p| (p.name, p.values.len())).collect();
    if names != built {
        return Err(
            "the params file's entries differ from the engine the tuner was built with".into(),
        );
    }
    let values: Vec<(i32, i32)> = VALUES.iter().map(|v| (v.mg, v.eg)).collect();
    if file.values() != values || file.king_danger() != KING_DANGER.to_vec() {
        return Err(
            "the params file's values differ from the engine the tuner was built with; rebuild the tuner".into(),
        );
    }
    Ok(())
}

fn run(c: &Config) -> Result<(), String> {
    if let Some(n) = c.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| format!("thread pool: {e}"))?;
    }
    let text =
        std::fs::read_to_string(&c.params).map_err(|e| format!("{}: {e}", c.params.display()))?;
    let file = ParamsFile::parse(&text).map_err(|e| format!("{}: {e}", c.params.display()))?;
    check_file(&file).map_err(|e| format!("{}: {e}", c.params.display()))?;

    let mut frozen = vec![false; THETA_LEN];
    if !c.no_default_freeze {
        for spec in DEFAULT_FREEZE {
            freeze(&mut frozen, spec)?;
        }
    }
    for spec in &c.freeze {
        freeze(&mut frozen, spec)?;
    }

    let mut theta = model::current_theta();
    if !c.data.is_empty() {
        let start = Instant::now();
        let mut data = Dataset::default();
        for path in &c.data {
            let mut last = 0;
            let bad = data.load(path, c.limit, |n| {
                if n >= last + 100_000 {
                    last = n;
                    eprintln!(
                        "loaded {n} positions ({:.1} s)",
                        start.elapsed().as_secs_f64()
                    );
                }
            })?;
            if bad > 0 {
                eprintln!("{}: {bad} bad lines skipped", path.display());
            }
        }
        if data.dropped > 0 {
            eprintln!(
                "{} positions dropped (a count too large to store)",
                data.dropped
            );
        }
        data.hold_out(c.validation);
        if data.is_empty() {
            return Err("no positions to train on".into());
        }
        data.shuffle(c.seed);
        eprintln!(
            "loaded {} positions ({} held out), {} coefficients ({:.1} MB) in {:.1} s",
            data.len() + data.validation.len(),
            data.validation.len(),
            data.coefs.len(),
            (data.coefs.len() * std::mem::size_of::<tuner::data::Coef>()
                + (data.len() + data.validation.len()) * std::mem::size_of::<tuner::data::Sample>())
                as f64
                / 1e6,
            start.elapsed().as_secs_f64()
        );

        let k = match c.k {
            Some(k) => k,
            None => {
                let start = Instant::now();
                let k = model::fit_k(&theta, &data, c.lambda);
                eprintln!("fitted K = {k:.4} ({:.1} s)", start.elapsed().as_secs_f64());
                k
            }
        };
        eprintln!("K = {k:.4}");
        let before = model::loss(&theta, &data, k, c.lambda);
        let valid_before = model::loss_on(&theta, &data, &data.validation, k, c.lambda);
        if data.validation.is_empty() {
            eprintln!("loss before: {before:.7}");
        } else {
            eprintln!("loss before: {before:.7} (validation {valid_before:.7})");
        }
        let cfg = Train {
            epochs: c.epochs,
            lr: c.lr,
            batch: c.batch,
            k,
            lambda: c.lambda,
            frozen,
            l2: c.l2,
            keep_best: !c.last_epoch,
        };
        let start = Instant::now();
        let has_validation = !data.validation.is_empty();
        let kept = model::train(&mut theta, &data, &cfg, |r| {
            if has_validation {
                eprintln!(
                    "epoch {:4} | loss {:.7} | validation {:.7} | {:.2} s",
                    r.epoch, r.loss, r.validation, r.seconds
                );
            } else {
                eprintln!(
                    "epoch {:4} | loss {:.7} | {:.2} s",
                    r.epoch, r.loss, r.seconds
                );
            }
        });
        if c.epochs > 0 {
            let (pairs, kd) = model::round_theta(&theta);
            let rounded = model::theta_from(&pairs, &kd);
            let after = model::loss(&theta, &data, k, c.lambda);
            let after_rounded = model::loss(&rounded, &data, k, c.lambda);
            eprintln!(
                "loss before {before:.7}, after {after:.7} (rounded to integers: {after_rounded:.7}); {} epochs in {:.1} s",
                c.epochs,
                start.elapsed().as_secs_f64()
            );
            if kept != c.epochs {
                eprintln!("kept the weights of epoch {kept}, the best on the held-out positions");
            }
            if has_validation {
                let valid_after = model::loss_on(&rounded, &data, &data.validation, k, c.lambda);
                eprintln!(
                    "validation loss before {valid_before:.7}, after {valid_after:.7} (rounded)"
                );
            }
        }
    }

    let (pairs, kd) = model::round_theta(&theta);
    let out = file.render(&pairs, &kd)?;
    let mut written = false;
    if let Some(path) = &c.output {
        let same = std::fs::canonicalize(path).ok() == std::fs::canonicalize(&c.params).ok()
            && path.exists();
        if same && !c.write_params {
            return Err(format!(
                "--output {} is the params file; add --write-params to overwrite it",
                path.display()
            ));
        }
        std::fs::write(path, &out).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
        written = true;
    }
    if c.write_params {
        std::fs::write(&c.params, &out).map_err(|e| format!("{}: {e}", c.params.display()))?;
        eprintln!("wrote {}", c.params.display());
        written = true;
    }
    if !written {
        print!("{out}");
    }
    Ok(())
}

fn main() -> ExitCode {
    // Argument errors exit with status 2, --help with 0, as clap does.
    let cli = Cli::parse();
    match cli.command {
        Some(Tool::Wdl(config)) => match wdl_cli::run(&config) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("tuner wdl: {message}");
                ExitCode::FAILURE
            }
        },
        None => {
            let c = cli.tune;
            if c.epochs > 0 && c.data.is_empty() {
                Cli::command()
                    .error(
                        clap::error::ErrorKind::MissingRequiredArgument,
                        "--data is required (or --epochs 0 to only rewrite the file)",
                    )
                    .exit();
            }
            match run(&c) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("tuner: {message}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
