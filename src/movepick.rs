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
//! 4. the quiet moves, generated and scored (butterfly plus continuation
//!    history, one and two plies back) only now; the moves of stages 1 and
//!    3 are left out;
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
//! on the bitboards ([`gives_check`]) and returns only the checks, in their
//! order, since late-move pruning spares them. (Dropping the checks too
//! lost Elo; see `search`, step 13a.) No noisy move is dropped.
//!
//! Move lists live in the picker, on the search's stack (shakmaty's
//! `MoveList` is an array), so a node allocates nothing.
//!
//! The quiescence search (captures and queen promotions, or every evasion
//! in check) and ProbCut keep the simpler [`ScoredMoves`]: they generate
//! their short list themselves, and it is scored by MVV-LVA in one pass
//! and selected lazily.

use shakmaty::attacks::{
    bishop_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role, Square};

use crate::history::{piece_to, ButterflyHistory, CaptureHistory, PIECE_TO};
use crate::movegen::noisy_moves;
use crate::parameters as params;
use crate::see::{see_ge, see_value};
use crate::tt::PackedMove;

/// Room for the legal moves of any chess position (at most 218).
const MAX_MOVES: usize = 256;

/// The learned tables that order the moves of a node. The picker is given
/// them at each call, as the search updates them between its moves.
pub struct OrderingContext<'a> {
    pub butterfly: &'a ButterflyHistory,
    pub captures: &'a CaptureHistory,
    /// Continuation-history rows of the moves one and two plies back.
    pub continuations: [Option<&'a [i32; PIECE_TO]>; 2],
}

impl OrderingContext<'_> {
    /// Butterfly plus continuation history of a quiet move.
    #[inline]
    pub fn quiet_score(&self, side: Color, m: Move) -> i32 {
        let to = piece_to(side, m);
        let mut score = self.butterfly.get(side.is_white(), m);
        for row in self.continuations.iter().flatten() {
            score += row[to];
        }
        score
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

/// Whether the search treats `m` as quiet, for its prunings and
/// reductions, the quiet-move histories and the correction history, and
/// the picker for its quiet stage: neither a capture nor any promotion.
#[inline]
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && m.promotion().is_none()
}

/// A promotion to anything but a queen.
#[inline]
fn is_underpromotion(m: Move) -> bool {
    m.promotion().is_some_and(|r| r != Role::Queen)
}

/// Whether `m`, legal in `pos`, gives check: by the piece moved (or the
/// promoted one) from its new square, or by a slider of ours it uncovers.
/// Cheaper than playing the move; castling and en passant, which move two
/// pieces, are played.
pub fn gives_check(pos: &Chess, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = m
    else {
        let mut after = pos.clone();
        after.play_unchecked(m);
        return after.is_check();
    };
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let occupied = board.occupied().without(from).with(to);
    let direct = match promotion.unwrap_or(role) {
        Role::Pawn => pawn_attacks(us, to),
        Role::Knight => knight_attacks(to),
        Role::Bishop => bishop_attacks(to, occupied),
        Role::Rook => rook_attacks(to, occupied),
        Role::Queen => queen_attacks(to, occupied),
        Role::King => Bitboard::EMPTY,
    };
    if direct.contains(king) {
        return true;
    }
    // The moved piece is accounted for; what it leaves behind may see the
    // king now.
    let ours = board.by_color(us).without(from);
    let uncovered = (bishop_attacks(king, occupied) & board.bishops_and_queens())
        | (rook_attacks(king, occupied) & board.rooks_and_queens());
    (uncovered & ours).any()
}

