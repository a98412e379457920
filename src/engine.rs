//! The controller: owns the game state, the options and the transposition
//! table, and runs searches on their own thread so that commands keep being
//! answered while one is in progress.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::Receiver;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use crate::board::{castling_mode, Board};
use crate::fen::{parse_fen, short};
use crate::options::{self, OptionChange, Options};
use crate::output::Output;
use crate::perft::divide_report;
use crate::search::{Job, Signals};
use crate::strength::StrengthLimit;
use crate::tb::Tables;
use crate::threadpool::{send_bestmove, ThreadPool};
use crate::time::{budget_for_clock, budget_for_movetime, Clock, Limits};
use crate::tt::TranspositionTable;
use crate::uci::{Command, GoParams, PositionSpec};

const ENGINE_AUTHOR: &str = "the Kiraly developers";

/// The search in progress, as the controller steers it.
struct RunningSearch {
    signals: Arc<Signals>,
    start: Instant,
}

pub struct Engine {
    root: Board,
    /// Keys of the positions before `root` in the game, for repetitions.
    game_keys: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    /// No search has written to `tt` since it was allocated or cleared, so
    /// it is all zero still and clearing it again is skipped: that would
    /// write every entry, a fraction of a second a gigabyte, for nothing (a
    /// GUI sends `ucinewgame` right after setting `Hash`).
    tt_clean: bool,
    /// Syzygy tablebases from `SyzygyPath`, shared with the searches.
    tables: Option<Arc<Tables>>,
    /// The search threads; `None` only if the system refused to start one.
    pool: Option<ThreadPool>,
    running: Option<RunningSearch>,
    /// `Use NNUE`.
    use_nnue: bool,
    /// The net `EvalFile` chose (the built-in one by default); `None` only
    /// if the built-in net did not load.
    net: Option<&'static crate::nnue::Network>,
    /// Where every reply goes.
    output: Output,
}

impl Drop for Engine {
    /// An engine dropped mid-search (a test, a fuzzer, the end of `serve`)
    /// stops it, so its threads can be joined.
    fn drop(&mut self) {
        self.finish_search();
    }
}

impl Engine {
    /// An engine at the default options, replying to `output`.
    pub fn new(output: Output) -> Engine {
        let options = Options::default();
        let threads = options.threads;
        let tt = TranspositionTable::new(options.hash_mb)
            .or_else(|_| TranspositionTable::new(1))
            .expect("a 1 MB hash table can always be allocated");
        Engine {
            root: Board::new(Chess::default()),
            game_keys: Vec::new(),
            options,
            tt: Arc::new(tt),
            tt_clean: true,
            tables: None,
            pool: start_pool(threads, output),
            running: None,
            use_nnue: crate::nnue::ENABLED_BY_DEFAULT,
            net: crate::nnue::embedded(),
            output,
        }
    }

