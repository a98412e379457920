//! Endgame scale factors (out of 64, applied to the endgame half): drawish
//! material, opposite-coloured bishops, the wrong rook pawn.

use shakmaty::{Board, Color, Role, Square};

use super::params::{
    SCALE_DRAWN, SCALE_NORMAL, SCALE_NO_PAWNS_MINOR_UP, SCALE_OCB_PIECES, SCALE_OCB_PURE,
};
use super::{Info, DARK_SQUARES, FILE_A, FILE_H, LIGHT_SQUARES};

struct Side {
    pawns: u64,
    knights: u32,
    bishops: u64,
    rooks: u32,
    queens: u32,
}

impl Side {
    fn new(board: &Board, color: Color) -> Side {
        Side {
            pawns: board.by_piece(Role::Pawn.of(color)).0,
            knights: board.by_piece(Role::Knight.of(color)).count() as u32,
            bishops: board.by_piece(Role::Bishop.of(color)).0,
            rooks: board.by_piece(Role::Rook.of(color)).count() as u32,
            queens: board.by_piece(Role::Queen.of(color)).count() as u32,
        }
    }

    /// Non-pawn material in pawn units (minor 3, rook 5, queen 9).
    fn points(&self) -> u32 {
        3 * (self.knights + self.bishops.count_ones()) + 5 * self.rooks + 9 * self.queens
    }

    fn only_bishops(&self) -> bool {
        self.knights == 0 && self.rooks == 0 && self.queens == 0
    }
}

/// Scale factor for the side the endgame score favours (`eg` from White's
/// point of view).
pub fn scale_factor(board: &Board, info: &Info, eg: i32) -> i32 {
    if eg == 0 {
        return SCALE_NORMAL;
    }
    let strong_color = if eg > 0 { Color::White } else { Color::Black };
    let strong = Side::new(board, strong_color);
    let weak = Side::new(board, !strong_color);

    if strong.pawns == 0 {
        let points = strong.points();
        if points <= 3 {
            // A lone minor (or nothing) cannot mate.
            return SCALE_DRAWN;
        }
        if strong.knights == 2 && points == 6 {
            // Two knights cannot force mate against a bare king.
            return if weak.pawns == 0 {
                SCALE_DRAWN
            } else {
                SCALE_NO_PAWNS_MINOR_UP
            };
        }
        if points <= weak.points() + 3 {
            return SCALE_NO_PAWNS_MINOR_UP;
        }
    }

    // Wrong rook pawn: only bishops (or nothing) and pawns all on one rook
    // file, the defending king next to the promotion corner, and no bishop
    // of the corner's colour.
    if strong.only_bishops()
        && strong.pawns != 0
        && (strong.pawns & !FILE_A == 0 || strong.pawns & !FILE_H == 0)
    {
        let file = if strong.pawns & FILE_A != 0 { 0 } else { 7 };
        let rank = if strong_color == Color::White { 7 } else { 0 };
        let corner = Square::new(rank * 8 + file);
        let corner_colour = if (1u64 << corner as usize) & LIGHT_SQUARES != 0 {
            LIGHT_SQUARES
        } else {
            DARK_SQUARES
        };
        let weak_king = info.king_sq[!strong_color as usize];
        if strong.bishops & corner_colour == 0 && weak_king.distance(corner) <= 1 {
            return SCALE_DRAWN;
        }
    }

    // Opposite-coloured bishops.
    if strong.bishops.count_ones() == 1
        && weak.bishops.count_ones() == 1
        && ((strong.bishops & LIGHT_SQUARES != 0) != (weak.bishops & LIGHT_SQUARES != 0))
    {
        return if strong.only_bishops() && weak.only_bishops() {
            SCALE_OCB_PURE
        } else {
            SCALE_OCB_PIECES
        };
    }
    SCALE_NORMAL
}
