//! Syzygy endgame tablebases, read through the `shakmaty-syzygy` crate.
//!
//! `SyzygyPath` loads the tables ([`Tables::load`]) into one object that every
//! search thread shares read-only through an `Arc`. The crate opens each file
//! on its first probe behind a once-only cell, so probing takes no lock and,
//! once a file is open, allocates nothing.
//!
//! A `go` whose root is in the tables ranks the root moves with DTZ
//! ([`prepare`]) and restricts the search to the moves that keep the best
//! outcome: for a win the moves closest to the next capture, pawn move or mate
//! (so the engine cannot shuffle), for a draw the drawing moves, for a loss
//! the moves that resist longest. The search then has nothing to learn from
//! the tables, and the root's table value is shown unless the search proves a
//! mate. Any other root leaves the tables to the search: after a capture or
//! pawn move into a position with few enough pieces, the WDL value replaces
//! the search of that node ([`Probe::probe_search`]).

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{Dtz, Tablebase, Wdl};

use crate::board::Board;
use crate::score::{is_mate, tb_loss_in, tb_win_in};
use crate::tt::Bound;

// The tablebase scores live in `score`; the tests name them here too.
pub use crate::score::{TB_WIN, TB_WIN_BOUND};

/// The tables found on `SyzygyPath`.
pub struct Tables {
    tablebase: Tablebase<Chess>,
    wdl_files: usize,
    dtz_files: usize,
}

/// What loading `SyzygyPath` gave: the tables (none without a table file)
/// and what to tell the GUI.
pub struct LoadReport {
    pub tables: Option<Tables>,
    /// `found N tablebases, up to P pieces`, when tables were found.
    pub summary: Option<String>,
    /// Directories that could not be read, files that are not usable tables.
    pub problems: Vec<String>,
}

impl Tables {
    /// Loads every table file of the directories in `paths`, separated as in
    /// the `PATH` variable (`:` on Unix, `;` on Windows). An empty value or
    /// `<empty>` means no tables. Only file names and sizes are read here;
    /// each file is opened on its first probe.
    pub fn load(paths: &str) -> LoadReport {
        let paths = paths.trim();
        let mut report = LoadReport {
            tables: None,
            summary: None,
            problems: Vec::new(),
        };
        if paths.is_empty() || paths == "<empty>" {
            return report;
        }
        let mut tablebase = Tablebase::<Chess>::new();
        // File names already added: the same table in two directories counts once.
        let mut names = BTreeSet::new();
        for dir in std::env::split_paths(paths) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    report.problems.push(format!(
                        "SyzygyPath: cannot read directory '{}': {e}",
                        dir.display()
                    ));
                    continue;
                }
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                if !(name.ends_with(".rtbw") || name.ends_with(".rtbz")) {
                    continue;
                }
                match tablebase.add_file(&path) {
                    Ok(()) => {
                        names.insert(name.to_string());
                    }
                    // A name that is no table of standard chess (KvK, 8 pieces).
                    Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {}
                    Err(e) => report
                        .problems
                        .push(format!("SyzygyPath: skipping '{}': {e}", path.display())),
                }
            }
        }
        let wdl_files = names.iter().filter(|n| n.ends_with(".rtbw")).count();
        let dtz_files = names.len() - wdl_files;
        if names.is_empty() {
            report.problems.push(format!(
                "SyzygyPath: no tablebase files (.rtbw, .rtbz) found in '{paths}'; no tablebases in use"
            ));
            return report;
        }
        let mut summary = format!(
            "found {wdl_files} tablebases, up to {} pieces",
            tablebase.max_pieces()
        );
        if dtz_files != wdl_files {
            summary.push_str(&format!(" ({wdl_files} WDL and {dtz_files} DTZ files)"));
        }
        report.summary = Some(summary);
        report.tables = Some(Tables {
            tablebase,
            wdl_files,
            dtz_files,
        });
        report
    }

    pub fn max_pieces(&self) -> usize {
        self.tablebase.max_pieces()
    }

    /// Table files loaded: (WDL, DTZ).
    pub fn files(&self) -> (usize, usize) {
        (self.wdl_files, self.dtz_files)
    }
}

