//! The simple ordering of the quiescence search and ProbCut: a short list
//! the caller generated, scored by MVV-LVA in one pass and selected lazily.

use shakmaty::{Move, MoveList, Role};

use super::{select_best, Scores};
use crate::parameters as params;
use crate::tt::PackedMove;

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
pub fn mvv_lva(m: Move) -> Option<i32> {
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

/// The moves of a quiescence or ProbCut node with their MVV-LVA scores,
/// both lists borrowed from the caller's stack: the whole list is scored at
/// once and the next best move selected lazily. Borrowing (rather than
/// owning) the lists keeps them from being copied at every node (the score
/// list alone has room for 1 KB).
pub struct ScoredMoves<'a> {
    moves: &'a mut MoveList,
    scores: &'a mut Scores,
    next: usize,
}

impl<'a> ScoredMoves<'a> {
    /// Captures and queen promotions only, by MVV-LVA (quiescence search,
    /// ProbCut).
    pub fn noisy(
        moves: &'a mut MoveList,
        scores: &'a mut Scores,
        tt_move: PackedMove,
    ) -> ScoredMoves<'a> {
        ScoredMoves::keep_scored(moves, scores, |m| {
            mvv_lva(m).map(|s| if tt_move.matches(m) { TT_MOVE } else { s })
        })
    }

    /// Every move, the TT move first and captures by MVV-LVA (check
    /// evasions in the quiescence search).
    pub fn evasions(
        moves: &'a mut MoveList,
        scores: &'a mut Scores,
        tt_move: PackedMove,
    ) -> ScoredMoves<'a> {
        ScoredMoves::keep_scored(moves, scores, |m| {
            Some(if tt_move.matches(m) {
                TT_MOVE
            } else {
                mvv_lva(m).map_or(0, |s| NOISY + s)
            })
        })
    }

    /// Keeps the moves `score` gives a score, in their order, with their
    /// scores (`scores` is emptied first).
    #[inline]
    fn keep_scored(
        moves: &'a mut MoveList,
        scores: &'a mut Scores,
        score: impl Fn(Move) -> Option<i32>,
    ) -> ScoredMoves<'a> {
        scores.clear();
        let mut kept = 0;
        for i in 0..moves.len() {
            let m = moves[i];
            if let Some(s) = score(m) {
                moves[kept] = m;
                scores.push(s);
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

    /// The best-scored move not yet returned.
    #[inline]
    pub fn next_move(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let m = select_best(self.moves, self.scores, self.next, n);
        self.next += 1;
        Some(m)
    }
}
