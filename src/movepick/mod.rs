//! Move ordering.
//!
//! The main search takes its moves from [`MovePicker`], a staged picker: each
//! kind of move is generated and scored only when the kinds before it are
//! used up, so a cutoff on an early move saves the work of the later ones.
//! The stages, in order:
//!
//! 1. the transposition-table move, checked for legality in the position
//!    and returned before anything is generated;
//! 2. the noisy moves whose exchange does not lose material (static
//!    exchange evaluation, done when a move comes up), by victim value and
//!    capture history; a losing one is kept for stage 5;
//! 3. the two killer moves and the counter-move to the previous move, each
//!    when it is legal and quiet here;
//! 4. the quiet moves, generated (by `movegen::quiet_moves`, which makes
//!    only them) and scored (butterfly history under the opponent's
//!    threats plus continuation history one, two and four plies back) only
//!    now; the moves of stages 1 and 3 are left out;
//! 5. the noisy moves that lose material, in the order of stage 2, then the
//!    underpromotions.
//!
//! Quiet and noisy mean here what they mean to the search ([`is_quiet`]): a
//! quiet move is neither a capture nor a promotion. Stage 2 orders the
//! captures and the queen promotions (en passant is a capture of a pawn, a
//! capture that promotes to a queen is both); the underpromotions, with or
//! without a capture, are noisy but rarely good, and wait for the very end.
//! Every legal move comes out once (the unit tests check it over the perft
//! suites).
//!
//! [`MovePicker::skip_quiets`], which late-move pruning calls, drops every
//! quiet move not yet returned that does not give check, the killers and
//! the counter-move too if they have not come up yet (as in Ethereal: they
//! are quiet moves the search would prune like any other). The search
//! never sees the dropped moves: the picker tests each remaining quiet move
//! against the position's check squares ([`crate::movegen::CheckSquares`],
//! computed once skipping asks for them) and returns only the checks, in the order
//! the full selection gives them, since late-move pruning spares them; once
//! the last of them has come, the stage ends. (Dropping the checks too
//! lost Elo; see docs/search.md.) No noisy move is dropped.
//!
//! Move lists live in the picker, on the search's stack (shakmaty's
//! `MoveList` is an array), so a node allocates nothing.
//!
//! The quiescence search (captures and queen promotions, or every evasion
//! in check) and ProbCut keep the simpler [`ScoredMoves`]: they generate
//! their short list themselves, and it is scored by MVV-LVA in one pass
//! and selected lazily.

mod scored;

use arrayvec::ArrayVec;
use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role};

use crate::history::{ButterflyHistory, ButterflySide, CaptureHistory, PIECE_TO};
use crate::movegen::{is_legal, noisy_moves, quiet_moves, threats, CheckSquares};
use crate::parameters as params;
use crate::see::{see_ge, see_value};

pub use scored::ScoredMoves;

/// Room for the legal moves of any chess position (at most 218).
pub(crate) const MAX_MOVES: usize = 256;

/// The ordering scores of a move list, index for index. Only the scores
/// pushed exist: a node does not zero room for 256 of them.
pub type Scores = ArrayVec<i32, MAX_MOVES>;

/// The learned tables that order the moves of a node. The picker is given
/// them at each call, as the search updates them between its moves.
pub struct OrderingContext<'a> {
    pub butterfly: &'a ButterflyHistory,
    pub captures: &'a CaptureHistory,
    /// Continuation-history rows of the moves one, two and four plies back
    /// (`stack::CONTINUATION_PLIES`), where there was such a move.
    pub continuations: [Option<&'a [i16; PIECE_TO]>; 3],
}

/// The continuation row of a ply with no move: every entry zero, so that
/// a scorer adds it like any other row.
static NO_CONTINUATION: [i16; PIECE_TO] = [0; PIECE_TO];

impl<'a> OrderingContext<'a> {
    /// The quiet history of a quiet move of `side`, where the opponent
    /// attacks the squares `threats` (see [`QuietScorer::score`]). What
    /// orders the quiet moves, and what history pruning and the reductions
    /// judge them by.
    #[inline]
    pub fn quiet_score(&self, side: Color, threats: Bitboard, m: Move) -> i32 {
        self.quiet_scorer(side, threats).score(m)
    }

