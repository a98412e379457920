//! Material, square tables, mobility, bishops, rooks, outposts, threats and
//! space. [`pieces`] also completes the attack maps in [`Info`].

use shakmaty::attacks::{bishop_attacks, knight_attacks, queen_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Color, Role};

use super::params::{idx, SPACE_MIN_PHASE};
use super::{
    file_bb, north_fill, relative_rank, relative_square, south_fill, Acc, Info, Tracer,
    DARK_SQUARES, LIGHT_SQUARES,
};

/// Offsets of the square tables by `Role as usize - 1`.
const PSQT: [usize; 6] = [
    idx::PSQT_PAWN,
    idx::PSQT_KNIGHT,
    idx::PSQT_BISHOP,
    idx::PSQT_ROOK,
    idx::PSQT_QUEEN,
    idx::PSQT_KING,
];

/// Material and piece-square values.
pub fn material<T: Tracer>(acc: &mut Acc<T>, board: &Board) {
    for color in Color::ALL {
        for role in Role::ALL {
            let r = role as usize - 1;
            let bb = board.by_piece(role.of(color));
            if bb.is_empty() {
                continue;
            }
            if role != Role::King {
                acc.add(color, idx::MATERIAL + r, bb.count() as i32);
            }
            for sq in bb {
                acc.add(color, PSQT[r] + relative_square(color, sq), 1);
            }
        }
    }
}

/// Relative ranks 4 to 6 for `color`.
const fn outpost_ranks(color: Color) -> u64 {
    match color {
        Color::White => 0x0000_FFFF_FF00_0000,
        Color::Black => 0x0000_00FF_FFFF_0000,
    }
}

