//! `tuner`: Texel tuning of Kiraly's evaluation weights, and (`tuner wdl`)
//! the fit of the win/draw/loss model. See `tuner --help`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use kiraly::eval::params::{KING_DANGER, PARAMS, VALUES};
use tuner::data::Dataset;
use tuner::model::{self, Train, THETA_LEN};
use tuner::params_file::ParamsFile;
use tuner::wdl_cli::{self, num};
use tuner::{freeze, DEFAULT_FREEZE};

const HELP: &str = "\
tuner: Texel tuning of Kiraly's evaluation (src/eval/params.rs)

Usage: tuner --data FILE [--data FILE ...] [options]
       tuner wdl --data FILE [...]   fit the win/draw/loss model of src/wdl.rs
                                     (see 'tuner wdl --help')

Input
  --data FILE        datagen file, '<FEN> | <score cp> | <result>' per line,
                     White's view (repeatable; only complete lines are read)
  --limit N          use at most N positions in total (default: all)
  --params PATH      params file to read and rewrite (default src/eval/params.rs);
                     it must hold the values the tuner was built with
Model
  --k K              skip the fit of K and use this one
  --lambda L         target = (1-L)*result + L*sigmoid(score) (default 0: results only)
Optimiser (Adam)
  --epochs N         passes over the data (default 20; 0 = only fit K / round trip)
  --lr X             step size in centipawns (default 1.0)
  --batch N          positions per step (default 16384; 0 = full batch)
  --threads N        worker threads (default: RAYON_NUM_THREADS or all cores)
  --seed N           shuffle seed (default 1)
  --validation N     hold out the last N positions loaded (whole games, as
                     datagen writes them) and report their loss every epoch
  --l2 X             penalty X * sum((w - w_start)^2) on the loss, holding each
                     weight near its starting value unless the data insist
                     (default 0; try 1e-9 .. 1e-7)
  --last-epoch       write the last epoch's weights; by default, with
                     --validation, those of the epoch best on the held-out
                     positions (early stopping)
  --freeze SPEC      keep NAME, NAME[i], NAME[i].mg, NAME[i].eg, KING_DANGER or
                     KING_DANGER[i] fixed (repeatable); MATERIAL[0].mg (the pawn's
                     middlegame value, the scale anchor) is always frozen unless
                     --no-default-freeze is given
Output
  --output PATH      write the tuned params.rs there (default: stdout)
  --write-params     overwrite the --params file itself
  -h, --help         this text

The prediction is 1 / (1 + 10^(-K * eval / 400)) with eval in centipawns from
White's view; the loss is the mean squared error against the target. Tuned
values are rounded to integers; names, lengths, order, comments and all other
constants of params.rs are kept.
";

struct Config {
    data: Vec<PathBuf>,
    limit: usize,
    params: PathBuf,
    k: Option<f64>,
    lambda: f64,
    epochs: usize,
    lr: f64,
    batch: usize,
    threads: Option<usize>,
    seed: u64,
    validation: usize,
    freeze: Vec<String>,
    default_freeze: bool,
    l2: f64,
    keep_best: bool,
    output: Option<PathBuf>,
    write_params: bool,
}

enum Command {
    Help,
    Run(Config),
}

fn float(name: &str, value: &str, min: f64, max: f64) -> Result<f64, String> {
    let x: f64 = num(name, value)?;
    if x.is_finite() && x >= min && x <= max {
        Ok(x)
    } else {
        Err(format!("{name}: '{value}' is not in {min}..={max}"))
    }
}

fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let mut c = Config {
        data: Vec::new(),
        limit: usize::MAX,
        params: PathBuf::from("src/eval/params.rs"),
        k: None,
        lambda: 0.0,
        epochs: 20,
        lr: 1.0,
        batch: 16384,
        threads: None,
        seed: 1,
        validation: 0,
        freeze: Vec::new(),
        default_freeze: true,
        l2: 0.0,
        keep_best: true,
        output: None,
        write_params: false,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--write-params" => c.write_params = true,
            "--no-default-freeze" => c.default_freeze = false,
            "--last-epoch" => c.keep_best = false,
            _ => {
                let value = match inline {
                    Some(v) => v,
                    None => args.next().ok_or_else(|| format!("{name} needs a value"))?,
                };
                match name.as_str() {
                    "--data" => c.data.push(PathBuf::from(value)),
                    "--limit" => c.limit = num(&name, &value)?,
                    "--params" => c.params = PathBuf::from(value),
                    "--output" => c.output = Some(PathBuf::from(value)),
                    "--k" => c.k = Some(float(&name, &value, 1e-6, 100.0)?),
                    "--lambda" => c.lambda = float(&name, &value, 0.0, 1.0)?,
                    "--l2" => c.l2 = float(&name, &value, 0.0, 1.0)?,
                    "--epochs" => c.epochs = num(&name, &value)?,
                    "--lr" => c.lr = float(&name, &value, 0.0, 1e6)?,
                    "--batch" => c.batch = num(&name, &value)?,
                    "--threads" => {
                        let n: usize = num(&name, &value)?;
                        if n == 0 {
                            return Err("--threads must be at least 1".into());
                        }
                        c.threads = Some(n);
                    }
                    "--seed" => c.seed = num(&name, &value)?,
                    "--validation" => c.validation = num(&name, &value)?,
                    "--freeze" => c.freeze.push(value),
                    _ => return Err(format!("unknown option '{arg}'")),
                }
            }
        }
    }
    if c.epochs > 0 && c.data.is_empty() {
        return Err("--data is required (or --epochs 0 to only rewrite the file)".into());
    }
    if c.limit == 0 {
        return Err("--limit must be at least 1".into());
    }
    Ok(Command::Run(c))
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
    if c.default_freeze {
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
            keep_best: c.keep_best,
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

/// `tuner wdl ...`: the win/draw/loss model fit.
fn wdl_main(args: Vec<String>) -> ExitCode {
    match wdl_cli::parse_args(args) {
        Ok(wdl_cli::Command::Help) => {
            print!("{}", wdl_cli::HELP);
            ExitCode::SUCCESS
        }
        Ok(wdl_cli::Command::Run(config)) => match wdl_cli::run(&config) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("tuner wdl: {message}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("tuner wdl: {message}\nTry 'tuner wdl --help'.");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("wdl") {
        return wdl_main(args[1..].to_vec());
    }
    match parse_args(args) {
        Ok(Command::Help) => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Ok(Command::Run(config)) => match run(&config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("tuner: {message}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("tuner: {message}\nTry 'tuner --help'.");
            ExitCode::from(2)
        }
    }
}
