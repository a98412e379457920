//! Self-play generation: games of the engine against itself, every ply
//! written with its move and search score (see `format`).
//!
//! Each game starts from a random opening (random legal moves from the start
//! position or from a book line), then both sides play searches with a soft
//! node limit (no new iteration past it) until the game ends by the rules or
//! is adjudicated. The first search of a game doubles as the opening screen:
//! a game whose first score is beyond `--opening-max-score` is dropped and
//! re-rolled, so no extra search is spent on openings that pass.
//!
//! Games run in parallel, one searcher and table per worker thread. Every
//! game is a function of the seed and its game number only. The main thread
//! writes each finished game with one write call; a run started on an
//! existing file first cuts off a record left half-written by an interrupted
//! run, then appends.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use kiraly::board::Board;
use kiraly::game::{game_over, GameResult};
use kiraly::openings::{load_book, random_walk};
use kiraly::rng::Rng;
use kiraly::search::SoloSearch;
use shakmaty::{Chess, Color, Position};

use crate::chess960;
use crate::format::{encode_move, scan_records, stored_score, Game, Ply, MAX_PLIES};

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
const OPENING_TRIES: usize = 100;
/// Mixed into the seed for the choice of a game's start, a stream of its
/// own: the standard games of a run are the same whatever the Chess960 share.
const START_STREAM: u64 = 0x9600_0960_C4E5_5960;

#[derive(Clone, Debug)]
pub struct PlayConfig {
    pub output: PathBuf,
    pub games: Option<u64>,
    pub positions: Option<u64>,
    pub threads: usize,
    pub soft_nodes: u64,
    pub hard_nodes: u64,
    pub random_plies: usize,
    pub book: Option<PathBuf>,
    pub opening_max_score: i32,
    pub hash_mb: usize,
    pub seed: u64,
    /// The share of games (0..=1) started from Chess960 or double-Chess960
    /// positions instead of the standard one or the book.
    pub chess960: f64,
    pub progress_secs: f64,
    /// Search with this net instead of the hand-crafted evaluation.
    pub net: Option<&'static kiraly::nnue::Network>,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            output: PathBuf::from("selfplay.kdat"),
            games: None,
            positions: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            soft_nodes: 5000,
            hard_nodes: 50_000,
            random_plies: 8,
            book: None,
            opening_max_score: 500,
            hash_mb: 4,
            seed: 0,
            chess960: 0.0,
            progress_secs: 10.0,
            net: None,
        }
    }
}

/// One finished game and how many openings were re-rolled before it.
#[derive(Clone, Debug)]
pub struct Played {
    pub number: u64,
    pub game: Game,
    pub rerolled: u32,
}

/// Plays game number `number` of a run; `None` when no balanced opening was
/// found in `OPENING_TRIES` attempts.
pub fn play_game(
    search: &mut SoloSearch,
    starts: &[Chess],
    config: &PlayConfig,
    number: u64,
) -> Option<Played> {
    let mut start_rng = Rng::for_game(config.seed ^ START_STREAM, number);
    let draw = [(); 3].map(|_| start_rng.next_u64());
    let chess960_start = chess960::choose(config.chess960, draw).position();
    let mut rng = Rng::for_game(config.seed, number);
    for attempt in 0..OPENING_TRIES {
        let start = match &chess960_start {
            Some(pos) => pos,
            None => &starts[rng.below(starts.len())],
        };
        let Some((board, history)) = random_walk(start, config.random_plies, &mut rng) else {
            continue;
        };
        if let Some(game) = play_from(search, board, history, config) {
            return Some(Played {
                number,
                game,
                rerolled: attempt as u32,
            });
        }
    }
    None
}

/// Plays one game from an opening; `None` when the first search finds the
/// opening unbalanced.
fn play_from(
    search: &mut SoloSearch,
    mut board: Board,
    mut history: Vec<u64>,
    config: &PlayConfig,
) -> Option<Game> {
    search.new_game();
    let start = board.pos.clone();
    let mut plies = Vec::with_capacity(160);
    // Consecutive plies beyond +-WIN_SCORE, signed by the side ahead.
    let mut win_streak: i32 = 0;
    let mut draw_streak = 0;
    let result = loop {
        if let Some(result) = game_over(&board, &history) {
            break result;
        }
        if history.len() >= MAX_GAME_PLIES || plies.len() >= MAX_PLIES {
            break GameResult::Draw;
        }
        let found = search.search(&board, &history, config.soft_nodes, config.hard_nodes);
        let best = found.best?; // unreachable: game_over saw legal moves
        if plies.is_empty() && found.score.abs() > config.opening_max_score {
            return None;
        }
        plies.push(Ply {
            mv: encode_move(&best),
            score: stored_score(found.score),
        });

        let white_score = match board.pos.turn() {
            Color::White => found.score,
            Color::Black => -found.score,
        };
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
        if history.len() >= DRAW_MIN_PLY && draw_streak >= DRAW_PLIES {
            break GameResult::Draw;
        }
        history.push(board.key);
        board = board.play(best);
    };
    Some(Game {
        start,
        plies,
        result,
    })
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub skipped_games: u64,
    pub rerolled: u64,
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub elapsed: Duration,
}

