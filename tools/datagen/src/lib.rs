//! Self-play data generation for tuning the evaluation (Texel tuning).
//!
//! Each game starts from a randomised opening (random legal moves from the
//! start position or from a book position), then both sides play fixed-node
//! searches of the engine until the game ends by the rules or is adjudicated.
//! Quiet positions of the game (not in check, best move neither a capture nor
//! a promotion, no mate score) are written with the search score and the
//! result of the game, one per line:
//!
//! ```text
//! <FEN> | <score in cp from White's view> | <result from White's view: 1.0, 0.5 or 0.0>
//! ```
//!
//! Games run in parallel, one engine (searcher and transposition table) per
//! worker thread. Every game is a function of the seed and its game number
//! only, so a run with `--games N` writes the same games whatever the number
//! of threads (in the order they finish). The main thread writes each
//! finished game with a single write call, so the file only ever holds whole
//! games, also when the program is interrupted.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use kiraly::board::Board;
use kiraly::search::{Limits, SearchContext, SearchResult, Searcher, Signals, MATE_BOUND};
use kiraly::tt::TranspositionTable;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Outcome, Position};

/// A game is adjudicated as won once the score is at least this (in
/// centipawns, from White's view, with the same sign) ...
pub const WIN_SCORE: i32 = 1000;
/// ... for this many consecutive plies (both sides agree).
pub const WIN_PLIES: u32 = 4;
/// A game is adjudicated as drawn from this ply on ...
pub const DRAW_MIN_PLY: usize = 80;
/// ... once the score has been within +-this ...
pub const DRAW_SCORE: i32 = 10;
/// ... for this many consecutive plies.
pub const DRAW_PLIES: u32 = 10;
/// Games still running after this many plies are scored as draws.
pub const MAX_GAME_PLIES: usize = 400;
/// Attempts at finding a balanced random opening before a game is skipped.
const OPENING_TRIES: usize = 1000;

pub const HELP: &str = "\
datagen: play Kiraly self-play games and write quiet positions labelled with
the game result, for tuning the evaluation (Texel tuning).

Usage: datagen [OPTIONS]

Output, one position per line:
  <FEN> | <score in cp from White's view> | <result from White's view: 1.0, 0.5 or 0.0>

Options:
  --output FILE          where to write the positions [default: datagen.txt]
  --append               append to FILE if it exists (without this flag an
                         existing non-empty FILE is an error)
  --games N              number of games to play
  --positions N          stop starting games once N positions are written
                         (games in progress are finished and written too)
                         Without --games and --positions: run until killed.
  --threads N            games played at once [default: available cores]
  --nodes N              nodes per move [default: 5000]
  --random-plies N       random legal moves played at the start of a game
                         [default: 8]
  --book FILE            EPD/FEN file, one position per line (the first four
                         FEN fields are enough): games start from a random
                         book position, with --random-plies random moves on top
  --opening-nodes N      nodes of the search that checks an opening is
                         balanced [default: 2000]
  --opening-max-score CP openings scored beyond +-CP are re-rolled [default: 300]
  --skip-plies N         engine plies at the start of a game whose positions
                         are not written [default: 8]
  --hash MB              transposition table per thread, in MiB [default: 8]
  --seed S               random seed; game k of a run depends only on S and k
                         [default: from the clock, printed at the start]
  --progress-secs S      seconds between progress lines on stderr [default: 5]
  -h, --help             print this help

Game end: checkmate, stalemate, insufficient material, threefold repetition
and the fifty-move rule; adjudicated as a win when the score is beyond
+-1000 cp for 4 consecutive plies (both sides agree), as a draw from ply 80
when it is within +-10 cp for 10 consecutive plies; a draw at ply 400.

Written positions skip the random plies and the first --skip-plies engine
plies, positions in check, positions whose best move is a capture or a
promotion, and mate scores. Each finished game is written at once, so an
interrupted run (Ctrl-C) leaves a valid file of whole games.
";