/// The tables as one search uses them, shared by its threads.
#[derive(Clone)]
pub struct Probe {
    tables: Arc<Tables>,
    /// The most pieces of any table.
    cardinality: usize,
    /// `SyzygyProbeDepth`: the least remaining depth at which the search
    /// probes positions with `cardinality` pieces (fewer are always probed).
    probe_depth: i32,
    /// `Syzygy50MoveRule`: cursed wins and blessed losses count as draws.
    rule50: bool,
    /// The root's table value, when the root moves were ranked with DTZ.
    root_score: Option<i32>,
    /// Probes made while ranking the root moves.
    root_hits: u64,
}

impl Probe {
    pub fn new(tables: &Arc<Tables>, probe_depth: i32, rule50: bool) -> Probe {
        Probe {
            tables: Arc::clone(tables),
            cardinality: tables.max_pieces(),
            probe_depth,
            rule50,
            root_score: None,
            root_hits: 0,
        }
    }

    /// The root's table value when the root was ranked with DTZ.
    pub fn root_score(&self) -> Option<i32> {
        self.root_score
    }

    pub fn root_hits(&self) -> u64 {
        self.root_hits
    }

    /// The WDL probe inside the search: for a position just after a capture
    /// or pawn move (halfmove clock 0), without castling rights, with few
    /// enough pieces, at enough remaining `depth`, the table's score from the
    /// side to move's view and the bound it is: a win is a lower bound
    /// (a mate may score higher), a loss an upper bound, a draw exact.
    /// `None` when the position is not probed or a table is missing.
    #[inline]
    pub fn probe_search(&self, pos: &Chess, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        if self.root_score.is_some() || pos.halfmoves() != 0 {
            return None;
        }
        let pieces = pos.board().occupied().count();
        if pieces > self.cardinality
            || (pieces == self.cardinality && depth < self.probe_depth)
            || pos.castles().any()
            // A mate keeps its mate score.
            || pos.is_checkmate()
        {
            return None;
        }
        let wdl = self.tables.tablebase.probe_wdl_after_zeroing(pos).ok()?;
        Some(match self.value(wdl) {
            1 => (tb_win_in(ply), Bound::Lower),
            -1 => (tb_loss_in(ply), Bound::Upper),
            _ => (0, Bound::Exact),
        })
    }

    /// A WDL as won (1), drawn (0) or lost (-1) under `Syzygy50MoveRule`.
    fn value(&self, wdl: Wdl) -> i32 {
        match wdl {
            Wdl::Win => 1,
            Wdl::Loss => -1,
            Wdl::Draw => 0,
            Wdl::CursedWin if !self.rule50 => 1,
            Wdl::BlessedLoss if !self.rule50 => -1,
            Wdl::CursedWin | Wdl::BlessedLoss => 0,
        }
    }

    /// Ranks the root moves (those of `searchmoves`, or all) with DTZ.
    /// Returns the moves that keep the best outcome and the root's score,
    /// or `None` when the root is not in the tables or a table is missing.
    fn rank_root(&self, root: &Board, history: &[u64], searchmoves: &[Move]) -> Option<Ranking> {
        let pos = &root.pos;
        if pos.board().occupied().count() > self.cardinality || pos.castles().any() {
            return None;
        }
        let mut moves = pos.legal_moves();
        if !searchmoves.is_empty() {
            moves.retain(|m| searchmoves.contains(m));
        }
        if moves.is_empty() {
            return None;
        }
        let halfmoves = pos.halfmoves() as i32;
        let mut ranked = Vec::with_capacity(moves.len());
        for &m in &moves {
            let dtz = self.root_move_dtz(root, m, history)?;
            ranked.push((m, self.outcome(dtz, m.is_zeroing(), halfmoves), dtz));
        }
        let best = ranked.iter().map(|r| r.1).max()?;
        // A win goes for the nearest capture, pawn move or mate; a loss puts
        // them off the longest (its DTZ is negative: the least is the longest).
        let decisive = best.abs() == 2;
        let best_dtz = ranked.iter().filter(|r| r.1 == best).map(|r| r.2).min()?;
        let keep = ranked
            .iter()
            .filter(|r| r.1 == best && (!decisive || r.2 == best_dtz))
            .map(|r| r.0)
            .collect();
        let score = match best {
            2 => TB_WIN,
            -2 => -TB_WIN,
            _ => 0,
        };
        Some(Ranking {
            moves: keep,
            score,
            hits: moves.len() as u64,
        })
    }

