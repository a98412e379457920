//! What a cutoff teaches: killers, counter-moves and the history tables.

use shakmaty::{Color, Move};

use super::Searcher;
use crate::history::{history_bonus, piece_to};
use crate::movepick::is_quiet;

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

impl Searcher {
    /// `m` caused a cutoff after the moves `tried`. A quiet move becomes a
    /// killer and the counter-move to the previous move, and gains history
    /// (butterfly and continuation) while the quiet moves tried before it
    /// lose some; a capture gains capture history. The captures tried
    /// before it lose some either way.
    pub(super) fn reward_cutoff(
        &mut self,
        m: Move,
        side: Color,
        depth: i32,
        ply: usize,
        previous: [Option<usize>; 2],
        tried: &Tried,
    ) {
        let bonus = history_bonus(depth);
        if is_quiet(m) {
            self.reward_quiet(m, side, bonus, ply, previous, tried.quiets());
        } else {
            self.tables.captures.update(side, m, bonus);
        }
        for c in tried.captures().iter().flatten() {
            self.tables.captures.update(side, *c, -bonus);
        }
    }

    fn reward_quiet(
        &mut self,
        m: Move,
        side: Color,
        bonus: i32,
        ply: usize,
        previous: [Option<usize>; 2],
        tried: &[Option<Move>],
    ) {
        if self.stack[ply].killers[0] != Some(m) {
            self.stack[ply].killers[1] = self.stack[ply].killers[0];
            self.stack[ply].killers[0] = Some(m);
        }
        if let Some(prev) = previous[0] {
            self.tables.counter_moves.set(prev, m);
        }
        let white = side.is_white();
        self.tables.butterfly.update(white, m, bonus);
        for prev in previous.iter().flatten() {
            self.tables
                .continuation
                .update(*prev, piece_to(side, m), bonus);
        }
        for q in tried.iter().flatten() {
            self.tables.butterfly.update(white, *q, -bonus);
            for prev in previous.iter().flatten() {
                self.tables
                    .continuation
                    .update(*prev, piece_to(side, *q), -bonus);
            }
        }
    }
}
