//! What a cutoff teaches: killers, counter-moves and the history tables.

use shakmaty::{Bitboard, Color, Move};

use super::Searcher;
use crate::history::{history_bonus, piece_to};
use crate::movepick::is_quiet;
use crate::parameters as params;
use crate::stack::CONTINUATION_PLIES;

/// The moves a node tried without a cutoff (as many as fit), which lose
/// history when a later move cuts.
pub(super) struct Tried {
    quiets: [Option<Move>; 64],
    pub(super) quiet_count: usize,
    captures: [Option<Move>; 32],
    capture_count: usize,
}

impl Tried {
    pub(super) fn new() -> Tried {
        Tried {
            quiets: [None; 64],
            quiet_count: 0,
            captures: [None; 32],
            capture_count: 0,
        }
    }

    /// Records `m`, quiet (as the search counts it) or not.
    pub(super) fn push(&mut self, m: Move, quiet: bool) {
        if quiet && self.quiet_count < self.quiets.len() {
            self.quiets[self.quiet_count] = Some(m);
            self.quiet_count += 1;
        } else if !quiet && self.capture_count < self.captures.len() {
            self.captures[self.capture_count] = Some(m);
            self.capture_count += 1;
        }
    }

    fn quiets(&self) -> &[Option<Move>] {
        &self.quiets[..self.quiet_count]
    }

    fn captures(&self) -> &[Option<Move>] {
        &self.captures[..self.capture_count]
    }
}

/// What a node's quiet histories are keyed by besides the move: the side
/// to move, the squares the opponent attacks (butterfly history; empty when
/// the cutoff is a capture, which teaches no quiet history), and the
/// (piece, to) of the moves `CONTINUATION_PLIES` before (continuation
/// history).
pub(super) struct QuietKey {
    pub(super) side: Color,
    pub(super) threats: Bitboard,
    pub(super) continued: [Option<usize>; 3],
}

/// The share of a cutoff's bonus that the continuation row `k` of
/// `CONTINUATION_PLIES` learns: all of it one and two plies back, less
/// four plies back, as a move that far back says less about this one.
#[inline]
fn continuation_bonus(k: usize, bonus: i32) -> i32 {
    if CONTINUATION_PLIES[k] == 4 {
        bonus * params::cont_hist_4_bonus_pct() / 100
    } else {
        bonus
    }
}

impl Searcher {
    /// `m` caused a cutoff after the moves `tried`. A quiet move becomes a
    /// killer and the counter-move to the previous move, and gains history
    /// (butterfly and continuation) while the quiet moves tried before it
    /// lose some; a capture gains capture history. The captures tried
    /// before it lose some either way.
    pub(super) fn reward_cutoff(
        &mut self,
        m: Move,
        depth: i32,
        ply: usize,
        key: &QuietKey,
        tried: &Tried,
    ) {
        let bonus = history_bonus(depth);
        if is_quiet(m) {
            self.reward_quiet(m, bonus, ply, key, tried.quiets());
        } else {
            self.tables.captures.update(key.side, m, bonus);
        }
        for c in tried.captures().iter().flatten() {
            self.tables.captures.update(key.side, *c, -bonus);
        }
    }

    fn reward_quiet(
        &mut self,
        m: Move,
        bonus: i32,
        ply: usize,
        key: &QuietKey,
        tried: &[Option<Move>],
    ) {
        if self.stack[ply].killers[0] != Some(m) {
            self.stack[ply].killers[1] = self.stack[ply].killers[0];
            self.stack[ply].killers[0] = Some(m);
        }
        if let Some(prev) = key.continued[0] {
            self.tables.counter_moves.set(prev, m);
        }
        self.update_quiet(m, bonus, key);
        for q in tried.iter().flatten() {
            self.update_quiet(*q, -bonus, key);
        }
    }

    /// Moves the quiet histories of `m` by `bonus`.
    #[inline]
    fn update_quiet(&mut self, m: Move, bonus: i32, key: &QuietKey) {
        let (side, white) = (key.side, key.side.is_white());
        self.tables.butterfly.update(white, key.threats, m, bonus);
        for (k, prev) in key.continued.iter().enumerate() {
            if let Some(prev) = prev {
                self.tables.continuation.update(
                    *prev,
                    piece_to(side, m),
                    continuation_bonus(k, bonus),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    /// The move that cut gains, the quiet move tried before it loses, in
    /// the butterfly entry of the node's threats and in each continuation
    /// row, four plies back by its share of the bonus.
    #[test]
    fn a_quiet_cutoff_teaches_each_history_under_the_node_key() {
        let knight = |from, to| Move::Normal {
            role: Role::Knight,
            from,
            capture: None,
            to,
            promotion: None,
        };
        let (m, q) = (
            knight(Square::G1, Square::F3),
            knight(Square::B1, Square::C3),
        );
        let key = QuietKey {
            side: Color::White,
            threats: Bitboard::from(Square::F3),
            continued: [Some(10), Some(20), Some(30)],
        };
        let mut tried = Tried::new();
        tried.push(q, true);
        let mut searcher = Searcher::new(0);
        searcher.reward_cutoff(m, 4, 3, &key, &tried);

        let bonus = history_bonus(4);
        let butterfly = &searcher.tables.butterfly;
        assert_eq!(butterfly.get(true, key.threats, m), bonus);
        assert_eq!(butterfly.get(true, Bitboard::EMPTY, m), 0);
        assert_eq!(butterfly.get(true, key.threats, q), -bonus);
        let four = bonus * params::cont_hist_4_bonus_pct() / 100;
        assert_ne!(four, bonus, "the test needs a share other than all");
        let (to_m, to_q) = (piece_to(Color::White, m), piece_to(Color::White, q));
        for (prev, learned) in [(10, bonus), (20, bonus), (30, four)] {
            let row = searcher.tables.continuation.row(prev);
            let got = (i32::from(row[to_m]), i32::from(row[to_q]));
            assert_eq!(got, (learned, -learned), "row {prev}");
        }
        assert_eq!(searcher.stack[3].killers[0], Some(m));
        assert_eq!(searcher.tables.counter_moves.get(10), Some(m));
    }
}