    /// What every quiet move of `side` under `threats` is scored with,
    /// looked up once for the node's whole list.
    #[inline]
    pub fn quiet_scorer(&self, side: Color, threats: Bitboard) -> QuietScorer<'a> {
        QuietScorer {
            butterfly: self.butterfly.side(side.is_white()),
            threats,
            side_piece_base: usize::from(side.is_white()) * 6 * 64,
            continuations: self
                .continuations
                .map(|row| row.unwrap_or(&NO_CONTINUATION)),
        }
    }

    /// Ordering score of a capture or queen promotion in the main search:
    /// the exchange value won (the victim, and the queen a promotion makes)
    /// first, the capture's record second.
    #[inline]
    pub fn noisy_score(&self, side: Color, m: Move) -> i32 {
        let promotion = if m.promotion() == Some(Role::Queen) {
            see_value(Role::Queen)
        } else {
            0
        };
        let value = m.capture().map_or(0, see_value) + promotion;
        value * params::capture_victim_weight()
            + self.captures.get(side, m) / params::capture_history_divisor()
    }
}

/// The quiet history of one side under one set of threats: the tables'
/// lookups that every quiet move of a node shares, done once
/// ([`OrderingContext::quiet_scorer`]).
pub struct QuietScorer<'a> {
    butterfly: &'a ButterflySide,
    threats: Bitboard,
    /// Where the side's pieces start in a (piece, to) index
    /// ([`piece_to`](crate::history::piece_to)).
    side_piece_base: usize,
    /// The continuation rows one, two and four plies back, zeros where
    /// there was no move.
    continuations: [&'a [i16; PIECE_TO]; 3],
}

impl QuietScorer<'_> {
    /// Butterfly plus continuation history of `m`, the row four plies back
    /// weighted by `cont_hist_4_order_pct` (a move that far back says less
    /// about this one).
    #[inline]
    pub fn score(&self, m: Move) -> i32 {
        // One look at the move's kind for its piece and squares (castling is
        // the king moving to its rook's square, as in `piece_to`).
        let (role, from, to) = match m {
            Move::Normal { role, from, to, .. } => (role, Some(from), to),
            Move::Castle { king, rook } => (Role::King, Some(king), rook),
            Move::EnPassant { from, to } => (Role::Pawn, Some(from), to),
            Move::Put { role, to } => (role, None, to),
        };
        let from_attacked = from.is_some_and(|s| self.threats.contains(s));
        let threat = usize::from(from_attacked) * 2 + usize::from(self.threats.contains(to));
        let from = from.map_or(0, |s| s as usize);
        let piece_to = self.side_piece_base + (role as usize - 1) * 64 + to as usize;
        let [one, two, four] = self.continuations;
        let mut score = i32::from(self.butterfly[threat][from][to as usize]);
        score += i32::from(one[piece_to]) + i32::from(two[piece_to]);
        score + i32::from(four[piece_to]) * params::cont_hist_4_order_pct() / 100
    }
}

/// Whether the search treats `m` as quiet, for its prunings and
/// reductions, the quiet-move histories and the correction history, and
/// the picker for its quiet stage: neither a capture nor any promotion.
#[inline]
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && m.promotion().is_none()
}

/// Whether `list` (killers, refutations) holds `m`. The same test as
/// `<[Option<Move>]>::contains` (or `iter().any`), whose generic body the
/// compiler leaves out of line, a call for a few comparisons at every
/// node.
#[inline]
pub fn holds_move(list: &[Option<Move>], m: Move) -> bool {
    for &r in list {
        if r == Some(m) {
            return true;
        }
    }
    false
}

/// A promotion to anything but a queen.
#[inline]
fn is_underpromotion(m: Move) -> bool {
    m.promotion().is_some_and(|r| r != Role::Queen)
}

/// Where a [`MovePicker`] stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    TableMove,
    GenerateNoisy,
    GoodNoisy,
    Refutations,
    GenerateQuiets,
    Quiets,
    BadNoisy,
    Underpromotions,
    Done,
}