impl Summary {
    fn add(&mut self, played: &Played) {
        self.games += 1;
        self.rerolled += u64::from(played.rerolled);
        self.positions += played.game.plies.len() as u64;
        match played.game.result {
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
            "games {} | positions {} | {:.0} pos/s | W {:.1}% D {:.1}% L {:.1}% (White) | openings re-rolled {} | {:.0} s",
            self.games,
            self.positions,
            self.positions_per_second(),
            share(self.white_wins),
            share(self.draws),
            share(self.black_wins),
            self.rerolled,
            self.elapsed.as_secs_f64(),
        )
    }
}

/// Opens `path` for appending whole games: creates it, or cuts a record
/// left half-written at its end. Returns the file and its number of games.
pub fn open_for_append(path: &Path) -> Result<(std::fs::File, u64), String> {
    let existing = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut games = 0;
    if let Some(bytes) = existing {
        let (whole, length) = scan_records(&bytes)
            .map_err(|e| format!("{} is not datagen output: {e}", path.display()))?;
        if length < bytes.len() {
            eprintln!(
                "datagen: {}: cutting {} bytes of an interrupted game",
                path.display(),
                bytes.len() - length
            );
            file.set_len(length as u64)
                .map_err(|e| format!("cannot truncate {}: {e}", path.display()))?;
        }
        games = whole;
    }
    Ok((file, games))
}

/// Runs the whole generation, printing progress on stderr when `progress`
/// is set. Game numbers continue after the games already in the file, so a
/// resumed run with the same seed does not repeat them.
pub fn run(config: &PlayConfig, progress: bool) -> Result<Summary, String> {
    let starts = match &config.book {
        Some(path) => load_book(path)?,
        None => vec![Chess::default()],
    };
    let (mut file, existing_games) = open_for_append(&config.output)?;
    // Allocate the tables up front, so a failure is reported before any game.
    let searchers = (0..config.threads)
        .map(|_| {
            SoloSearch::new(config.hash_mb).map(|mut search| {
                search.net = config.net;
                search
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if progress {
        eprintln!(
            "datagen: seed {} | {} | threads {} | soft nodes {} | hard nodes {} | random plies {} | {} start position(s), Chess960 share {} | {} ({} games already)",
            config.seed,
            config.net.map_or_else(
                || "hand-crafted evaluation".to_string(),
                |net| format!("net {:016x}", net.hash)
            ),
            config.threads,
            config.soft_nodes,
            config.hard_nodes,
            config.random_plies,
            starts.len(),
            config.chess960,
            config.output.display(),
            existing_games,
        );
    }

    let start = Instant::now();
    let next_game = AtomicU64::new(existing_games);
    let last_game = config.games.map(|g| existing_games + g);
    let produced = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let skipped = AtomicU64::new(0);
    let mut summary = Summary::default();
    let mut error = None;
    let (tx, rx) = mpsc::channel::<Played>();

    std::thread::scope(|scope| {
        for mut search in searchers {
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
                let number = next_game.fetch_add(1, Ordering::Relaxed);
                if last_game.is_some_and(|last| number >= last) {
                    break;
                }
                match play_game(&mut search, starts, config, number) {
                    Some(played) => {
                        produced.fetch_add(played.game.plies.len() as u64, Ordering::Relaxed);
                        if tx.send(played).is_err() {
                            break;
                        }
                    }
                    None => {
                        skipped.fetch_add(1, Ordering::Relaxed);
                        eprintln!("datagen: game {number} skipped: no balanced opening found");
                    }
                }
            });
        }
        drop(tx);

        let period = Duration::from_secs_f64(config.progress_secs);
        let mut next_report = start + period;
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(played) => {
                    // One write per game: the file never holds part of a game.
                    if error.is_none() {
                        if let Err(e) = played.game.write(&mut file) {
                            error = Some(format!("writing {}: {e}", config.output.display()));
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    summary.add(&played);
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
    use crate::format::{for_each_sample, Filter};

    fn quick(seed: u64) -> PlayConfig {
        PlayConfig {
            soft_nodes: 300,
            hard_nodes: 3000,
            seed,
            threads: 1,
            hash_mb: 1,
            ..PlayConfig::default()
        }
    }

    #[test]
    fn a_game_is_reproducible_and_replays_legally() {
        let config = quick(5);
        let starts = vec![Chess::default()];
        let mut search = SoloSearch::new(1).unwrap();
        let a = play_game(&mut search, &starts, &config, 0).unwrap();
        // The same game again, after another one: the engine state is reset.
        play_game(&mut search, &starts, &config, 1).unwrap();
        let b = play_game(&mut search, &starts, &config, 0).unwrap();
        assert_eq!(a.game.plies, b.game.plies);
        assert_eq!(a.game.result, b.game.result);
        let plies = a.game.plies.len();
        assert!(plies > 0 && plies + config.random_plies <= MAX_GAME_PLIES);
        // Every ply is kept and replays legally from the recorded start.
        let bytes = a.game.to_bytes();
        let mut seen = 0;
        for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
            assert_eq!(s.ply, seen);
            assert!(s.mv.is_some());
            seen += 1;
        })
        .unwrap();
        assert_eq!(seen, plies);
        // The opening screen: the first score is within the bound.
        assert!(i32::from(a.game.plies[0].score).abs() <= config.opening_max_score);
    }
}