/// What the command line asked for.
#[derive(Debug)]
pub enum Command {
    Help,
    Run(Config),
}

#[derive(Clone, Debug)]
pub struct Config {
    pub output: PathBuf,
    pub append: bool,
    pub games: Option<u64>,
    pub positions: Option<u64>,
    pub threads: usize,
    pub nodes: u64,
    pub random_plies: usize,
    pub book: Option<PathBuf>,
    pub opening_nodes: u64,
    pub opening_max_score: i32,
    pub skip_plies: usize,
    pub hash_mb: usize,
    pub seed: u64,
    pub progress_secs: f64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            output: PathBuf::from("datagen.txt"),
            append: false,
            games: None,
            positions: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            nodes: 5000,
            random_plies: 8,
            book: None,
            opening_nodes: 2000,
            opening_max_score: 300,
            skip_plies: 8,
            hash_mb: 8,
            seed: 0,
            progress_secs: 5.0,
        }
    }
}

/// Parses the arguments (without the program name). Options take their value
/// as the next argument or after `=`.
pub fn parse_args<I: IntoIterator<Item = String>>(args: I) -> Result<Command, String> {
    let mut config = Config {
        seed: clock_seed(),
        ..Config::default()
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        match name.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--append" => config.append = true,
            _ => {
                let value = match inline {
                    Some(v) => v,
                    None => args.next().ok_or_else(|| format!("{name} needs a value"))?,
                };
                match name.as_str() {
                    "--output" => config.output = PathBuf::from(value),
                    "--book" => config.book = Some(PathBuf::from(value)),
                    "--games" => config.games = Some(number(&name, &value, 1)?),
                    "--positions" => config.positions = Some(number(&name, &value, 1)?),
                    "--threads" => config.threads = number(&name, &value, 1)?,
                    "--nodes" => config.nodes = number(&name, &value, 1)?,
                    "--random-plies" => config.random_plies = number(&name, &value, 0)?,
                    "--opening-nodes" => config.opening_nodes = number(&name, &value, 1)?,
                    "--opening-max-score" => config.opening_max_score = number(&name, &value, 0)?,
                    "--skip-plies" => config.skip_plies = number(&name, &value, 0)?,
                    "--hash" => config.hash_mb = number(&name, &value, 1)?,
                    "--seed" => config.seed = number(&name, &value, 0)?,
                    "--progress-secs" => {
                        config.progress_secs = value
                            .parse::<f64>()
                            .ok()
                            .filter(|s| s.is_finite() && *s > 0.0)
                            .ok_or_else(|| format!("{name}: bad value '{value}'"))?
                    }
                    _ => return Err(format!("unknown option '{arg}'")),
                }
            }
        }
    }
    Ok(Command::Run(config))
}