/// The staged move picker of the main search (see the module's
/// documentation for the stages).
///
/// The moves are kept in one list: the noisy moves first (those found to
/// lose material moved to its front as they come up), then the
/// underpromotions, then the quiet moves once generated.
pub struct MovePicker<'a> {
    pos: &'a Chess,
    stage: Stage,
    tt_move: Option<Move>,
    /// The killers, then the counter-move: distinct, none the table move.
    refutations: [Option<Move>; 3],
    moves: MoveList,
    /// The scores of `moves[..scores.len()]`: the noisy moves of stage 2,
    /// zero for the underpromotions, and the quiet moves once scored.
    scores: Scores,
    /// The next index of the current stage.
    next: usize,
    /// Noisy moves found to lose material, at `0..bad_end`.
    bad_end: usize,
    /// The noisy moves of stage 2 are at `0..noisy_end`, the
    /// underpromotions at `noisy_end..quiet_start`, the quiet moves from
    /// `quiet_start`.
    noisy_end: usize,
    quiet_start: usize,
    /// In check, every (few) evasion is generated at once: the quiet ones
    /// are then already in the list when their stage comes.
    quiets_generated: bool,
    skip_quiets: bool,
    /// Whether a move gives check, answered from the position's check
    /// squares: computed the first time a skip asks.
    checks: Option<CheckSquares>,
    /// The squares the opponent attacks, which index the quiet history:
    /// computed the first time a quiet move is scored or learns.
    threats: Option<Bitboard>,
    /// Once skipping in the quiet stage: how many of the quiet moves not
    /// yet selected give check. The selection runs over all of them (the
    /// order of the checks depends on the others), but ends with the last
    /// check.
    quiet_checks_left: Option<usize>,
}

