//! Move ordering by score bands: the transposition-table move; captures and
//! queen promotions that do not lose material (static exchange evaluation),
//! by victim value and capture history; the two killer moves; the
//! counter-move; the quiet moves (underpromotions among them) by butterfly
//! plus continuation history (one and two plies back); and last the
//! captures that lose material.
//!
//! This is not a staged generator: every legal move is generated and
//! scored at once, the score putting it in its band, and the scores are
//! kept in a fixed array beside shakmaty's stack-allocated move list. The
//! next best move is selected lazily, so a cutoff on the first moves saves
//! sorting the rest. The exchange evaluation of a capture is likewise done
//! only when the capture comes up; a losing one is moved to the last band
//! instead of being returned.

use shakmaty::{Chess, Color, Move, MoveList, Position, Role};

use crate::history::{piece_to, ButterflyHistory, CaptureHistory, PIECE_TO};
use crate::parameters as params;
use crate::see::{see_ge, see_value};
use crate::tt::PackedMove;

const TT_MOVE: i32 = 10_000_000;
const GOOD_NOISY: i32 = 1_000_000;
const KILLER_1: i32 = 900_000;
const KILLER_2: i32 = 800_000;
const COUNTER: i32 = 700_000;
/// Captures that lose material go below every quiet move.
const BAD_NOISY: i32 = -1_000_000;
/// A noisy score is at most this far above its band's base.
const NOISY_SPAN: i32 = 100_000;

/// What orders the moves of one node besides the TT move.
pub struct OrderingContext<'a> {
    pub killers: &'a [Option<Move>; 2],
    pub counter: Option<Move>,
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
}

/// Whether the search treats `m` as quiet, for its prunings and
/// reductions, the quiet-move histories and the correction history: neither
/// a capture nor any promotion. The ordering draws the line elsewhere
/// ([`noisy_score`]).
#[inline]
pub fn is_quiet(m: Move) -> bool {
    !m.is_capture() && m.promotion().is_none()
}

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

/// MVV-LVA score of a capture or queen promotion; `None` for a move the
/// ordering puts among the quiet ones: a quiet move or an underpromotion
/// (rarely good). The search calls an underpromotion noisy (see
/// [`is_quiet`]).
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

/// The moves of one node, borrowed from the caller's stack, with their
/// ordering scores. Borrowing (rather than owning) the 2 KB move list keeps
/// it from being copied at every node.
pub struct ScoredMoves<'a> {
    moves: &'a mut MoveList,
    scores: [i32; 256],
    next: usize,
    /// The position, when losing captures are to be put last.
    pos: Option<&'a Chess>,
}

impl<'a> ScoredMoves<'a> {
    pub fn new(
        moves: &'a mut MoveList,
        tt_move: PackedMove,
        pos: &'a Chess,
        ctx: &OrderingContext<'_>,
    ) -> ScoredMoves<'a> {
        let side = pos.turn();
        let mut scores = [0i32; 256];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if tt_move.matches(m) {
                TT_MOVE
            } else if noisy_score(m).is_some() {
                // Victim value first, the capture's record second.
                let victim = m.capture();
                let promotion = if m.promotion() == Some(Role::Queen) {
                    see_value(Role::Queen)
                } else {
                    0
                };
                let value = victim.map_or(0, see_value) + promotion;
                GOOD_NOISY
                    + NOISY_SPAN / 2
                    + value * params::capture_victim_weight()
                    + ctx.captures.get(side, m) / params::capture_history_divisor()
            } else if ctx.killers[0] == Some(m) {
                KILLER_1
            } else if ctx.killers[1] == Some(m) {
                KILLER_2
            } else if ctx.counter == Some(m) {
                COUNTER
            } else {
                ctx.quiet_score(side, m)
            };
        }
        ScoredMoves {
            moves,
            scores,
            next: 0,
            pos: Some(pos),
        }
    }

    /// Captures and queen promotions only, by MVV-LVA (quiescence search).
    pub fn noisy(moves: &'a mut MoveList, tt_move: PackedMove) -> ScoredMoves<'a> {
        let mut scores = [0i32; 256];
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
            pos: None,
        }
    }

    /// Every move, the TT move first and captures by MVV-LVA (check evasions).
    pub fn evasions(moves: &'a mut MoveList, tt_move: PackedMove) -> ScoredMoves<'a> {
        let mut scores = [0i32; 256];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if tt_move.matches(m) {
                TT_MOVE
            } else {
                noisy_score(m).map_or(0, |s| GOOD_NOISY + s)
            };
        }
        ScoredMoves {
            moves,
            scores,
            next: 0,
            pos: None,
        }
    }

    /// The best-scored move not yet returned.
    #[inline]
    pub fn next_move(&mut self) -> Option<Move> {
        let n = self.moves.len();
        loop {
            if self.next >= n {
                return None;
            }
            let mut best = self.next;
            for i in self.next + 1..n {
                if self.scores[i] > self.scores[best] {
                    best = i;
                }
            }
            let (m, score) = (self.moves[best], self.scores[best]);
            // A capture that loses material waits for the last band.
            if let Some(pos) = self.pos {
                if (GOOD_NOISY..GOOD_NOISY + NOISY_SPAN).contains(&score) && !see_ge(pos, m, 0) {
                    self.scores[best] = score - GOOD_NOISY + BAD_NOISY;
                    continue;
                }
            }
            self.moves.swap(self.next, best);
            self.scores.swap(self.next, best);
            self.next += 1;
            return Some(m);
        }
    }
}