fn number<T>(name: &str, value: &str, min: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match value.parse::<T>() {
        Ok(v) if v >= min => Ok(v),
        _ => Err(format!("{name}: expected a number >= {min}, got '{value}'")),
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// SplitMix64's output function: a bijective 64-bit mixer.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A small deterministic random number generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of game `game` of a run with seed `seed`. The streams of
    /// different games start at unrelated points of the sequence.
    pub fn for_game(seed: u64, game: u64) -> Rng {
        Rng(mix64(
            mix64(seed) ^ mix64(game.wrapping_add(0x5851_F42D_4C95_7F2D)),
        ))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// A number in `0..n` (n > 0); the bias is below n / 2^64.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// A game result from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl GameResult {
    /// The label written to the file: 1.0, 0.5 or 0.0.
    pub fn label(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1.0",
            GameResult::Draw => "0.5",
            GameResult::BlackWins => "0.0",
        }
    }

    fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// How many times the position of `board` occurred before, in `history`
/// (keys of the earlier positions of the game, oldest first), within the
/// reversible moves.
pub fn repetitions(board: &Board, history: &[u64]) -> usize {
    let reach = (board.pos.halfmoves() as usize).min(history.len());
    let n = history.len();
    (2..=reach)
        .step_by(2)
        .filter(|&d| history[n - d] == board.key)
        .count()
}

/// The result, if the game is over by the rules: checkmate, stalemate,
/// insufficient material, threefold repetition or the fifty-move rule.
pub fn game_over(board: &Board, history: &[u64]) -> Option<GameResult> {
    match board.pos.outcome() {
        Outcome::Known(KnownOutcome::Decisive { winner }) => {
            return Some(GameResult::win_for(winner));
        }
        Outcome::Known(KnownOutcome::Draw) => return Some(GameResult::Draw),
        Outcome::Unknown => {}
    }
    // Checkmate was tested first: it takes precedence over the 50-move rule.
    if board.pos.halfmoves() >= 100 || repetitions(board, history) >= 2 {
        return Some(GameResult::Draw);
    }
    None
}

/// Plays `plies` uniformly random legal moves from `start`. Returns the
/// position reached and the keys of the positions before it, or `None` when
/// the game ended on the way or at the end.
pub fn random_walk(start: &Chess, plies: usize, rng: &mut Rng) -> Option<(Board, Vec<u64>)> {
    let mut board = Board::new(start.clone());
    let mut history = Vec::with_capacity(plies + MAX_GAME_PLIES);
    for _ in 0..plies {
        if game_over(&board, &history).is_some() {
            return None;
        }
        let moves = board.pos.legal_moves();
        let m = moves[rng.below(moves.len())];
        history.push(board.key);
        board = board.play(m);
    }
    if game_over(&board, &history).is_some() {
        return None;
    }
    Some((board, history))
}

/// Whether a searched position is written: not in check, its best move is
/// neither a capture (en passant included) nor a promotion, and its score is
/// not a mate score. (The opening plies are skipped by the caller.)
pub fn is_quiet(pos: &Chess, best: Move, score: i32) -> bool {
    !pos.is_check() && !best.is_capture() && !best.is_promotion() && score.abs() < MATE_BOUND
}

/// A search engine for one worker thread: its own searcher and table.
pub struct Worker {
    searcher: Searcher,
    tt: TranspositionTable,
    signals: Signals,
}

impl Worker {
    pub fn new(hash_mb: usize) -> Result<Worker, String> {
        let mut searcher = Searcher::new(0);
        searcher.verbose = false;
        Ok(Worker {
            searcher,
            tt: TranspositionTable::new(hash_mb)?,
            signals: Signals::default(),
        })
    }

    /// Forgets everything learned in the previous game.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.searcher.clear();
    }

    /// A fixed-node search of `board`, with `history` the keys of the
    /// positions before it in the game.
    pub fn search(&mut self, board: &Board, history: &[u64], nodes: u64) -> SearchResult {
        self.tt.new_search();
        self.signals.nodes.store(0, Ordering::Relaxed);
        let limits = Limits {
            nodes: Some(nodes),
            ..Limits::default()
        };
        let ctx = SearchContext {
            tt: &self.tt,
            signals: &self.signals,
            limits: &limits,
            start: Instant::now(),
            castling_mode: board.pos.castles().mode(),
            history,
            tb: None,
        };
        self.searcher.think(board, &ctx)
    }
}

/// One finished game: the positions written (FEN and score from White's
/// view) and the result.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub game: u64,
    pub positions: Vec<(String, i32)>,
    pub result: GameResult,
    pub plies: usize,
}

impl GameRecord {
    /// The lines of the output file for this game.
    pub fn to_lines(&self) -> String {
        let mut text = String::with_capacity(self.positions.len() * 80);
        for (fen, score) in &self.positions {
            text.push_str(&format!("{fen} | {score} | {}\n", self.result.label()));
        }
        text
    }
}

