//! Move ordering: the transposition-table move first, then captures by
//! MVV-LVA (most valuable victim, least valuable attacker), queen promotions,
//! killer moves, and quiet moves by their history score.
//!
//! Scores are kept in a fixed array beside shakmaty's stack-allocated move
//! list, and the next best move is selected lazily: a cutoff on the first
//! moves saves sorting the rest.

use shakmaty::{Move, MoveList, Role};

use crate::tt::PackedMove;

const TT_MOVE: i32 = 10_000_000;
const GOOD_NOISY: i32 = 1_000_000;
const KILLER_1: i32 = 900_000;
const KILLER_2: i32 = 800_000;

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

/// MVV-LVA score of a capture or promotion; `None` for a quiet move.
#[inline]
pub fn noisy_score(m: Move) -> Option<i32> {
    let victim = if m.is_en_passant() {
        Some(Role::Pawn)
    } else {
        m.capture()
    };
    let promo = m.promotion();
    if victim.is_none() && promo != Some(Role::Queen) {
        return None;
    }
    let mut score = victim.map_or(0, role_value) * 100 - role_value(m.role());
    if promo == Some(Role::Queen) {
        score += 800;
    }
    Some(score)
}

/// Quiet-move history, indexed by side to move, from and to square.
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

const HISTORY_MAX: i32 = 16_384;

impl Default for History {
    fn default() -> Self {
        Self::new()
    }
}

impl History {
    pub fn new() -> History {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }

    #[inline]
    fn slot(m: Move) -> (usize, usize) {
        (m.from().map_or(0, |s| s as usize), m.to() as usize)
    }

    #[inline]
    pub fn get(&self, white: bool, m: Move) -> i32 {
        let (f, t) = Self::slot(m);
        self.table[white as usize][f][t]
    }

    /// Rewards a move that caused a cutoff (or punishes one searched before it),
    /// with a gravity term that keeps values bounded.
    #[inline]
    pub fn update(&mut self, white: bool, m: Move, bonus: i32) {
        let (f, t) = Self::slot(m);
        let entry = &mut self.table[white as usize][f][t];
        let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
    }

    /// Shrinks old values so a new search is guided more by what it sees now.
    pub fn age(&mut self) {
        for side in self.table.iter_mut() {
            for row in side.iter_mut() {
                for v in row.iter_mut() {
                    *v /= 2;
                }
            }
        }
    }
}

/// The moves of one node, borrowed from the caller's stack, with their
/// ordering scores. Borrowing (rather than owning) the 2 KB move list keeps
/// it from being copied at every node.
pub struct ScoredMoves<'a> {
    moves: &'a mut MoveList,
    scores: [i32; 256],
    next: usize,
}

impl<'a> ScoredMoves<'a> {
    pub fn new(
        moves: &'a mut MoveList,
        tt_move: PackedMove,
        killers: &[Option<Move>; 2],
        history: &History,
        white: bool,
    ) -> ScoredMoves<'a> {
        let mut scores = [0i32; 256];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if tt_move.matches(m) {
                TT_MOVE
            } else if let Some(s) = noisy_score(m) {
                GOOD_NOISY + s
            } else if killers[0] == Some(m) {
                KILLER_1
            } else if killers[1] == Some(m) {
                KILLER_2
            } else {
                history.get(white, m)
            };
        }
        ScoredMoves {
            moves,
            scores,
            next: 0,
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
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let m = self.moves[self.next];
        self.next += 1;
        Some(m)
    }
}
