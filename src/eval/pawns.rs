//! Pawn structure (cached in a pawn hash table) and the passed-pawn terms
//! that depend on the pieces (computed at every call).

use shakmaty::{Board, Color, Square};

use super::params::{idx, S};
use super::{
    adjacent_files, pawn_attacks_bb, rank_bb, relative_rank, Acc, Info, NoTrace, Tracer,
    FORWARD_FILE, PASSED_SPAN,
};

/// Entries in a pawn table (a power of two).
const PAWN_TABLE_SIZE: usize = 1 << 13;

/// One cached pawn structure: both sides' pawn bitboards are stored in full,
/// so a hit is exact. The all-zero entry is the correct pawnless entry.
#[derive(Clone, Copy, Default)]
struct PawnEntry {
    pawns: [u64; 2],
    score: [S; 2],
    passed: [u64; 2],
}

/// Pawn hash table, allocated once per search thread.
pub struct PawnTable {
    entries: Box<[PawnEntry]>,
}

impl Default for PawnTable {
    fn default() -> Self {
        Self::new()
    }
}

impl PawnTable {
    pub fn new() -> PawnTable {
        PawnTable {
            entries: vec![PawnEntry::default(); PAWN_TABLE_SIZE].into_boxed_slice(),
        }
    }

    #[inline]
    fn slot(pawns: [u64; 2]) -> usize {
        (hash(pawns) >> (64 - PAWN_TABLE_SIZE.trailing_zeros())) as usize
    }
}

/// A multiplicative hash of both sides' pawns (`[white, black]`); a table
/// of 2^k slots takes its top k bits. The pawn table and the correction
/// history share it.
#[inline]
pub fn hash(pawns: [u64; 2]) -> u64 {
    pawns[0].wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ pawns[1].wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(31)
}

/// Pawn-structure terms of both sides; returns the passed pawns by colour.
pub fn structure<T: Tracer>(
    acc: &mut Acc<T>,
    info: &Info,
    table: Option<&mut PawnTable>,
) -> [u64; 2] {
    match table {
        Some(table) if !T::ACTIVE => {
            let slot = PawnTable::slot(info.pawns);
            let entry = &mut table.entries[slot];
            if entry.pawns != info.pawns {
                let mut tracer = NoTrace;
                let mut local = Acc {
                    score: [S::default(); 2],
                    tracer: &mut tracer,
                };
                let passed = [
                    side_structure(&mut local, info, Color::Black),
                    side_structure(&mut local, info, Color::White),
                ];
                *entry = PawnEntry {
                    pawns: info.pawns,
                    score: local.score,
                    passed,
                };
            }
            acc.score[0] += entry.score[0];
            acc.score[1] += entry.score[1];
            entry.passed
        }
        _ => [
            side_structure(acc, info, Color::Black),
            side_structure(acc, info, Color::White),
        ],
    }
}

/// Doubled, isolated, backward, supported, phalanx and passed pawns of one
/// side; returns its passed pawns.
fn side_structure<T: Tracer>(acc: &mut Acc<T>, info: &Info, color: Color) -> u64 {
    let c = color as usize;
    let them = !color;
    let own = info.pawns[c];
    let enemy = info.pawns[them as usize];
    let enemy_attacks = pawn_attacks_bb(them, enemy);
    let mut passed = 0;
    let mut bb = own;
    while bb != 0 {
        let s = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        let sq = Square::new(s as u32);
        let file = s % 8;
        let rank = s / 8;
        let rr = relative_rank(color, sq);
        let adjacent = adjacent_files(file);
        let ahead = FORWARD_FILE[c][s];

        let doubled = own & ahead != 0;
        if doubled {
            acc.add(color, idx::DOUBLED, 1);
        }
        // Own pawns defending this one sit where an enemy pawn here would attack.
        let supported = own & pawn_attacks_bb(them, 1u64 << s) != 0;
        if supported {
            acc.add(color, idx::SUPPORTED + rr, 1);
        }
        if own & adjacent & rank_bb(rank) != 0 {
            acc.add(color, idx::PHALANX + rr, 1);
        }
        if own & adjacent == 0 {
            acc.add(color, idx::ISOLATED, 1);
        } else {
            // Backward: every neighbour is ahead, and the stop square is
            // controlled by an enemy pawn.
            let level_or_behind = adjacent & !PASSED_SPAN[c][s];
            let stop = match color {
                Color::White if s < 56 => 1u64 << (s + 8),
                Color::Black if s >= 8 => 1u64 << (s - 8),
                _ => 0,
            };
            if own & level_or_behind == 0 && enemy_attacks & stop != 0 {
                acc.add(color, idx::BACKWARD, 1);
            }
        }
        if !doubled && enemy & PASSED_SPAN[c][s] == 0 {
            passed |= 1u64 << s;
            acc.add(color, idx::PASSED + rr, 1);
        }
    }
    passed
}

/// Passed-pawn terms that depend on the pieces and kings.
pub fn passed_extras<T: Tracer>(
    acc: &mut Acc<T>,
    board: &Board,
    info: &Info,
    passed: u64,
    color: Color,
    turn: Color,
) {
    if passed == 0 {
        return;
    }
    let c = color as usize;
    let them = !color;
    let t = them as usize;
    // The enemy has nothing but king and pawns: the square rule applies.
    let pawn_ending = info.pieces[t] & !info.pawns[t] & !board.kings().0 == 0;
    let mut bb = passed;
    while bb != 0 {
        let s = bb.trailing_zeros() as usize;
        bb &= bb - 1;
        let sq = Square::new(s as u32);
        let rr = relative_rank(color, sq);
        let stop_idx = if color == Color::White { s + 8 } else { s - 8 };
        let stop = Square::new(stop_idx as u32);
        let path = FORWARD_FILE[c][s];
        if info.occupied & (1u64 << stop_idx) != 0 {
            acc.add(color, idx::PASSED_BLOCKED + rr, 1);
        } else if path & (info.occupied | info.attacked[t]) == 0 {
            acc.add(color, idx::PASSED_FREE + rr, 1);
        }
        let own_dist = info.king_sq[c].distance(stop) as i32;
        let enemy_dist = info.king_sq[t].distance(stop) as i32;
        acc.add(color, idx::PASSED_KING_OWN + rr, own_dist);
        acc.add(color, idx::PASSED_KING_ENEMY + rr, enemy_dist);

        if pawn_ending && path & info.occupied == 0 {
            let promotion =
                Square::new(((s % 8) + if color == Color::White { 56 } else { 0 }) as u32);
            let pawn_moves = (7 - rr).min(5) as i32;
            let king_moves =
                info.king_sq[t].distance(promotion) as i32 - if turn == them { 1 } else { 0 };
            if king_moves > pawn_moves {
                acc.add(color, idx::UNSTOPPABLE, 1);
            }
        }
    }
}
