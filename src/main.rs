//! Kiraly, a UCI chess engine. Without arguments it speaks UCI on stdin and
//! stdout; `kiraly bench [depth]` and `kiraly perft <depth> [fen]` are the
//! command-line tools.

use std::io::{self, Write};
use std::process::ExitCode;

use kiraly::{bench, engine, perft, search, uci};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

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

    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            run_uci();
            ExitCode::SUCCESS
        }
        Some("bench") => {
            let depth = match args.get(1) {
                None => bench::DEFAULT_DEPTH,
                Some(text) => match text.parse::<i32>() {
                    Ok(d) if (1..=search::MAX_DEPTH).contains(&d) => d,
                    _ => return usage(&format!("bench: bad depth '{text}'")),
                },
            };
            let (nodes, nps) = bench::run(depth);
            println!("{nodes} nodes {nps} nps");
            ExitCode::SUCCESS
        }
        Some("speedtest") => {
            let threads = match args.get(1).map(|t| t.parse::<usize>()) {
                None => 1,
                Some(Ok(n)) if (1..=256).contains(&n) => n,
                Some(_) => return usage("speedtest: threads must be 1..256"),
            };
            let movetime = match args.get(2).map(|t| t.parse::<u64>()) {
                None => 1000,
                Some(Ok(ms)) if ms > 0 => ms,
                Some(_) => return usage("speedtest: bad milliseconds per position"),
            };
            let (nodes, nps) = bench::run_timed(threads, movetime);
            println!("{nodes} nodes {nps} nps");
            ExitCode::SUCCESS
        }
        Some("perft") => {
            let Some(depth) = args.get(1).and_then(|d| d.parse::<u32>().ok()) else {
                return usage("perft: expected a depth");
            };
            let pos = if args.len() > 2 {
                let text = args[2..].join(" ");
                let parsed = text
                    .parse::<Fen>()
                    .map_err(|e| e.to_string())
                    .and_then(|f| {
                        // Shredder/X-FEN castling works in Chess960 mode, which
                        // also accepts every standard position.
                        f.into_position::<Chess>(CastlingMode::Chess960)
                            .map_err(|e| e.to_string())
                    });
                match parsed {
                    Ok(pos) => pos,
                    Err(e) => return usage(&format!("perft: bad FEN: {e}")),
                }
            } else {
                Chess::default()
            };
            let mode = if args.len() > 2 && is_chess960_castling(&args[2..].join(" ")) {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            let report = perft::divide_report(&pos, depth, mode);
            let mut out = io::stdout().lock();
            let _ = out.write_all(report.as_bytes());
            ExitCode::SUCCESS
        }
        Some(other) => usage(&format!("unknown command '{other}'")),
    }
}

/// Whether a FEN's castling field names rook files (Shredder-FEN).
fn is_chess960_castling(fen: &str) -> bool {
    fen.split_whitespace()
        .nth(2)
        .is_some_and(|c| c != "-" && c.chars().any(|ch| !"KQkq".contains(ch)))
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("kiraly: {problem}");
    eprintln!("usage: kiraly               speak UCI on stdin/stdout");
    eprintln!("       kiraly bench [depth] fixed-depth search of the bench positions");
    eprintln!("       kiraly speedtest [threads] [ms] timed search of the bench positions");
    eprintln!("       kiraly perft <depth> [fen]");
    ExitCode::from(2)
}

fn run_uci() {
    let (sender, receiver) = crossbeam_channel::unbounded();
    let reader = std::thread::Builder::new()
        .name("uci-reader".into())
        .spawn(move || uci::reader_loop(io::stdin().lock(), sender));
    if let Err(e) = reader {
        log::error!("cannot start the input thread: {e}");
        return;
    }
    let mut engine = engine::Engine::new();
    engine.serve(receiver);
}
