//! Bitboard helpers of the hand-crafted terms, on plain `u64` (a1 = bit 0):
//! the terms combine many masks per position, and the tuned code was
//! written and measured on raw words. Attack generation itself is
//! shakmaty's.

use shakmaty::{Color, Square};

pub(crate) const FILE_A: u64 = 0x0101_0101_0101_0101;
pub(crate) const FILE_H: u64 = FILE_A << 7;
pub(crate) const LIGHT_SQUARES: u64 = 0x55AA_55AA_55AA_55AA;
pub(crate) const DARK_SQUARES: u64 = !LIGHT_SQUARES;

#[inline(always)]
pub(crate) const fn file_bb(file: usize) -> u64 {
    FILE_A << file
}

#[inline(always)]
pub(crate) const fn rank_bb(rank: usize) -> u64 {
    0xFF << (8 * rank)
}

pub(crate) const fn adjacent_files(file: usize) -> u64 {
    let mut bb = 0;
    if file > 0 {
        bb |= file_bb(file - 1);
    }
    if file < 7 {
        bb |= file_bb(file + 1);
    }
    bb
}

#[inline(always)]
pub(crate) const fn north_fill(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b |= b << 32;
    b
}

#[inline(always)]
pub(crate) const fn south_fill(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b |= b >> 32;
    b
}

/// One rank towards the enemy.
#[inline(always)]
pub(crate) fn forward(color: Color, b: u64) -> u64 {
    match color {
        Color::White => b << 8,
        Color::Black => b >> 8,
    }
}

/// All squares attacked by `color`'s pawns in `pawns`.
#[inline(always)]
pub(crate) fn pawn_attacks_bb(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
    }
}

/// Rank 0..7 seen from `color` (0 = its back rank).
#[inline(always)]
pub(crate) fn relative_rank(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

/// Square index seen from `color` (White's squares as they are).
#[inline(always)]
pub(crate) fn relative_square(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

/// Squares strictly ahead of `sq` on its file, from `color`'s side.
pub(crate) static FORWARD_FILE: [[u64; 64]; 2] = build_spans(false);
/// Squares strictly ahead of `sq` on its file and the adjacent files.
pub(crate) static PASSED_SPAN: [[u64; 64]; 2] = build_spans(true);

const fn build_spans(wide: bool) -> [[u64; 64]; 2] {
    let mut out = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let file = sq % 8;
        let mut files = file_bb(file);
        if wide {
            files |= adjacent_files(file);
        }
        let rank = sq / 8;
        let white_ahead = if rank == 7 {
            0
        } else {
            u64::MAX << (8 * (rank + 1))
        };
        let black_ahead = (1u64 << (8 * rank)) - 1;
        out[Color::White as usize][sq] = white_ahead & files;
        out[Color::Black as usize][sq] = black_ahead & files;
        sq += 1;
    }
    out
}