/// The move the table packed as `packed`, if it is legal in `pos`. A
/// table entry may belong to another position with the same index (or,
/// rarely, the same key), so its move is never trusted unchecked.
pub fn legal_tt_move(pos: &Chess, packed: PackedMove) -> Option<Move> {
    if packed == PackedMove::NONE {
        return None;
    }
    let from = Square::new(u32::from(packed.0 & 63));
    let to = Square::new(u32::from((packed.0 >> 6) & 63));
    let promotion = match packed.0 >> 12 {
        0 => None,
        r => Some(Role::try_from(r).ok()?),
    };
    let board = pos.board();
    let us = pos.turn();
    let piece = board.piece_at(from).filter(|p| p.color == us)?;
    let target = board.piece_at(to);
    let m = match (piece.role, target) {
        // shakmaty's castling: the king takes its own rook.
        (Role::King, Some(t)) if t.color == us && t.role == Role::Rook && promotion.is_none() => {
            Move::Castle {
                king: from,
                rook: to,
            }
        }
        (_, Some(t)) if t.color == us => return None,
        // A pawn moving diagonally to an empty square takes en passant.
        (Role::Pawn, None) if from.file() != to.file() && promotion.is_none() => {
            Move::EnPassant { from, to }
        }
        (role, target) => Move::Normal {
            role,
            from,
            capture: target.map(|t| t.role),
            to,
            promotion,
        },
    };
    pos.is_legal(m).then_some(m)
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
    scores: [i32; MAX_MOVES],
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
}

impl<'a> MovePicker<'a> {
    /// A picker for `pos`, with the table's move `tt_move` (legal: the
    /// caller decoded it with [`legal_tt_move`]), the node's killer moves
    /// and the counter-move to the previous move (checked when their stage
    /// comes).
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
            if Some(m) != tt_move && !refutations[..n].contains(&Some(m)) {
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
            scores: [0; MAX_MOVES],
            next: 0,
            bad_end: 0,
            noisy_end: 0,
            quiet_start: 0,
            quiets_generated: false,
            skip_quiets: false,
        }
    }

    /// Drops the quiet moves not yet returned that do not give check,
    /// killers and counter-move included; the noisy moves and the quiet
    /// checks still come, in their order.
    #[inline]
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The next move, or `None` when every legal move has come (or was
    /// skipped). `ctx` holds the tables of the node as they are now.
    pub fn next_move(&mut self, ctx: &OrderingContext<'_>) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TableMove => {
                    self.stage = Stage::GenerateNoisy;
                    if self.tt_move.is_some() {
                        return self.tt_move;
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
                        if let Some(m) = r.filter(|&m| is_quiet(m) && self.pos.is_legal(m)) {
                            if !self.skip_quiets || gives_check(self.pos, m) {
                                return Some(m);
                            }
                        }
                    }
                    self.stage = Stage::GenerateQuiets;
                }
                Stage::GenerateQuiets => {
                    self.generate_quiets(ctx);
                    self.stage = Stage::Quiets;
                    self.next = self.quiet_start;
                }
                Stage::Quiets => {
                    while self.next < self.moves.len() {
                        let m = self.select(self.moves.len());
                        // Once skipping, only the checks are left to try.
                        if !self.skip_quiets || gives_check(self.pos, m) {
                            return Some(m);
                        }
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
        let mut best = self.next;
        for i in self.next + 1..end {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        self.moves[self.next - 1]
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
        for i in 0..self.noisy_end {
            self.scores[i] = ctx.noisy_score(side, self.moves[i]);
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
            let all = self.pos.legal_moves();
            let refutations = Refutations::of(self.refutations);
            self.append_from(&all, |m| is_quiet(m) && !refutations.holds(m));
        }
        let side = self.pos.turn();
        for i in self.quiet_start..self.moves.len() {
            self.scores[i] = ctx.quiet_score(side, self.moves[i]);
        }
    }
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
        self.targets.contains(m.to()) && self.moves.contains(&Some(m))
    }
}

/// ScoredMoves: the table move above every capture, which is above every
/// other move.
const TT_MOVE: i32 = 10_000_000;
const NOISY: i32 = 1_000_000;

/// Ordering value of a victim or an attacker, by role.
#[inline]
fn role_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight => 3,
        Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 20,
    }
}

