//! `trainer`: trains Kiraly's NNUE. `trainer --help` lists the options.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use datagen::format::Filter;
use kiraly::nnue::{Network, HIDDEN};
use trainer::data;
use trainer::model::{Params, Shape};
use trainer::rescore;
use trainer::train::{train, TrainConfig};

/// Train Kiraly's learned evaluation on datagen files (the training filter
/// applies when reading). Writes a checkpoint per epoch and the final net.
#[derive(Parser)]
#[command(name = "trainer", version)]
struct Cli {
    /// datagen files (binary game records)
    #[arg(long = "data", required = true)]
    data: Vec<PathBuf>,
    /// king buckets of the net: 1 (none), 2 (the king on its first rank or
    /// not), 4 (first rank castled, first rank central, second rank,
    /// further up) or 32 comma-separated bucket numbers (own king square
    /// a1..h8 from its side, files e-h after mirroring, rank by rank)
    #[arg(long, default_value = "1")]
    buckets: String,
    /// train the king buckets with a factoriser: weights every bucket
    /// shares, added to each bucket's own (the exported net has their sums,
    /// so the engine sees a plain bucketed net); a one-bucket --init starts
    /// the shared weights, the buckets' own start at zero
    #[arg(long)]
    factoriser: bool,
    /// output buckets by the number of pieces on the board (1 to 8; with
    /// 8: 2-5 pieces, 6-9, ..., 30-32), each with output weights of its own
    #[arg(long, default_value_t = 1)]
    output_buckets: usize,
    /// where checkpoints and the final net go
    #[arg(long, default_value = "nets/run")]
    out: PathBuf,
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    #[arg(long, default_value_t = 16_384)]
    batch: usize,
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// the learning rate ends at lr times this (cosine decay)
    #[arg(long, default_value_t = 0.05)]
    final_lr_ratio: f32,
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f32,
    /// weight of the game result in the target; the rest is the score
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// share of the positions held out for validation (the last games read)
    #[arg(long, default_value_t = 0.02)]
    validation: f64,
    /// at most this many positions are read
    #[arg(long)]
    limit: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// threads [default: all cores]
    #[arg(long)]
    threads: Option<usize>,
    /// start from a checkpoint (`epoch-N.f32`) or an engine net (a
    /// `.nnue` file, or `embedded` for the built-in one) instead of random
    /// weights; a start with one king bucket fills every bucket of
    /// --buckets, one with one output bucket every bucket of
    /// --output-buckets
    #[arg(long)]
    init: Option<String>,
    /// progress line every N batches (0: per epoch)
    #[arg(long, default_value_t = 50)]
    progress_batches: usize,
    /// skip the first N plies of each game
    #[arg(long, default_value_t = 8)]
    skip_plies: usize,
    /// add N positions near each one read (1-4 random moves away), scored
    /// by the hand-crafted evaluation (see --augment-nodes), with no game
    /// result
    #[arg(long, default_value_t = 0)]
    augment: usize,
    /// score the added positions by a search of N nodes with the
    /// hand-crafted evaluation instead of its static value (0); positions
    /// in check, with a capture or promotion for best move, or a mate score
    /// keep the static value
    #[arg(long, default_value_t = 0)]
    augment_nodes: u64,
    /// with --augment-nodes: search and evaluate the added positions with
    /// this net (a file, or `embedded` for the engine's built-in one)
    /// instead of the hand-crafted evaluation: the next generation's labels
    /// come from the best evaluation at hand
    #[arg(long)]
    augment_net: Option<String>,
    /// train on the hand-crafted evaluation's scores instead of the search's
    #[arg(long)]
    rescore_hand_crafted: bool,
    /// skip scores at or beyond +-CP
    #[arg(long, default_value_t = 10_000)]
    max_score: i32,
}