    /// The DTZ of root move `m` in plies from the root, from the root side's
    /// view: positive when it wins, negative when it loses, 0 for a draw.
    fn root_move_dtz(&self, root: &Board, m: Move, history: &[u64]) -> Option<i32> {
        let child = root.play(m);
        let pos = &child.pos;
        if pos.legal_moves().is_empty() {
            return Some(if pos.is_check() { 1 } else { 0 });
        }
        if claimable_draw(&child, history) {
            return Some(0);
        }
        let tablebase = &self.tables.tablebase;
        if m.is_zeroing() {
            let wdl = tablebase.probe_wdl_after_zeroing(pos).ok()?;
            return Some(match -wdl {
                Wdl::Win => 1,
                Wdl::CursedWin => 101,
                Wdl::Draw => 0,
                Wdl::BlessedLoss => -101,
                Wdl::Loss => -1,
            });
        }
        let Dtz(theirs) = tablebase.probe_dtz(pos).ok()?.ignore_rounding();
        let ours = -theirs;
        Some(ours + ours.signum())
    }

    /// The outcome class of a root move with `dtz` (see `root_move_dtz`):
    /// 2 won, -2 lost; under the fifty-move rule 1 for a cursed win, -1 for
    /// a blessed loss and 0 for a draw, else 0 for a draw only.
    fn outcome(&self, dtz: i32, zeroing: bool, halfmoves: i32) -> i32 {
        if dtz == 0 {
            return 0;
        }
        if !self.rule50 {
            return 2 * dtz.signum();
        }
        // The clock restarts with a capture or pawn move; otherwise it runs on.
        let plies = if zeroing {
            dtz
        } else {
            dtz + dtz.signum() * halfmoves
        };
        match Wdl::from_dtz(Dtz(plies)) {
            Wdl::Win => 2,
            Wdl::CursedWin => 1,
            Wdl::Draw => 0,
            Wdl::BlessedLoss => -1,
            Wdl::Loss => -2,
        }
    }
}

struct Ranking {
    moves: Vec<Move>,
    score: i32,
    hits: u64,
}

/// The tables' settings for one `go`. When the root is in the tables, ranks
/// its moves with DTZ and narrows `searchmoves` (all moves when empty, else
/// the user's) to the best of them; the search then probes no more.
pub fn prepare(
    tables: &Arc<Tables>,
    probe_depth: i32,
    rule50: bool,
    root: &Board,
    history: &[u64],
    searchmoves: &mut Vec<Move>,
    output: crate::output::Output,
) -> Probe {
    let mut probe = Probe::new(tables, probe_depth, rule50);
    // A damaged table file may trip an assertion in the reader: the search
    // goes on without the root ranking.
    let ranking = catch_unwind(AssertUnwindSafe(|| {
        probe.rank_root(root, history, searchmoves)
    }));
    match ranking {
        Ok(Some(ranking)) => {
            *searchmoves = ranking.moves;
            probe.root_score = Some(ranking.score);
            probe.root_hits = ranking.hits;
        }
        Ok(None) => {}
        Err(_) => {
            output.problem("internal error probing the tablebases at the root; searching all moves")
        }
    }
    probe
}

/// The score to show for a search score: with a ranked root, its table value,
/// unless the search proved a mate.
pub fn shown_score(probe: Option<&Probe>, score: i32) -> i32 {
    match probe.and_then(Probe::root_score) {
        Some(tb) if !is_mate(score) => tb,
        _ => score,
    }
}