/// Picks a balanced random opening: a random start position, `random_plies`
/// random moves, re-rolled while the game ends on the way or a short search
/// scores it beyond `opening_max_score`. `None` after `OPENING_TRIES` failures.
pub fn choose_opening(
    worker: &mut Worker,
    starts: &[Chess],
    config: &Config,
    rng: &mut Rng,
) -> Option<(Board, Vec<u64>)> {
    for _ in 0..OPENING_TRIES {
        let start = &starts[rng.below(starts.len())];
        let Some((board, history)) = random_walk(start, config.random_plies, rng) else {
            continue;
        };
        let result = worker.search(&board, &history, config.opening_nodes);
        if result.score.abs() <= config.opening_max_score {
            return Some((board, history));
        }
    }
    None
}

/// Plays game number `game` of a run; `None` when no balanced opening was
/// found.
pub fn play_game(
    worker: &mut Worker,
    starts: &[Chess],
    config: &Config,
    game: u64,
) -> Option<GameRecord> {
    let mut rng = Rng::for_game(config.seed, game);
    worker.new_game();
    let (mut board, mut history) = choose_opening(worker, starts, config, &mut rng)?;
    // The opening search must not steer the game: start from a clean engine.
    worker.new_game();

    let mut ply = history.len();
    let mut engine_plies = 0;
    // Consecutive plies beyond +-WIN_SCORE, signed by the side ahead.
    let mut win_streak: i32 = 0;
    let mut draw_streak = 0;
    let mut positions = Vec::new();
    let result = loop {
        if let Some(result) = game_over(&board, &history) {
            break result;
        }
        if ply >= MAX_GAME_PLIES {
            break GameResult::Draw;
        }
        let found = worker.search(&board, &history, config.nodes);
        let Some(best) = found.best else {
            break GameResult::Draw; // unreachable: game_over saw legal moves
        };
        let white_score = match board.pos.turn() {
            Color::White => found.score,
            Color::Black => -found.score,
        };
        if engine_plies >= config.skip_plies && is_quiet(&board.pos, best, found.score) {
            let fen = Fen::from_position(&board.pos, EnPassantMode::Legal);
            positions.push((fen.to_string(), white_score));
        }

        win_streak = if white_score >= WIN_SCORE {
            win_streak.max(0) + 1
        } else if white_score <= -WIN_SCORE {
            win_streak.min(0) - 1
        } else {
            0
        };
        if win_streak.unsigned_abs() >= WIN_PLIES {
            break if win_streak > 0 {
                GameResult::WhiteWins
            } else {
                GameResult::BlackWins
            };
        }
        draw_streak = if white_score.abs() <= DRAW_SCORE {
            draw_streak + 1
        } else {
            0
        };
        if ply >= DRAW_MIN_PLY && draw_streak >= DRAW_PLIES {
            break GameResult::Draw;
        }

        history.push(board.key);
        board = board.play(best);
        ply += 1;
        engine_plies += 1;
    };
    Some(GameRecord {
        game,
        positions,
        result,
        plies: ply,
    })
}

/// Reads a book: one position per line as FEN or EPD (the first four fields,
/// plus the move counters when the fifth and sixth fields are numbers).
/// Blank lines and lines starting with `#` are skipped.
pub fn load_book(path: &Path) -> Result<Vec<Chess>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read book {}: {e}", path.display()))?;
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let pos =
            parse_book_line(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        positions.push(pos);
    }
    if positions.is_empty() {
        return Err(format!("book {} holds no positions", path.display()));
    }
    Ok(positions)
}