/// MVV-LVA score of a capture or queen promotion, for the quiescence
/// search and ProbCut; `None` for a quiet move or a push underpromotion.
#[inline]
pub fn noisy_score(m: Move) -> Option<i32> {
    // shakmaty reports a pawn as the capture of an en-passant move.
    let victim = m.capture();
    let promo = m.promotion();
    if victim.is_none() && promo != Some(Role::Queen) {
        return None;
    }
    let mut score = victim.map_or(0, role_value) * 100 - role_value(m.role());
    if promo == Some(Role::Queen) {
        score += params::queen_promotion_order_bonus();
    }
    Some(score)
}

/// The moves of a quiescence or ProbCut node, borrowed from the caller's
/// stack, with their MVV-LVA scores: the whole list is scored at once and
/// the next best move selected lazily. Borrowing (rather than owning) the
/// move list keeps it from being copied at every node.
pub struct ScoredMoves<'a> {
    moves: &'a mut MoveList,
    scores: [i32; MAX_MOVES],
    next: usize,
}

impl<'a> ScoredMoves<'a> {
    /// Captures and queen promotions only, by MVV-LVA (quiescence search,
    /// ProbCut).
    pub fn noisy(moves: &'a mut MoveList, tt_move: PackedMove) -> ScoredMoves<'a> {
        let mut scores = [0i32; MAX_MOVES];
        let mut kept = 0;
        for i in 0..moves.len() {
            let m = moves[i];
            if let Some(s) = noisy_score(m) {
                moves[kept] = m;
                scores[kept] = if tt_move.matches(m) { TT_MOVE } else { s };
                kept += 1;
            }
        }
        moves.truncate(kept);
        ScoredMoves {
            moves,
            scores,
            next: 0,
        }
    }

    /// Every move, the TT move first and captures by MVV-LVA (check
    /// evasions in the quiescence search).
    pub fn evasions(moves: &'a mut MoveList, tt_move: PackedMove) -> ScoredMoves<'a> {
        let mut scores = [0i32; MAX_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if tt_move.matches(m) {
                TT_MOVE
            } else {
                noisy_score(m).map_or(0, |s| NOISY + s)
            };
        }
        ScoredMoves {
            moves,
            scores,
            next: 0,
        }
    }

    /// The best-scored move not yet returned.
    #[inline]
    pub fn next_move(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        let m = self.moves[best];
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::ContinuationHistory;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;
    use std::collections::HashSet;

    /// A small deterministic generator (xorshift64).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// The positions of the perft suites (every fourth of the Chess960
    /// one) and every position one move after each: checks, en passant,
    /// promotions of every kind, castling of both kinds.
    #[allow(clippy::result_large_err)]
    fn positions() -> Vec<Chess> {
        let suites = [
            (include_str!("../engine-tests/data/perft.epd"), 1, false),
            (
                include_str!("../engine-tests/data/perft-extra.epd"),
                1,
                false,
            ),
            (include_str!("../engine-tests/data/perft960.epd"), 4, true),
        ];
        let mut roots = Vec::new();
        for (text, every, chess960) in suites {
            let mode = if chess960 {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()).step_by(every) {
                let fen: Fen = line.split(';').next().unwrap().trim().parse().unwrap();
                let pos: Chess = fen
                    .into_position(mode)
                    .or_else(|e| e.ignore_impossible_check())
                    .unwrap();
                roots.push(pos);
            }
        }
        let mut all = Vec::new();
        for pos in roots {
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                all.push(child);
            }
            all.push(pos);
        }
        all
    }

    /// History tables with random values for the moves of `positions`.
    struct Tables {
        butterfly: ButterflyHistory,
        continuation: ContinuationHistory,
        captures: CaptureHistory,
    }

    impl Tables {
        fn random(positions: &[Chess], rng: &mut Rng) -> Tables {
            let mut t = Tables {
                butterfly: ButterflyHistory::new(),
                continuation: ContinuationHistory::new(),
                captures: CaptureHistory::new(),
            };
            for pos in positions.iter().step_by(7) {
                let side = pos.turn();
                for m in pos.legal_moves() {
                    let bonus = rng.below(8192) as i32 - 4096;
                    t.butterfly.update(side.is_white(), m, bonus);
                    t.captures.update(side, m, bonus);
                    let prev = rng.below(PIECE_TO);
                    t.continuation.update(prev, piece_to(side, m), bonus);
                }
            }
            t
        }

        fn context(&self, previous: [usize; 2]) -> OrderingContext<'_> {
            OrderingContext {
                butterfly: &self.butterfly,
                captures: &self.captures,
                continuations: previous.map(|p| Some(self.continuation.row(p))),
            }
        }
    }

    /// Where a move comes in the picker's order after the table move.
    fn class(pos: &Chess, m: Move, refutations: &[Option<Move>]) -> u8 {
        if is_quiet(m) {
            if refutations.contains(&Some(m)) {
                1
            } else {
                2
            }
        } else if !is_underpromotion(m) && see_ge(pos, m, 0) {
            0
        } else {
            3
        }
    }

    /// Whether `m` gives check, by playing it.
    fn checks(pos: &Chess, m: Move) -> bool {
        let mut after = pos.clone();
        after.play_unchecked(m);
        after.is_check()
    }

    /// Every move the picker returns, calling `skip_quiets` after the
    /// first `skip_after` (if any); checks that no quiet move but a check
    /// comes after that.
    fn drain(
        picker: &mut MovePicker,
        ctx: &OrderingContext,
        skip_after: Option<usize>,
    ) -> Vec<Move> {
        let mut got = Vec::new();
        loop {
            if Some(got.len()) == skip_after {
                picker.skip_quiets();
            }
            let Some(m) = picker.next_move(ctx) else {
                return got;
            };
            assert!(
                skip_after.is_none_or(|k| got.len() < k) || !is_quiet(m) || checks(picker.pos, m),
                "quiet {m:?} after skip_quiets"
            );
            got.push(m);
        }
    }

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
    }

