//! The quiescence search: below the horizon, captures (or, in check, every
//! evasion) until the position is quiet.

use shakmaty::{MoveList, Position};

use super::{cacheable_eval, SearchContext, Searcher, INFINITY, MAX_PLY};
use crate::board::Board;
use crate::history::piece_to;
use crate::movegen::noisy_moves;
use crate::movepick::{ScoredMoves, Scores};
use crate::score::mated_in;
use crate::see::see_ge;
use crate::tt::{Bound, PackedMove, TtData};

impl Searcher {
    /// The quiescence search of `board` at `ply` in the window
    /// `alpha..beta`: stand pat, then the captures that do not lose
    /// material (every evasion in check).
    pub(super) fn qsearch(
        &mut self,
        board: &Board,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        ctx: &SearchContext,
    ) -> i32 {
        self.stack[ply].pv_len = 0;
        self.visit(ctx);
        if self.counts.stopped {
            return 0;
        }
        self.counts.seldepth = self.counts.seldepth.max(ply);
        if board.is_rule_draw() {
            return 0;
        }
        let in_check = board.pos.is_check();
        if ply >= MAX_PLY - 1 {
            return if in_check {
                0
            } else {
                self.evaluate(board, ply)
            };
        }

        // As in the main search: the accumulators are brought up to date
        // while the prefetched table entry is on its way.
        self.accumulators.prepare(ply);
        let tt_hit = ctx.tt.probe(board.key, ply);
        if let Some(hit) = tt_hit {
            if beta - alpha == 1 && hit.bound.settles(hit.score, alpha, beta) {
                return hit.score;
            }
        }
        let tt_move = tt_hit.map_or(PackedMove::NONE, |h| h.mv);

        // Evasions need every legal move; otherwise captures suffice. They
        // are generated only now, as a table cutoff or (out of check) a
        // stand-pat cutoff makes them unnecessary.
        let mut moves = MoveList::new();
        let mut scores = Scores::new();
        let mut raw_eval = -INFINITY;
        let mut best_score;
        let mut picker = if in_check {
            moves = board.pos.legal_moves();
            if moves.is_empty() {
                return mated_in(ply);
            }
            best_score = -INFINITY;
            ScoredMoves::evasions(&mut moves, &mut scores, tt_move)
        } else {
            // Stand pat: the side to move can usually do at least as well as
            // the static evaluation by declining every capture.
            let stand_pat;
            let keys = self.correction_keys(board, ply);
            (raw_eval, stand_pat) = self.static_eval(board, ply, &keys, tt_hit);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
            noisy_moves(&board.pos, &mut moves);
            ScoredMoves::noisy(&mut moves, &mut scores, tt_move)
        };

        let original_alpha = alpha;
        let mut best_move = None;
        let side = board.pos.turn();
        while let Some(m) = picker.next_move() {
            let key_after = Self::prefetch_child(ctx, board, m);
            // SEE pruning: a capture that loses material in the exchange
            // cannot raise a stand-pat score.
            if !in_check && !see_ge(&board.pos, m, 0) {
                continue;
            }
            let child = self.make_move(ctx, board, ply, m, key_after);
            // The child's continuation correction is keyed by this move.
            self.stack[ply].played = Some(piece_to(side, m));
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, ctx);
            if self.counts.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::of_result(best_score, alpha > original_alpha, beta);
        let data = TtData {
            mv: best_move.map_or(PackedMove::NONE, PackedMove::new),
            score: best_score,
            depth: 0,
            bound,
            eval: cacheable_eval(board, raw_eval),
            // The quiescence search does not tell PV nodes apart: it keeps
            // what the entry said.
            pv: tt_hit.is_some_and(|h| h.pv),
        };
        ctx.tt.store(board.key, ply, data);
        best_score
    }
}
