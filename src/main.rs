//! Kiraly, a UCI chess engine. Without arguments it speaks UCI on stdin and
//! stdout; `kiraly bench [depth]`, `kiraly speedtest [threads] [ms]` and
//! `kiraly perft <depth> [fen]` are the command-line tools, and any other
//! arguments are UCI command lines (`kiraly "genfens 8 seed 1 book None" quit`,
//! as OpenBench runs it).

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kiraly::generator_pause::GeneratorPause;
use kiraly::{bench, engine, perft, search, uci};
use shakmaty::{CastlingMode, Chess};

/// The version `--version` prints: the crate's, and the commit it was built
/// from (`unknown` outside a git checkout).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("KIRALY_COMMIT"),
    ")"
);

const AFTER_HELP: &str = "\
Without a command, Kiraly speaks UCI on stdin and stdout, as GUIs expect.
Any other arguments are UCI command lines, one per argument, run in order as
if read from stdin; then the engine quits (a search still running is
stopped), e.g.  kiraly \"position startpos\" \"go depth 8\" \"isready\"";

/// Kiraly, a UCI chess engine
#[derive(Parser)]
#[command(name = "kiraly", version = VERSION, after_help = AFTER_HELP)]
#[command(allow_external_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Tool>,
}

#[derive(Subcommand)]
enum Tool {
    /// Fixed-depth search of the bench positions; prints `N nodes M nps`
    Bench {
        /// Search depth (1..=127)
        #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = depth)]
        depth: i32,
        /// Evaluate with the built-in net (the default, as `Use NNUE`), or
        /// with FILE (`--nnue=FILE`)
        #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
        nnue: Option<String>,
        /// Evaluate with the hand-crafted evaluation (`Use NNUE` off)
        #[arg(long, conflicts_with = "nnue")]
        hce: bool,
    },
    /// Timed search of the bench positions; prints `N nodes M nps`
    Speedtest {
        /// Search threads (1..=256)
        #[arg(default_value_t = 1, value_parser = threads)]
        threads: usize,
        /// Milliseconds per position
        #[arg(default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
        ms: u64,
    },
    /// Counts the leaf nodes of each legal move to DEPTH plies
    Perft {
        /// Plies to count
        depth: u32,
        /// Start position (default: the standard one); Shredder-FEN castling
        /// selects Chess960 notation
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        fen: Vec<String>,
    },
    /// UCI command lines, run in order; then quit
    #[command(external_subcommand)]
    Uci(Vec<String>),
}

fn depth(text: &str) -> Result<i32, String> {
    match text.parse::<i32>() {
        Ok(d) if (1..=search::MAX_DEPTH).contains(&d) => Ok(d),
        _ => Err(format!("expected a depth 1..={}", search::MAX_DEPTH)),
    }
}

fn threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err("expected a thread count 1..=256".into()),
    }
}

fn main() -> ExitCode {
    if let Err(problem) = kiraly::build_info::check_cpu() {
        eprintln!("kiraly: {problem}");
        // A GUI shows the engine's output in its log, not its stderr.
        println!("info string {problem}");
        return ExitCode::FAILURE;
    }
    // Logs go to stderr only; stdout is reserved for the protocol.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();

    // Errors and help exit as clap does: status 2 with the message on
    // stderr; --help and --version print to stdout.
    let cli = Cli::parse();
    match cli.command {
        None => run_uci(None),
        Some(Tool::Uci(lines)) => {
            // One argument is one line, whatever it holds.
            let text: String = lines
                .iter()
                .map(|l| l.replace(['\n', '\r'], " ") + "\n")
                .collect();
            run_uci(Some(text));
        }
        Some(Tool::Bench { depth, nnue, hce }) => {
            let net = match nnue.as_deref() {
                _ if hce => None,
                None => bench::default_net(),
                Some(file) => {
                    match kiraly::nnue::load_for_run(Some(file).filter(|f| !f.is_empty())) {
                        Ok(net) => Some(net),
                        Err(e) => {
                            eprintln!("kiraly: {e}");
                            return ExitCode::FAILURE;
                        }
                    }
                }
            };
            let _pause = GeneratorPause::hold("bench");
            let (nodes, nps) = bench::run(depth, net);
            println!("{nodes} nodes {nps} nps");
        }
        Some(Tool::Speedtest { threads, ms }) => {
            let _pause = GeneratorPause::hold("speedtest");
            let (nodes, nps) = bench::run_timed(threads, ms);
            println!("{nodes} nodes {nps} nps");
        }
        Some(Tool::Perft { depth, fen }) => return perft(depth, &fen.join(" ")),
    }
    ExitCode::SUCCESS
}

fn perft(depth: u32, fen: &str) -> ExitCode {
    let pos = if fen.is_empty() {
        Chess::default()
    } else {
        // Shredder/X-FEN castling works in Chess960 mode, which also
        // accepts every standard position.
        match kiraly::fen::parse_fen(fen, CastlingMode::Chess960) {
            Ok(pos) => pos,
            Err(e) => {
                eprintln!("kiraly: perft: bad FEN: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let mode = if is_chess960_castling(fen) {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let report = perft::divide_report(&pos, depth, mode);
    let mut out = io::stdout().lock();
    let _ = out.write_all(report.as_bytes());
    ExitCode::SUCCESS
}

/// Whether a FEN's castling field names rook files (Shredder-FEN).
fn is_chess960_castling(fen: &str) -> bool {
    fen.split_whitespace()
        .nth(2)
        .is_some_and(|c| c != "-" && c.chars().any(|ch| !"KQkq".contains(ch)))
}

/// Serves UCI commands until `quit` or the end of the input: stdin, or
/// `lines` from the command line, read the same way.
fn run_uci(lines: Option<String>) {
    let (sender, receiver) = crossbeam_channel::unbounded();
    let reader = std::thread::Builder::new()
        .name("uci-reader".into())
        .spawn(move || match lines {
            None => uci::reader_loop(io::stdin().lock(), sender),
            Some(text) => uci::reader_loop(io::Cursor::new(text.into_bytes()), sender),
        });
    if let Err(e) = reader {
        log::error!("cannot start the input thread: {e}");
        return;
    }
    let mut engine = engine::Engine::new(kiraly::output::Output::Uci);
    engine.serve(receiver);
}