impl<'a> MovePicker<'a> {
    /// A picker for `pos`, with the table's move `tt_move` (legal: the
    /// caller decoded it with `PackedMove::legal_move`), the node's killer
    /// moves and the counter-move to the previous move (checked when their
    /// stage comes).
    #[inline]
    pub fn new(
        pos: &'a Chess,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        counter: Option<Move>,
    ) -> MovePicker<'a> {
        let mut refutations = [None; 3];
        let mut n = 0;
        for m in [killers[0], killers[1], counter].into_iter().flatten() {
            if Some(m) != tt_move && !holds_move(&refutations[..n], m) {
                refutations[n] = Some(m);
                n += 1;
            }
        }
        MovePicker {
            pos,
            stage: Stage::TableMove,
            tt_move,
            refutations,
            moves: MoveList::new(),
            scores: Scores::new(),
            next: 0,
            bad_end: 0,
            noisy_end: 0,
            quiet_start: 0,
            quiets_generated: false,
            skip_quiets: false,
            checks: None,
            threats: None,
            quiet_checks_left: None,
        }
    }

    /// Drops the quiet moves not yet returned that do not give check,
    /// killers and counter-move included; the noisy moves and the quiet
    /// checks still come, in their order.
    #[inline]
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The position's check squares, computed on the first question.
    #[inline]
    fn check_squares(&mut self) -> CheckSquares {
        let pos = self.pos;
        *self.checks.get_or_insert_with(|| CheckSquares::new(pos))
    }

    /// The squares the opponent attacks in the picker's position (the key
    /// of the quiet history beside the move), computed on the first
    /// question: a node cut by a capture never asks.
    #[inline]
    pub fn threats(&mut self) -> Bitboard {
        let pos = self.pos;
        *self.threats.get_or_insert_with(|| threats(pos))
    }

    /// Whether `m`, legal in the picker's position, gives check.
    #[inline]
    pub fn gives_check(&mut self, m: Move) -> bool {
        self.check_squares().gives_check(self.pos, m)
    }

    /// The quiet moves not yet selected that give check.
    fn count_quiet_checks(&mut self) -> usize {
        let pos = self.pos;
        let checks = self.check_squares();
        let from = self.next.max(self.quiet_start);
        self.moves[from..]
            .iter()
            .filter(|&&m| checks.gives_check(pos, m))
            .count()
    }

    /// The next move, or `None` when every legal move has come (or was
    /// skipped). `ctx` holds the tables of the node as they are now.
    pub fn next_move(&mut self, ctx: &OrderingContext<'_>) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TableMove => {
                    self.stage = Stage::GenerateNoisy;
                    // (The search skips only after a move, so the table
                    // move has come by then; the test is for the contract.)
                    if let Some(m) = self.tt_move {
                        if !self.skip_quiets || !is_quiet(m) || self.gives_check(m) {
                            return Some(m);
                        }
                    }
                }
                Stage::GenerateNoisy => {
                    self.generate_noisy(ctx);
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    while self.next < self.noisy_end {
                        let m = self.select(self.noisy_end);
                        if see_ge(self.pos, m, 0) {
                            return Some(m);
                        }
                        // Losing: to the front, behind the losing ones
                        // before it (over moves already returned).
                        self.moves.swap(self.bad_end, self.next - 1);
                        self.scores.swap(self.bad_end, self.next - 1);
                        self.bad_end += 1;
                    }
                    self.stage = Stage::Refutations;
                    self.next = 0;
                }
                Stage::Refutations => {
                    while self.next < self.refutations.len() {
                        let r = self.refutations[self.next];
                        self.next += 1;
                        if let Some(m) = r.filter(|&m| is_quiet(m) && is_legal(self.pos, m)) {
                            if !self.skip_quiets || self.gives_check(m) {
                                return Some(m);
                            }
                        }
                    }
                    self.stage = Stage::GenerateQuiets;
                }
                Stage::GenerateQuiets => {
                    self.stage = Stage::Quiets;
                    self.next = self.quiet_start;
                    self.generate_quiets(ctx);
                }
                Stage::Quiets => {
                    if !self.skip_quiets {
                        if self.next < self.moves.len() {
                            return Some(self.select(self.moves.len()));
                        }
                    } else {
                        // Once skipping, only the checks are left to try.
                        let mut left = match self.quiet_checks_left {
                            Some(left) => left,
                            None => self.count_quiet_checks(),
                        };
                        while left > 0 && self.next < self.moves.len() {
                            let m = self.select(self.moves.len());
                            if self.gives_check(m) {
                                left -= 1;
                                self.quiet_checks_left = Some(left);
                                return Some(m);
                            }
                        }
                        self.quiet_checks_left = Some(0);
                    }
                    self.stage = Stage::BadNoisy;
                    self.next = 0;
                }
                Stage::BadNoisy => {
                    // Found in the order of stage 2, so already in order.
                    if self.next < self.bad_end {
                        self.next += 1;
                        return Some(self.moves[self.next - 1]);
                    }
                    self.stage = Stage::Underpromotions;
                    self.next = self.noisy_end;
                }
                Stage::Underpromotions => {
                    if self.next < self.quiet_start {
                        self.next += 1;
                        return Some(self.moves[self.next - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Moves the best-scored move of `next..end` to `next` and returns it.
    #[inline]
    fn select(&mut self, end: usize) -> Move {
        let m = select_best(&mut self.moves, &mut self.scores, self.next, end);
        self.next += 1;
        m
    }

    /// Stage 2's moves, scored, then the underpromotions; in check also
    /// the quiet evasions.
    fn generate_noisy(&mut self, ctx: &OrderingContext<'_>) {
        let pos = self.pos;
        let tt_move = self.tt_move;
        if pos.is_check() {
            let all = pos.legal_moves();
            self.append_from(&all, |m| !is_quiet(m) && !is_underpromotion(m));
            self.noisy_end = self.moves.len();
            self.append_from(&all, is_underpromotion);
            self.quiet_start = self.moves.len();
            let refutations = Refutations::of(self.refutations);
            self.append_from(&all, |m| is_quiet(m) && !refutations.holds(m));
            self.quiets_generated = true;
        } else {
            noisy_moves(pos, &mut self.moves);
            if let Some(tt) = tt_move.filter(|m| !is_quiet(*m)) {
                self.moves.retain(|m| *m != tt);
            }
            self.noisy_end = self.moves.len();
            // An underpromotion is legal where the queen promotion is.
            for i in 0..self.noisy_end {
                self.push_underpromotions(self.moves[i]);
            }
            if let Some(tt) = tt_move {
                self.push_underpromotions(tt);
            }
            self.quiet_start = self.moves.len();
        }
        let side = pos.turn();
        for &m in &self.moves[..self.noisy_end] {
            self.scores.push(ctx.noisy_score(side, m));
        }
        // The underpromotions come unscored, in their order.
        for _ in self.noisy_end..self.quiet_start {
            self.scores.push(0);
        }
    }

    /// The moves of `all` that `keep`, but the table move.
    fn append_from(&mut self, all: &MoveList, keep: impl Fn(Move) -> bool) {
        for &m in all {
            if keep(m) && Some(m) != self.tt_move {
                self.moves.push(m);
            }
        }
    }

    /// The knight, rook and bishop promotions of the queen promotion `m`,
    /// but the table move.
    fn push_underpromotions(&mut self, m: Move) {
        if let Move::Normal {
            role,
            from,
            capture,
            to,
            promotion: Some(Role::Queen),
        } = m
        {
            for r in [Role::Knight, Role::Rook, Role::Bishop] {
                let under = Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion: Some(r),
                };
                if Some(under) != self.tt_move {
                    self.moves.push(under);
                }
            }
        }
    }

    /// The quiet moves (but the table move and the refutations, returned
    /// before), scored.
    fn generate_quiets(&mut self, ctx: &OrderingContext<'_>) {
        if !self.quiets_generated {
            quiet_moves(self.pos, &mut self.moves);
            // Those returned before leave, the others keep their order.
            let refutations = Refutations::of(self.refutations);
            let mut kept = self.quiet_start;
            for i in self.quiet_start..self.moves.len() {
                let m = self.moves[i];
                if Some(m) != self.tt_move && !refutations.holds(m) {
                    self.moves[kept] = m;
                    kept += 1;
                }
            }
            self.moves.truncate(kept);
        }
        if self.skip_quiets {
            // Without a check among them, none will come: their order
            // does not matter.
            let left = self.count_quiet_checks();
            self.quiet_checks_left = Some(left);
            if left == 0 {
                return;
            }
        }
        let scorer = ctx.quiet_scorer(self.pos.turn(), self.threats());
        debug_assert_eq!(self.scores.len(), self.quiet_start);
        for &m in &self.moves[self.quiet_start..] {
            self.scores.push(scorer.score(m));
        }
    }
}

/// Selection sort, one step: swaps the best-scored move of `next..end`
/// (the first of equals) to `next` and returns it. Both pickers select
/// lazily, as a cutoff usually comes before the list is used up.
#[inline]
fn select_best(moves: &mut [Move], scores: &mut [i32], next: usize, end: usize) -> Move {
    // The best score so far is kept in hand and the slice is cut to the
    // range once, so the scan neither reloads nor bounds-checks.
    let mut best = next;
    let mut best_score = scores[next];
    for (i, &score) in scores[next + 1..end].iter().enumerate() {
        if score > best_score {
            best_score = score;
            best = next + 1 + i;
        }
    }
    moves.swap(next, best);
    scores.swap(next, best);
    moves[next]
}

/// The refutations (killers, counter-move) a quiet move list leaves out,
/// since they were tried before: a test per quiet move, so the squares they
/// go to answer most of them before the moves are compared.
#[derive(Clone, Copy)]
struct Refutations {
    moves: [Option<Move>; 3],
    targets: Bitboard,
}

impl Refutations {
    fn of(moves: [Option<Move>; 3]) -> Refutations {
        let targets = moves.iter().flatten().map(|m| m.to()).collect();
        Refutations { moves, targets }
    }

    #[inline]
    fn holds(&self, m: Move) -> bool {
        self.targets.contains(m.to()) && holds_move(&self.moves, m)
    }
}

#[cfg(test)]
mod tests;