fn run(cli: Cli) -> Result<(), String> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()
            .map_err(|e| e.to_string())?;
    }
    if !(0.0..1.0).contains(&cli.validation) || !(0.0..=1.0).contains(&cli.lambda) {
        return Err("--validation must be in [0, 1) and --lambda in [0, 1]".into());
    }
    let filter = Filter {
        skip_plies: cli.skip_plies,
        max_score: cli.max_score,
        ..Filter::default()
    };
    let shape = Shape::build(
        kiraly::nnue::layout_by_name(&cli.buckets)?,
        cli.output_buckets,
        cli.factoriser,
    )?;
    if cli.augment_net.is_some() && cli.augment_nodes == 0 {
        return Err("--augment-net needs --augment-nodes".into());
    }
    let augment_net = cli
        .augment_net
        .as_deref()
        .map(kiraly::nnue::load_named_for_run)
        .transpose()?;
    // Before the data, so a bad --init fails at once rather than after
    // the rescoring.
    let mut params = match &cli.init {
        Some(path) => initial_params(path, shape)?,
        None => Params::random(shape, cli.seed),
    };
    let start = std::time::Instant::now();
    let mut positions = data::load(&cli.data, &filter, cli.limit.unwrap_or(usize::MAX))?;
    let held = (positions.len() as f64 * cli.validation) as usize;
    let mut validation = positions.split_off(positions.len() - held);
    if cli.rescore_hand_crafted {
        rescore::hand_crafted(&mut positions);
        rescore::hand_crafted(&mut validation);
    }
    // After the rescoring above, so each added position is scored once.
    if cli.augment > 0 {
        let mut extra = data::augment(&positions, cli.augment, cli.seed);
        if cli.augment_nodes > 0 {
            let changed = rescore::searched(&mut extra, cli.augment_nodes, augment_net);
            eprintln!(
                "trainer: a {}-node search with {} gave {changed} of {} added positions a score other than the static one ({:.1} s)",
                cli.augment_nodes,
                augment_net.map_or("the hand-crafted evaluation".to_string(), |n| format!(
                    "net {:016x}",
                    n.hash
                )),
                extra.len(),
                start.elapsed().as_secs_f64()
            );
        } else {
            rescore::hand_crafted(&mut extra);
        }
        positions.extend(extra);
    }
    eprintln!(
        "trainer: {} training and {} validation positions read in {:.1} s; net (768x{} -> {HIDDEN})x2 -> 1x{}{}",
        positions.len(),
        validation.len(),
        start.elapsed().as_secs_f64(),
        shape.buckets,
        shape.outputs,
        if shape.factoriser { ", with a factoriser" } else { "" }
    );
    eprintln!(
        "trainer: the search scores themselves score {:.6} on the validation set",
        trainer::model::score_loss(&validation, cli.lambda)
    );
    eprintln!(
        "trainer: the hand-crafted evaluation scores {:.6} on the validation set",
        trainer::model::hand_crafted_loss(&validation, cli.lambda)
    );
    eprintln!(
        "trainer: the starting net scores {:.6} on the validation set",
        trainer::model::loss(&params, &validation, cli.lambda)
    );
    let config = TrainConfig {
        epochs: cli.epochs,
        batch: cli.batch.max(1),
        lr: cli.lr,
        final_lr_ratio: cli.final_lr_ratio,
        weight_decay: cli.weight_decay,
        lambda: cli.lambda,
        seed: cli.seed,
        out_dir: Some(cli.out.clone()),
        progress_batches: cli.progress_batches,
    };
    train(&mut params, &positions, &validation, &config, |r| {
        eprintln!(
            "epoch {} | train loss {:.6} | validation loss {:.6} | lr {:.6} | {:.0} pos/s",
            r.epoch, r.train_loss, r.validation_loss, r.lr, r.positions_per_second
        );
    })?;
    let net = params.quantise();
    if let Some((mean, largest)) = trainer::model::quantisation_error(&params, &net, &validation) {
        eprintln!(
            "trainer: the engine's quantised evaluation differs from the float net by {mean:.1} cp on average, {largest:.0} cp at most, on the validation set"
        );
    }
    let path = cli.out.join("final.nnue");
    std::fs::write(&path, net.to_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("trainer: wrote {} (hash {:016x})", path.display(), net.hash);
    Ok(())
}

/// The starting weights of `--init`: an engine net (by its magic, or the
/// built-in one) or a float checkpoint.
fn initial_params(name: &str, shape: Shape) -> Result<Params, String> {
    if name == kiraly::nnue::EMBEDDED_ARG {
        let net = kiraly::nnue::load_named_for_run(name)?;
        return Params::from_network(net, shape);
    }
    let bytes = std::fs::read(name).map_err(|e| format!("{name}: {e}"))?;
    let result = if bytes.starts_with(kiraly::nnue::network::MAGIC) {
        Network::from_bytes(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|net| Params::from_network(&net, shape))
    } else {
        Params::from_bytes(&bytes, shape)
    };
    result.map_err(|e| format!("{name}: {e}"))
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("trainer: {message}");
            ExitCode::FAILURE
        }
    }
}