    #[test]
    fn every_legal_move_comes_once_in_stage_order() {
        let positions = positions();
        assert!(positions.len() > 9_000, "{}", positions.len());
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let tables = Tables::random(&positions, &mut rng);
        let (mut tt_first, mut refuted, mut garbage) = (0, 0, 0);
        for (i, pos) in positions.iter().enumerate() {
            let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
            // Killers and counter-moves from another position (often
            // illegal or captures here), and a quiet move of this one.
            let other = positions[(i * 7919) % positions.len()].legal_moves();
            let pick = |list: &[Move], rng: &mut Rng| {
                (!list.is_empty()).then(|| list[rng.below(list.len())])
            };
            let quiets: Vec<Move> = legal.iter().copied().filter(|&m| is_quiet(m)).collect();
            let killers = [pick(&other, &mut rng), pick(&quiets, &mut rng)];
            let counter = pick(if rng.below(2) == 0 { &other } else { &quiets }, &mut rng);
            let legal_tt = pick(&legal, &mut rng);
            for tt in [
                PackedMove::NONE,
                legal_tt.map_or(PackedMove::NONE, PackedMove::new),
                PackedMove(rng.next() as u16),
                other
                    .first()
                    .map_or(PackedMove::NONE, |&m| PackedMove::new(m)),
            ] {
                let ctx = tables.context([rng.below(PIECE_TO), rng.below(PIECE_TO)]);
                let mut picker = MovePicker::new(pos, legal_tt_move(pos, tt), killers, counter);
                let refutations = picker.refutations;
                let got = drain(&mut picker, &ctx, None);
                let seen: HashSet<Move> = got.iter().copied().collect();
                assert_eq!(seen.len(), got.len(), "a move twice: {}", fen(pos));
                assert_eq!(
                    seen,
                    legal.iter().copied().collect::<HashSet<_>>(),
                    "{} tt {tt:?}",
                    fen(pos)
                );
                let expected_tt = legal.iter().copied().find(|&m| tt.matches(m));
                assert_eq!(legal_tt_move(pos, tt), expected_tt, "{}", fen(pos));
                let rest = match expected_tt {
                    Some(t) => {
                        assert_eq!(got[0], t, "table move first: {}", fen(pos));
                        tt_first += 1;
                        &got[1..]
                    }
                    None => {
                        garbage += usize::from(tt != PackedMove::NONE);
                        &got[..]
                    }
                };
                let classes: Vec<u8> = rest.iter().map(|&m| class(pos, m, &refutations)).collect();
                assert!(
                    classes.windows(2).all(|w| w[0] <= w[1]),
                    "stages out of order in {}: {rest:?} {classes:?}",
                    fen(pos)
                );
                refuted += classes.iter().filter(|&&c| c == 1).count();
            }
        }
        assert!(tt_first > 9_000 && refuted > 30_000 && garbage > 10_000);
    }