    /// The net a search evaluates with, `None` for the hand-crafted
    /// evaluation: the `EvalFile` net while `Use NNUE` is on, except under
    /// `UCI_LimitStrength`, whose `UCI_Elo` node budgets were calibrated with
    /// the hand-crafted evaluation (`src/strength.rs`). The search and `eval`
    /// both ask here, so `eval` names the evaluation the search really uses.
    fn search_net(&self) -> Option<&'static crate::nnue::Network> {
        self.net
            .filter(|_| self.use_nnue && !self.options.limit_strength)
    }

    /// Serves commands until `quit` (or the end of input, which the reader
    /// turns into `quit`).
    pub fn serve(&mut self, commands: Receiver<Command>) {
        while let Ok(command) = commands.recv() {
            if !self.handle(command) {
                break;
            }
        }
        self.finish_search();
    }

    /// Handles one command; returns false on `quit`.
    pub fn handle(&mut self, command: Command) -> bool {
        match command {
            Command::Uci => {
                self.output
                    .send(&format!("id name {}", crate::build_info::NAME));
                self.output.send(&format!("id author {ENGINE_AUTHOR}"));
                for line in options::declarations() {
                    self.output.send(&line);
                }
                self.output.send("uciok");
            }
            Command::IsReady => self.output.send("readyok"),
            Command::UciNewGame => {
                self.finish_search();
                self.clear_tt();
                if let Some(pool) = &mut self.pool {
                    pool.new_game();
                }
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { spec, moves } => self.set_position(&spec, &moves),
            Command::Go(params) => self.go(params),
            Command::Stop => self.finish_search(),
            Command::PonderHit => self.ponderhit(),
            Command::Quit => return false,
            Command::Display => self.display(),
            Command::Eval => self.eval(),
            Command::GenFens(words) => genfens(&words, self.output),
            Command::Ignored | Command::Empty => {}
            Command::Invalid(message) => self.output.problem(&message),
        }
        true
    }

    /// Empties the hash table, unless no search has written to it yet.
    fn clear_tt(&mut self) {
        if !self.tt_clean {
            self.tt.clear();
            self.tt_clean = self.running.is_none();
        }
    }

    /// Stops the running search, if any, and waits for its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(running) = self.running.take() {
            running.signals.stop.store(true, Ordering::Relaxed);
            if let Some(pool) = &mut self.pool {
                pool.wait();
            }
        }
    }

    /// Collects a search that ended on its own, so its searchers are idle again.
    fn reap_finished_search(&mut self) {
        if self.pool.as_mut().is_none_or(|pool| pool.is_idle()) {
            self.running = None;
        }
    }

    fn ponderhit(&mut self) {
        if let Some(running) = &self.running {
            if running.signals.pondering.load(Ordering::Relaxed) {
                let ms = running.start.elapsed().as_millis() as u64;
                running.signals.ponderhit_ms.store(ms, Ordering::Relaxed);
                running.signals.pondering.store(false, Ordering::Relaxed);
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let change = match options::validate(name, value) {
            Ok(change) => change,
            Err(message) => return self.output.problem(&message),
        };
        // Options that touch the table or the threads wait for the search.
        self.finish_search();
        match change {
            OptionChange::Hash(mb) => {
                if mb != self.options.hash_mb {
                    // The new table comes as fresh zeroed pages, which cost no
                    // memory until used, so the old one is dropped only once
                    // the new one exists: a refused size keeps the old table.
                    // The new one is made resident once the old one is let go,
                    // so that the two do not take memory together, and before
                    // `readyok`, so that its first touches are not the first
                    // search's.
                    match TranspositionTable::new(mb) {
                        Ok(tt) => {
                            self.tt = Arc::new(tt);
                            // Just made, so this holds it alone.
                            if let Some(tt) = Arc::get_mut(&mut self.tt) {
                                tt.make_resident();
                            }
                            self.tt_clean = true;
                            self.options.hash_mb = mb;
                        }
                        Err(message) => self.output.problem(&format!(
                            "{message}; keeping the {} MB table",
                            self.options.hash_mb
                        )),
                    }
                }
            }
            OptionChange::Threads(n) => {
                if n != self.options.threads || self.pool.is_none() {
                    // Join the old threads before starting the new ones.
                    self.pool = None;
                    self.pool = start_pool(n, self.output);
                    self.options.threads = self.pool.as_ref().map_or(n, |p| p.threads());
                }
            }
            OptionChange::MoveOverhead(ms) => self.options.move_overhead_ms = ms,
            OptionChange::Chess960(on) => self.options.chess960 = on,
            OptionChange::Ponder(on) => self.options.ponder = on,
            OptionChange::ClearHash => self.clear_tt(),
            OptionChange::MultiPv(n) => self.options.multipv = n,
            OptionChange::LimitStrength(on) => {
                if on != self.options.limit_strength && self.use_nnue {
                    // It switches the evaluation (see `search_net`), and the
                    // table caches static evaluations.
                    self.clear_tt();
                }
                self.options.limit_strength = on;
            }
            OptionChange::Elo(elo) => self.options.elo = elo,
            OptionChange::ShowWdl(on) => self.options.show_wdl = on,
            OptionChange::SyzygyPath(path) => self.load_tablebases(path),
            OptionChange::SyzygyProbeDepth(depth) => self.options.syzygy_probe_depth = depth,
            OptionChange::Syzygy50MoveRule(on) => self.options.syzygy_50_move_rule = on,
            OptionChange::UseNnue(on) => {
                if on != self.use_nnue {
                    self.use_nnue = on;
                    // The table caches static evaluations of the other kind.
                    self.clear_tt();
                }
            }
            OptionChange::EvalFile(path) => self.load_net(&path),
            OptionChange::Parameter(name, value) => crate::parameters::set(name, value),
        }
    }

    /// `EvalFile`: the built-in net for `<embedded>`, else a net file. A file
    /// that cannot be used is reported and the current net kept.
    fn load_net(&mut self, path: &str) {
        let net = if path == crate::nnue::EMBEDDED_NAME {
            crate::nnue::embedded()
        } else {
            match crate::nnue::load_file(path) {
                // Leaked on purpose: a handful of loads per run, and a
                // search may still read the previous net.
                Ok(net) => Some(&*Box::leak(Box::new(net))),
                Err(message) => {
                    return self
                        .output
                        .problem(&format!("EvalFile {message}; keeping the current net"))
                }
            }
        };
        // Silent on success, like every other option (GUIs set them all at
        // start-up); `eval` names the net in use by its hash.
        self.net = net;
        if self.use_nnue {
            self.clear_tt();
        }
    }

    /// Replaces the tablebases with those found on `path` (none when empty).
    fn load_tablebases(&mut self, path: String) {
        let report = Tables::load(&path);
        for problem in &report.problems {
            self.output.problem(problem);
        }
        if let Some(summary) = &report.summary {
            self.output.send(&format!("info string {summary}"));
        }
        self.tables = report.tables.map(Arc::new);
        self.options.syzygy_path = path;
    }

    fn castling_mode(&self) -> CastlingMode {
        castling_mode(self.options.chess960)
    }

    fn set_position(&mut self, spec: &PositionSpec, moves: &[String]) {
        match self.build_position(spec, moves) {
            Ok((root, game_keys)) => {
                self.root = root;
                self.game_keys = game_keys;
            }
            Err(message) => self
                .output
                .problem(&format!("{message}; position unchanged")),
        }
    }

    fn build_position(
        &self,
        spec: &PositionSpec,
        moves: &[String],
    ) -> Result<(Board, Vec<u64>), String> {
        let pos = match spec {
            PositionSpec::StartPos => Chess::default(),
            PositionSpec::Fen(text) => parse_fen(text, self.castling_mode())?,
        };
        let mut board = Board::new(pos);
        let mut game_keys = Vec::with_capacity(moves.len());
        for text in moves {
            let m = parse_move(&board.pos, text)?;
            game_keys.push(board.key);
            board = board.play(m);
        }
        Ok((board, game_keys))
    }

    fn go(&mut self, params: GoParams) {
        self.finish_search();
        let start = Instant::now();
        if let Some(depth) = params.perft {
            let depth = depth.min(20) as u32;
            let report = divide_report(&self.root.pos, depth, self.castling_mode());
            for line in report.lines() {
                self.output.send(line);
            }
            return;
        }
        let mut limits = self.limits_from(&params);
        // A root in the tables narrows the root moves to the best by DTZ.
        let tb = self.tables.as_ref().map(|tables| {
            crate::tb::prepare(
                tables,
                self.options.syzygy_probe_depth,
                self.options.syzygy_50_move_rule,
                &self.root,
                &self.game_keys,
                &mut limits.searchmoves,
                self.output,
            )
        });
        let signals = Arc::new(Signals::default());
        let root_hits = tb.as_ref().map_or(0, |tb| tb.root_hits());
        signals.tbhits.store(root_hits, Ordering::Relaxed);
        signals.pondering.store(params.ponder, Ordering::Relaxed);
        let mode = self.castling_mode();
        let (net, output) = (self.search_net(), self.output);
        let Some(pool) = &mut self.pool else {
            self.output
                .problem("no search thread could be started; playing a legal move");
            let fallback = self.root.pos.legal_moves().first().copied();
            send_bestmove(fallback, None, mode, self.output);
            return;
        };
        self.tt.new_search();
        self.tt_clean = false;
        pool.start(Job {
            root: self.root.clone(),
            game_keys: self.game_keys.clone(),
            limits,
            signals: Arc::clone(&signals),
            tt: Arc::clone(&self.tt),
            start,
            castling_mode: mode,
            tb,
            net,
            output,
        });
        self.running = Some(RunningSearch { signals, start });
    }

    fn limits_from(&self, params: &GoParams) -> Limits {
        let overhead = self.options.move_overhead_ms;
        let (time, inc) = match self.root.pos.turn() {
            Color::White => (params.wtime, params.winc),
            Color::Black => (params.btime, params.binc),
        };
        let budget = if let Some(ms) = params.movetime {
            Some(budget_for_movetime(ms, overhead))
        } else if let Some(time_ms) = time {
            Some(budget_for_clock(
                Clock {
                    time_ms,
                    inc_ms: inc.unwrap_or(0),
                    movestogo: params.movestogo,
                },
                overhead,
            ))
        } else if params.wtime.is_some() || params.btime.is_some() {
            self.output
                .problem("go: no clock given for the side to move; using 1 second");
            Some(budget_for_movetime(1000, overhead))
        } else {
            None
        };
        let depth = params.depth.map(|d| d.clamp(1, 1000) as i32);
        let strength = self
            .options
            .limit_strength
            .then(|| StrengthLimit::new(self.options.elo));
        let nodes = params.nodes.map(|n| n.max(1));
        let mate = params.mate.map(|m| m.clamp(1, 1000) as u32);
        // A bare `go` (or `go ponder` without limits) searches until `stop`.
        let unlimited = budget.is_none() && depth.is_none() && nodes.is_none() && mate.is_none();
        let mut searchmoves = Vec::new();
        for text in &params.searchmoves {
            match parse_move(&self.root.pos, text) {
                Ok(m) => searchmoves.push(m),
                Err(message) => self
                    .output
                    .problem(&format!("searchmoves: {message}, ignored")),
            }
        }
        Limits {
            depth,
            nodes,
            mate,
            budget,
            infinite: params.infinite || unlimited,
            searchmoves,
            multipv: self.options.multipv,
            soft_nodes: None,
            strength,
            wdl_material: self
                .options
                .show_wdl
                .then(|| crate::wdl::material_count(&self.root.pos)),
        }
    }

    /// `eval`: the hand-crafted evaluation's table, then the net's (the
    /// `EvalFile` net, saying whether the search uses it).
    fn eval(&self) {
        let pos = &self.root.pos;
        for line in crate::eval::trace_lines(pos) {
            self.output.send(&line);
        }
        if let Some(net) = self.net {
            let in_use = self.search_net().is_some();
            let (use_nnue, limited) = (self.use_nnue, self.options.limit_strength);
            for line in crate::eval::nnue_lines(net, pos, in_use, use_nnue, limited) {
                self.output.send(&line);
            }
        }
    }

    fn display(&mut self) {
        self.reap_finished_search();
        let board = self.root.pos.board();
        self.output.send("");
        for rank in (0..8).rev() {
            self.output.send(" +---+---+---+---+---+---+---+---+");
            let mut row = String::from(" |");
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(
                    shakmaty::File::new(file),
                    shakmaty::Rank::new(rank),
                );
                let c = board.piece_at(sq).map_or(' ', |p| p.char());
                row.push_str(&format!(" {c} |"));
            }
            row.push_str(&format!(" {}", rank + 1));
            self.output.send(&row);
        }
        self.output.send(" +---+---+---+---+---+---+---+---+");
        self.output.send("   a   b   c   d   e   f   g   h");
        self.output.send("");
        let fen = Fen::from_position(&self.root.pos, EnPassantMode::Legal);
        self.output.send(&format!("Fen: {fen}"));
        self.output.send(&format!("Key: {:016X}", self.root.key));
        let checkers: Vec<String> = self
            .root
            .pos
            .checkers()
            .into_iter()
            .map(|sq| sq.to_string())
            .collect();
        self.output
            .send(&format!("Checkers: {}", checkers.join(" ")));
    }
}