/// Mobility, outposts, bishop and rook terms of `color`'s pieces; fills the
/// attack maps and the king-zone attack tallies.
pub fn pieces<T: Tracer>(acc: &mut Acc<T>, board: &Board, info: &mut Info, color: Color) {
    let c = color as usize;
    let them = !color;
    let t = them as usize;
    let occ = Bitboard(info.occupied);
    // Squares the enemy pawns attack now or after advancing.
    let enemy_span = match them {
        Color::White => north_fill(info.attacked_by[t][0]),
        Color::Black => south_fill(info.attacked_by[t][0]),
    };
    let outposts = outpost_ranks(color) & info.attacked_by[c][0] & !enemy_span;
    let own_pawns = info.pawns[c];
    let enemy_pawns = info.pawns[t];
    let enemy_zone = info.king_zone[t];
    let own_zone = info.king_zone[c];

    for (k, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .enumerate()
    {
        let r = role as usize - 1;
        let bb = board.by_piece(role.of(color));
        for sq in bb {
            let att = match role {
                Role::Knight => knight_attacks(sq),
                Role::Bishop => bishop_attacks(sq, occ),
                Role::Rook => rook_attacks(sq, occ),
                _ => queen_attacks(sq, occ),
            }
            .0;
            info.attacked2[c] |= info.attacked[c] & att;
            info.attacked[c] |= att;
            info.attacked_by[c][r] |= att;

            let mobility = (att & info.mobility_area[c]).count_ones() as usize;
            let table = match role {
                Role::Knight => idx::MOBILITY_KNIGHT,
                Role::Bishop => idx::MOBILITY_BISHOP,
                Role::Rook => idx::MOBILITY_ROOK,
                _ => idx::MOBILITY_QUEEN,
            };
            acc.add(color, table + mobility, 1);

            let on_zone = att & enemy_zone;
            if on_zone != 0 {
                info.zone_attackers[c][k] += 1;
                info.zone_attacks[c] += on_zone.count_ones() as i32;
            }
            let bit = 1u64 << sq as usize;
            match role {
                Role::Knight | Role::Bishop => {
                    if att & own_zone != 0 {
                        info.defenders[c] += 1;
                    }
                    if outposts & bit != 0 {
                        let param = if role == Role::Knight {
                            idx::KNIGHT_OUTPOST
                        } else {
                            idx::BISHOP_OUTPOST
                        };
                        acc.add(color, param, 1);
                    }
                    if role == Role::Bishop {
                        let colour = if bit & LIGHT_SQUARES != 0 {
                            LIGHT_SQUARES
                        } else {
                            DARK_SQUARES
                        };
                        let n = (own_pawns & colour).count_ones() as i32;
                        if n != 0 {
                            acc.add(color, idx::BISHOP_PAWNS, n);
                        }
                    }
                }
                Role::Rook => {
                    let file = file_bb(sq.file() as usize);
                    if own_pawns & file == 0 {
                        let param = if enemy_pawns & file == 0 {
                            idx::ROOK_OPEN
                        } else {
                            idx::ROOK_HALF_OPEN
                        };
                        acc.add(color, param, 1);
                    }
                    if relative_rank(color, sq) == 6 {
                        let seventh = super::rank_bb(if color == Color::White { 6 } else { 1 });
                        if relative_rank(color, info.king_sq[t]) == 7 || enemy_pawns & seventh != 0
                        {
                            acc.add(color, idx::ROOK_SEVENTH, 1);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    let bishops = board.by_piece(Role::Bishop.of(color)).0;
    if bishops & LIGHT_SQUARES != 0 && bishops & DARK_SQUARES != 0 {
        acc.add(color, idx::BISHOP_PAIR, 1);
    }
}

/// Threats by `color` against the enemy pieces. Needs the full attack maps.
pub fn threats<T: Tracer>(acc: &mut Acc<T>, board: &Board, info: &Info, color: Color) {
    let c = color as usize;
    let them = !color;
    let t = them as usize;
    let by_pawn = info.attacked_by[c][0];
    let by_minor = info.attacked_by[c][1] | info.attacked_by[c][2];
    let by_rook = info.attacked_by[c][3];
    let not_pawn_defended = !info.attacked_by[t][0];
    let undefended = !info.attacked[t];
    let queens = board.by_piece(Role::Queen.of(them)).0;
    for role in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        let r = role as usize - 1;
        let victims = board.by_piece(role.of(them)).0;
        if victims == 0 {
            continue;
        }
        if role != Role::Pawn {
            let n = (victims & by_pawn).count_ones() as i32;
            if n != 0 {
                acc.add(color, idx::THREAT_BY_PAWN + r, n);
            }
        }
        let n = (victims & by_minor & not_pawn_defended).count_ones() as i32;
        if n != 0 {
            acc.add(color, idx::THREAT_BY_MINOR + r, n);
        }
        let n =
            (victims & by_rook & (queens | (undefended & not_pawn_defended))).count_ones() as i32;
        if n != 0 {
            acc.add(color, idx::THREAT_BY_ROOK + r, n);
        }
    }
    let pieces = info.pieces[t] & !info.pawns[t] & !board.kings().0;
    let hanging = (pieces & info.attacked[c] & undefended).count_ones() as i32;
    if hanging != 0 {
        acc.add(color, idx::HANGING, hanging);
    }
}

/// Centre files c to f on relative ranks 2 to 4.
const fn space_area(color: Color) -> u64 {
    let files = 0x3C3C_3C3C_3C3C_3C3C;
    match color {
        Color::White => files & 0x0000_0000_FFFF_FF00,
        Color::Black => files & 0x00FF_FFFF_0000_0000,
    }
}

/// Safe central squares behind and around the own pawns.
pub fn space<T: Tracer>(acc: &mut Acc<T>, info: &Info, color: Color) {
    if info.phase < SPACE_MIN_PHASE {
        return;
    }
    let c = color as usize;
    let t = !color as usize;
    let own_pawns = info.pawns[c];
    let safe = space_area(color) & !own_pawns & !info.attacked_by[t][0];
    let behind = match color {
        Color::White => south_fill(own_pawns >> 8),
        Color::Black => north_fill(own_pawns << 8),
    };
    let n = safe.count_ones() + (safe & behind).count_ones();
    if n != 0 {
        acc.add(color, idx::SPACE, n as i32);
    }
}