    #[test]
    fn skip_quiets_drops_the_quiet_moves_left_but_the_checks() {
        let positions = positions();
        let mut rng = Rng(23);
        let tables = Tables::random(&positions, &mut rng);
        let (mut skipped_some, mut checks_kept) = (0, 0);
        for pos in &positions {
            let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
            let quiets: Vec<Move> = legal.iter().copied().filter(|&m| is_quiet(m)).collect();
            // A killer, and a counter-move that gives check if one does.
            let killer = quiets.first().copied();
            let counter = quiets.iter().copied().find(|&m| checks(pos, m));
            let tt = PackedMove(rng.next() as u16 & 0x0fff);
            let ctx = tables.context([0, 1]);
            let mut picker = MovePicker::new(pos, legal_tt_move(pos, tt), [killer, None], counter);
            let skip_after = rng.below(legal.len() + 1);
            let got = drain(&mut picker, &ctx, Some(skip_after));
            // What came before the skip, the noisy moves and the quiet
            // checks: each once.
            let mut expected: HashSet<Move> =
                got[..skip_after.min(got.len())].iter().copied().collect();
            expected.extend(
                legal
                    .iter()
                    .copied()
                    .filter(|&m| !is_quiet(m) || checks(pos, m)),
            );
            let seen: HashSet<Move> = got.iter().copied().collect();
            assert_eq!(seen.len(), got.len(), "a move twice: {}", fen(pos));
            assert_eq!(seen, expected, "{}", fen(pos));
            skipped_some += usize::from(got.len() < legal.len());
            checks_kept += got[skip_after.min(got.len())..]
                .iter()
                .filter(|&&m| is_quiet(m))
                .count();
        }
        assert!(skipped_some > 5_000, "{skipped_some}");
        assert!(checks_kept > 1_000, "{checks_kept}");
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let mut count = 0;
        for pos in positions() {
            for m in pos.legal_moves() {
                assert_eq!(gives_check(&pos, m), checks(&pos, m), "{} {m:?}", fen(&pos));
                count += usize::from(checks(&pos, m));
            }
        }
        assert!(count > 5_000, "{count}");
    }

    #[test]
    fn table_moves_round_trip_and_garbage_is_refused() {
        let mut rng = Rng(7);
        for pos in positions().iter().step_by(3) {
            let legal = pos.legal_moves();
            for &m in &legal {
                assert_eq!(
                    legal_tt_move(pos, PackedMove::new(m)),
                    Some(m),
                    "{}",
                    fen(pos)
                );
            }
            for _ in 0..64 {
                let packed = PackedMove(rng.next() as u16);
                if let Some(m) = legal_tt_move(pos, packed) {
                    assert!(legal.contains(&m) && PackedMove::new(m) == packed);
                }
            }
        }
    }
}
