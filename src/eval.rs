//! Static evaluation: material and piece-square tables, tapered between the
//! middlegame and the endgame by the material left on the board.
//!
//! This is the deliberately simple first evaluation; the king-safety aware
//! evaluation replaces it later. Scores are centipawns from the side to move.

use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square};

/// (middlegame, endgame) material values, indexed by `Role as usize - 1`.
pub const MATERIAL: [(i32, i32); 6] = [
    (85, 110),  // pawn
    (330, 300), // knight
    (350, 320), // bishop
    (480, 530), // rook
    (980, 960), // queen
    (0, 0),     // king
];

/// Game phase weight of each piece type; 24 is a full board of pieces.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;
const BISHOP_PAIR: (i32, i32) = (25, 45);
const TEMPO: i32 = 10;

/// How central a square is: 0 on the rim's corners up to 6 in the centre.
const fn centrality(file: i32, rank: i32) -> i32 {
    let df = if file < 4 { file } else { 7 - file };
    let dr = if rank < 4 { rank } else { 7 - rank };
    df + dr
}

/// Piece-square bonus for a white piece of `role_index` on square `sq`
/// (a1 = 0 .. h8 = 63). Black uses the vertically mirrored square.
const fn pst_entry(role_index: usize, sq: usize) -> (i32, i32) {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let c = centrality(file, rank);
    match role_index {
        0 => {
            // Pawns: advance in the endgame, hold the centre in the middlegame.
            let mg_rank = [0, 0, 2, 6, 14, 28, 50, 0];
            let eg_rank = [0, 0, 4, 12, 26, 50, 85, 0];
            let central_file = if file == 3 || file == 4 { 8 } else { 0 };
            let centre_bonus = if rank == 3 || rank == 4 {
                central_file
            } else {
                0
            };
            let wing_penalty = if (file == 0 || file == 7) && rank > 1 {
                -4
            } else {
                0
            };
            (
                mg_rank[rank as usize] + centre_bonus + wing_penalty,
                eg_rank[rank as usize],
            )
        }
        1 => (7 * c - 24 + if rank == 0 { -8 } else { 0 }, 6 * c - 20),
        2 => (4 * c - 10 + if rank == 0 { -6 } else { 0 }, 3 * c - 9),
        3 => {
            let seventh = if rank == 6 { 18 } else { 0 };
            let centre_file = if file == 3 || file == 4 { 5 } else { 0 };
            (seventh + centre_file, if rank == 6 { 12 } else { 0 })
        }
        4 => (2 * c - 6 + if rank == 0 { -2 } else { 0 }, 4 * c - 12),
        _ => {
            // King: tucked away behind its pawns early, centralised late.
            let shelter = match file {
                1 | 2 | 6 => 28,
                0 | 7 => 18,
                _ => 0,
            };
            let mg = if rank == 0 {
                shelter
            } else {
                shelter / 2 - 30 * rank
            };
            (mg, 9 * c - 27)
        }
    }
}

const fn build_pst() -> [[(i32, i32); 64]; 6] {
    let mut table = [[(0, 0); 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            let (mg, eg) = pst_entry(role, sq);
            table[role][sq] = (MATERIAL[role].0 + mg, MATERIAL[role].1 + eg);
            sq += 1;
        }
        role += 1;
    }
    table
}

/// Material plus piece-square value for each (role, white-relative square).
static PST: [[(i32, i32); 64]; 6] = build_pst();

/// Middlegame/endgame sums for one side.
fn side_score(board: &Board, color: Color) -> (i32, i32, i32) {
    let mut mg = 0;
    let mut eg = 0;
    let mut phase = 0;
    for role in Role::ALL {
        let idx = role as usize - 1;
        let pieces: Bitboard = board.by_piece(role.of(color));
        for sq in pieces {
            let rel = relative_square(sq, color);
            let (m, e) = PST[idx][rel];
            mg += m;
            eg += e;
            phase += PHASE_WEIGHT[idx];
        }
    }
    let bishops = board.by_piece(Role::Bishop.of(color));
    if (bishops & Bitboard::LIGHT_SQUARES).any() && (bishops & Bitboard::DARK_SQUARES).any() {
        mg += BISHOP_PAIR.0;
        eg += BISHOP_PAIR.1;
    }
    (mg, eg, phase)
}

#[inline]
fn relative_square(sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq.flip_vertical() as usize,
    }
}

/// Evaluates the position from the side to move's point of view.
pub fn evaluate(pos: &Chess) -> i32 {
    if pos.has_insufficient_material(Color::White) && pos.has_insufficient_material(Color::Black) {
        return 0;
    }
    let board = pos.board();
    let (wmg, weg, wphase) = side_score(board, Color::White);
    let (bmg, beg, bphase) = side_score(board, Color::Black);
    let phase = (wphase + bphase).min(MAX_PHASE);
    let mg = wmg - bmg;
    let mut eg = weg - beg;
    // A side without pawns needs more than a minor piece's edge to win.
    let strong = if eg > 0 { Color::White } else { Color::Black };
    if (board.by_piece(Role::Pawn.of(strong))).is_empty()
        && (eg.abs() < MATERIAL[3].1 - MATERIAL[2].1 + 100)
    {
        eg /= 4;
    }
    let white_score = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let score = match pos.turn() {
        Color::White => white_score,
        Color::Black => -white_score,
    };
    score + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn start_position_is_balanced() {
        assert_eq!(evaluate(&Chess::default()), TEMPO);
    }

    #[test]
    fn colour_flip_negates_score() {
        // Same position with colours swapped and the board mirrored.
        let white = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let black = pos("rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4");
        assert_eq!(evaluate(&white), evaluate(&black));
    }

    #[test]
    fn extra_queen_is_winning() {
        let p = pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert!(evaluate(&p) > 800);
    }

    #[test]
    fn bare_minor_is_drawish() {
        assert_eq!(evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1")), 0);
    }
}
