//! `datagen`: Kiraly's training data. `datagen --help` lists the subcommands.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use datagen::format::Filter;
use datagen::play::PlayConfig;
use datagen::stats::Stats;
use datagen::{open_input, pgn, play, text};

/// Kiraly's training data: self-play games in a compact binary format
/// (about 4 bytes a position), conversions from PGN and from the older text
/// format, and statistics.
#[derive(Parser)]
#[command(name = "datagen", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play self-play games and append every ply (move and search score) to
    /// OUTPUT. Runs until stopped (Ctrl-C) unless --games or --positions is
    /// given; an interrupted run leaves whole games, and the next run on the
    /// same file resumes after them.
    Play(PlayArgs),
    /// Convert PGN games with engine score comments ({+0.35/12 0.5s}, as
    /// fastchess, cutechess, OpenBench and tools/match.py write them) to
    /// records; plain or bzip2 input, '-' for stdin.
    Pgn {
        /// PGN files
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// the data file to append to
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Convert the older text format '<FEN> | <score cp, White> | <result>'
    /// to records ('-' for stdin, e.g. `xz -dc data.txt.xz | datagen text - -o x`).
    Text {
        inputs: Vec<PathBuf>,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Print the hash that identifies a net (`embedded` for the built-in
    /// one), as `play` names it in its first progress line.
    NetHash {
        #[arg(long, default_value = "embedded")]
        net: String,
    },
    /// Print the games, positions, result split and score histogram of data
    /// files, and how many positions the training filter keeps.
    Stats {
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        filter: FilterArgs,
    },
}

#[derive(Args)]
struct PlayArgs {
    /// the data file; created, or resumed after its last whole game
    #[arg(short, long, default_value = "selfplay.kdat")]
    output: PathBuf,
    /// games to play (on top of those already in the file)
    #[arg(long)]
    games: Option<u64>,
    /// stop starting games once this many positions are written
    #[arg(long)]
    positions: Option<u64>,
    /// games played at once [default: available cores]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// no new iteration once a search has spent this many nodes
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    soft_nodes: u64,
    /// a search stops outright at this many nodes
    #[arg(long, default_value_t = 50_000, value_parser = clap::value_parser!(u64).range(1..))]
    hard_nodes: u64,
    /// random legal moves at the start of a game
    #[arg(long, default_value_t = 8)]
    random_plies: usize,
    /// EPD/FEN file: games start from a random line, with --random-plies on top
    #[arg(long)]
    book: Option<PathBuf>,
    /// games whose first search scores beyond +-CP are dropped and re-rolled
    #[arg(long, default_value_t = 500)]
    opening_max_score: i32,
    /// transposition table per thread, MiB
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// random seed; game k of a run depends only on it and k [default: the clock]
    #[arg(long)]
    seed: Option<u64>,
    /// share of games (0..1) started from Chess960 positions, half of them
    /// double Chess960 (each side its own back rank); the rest as without it
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    chess960: f64,
    /// seconds between progress lines on stderr
    #[arg(long, default_value_t = 10.0)]
    progress_secs: f64,
    /// search with this net (`embedded` for the built-in one) instead of
    /// the hand-crafted evaluation
    #[arg(long)]
    net: Option<String>,
}

/// The training filter (applied when data is read).
#[derive(Args)]
struct FilterArgs {
    /// skip the first N plies of each game
    #[arg(long, default_value_t = 8)]
    skip_plies: usize,
    /// skip scores at or beyond +-CP (mates)
    #[arg(long, default_value_t = 10_000)]
    max_score: i32,
    /// keep positions in check and captures/promotions
    #[arg(long)]
    keep_noisy: bool,
}

impl FilterArgs {
    fn filter(&self) -> Filter {
        Filter {
            skip_plies: self.skip_plies,
            skip_in_check: !self.keep_noisy,
            skip_tactical: !self.keep_noisy,
            max_score: self.max_score,
        }
    }
}

fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err("expected a share between 0 and 1".into()),
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn append_to(path: &Path) -> Result<BufWriter<std::fs::File>, String> {
    // Whole records only: a file cut mid-record by an earlier run is repaired.
    let (file, _) = play::open_for_append(path)?;
    Ok(BufWriter::with_capacity(1 << 20, file))
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Play(args) => {
            if !(args.progress_secs.is_finite() && args.progress_secs > 0.0) {
                return Err("--progress-secs must be a positive number".into());
            }
            let config = PlayConfig {
                output: args.output,
                games: args.games,
                positions: args.positions,
                threads: args
                    .threads
                    .map_or_else(|| PlayConfig::default().threads, |t| t as usize),
                soft_nodes: args.soft_nodes,
                hard_nodes: args.hard_nodes.max(args.soft_nodes),
                random_plies: args.random_plies,
                book: args.book,
                opening_max_score: args.opening_max_score,
                hash_mb: args.hash as usize,
                seed: args.seed.unwrap_or_else(clock_seed),
                chess960: args.chess960,
                progress_secs: args.progress_secs,
                net: args
                    .net
                    .as_deref()
                    .map(kiraly::nnue::load_named_for_run)
                    .transpose()?,
            };
            play::run(&config, true).map(|_| ())
        }
        Command::NetHash { net } => {
            let net = kiraly::nnue::load_named_for_run(&net)?;
            println!("{:016x}", net.hash);
            Ok(())
        }
        Command::Pgn { inputs, output } => {
            let mut out = append_to(&output)?;
            let mut total = pgn::PgnSummary::default();
            for input in &inputs {
                let summary = pgn::convert(open_input(input)?, &mut out)
                    .map_err(|e| format!("{}: {e}", input.display()))?;
                eprintln!(
                    "{}: {} games, {} positions, {} games skipped",
                    input.display(),
                    summary.games,
                    summary.positions,
                    summary.skipped
                );
                total.games += summary.games;
                total.positions += summary.positions;
                total.skipped += summary.skipped;
            }
            out.flush()
                .map_err(|e| format!("writing {}: {e}", output.display()))?;
            eprintln!(
                "total: {} games, {} positions, {} games skipped -> {}",
                total.games,
                total.positions,
                total.skipped,
                output.display()
            );
            Ok(())
        }
        Command::Text { inputs, output } => {
            let mut out = append_to(&output)?;
            for input in &inputs {
                let n = text::convert(open_input(input)?, &mut out)
                    .map_err(|e| format!("{}: {e}", input.display()))?;
                eprintln!("{}: {n} positions", input.display());
            }
            out.flush()
                .map_err(|e| format!("writing {}: {e}", output.display()))
        }
        Command::Stats { inputs, filter } => {
            let filter = filter.filter();
            for input in &inputs {
                let stats = Stats::collect(&mut open_input(input)?, &filter)
                    .map_err(|e| format!("{}: {e}", input.display()))?;
                println!("{}", input.display());
                print!("{}", stats.report());
            }
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("datagen: {message}");
            ExitCode::FAILURE
        }
    }
}