/// Whether `child`, a root move's position, is drawn before any table says
/// so: by the fifty-move rule or as the third occurrence of a position of the
/// game (`history`, oldest first, ends with the position before the root).
fn claimable_draw(child: &Board, history: &[u64]) -> bool {
    let halfmoves = child.pos.halfmoves() as usize;
    if halfmoves >= 100 {
        return true;
    }
    // With the root appended, the game has `n` positions before the child; the
    // same side was to move 4, 6, ... plies back (2 plies back cannot repeat).
    let n = history.len() + 1;
    let reach = halfmoves.min(n);
    let mut earlier = 0;
    let mut distance = 4;
    while distance <= reach {
        if history[n - distance] == child.key {
            earlier += 1;
        }
        distance += 2;
    }
    earlier >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Output;
    use crate::score::{MATE, MATE_BOUND, MAX_PLY};
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn data_dir() -> String {
        concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/syzygy").to_string()
    }

    fn board(fen: &str) -> Board {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        Board::new(pos)
    }

    fn tables() -> Arc<Tables> {
        let report = Tables::load(&data_dir());
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        Arc::new(report.tables.expect("the test tables"))
    }

    #[test]
    fn loads_the_test_tables_and_reports_problems() {
        let report = Tables::load(&data_dir());
        let tables = report.tables.unwrap();
        assert_eq!(tables.max_pieces(), 3);
        assert_eq!(tables.files(), (5, 5));
        assert_eq!(
            report.summary.as_deref(),
            Some("found 5 tablebases, up to 3 pieces")
        );

        for empty in ["", "  ", "<empty>"] {
            let report = Tables::load(empty);
            assert!(report.tables.is_none() && report.problems.is_empty());
        }

        let missing = "/nonexistent/kiraly-syzygy";
        let report = Tables::load(missing);
        assert!(report.tables.is_none());
        assert_eq!(report.problems.len(), 2, "{:?}", report.problems);
        assert!(report.problems[0].contains(missing));

        // Several directories: the missing one is reported, the tables load;
        // the same directory twice counts its tables once.
        let joined =
            std::env::join_paths([missing, data_dir().as_str(), data_dir().as_str()]).unwrap();
        let report = Tables::load(joined.to_str().unwrap());
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert_eq!(report.tables.unwrap().files(), (5, 5));
    }

    fn uci(root: &Board, text: &str) -> Move {
        shakmaty::uci::UciMove::from_ascii(text.as_bytes())
            .unwrap()
            .to_move(&root.pos)
            .unwrap()
    }

    /// Ranks `fen` with the test tables; returns the root score and the moves kept.
    fn rank(fen: &str, rule50: bool, searchmoves: &[&str]) -> (Option<i32>, Vec<String>) {
        let root = board(fen);
        let mut moves: Vec<Move> = searchmoves.iter().map(|m| uci(&root, m)).collect();
        let probe = prepare(&tables(), 1, rule50, &root, &[], &mut moves, Output::Silent);
        assert_eq!(probe.root_score().is_some(), probe.root_hits() > 0);
        let mut kept: Vec<String> = moves
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        kept.sort();
        (probe.root_score(), kept)
    }

    #[test]
    fn search_probe_scores_and_bounds() {
        let probe = Probe::new(&tables(), 1, true);
        // KQvK just after a capture: lost for Black, won for White.
        let lost = board("8/8/8/8/8/2k5/8/K2Q4 b - - 0 1");
        assert_eq!(
            probe.probe_search(&lost.pos, 5, 7),
            Some((-TB_WIN + 7, Bound::Upper))
        );
        let won = board("8/8/8/8/8/2k5/8/K2Q4 w - - 0 1");
        assert_eq!(
            probe.probe_search(&won.pos, 5, 3),
            Some((TB_WIN - 3, Bound::Lower))
        );
        // KPvK that Black holds (with Kd6 only).
        let drawn = board("1K6/4k3/8/8/2P5/8/8/8 b - - 0 1");
        assert_eq!(
            probe.probe_search(&drawn.pos, 5, 2),
            Some((0, Bound::Exact))
        );
        // Not after a capture or pawn move, too shallow, too many pieces,
        // checkmate: no probe.
        let later = board("8/8/8/8/8/2k5/8/K2Q4 b - - 3 5");
        assert_eq!(probe.probe_search(&later.pos, 5, 7), None);
        assert_eq!(probe.probe_search(&won.pos, 0, 3), None);
        let deep = Probe::new(&tables(), 4, true);
        assert_eq!(deep.probe_search(&won.pos, 3, 3), None);
        assert!(deep.probe_search(&won.pos, 4, 3).is_some());
        let four = board("8/8/8/4k3/8/3p4/8/3QK3 w - - 0 1");
        assert_eq!(probe.probe_search(&four.pos, 5, 3), None);
        let mated = board("k1Q5/8/1K6/8/8/8/8/8 b - - 0 1");
        assert_eq!(probe.probe_search(&mated.pos, 5, 3), None);
        assert!(TB_WIN - MAX_PLY as i32 >= TB_WIN_BOUND && TB_WIN < MATE_BOUND);
    }

    #[test]
    fn root_ranking_keeps_the_fastest_wins() {
        // KRvK with the rook attacked: of the 6 winning moves, Rd6 alone
        // is the fastest (DTZ 15); Rd7 hangs the rook.
        let fen = "3R4/2k5/8/3K4/8/8/8/8 w - - 0 1";
        assert_eq!(rank(fen, true, &[]), (Some(TB_WIN), vec!["d8d6".into()]));
        // A user's searchmoves are ranked alone.
        assert_eq!(
            rank(fen, true, &["d8d7", "d8h8"]),
            (Some(TB_WIN), vec!["d8h8".into()])
        );
        assert_eq!(rank(fen, true, &["d8d7"]), (Some(0), vec!["d8d7".into()]));
        // KPvK where only Ke7 wins (d8=Q is met by Kxd8).
        assert_eq!(
            rank("8/2kP4/5K2/8/8/8/8/8 w - - 0 1", true, &[]),
            (Some(TB_WIN), vec!["f6e7".into()])
        );
        // KQvK with stalemate traps: the mates in 3 (DTZ 5) are kept.
        let (score, kept) = rank("7k/5Q2/8/5K2/8/8/8/8 w - - 0 1", true, &[]);
        assert_eq!(score, Some(TB_WIN));
        assert_eq!(kept, ["f7a7", "f7b7", "f7c7", "f7d7", "f7e7"]);
    }

    #[test]
    fn root_ranking_of_losses_and_draws() {
        // Black holds KPvK with Kd6 alone; every other move loses.
        assert_eq!(
            rank("1K6/4k3/8/8/2P5/8/8/8 b - - 0 1", true, &[]),
            (Some(0), vec!["e7d6".into()])
        );
        // Lost KQvK: the moves that put the mate off longest.
        let fen = "8/8/8/8/8/2k5/8/K2Q4 b - - 0 1";
        let (score, kept) = rank(fen, true, &[]);
        assert_eq!(score, Some(-TB_WIN));
        let root = board(fen);
        let tb = &tables().tablebase;
        let dtz = |m: &str| {
            let Dtz(d) = tb
                .probe_dtz(&root.play(uci(&root, m)).pos)
                .unwrap()
                .ignore_rounding();
            d
        };
        let longest = root
            .pos
            .legal_moves()
            .iter()
            .map(|m| dtz(&m.to_uci(CastlingMode::Standard).to_string()))
            .max()
            .unwrap();
        assert!(!kept.is_empty());
        for m in &kept {
            assert_eq!(dtz(m), longest, "{m}");
        }
    }

    #[test]
    fn root_ranking_under_the_fifty_move_rule() {
        // KRvK 30 plies from mate with the clock at 90: a cursed win, a
        // draw with the rule on, a win with it off.
        let fen = "8/8/8/4k3/8/8/8/KR6 w - - 90 100";
        assert_eq!(rank(fen, true, &[]).0, Some(0));
        assert_eq!(rank(fen, false, &[]).0, Some(TB_WIN));
        assert_eq!(
            rank("8/8/8/4k3/8/8/8/KR6 w - - 0 1", true, &[]).0,
            Some(TB_WIN)
        );
        let probe = prepare(
            &tables(),
            1,
            false,
            &board(fen),
            &[],
            &mut Vec::new(),
            Output::Silent,
        );
        assert_eq!(shown_score(Some(&probe), 150), TB_WIN);
        assert_eq!(shown_score(Some(&probe), MATE - 9), MATE - 9);
        assert_eq!(shown_score(None, 150), 150);

        // Not ranked: too many pieces, castling rights.
        assert_eq!(
            rank("8/8/8/4k3/8/3p4/8/3QK3 w - - 0 1", true, &[]),
            (None, vec![])
        );
        assert_eq!(
            rank("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", true, &[]),
            (None, vec![])
        );
    }

    #[test]
    fn threefold_repetition_of_a_root_move_is_a_draw() {
        let root = board("8/8/8/4k3/8/8/8/KR6 w - - 8 10");
        let child = root.play(uci(&root, "b1b2"));
        let other = 0x1234;
        // The child position twice before, 4 and 8 plies back.
        let history = [child.key, other, other, other, child.key, other, other];
        assert!(claimable_draw(&child, &history));
        let once = [other, other, other, other, child.key, other, other];
        assert!(!claimable_draw(&child, &once));
    }
}