/// One book line as a position (standard castling, else Chess960).
pub fn parse_book_line(line: &str) -> Result<Chess, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(format!("not a FEN/EPD line: '{line}'"));
    }
    let counters =
        fields.len() >= 6 && fields[4].parse::<u32>().is_ok() && fields[5].parse::<u32>().is_ok();
    let fen_text = if counters {
        fields[..6].join(" ")
    } else {
        format!("{} 0 1", fields[..4].join(" "))
    };
    let fen: Fen = fen_text
        .parse()
        .map_err(|e| format!("bad FEN '{fen_text}': {e}"))?;
    match fen.clone().into_position(CastlingMode::Standard) {
        Ok(pos) => Ok(pos),
        Err(_) => fen
            .into_position(CastlingMode::Chess960)
            .map_err(|e| format!("illegal position '{fen_text}': {e}")),
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub skipped_games: u64,
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub elapsed: Duration,
}

impl Summary {
    fn add(&mut self, record: &GameRecord) {
        self.games += 1;
        self.positions += record.positions.len() as u64;
        match record.result {
            GameResult::WhiteWins => self.white_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWins => self.black_wins += 1,
        }
    }

    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// One progress line: games, positions, rate and W/D/L shares (White's view).
    pub fn line(&self) -> String {
        let share = |n: u64| 100.0 * n as f64 / self.games.max(1) as f64;
        format!(
            "games {} | positions {} | {:.0} pos/s | W {:.1}% D {:.1}% L {:.1}% (White) | {:.1} s",
            self.games,
            self.positions,
            self.positions_per_second(),
            share(self.white_wins),
            share(self.draws),
            share(self.black_wins),
            self.elapsed.as_secs_f64(),
        )
    }
}