/// Parses a move in UCI notation and checks that it is legal in `pos`.
/// Both castling notations are understood (e1g1 and king-takes-rook e1h1).
fn parse_move(pos: &Chess, text: &str) -> Result<Move, String> {
    let uci = UciMove::from_ascii(text.as_bytes())
        .map_err(|_| format!("malformed move '{}'", short(text)))?;
    uci.to_move(pos)
        .map_err(|_| format!("illegal move '{}'", short(text)))
}

/// Starts the search threads, reporting a refusal (the engine then answers
/// `go` with a legal move rather than dying).
fn start_pool(threads: usize, output: Output) -> Option<ThreadPool> {
    match ThreadPool::new(threads, output) {
        Ok(pool) => Some(pool),
        Err(message) => {
            output.problem(&message);
            None
        }
    }
}

/// `genfens N seed S book <None|file> [words]`, OpenBench's request for
/// self-play openings: one `info string genfens <FEN>` line per opening.
/// Runs on the controller thread (it is a tool command, sent before `quit`),
/// with its own single-threaded searcher, so the game's table is untouched.
fn genfens(words: &[String], output: Output) {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let fens = crate::openings::GenFens::parse(&words).and_then(|request| request.generate());
    match fens {
        Ok(fens) => {
            for fen in fens {
                output.send(&format!("info string genfens {fen}"));
            }
        }
        Err(message) => output.problem(&message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::parse_command;
    use std::time::Duration;

    fn wait_for_search(engine: &mut Engine) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while engine.running.is_some() {
            assert!(Instant::now() < deadline, "the search did not end");
            std::thread::sleep(Duration::from_millis(5));
            engine.reap_finished_search();
        }
    }

    /// `ucinewgame` must still empty a table a search wrote to, while the
    /// untouched table it skips is all zero already.
    #[test]
    fn a_new_game_clears_the_table_only_after_a_search() {
        let mut engine = Engine::new(Output::Silent);
        engine.handle(parse_command("setoption name Hash value 1"));
        assert!(engine.tt_clean);
        assert!(engine.tt.probe(engine.root.key, 0).is_none());

        engine.handle(parse_command("go depth 8"));
        assert!(!engine.tt_clean);
        wait_for_search(&mut engine);
        assert!(engine.tt.hashfull() > 0);
        assert!(engine.tt.probe(engine.root.key, 0).is_some());

        engine.handle(parse_command("ucinewgame"));
        assert!(engine.tt_clean);
        assert_eq!(engine.tt.hashfull(), 0);
        assert!(engine.tt.probe(engine.root.key, 0).is_none());

        // A new table, even of the same size, starts clean.
        engine.handle(parse_command("go depth 4"));
        wait_for_search(&mut engine);
        engine.handle(parse_command("setoption name Hash value 2"));
        assert!(engine.tt_clean);
        assert!(engine.tt.probe(engine.root.key, 0).is_none());
    }
}