/// Runs the whole generation described by `config`, printing progress on
/// stderr when `progress` is set.
pub fn run(config: &Config, progress: bool) -> Result<Summary, String> {
    let starts = match &config.book {
        Some(path) => load_book(path)?,
        None => vec![Chess::default()],
    };
    let exists_non_empty = std::fs::metadata(&config.output).is_ok_and(|m| m.len() > 0);
    if exists_non_empty && !config.append {
        return Err(format!(
            "{} exists; pass --append to add to it, or choose another --output",
            config.output.display()
        ));
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.output)
        .map_err(|e| format!("cannot open {}: {e}", config.output.display()))?;
    // Allocate the tables up front, so a failure is reported before any game.
    let workers = (0..config.threads)
        .map(|_| Worker::new(config.hash_mb))
        .collect::<Result<Vec<_>, _>>()?;
    if progress {
        eprintln!(
            "datagen: seed {} | threads {} | nodes {} | random plies {} | {} start position(s) | output {}",
            config.seed,
            config.threads,
            config.nodes,
            config.random_plies,
            starts.len(),
            config.output.display()
        );
    }

    let start = Instant::now();
    let next_game = AtomicU64::new(0);
    let produced = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let skipped = AtomicU64::new(0);
    let mut summary = Summary::default();
    let mut error = None;
    let (tx, rx) = mpsc::channel::<GameRecord>();

    std::thread::scope(|scope| {
        for mut worker in workers {
            let tx = tx.clone();
            let (starts, next_game, produced, stop, skipped) =
                (&starts, &next_game, &produced, &stop, &skipped);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed)
                    || config
                        .positions
                        .is_some_and(|target| produced.load(Ordering::Relaxed) >= target)
                {
                    break;
                }
                let game = next_game.fetch_add(1, Ordering::Relaxed);
                if config.games.is_some_and(|games| game >= games) {
                    break;
                }
                match play_game(&mut worker, starts, config, game) {
                    Some(record) => {
                        produced.fetch_add(record.positions.len() as u64, Ordering::Relaxed);
                        if tx.send(record).is_err() {
                            break;
                        }
                    }
                    None => {
                        skipped.fetch_add(1, Ordering::Relaxed);
                        eprintln!("datagen: game {game} skipped: no balanced opening found");
                    }
                }
            });
        }
        drop(tx);

        let period = Duration::from_secs_f64(config.progress_secs);
        let mut next_report = start + period;
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(record) => {
                    // One write per game: the file never holds part of a game.
                    if error.is_none() {
                        if let Err(e) = file.write_all(record.to_lines().as_bytes()) {
                            error = Some(format!("writing {}: {e}", config.output.display()));
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    summary.add(&record);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if progress && Instant::now() >= next_report {
                summary.elapsed = start.elapsed();
                eprintln!("{}", summary.line());
                next_report = Instant::now() + period;
            }
        }
    });

    summary.elapsed = start.elapsed();
    summary.skipped_games = skipped.load(Ordering::Relaxed);
    if let Err(e) = file.flush() {
        if error.is_none() {
            error = Some(format!("writing {}: {e}", config.output.display()));
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    if progress {
        eprintln!("done: {}", summary.line());
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn position(fen: &str) -> Chess {
        parse_book_line(fen).unwrap()
    }

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    #[test]
    fn rng_is_deterministic_and_uniform_enough() {
        let mut a = Rng::for_game(7, 3);
        let mut b = Rng::for_game(7, 3);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        // Other games and seeds get other streams.
        assert_ne!(Rng::for_game(7, 4).next_u64(), xs[0]);
        assert_ne!(Rng::for_game(8, 3).next_u64(), xs[0]);
        // Game k+1 is not game k shifted by one draw (a plain counter seed would be).
        assert_ne!(Rng::for_game(7, 4).next_u64(), xs[1]);

        let mut rng = Rng::new(1);
        let mut counts = [0u32; 20];
        for _ in 0..20_000 {
            counts[rng.below(20)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn random_walk_is_deterministic_and_legal() {
        let start = Chess::default();
        for game in 0..50 {
            let a = random_walk(&start, 8, &mut Rng::for_game(1, game));
            let b = random_walk(&start, 8, &mut Rng::for_game(1, game));
            match (a, b) {
                (Some((ba, ha)), Some((bb, hb))) => {
                    assert_eq!(ba.key, bb.key);
                    assert_eq!(ha, hb);
                    assert_eq!(ha.len(), 8);
                    assert_eq!(ha[0], Board::new(Chess::default()).key);
                    assert_eq!(ba.pos.fullmoves().get(), 5);
                    assert!(game_over(&ba, &ha).is_none());
                }
                (None, None) => {}
                _ => panic!("game {game}: the walk is not deterministic"),
            }
        }
        // Different games mostly reach different positions.
        let keys: std::collections::HashSet<u64> = (0..50)
            .filter_map(|g| random_walk(&start, 8, &mut Rng::for_game(1, g)))
            .map(|(b, _)| b.key)
            .collect();
        assert!(keys.len() >= 45, "{}", keys.len());
    }

    #[test]
    fn random_walk_rejects_finished_games() {
        // Black is checkmated: no walk from here.
        let mated = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert!(random_walk(&mated, 0, &mut Rng::new(1)).is_none());
        assert!(random_walk(&mated, 4, &mut Rng::new(1)).is_none());
        // Fool's mate in two random moves from here: some walks end in mate.
        let before = position("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2");
        let ended = (0..2000)
            .filter(|&s| random_walk(&before, 1, &mut Rng::new(s)).is_none())
            .count();
        // 1 of Black's 30 moves mates.
        assert!((20..150).contains(&ended), "{ended}");
    }

    #[test]
    fn threefold_repetition_and_fifty_moves() {
        let mut board = Board::new(Chess::default());
        let mut history = Vec::new();
        for _ in 0..2 {
            for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
                assert!(game_over(&board, &history).is_none());
                let m = mv(&board.pos, uci);
                history.push(board.key);
                board = board.play(m);
            }
        }
        assert_eq!(repetitions(&board, &history), 2);
        assert_eq!(game_over(&board, &history), Some(GameResult::Draw));

        let fifty = Board::new(position("8/8/4k3/8/8/3QK3/8/8 w - - 100 80"));
        assert_eq!(game_over(&fifty, &[]), Some(GameResult::Draw));
        let mate = Board::new(position("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80"));
        assert_eq!(game_over(&mate, &[]), Some(GameResult::WhiteWins));
        let bare = Board::new(position("8/8/4k3/8/8/3NK3/8/8 w - - 0 1"));
        assert_eq!(game_over(&bare, &[]), Some(GameResult::Draw));
    }

    #[test]
    fn quiet_filter() {
        let pos = position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        assert!(is_quiet(&pos, mv(&pos, "f1b5"), 30));
        assert!(is_quiet(&pos, mv(&pos, "f1b5"), -MATE_BOUND + 1));
        // A capture as best move.
        assert!(!is_quiet(&pos, mv(&pos, "f3e5"), 30));
        // Mate scores either way.
        assert!(!is_quiet(&pos, mv(&pos, "f1b5"), MATE_BOUND));
        assert!(!is_quiet(&pos, mv(&pos, "f1b5"), -MATE_BOUND));
        // In check.
        let check = position("rnbqkbnr/ppp2ppp/3p4/1B2p3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3");
        assert!(!is_quiet(&check, mv(&check, "c7c6"), 0));
        // Promotions, also to a knight and without capture; en passant.
        let promo = position("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1");
        assert!(!is_quiet(&promo, mv(&promo, "e7e8q"), 500));
        assert!(!is_quiet(&promo, mv(&promo, "e7e8n"), 0));
        assert!(is_quiet(&promo, mv(&promo, "g2f3"), 500));
        let ep = position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        assert!(!is_quiet(&ep, mv(&ep, "e5f6"), 0));
    }

    #[test]
    fn book_lines() {
        let epd = parse_book_line(
            "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - bm c4; id \"x\";",
        )
        .unwrap();
        assert_eq!(epd.fullmoves().get(), 1);
        let fen = parse_book_line("8/8/4k3/8/8/3QK3/8/8 w - - 12 40").unwrap();
        assert_eq!(fen.halfmoves(), 12);
        assert!(parse_book_line("8/8/8 w").is_err());
        assert!(parse_book_line("8/8/8/8/8/8/8/8 w - -").is_err());
    }

    #[test]
    fn args() {
        let parse = |s: &str| parse_args(s.split_whitespace().map(String::from));
        let Ok(Command::Run(c)) =
            parse("--games 3 --nodes=300 --threads 1 --seed 9 --output x.txt --append")
        else {
            panic!()
        };
        assert_eq!(
            (c.games, c.nodes, c.threads, c.seed, c.append),
            (Some(3), 300, 1, 9, true)
        );
        assert_eq!(c.output, PathBuf::from("x.txt"));
        assert_eq!((c.random_plies, c.skip_plies, c.hash_mb), (8, 8, 8));
        assert!(matches!(parse("--help"), Ok(Command::Help)));
        assert!(parse("--nodes 0").is_err());
        assert!(parse("--nodes").is_err());
        assert!(parse("--frobnicate 1").is_err());
    }

    #[test]
    fn short_game_is_consistent() {
        let config = Config {
            nodes: 300,
            seed: 5,
            threads: 1,
            hash_mb: 1,
            ..Config::default()
        };
        let starts = vec![Chess::default()];
        let mut worker = Worker::new(1).unwrap();
        let a = play_game(&mut worker, &starts, &config, 0).unwrap();
        // The same game again, after another one: the engine state is reset.
        play_game(&mut worker, &starts, &config, 1).unwrap();
        let b = play_game(&mut worker, &starts, &config, 0).unwrap();
        assert_eq!(a.positions, b.positions);
        assert_eq!(a.result, b.result);
        assert!(a.plies > config.random_plies && a.plies <= MAX_GAME_PLIES);
        for (fen, score) in &a.positions {
            let pos = parse_book_line(fen).unwrap();
            assert!(!pos.is_check());
            assert!(score.abs() < MATE_BOUND);
        }
    }
}
