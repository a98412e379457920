//! Where a position falls in each correction table: its slot by pawn
//! structure, by each side's pieces other than pawns, by the minor pieces,
//! by the major pieces (the kings in both), and by the two moves that led
//! to it.
//!
//! The piece keys are computed from the bitboards at each node rather than
//! kept up to date move by move: one multiply per bitboard of a side's
//! pieces of one kind (ten in all, shared by the three piece keys) and one
//! per key, about seventy instructions against thousands for the node.

use shakmaty::{Board, Color};

use crate::history::PIECE_TO;

/// Slots per side to move in a table keyed by pieces; a power of two.
pub const SIZE: usize = 16_384;
/// Slots of the continuation table: the move two plies back (or none)
/// times the move one ply back.
pub const CONTINUATION_SIZE: usize = (PIECE_TO + 1) * PIECE_TO;

/// Random odd constants, one per colour (`Color as usize`) and kind of
/// piece other than the pawn (knight, bishop, rook, queen, king), so that
/// the same squares of two bitboards (a knight or a bishop on e4, a white
/// or a black rook) give different keys.
const PIECE_CONSTANTS: [[u64; 5]; 2] = [
    [
        0x373B_20C5_5ADE_22A7,
        0xB355_A056_0A53_51A9,
        0xB9CF_821E_3C24_6D61,
        0x8E85_3E02_FAA5_0DA5,
        0x6E40_BECA_3738_088D,
    ],
    [
        0x8179_AE7B_0B64_5757,
        0xEF58_84A5_1468_080B,
        0x161B_B28A_3428_1157,
        0xA1B8_061B_44EC_4105,
        0x4D40_AC4B_C277_99C7,
    ],
];
/// Spreads a key's bits over the top bits that make its slot.
const SLOT_MULTIPLIER: u64 = 0x5D72_BA31_B7B6_A1FF;

/// The slots of one position in every table (each already offset by the
/// side to move where the table keeps one half per side).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CorrectionKeys {
    pub pawn: usize,
    /// By the pieces of Black and of White (`Color as usize`).
    pub non_pawn: [usize; 2],
    /// Knights, bishops and kings of both sides.
    pub minor: usize,
    /// Rooks, queens and kings of both sides.
    pub major: usize,
    /// The (piece, to) pair of the last two moves; none after a null move
    /// or at the root, which have no last move.
    pub continuation: Option<usize>,
}

impl CorrectionKeys {
    /// The slots of the position `board` with `side` to move, reached by
    /// the moves `previous` (the `piece_to` indices one and two plies
    /// back).
    #[inline]
    pub fn new(board: &Board, side: Color, previous: [Option<usize>; 2]) -> CorrectionKeys {
        let kinds = [
            board.knights().0,
            board.bishops().0,
            board.rooks().0,
            board.queens().0,
            board.kings().0,
        ];
        // The hash of each colour's pieces of each kind.
        let part = |colour: Color| {
            let ours = board.by_color(colour).0;
            let constants = &PIECE_CONSTANTS[colour as usize];
            [0, 1, 2, 3, 4].map(|k| folded_multiply(kinds[k] & ours, constants[k]))
        };
        let [black, white] = [part(Color::Black), part(Color::White)];
        let [knights, bishops, rooks, queens, kings] = [0, 1, 2, 3, 4].map(|k| black[k] ^ white[k]);
        let offset = side as usize * SIZE;
        let pawns = board.pawns();
        let pawn_hash =
            crate::eval::pawns::hash([(pawns & board.white()).0, (pawns & board.black()).0]);
        CorrectionKeys {
            pawn: offset + top_bits(pawn_hash),
            non_pawn: [black, white].map(|parts| offset + slot(parts.iter().fold(0, |h, p| h ^ p))),
            minor: offset + slot(knights ^ bishops ^ kings),
            major: offset + slot(rooks ^ queens ^ kings),
            continuation: previous[0].map(|last| previous[1].unwrap_or(PIECE_TO) * PIECE_TO + last),
        }
    }
}

/// The two halves of the full product, folded: every bit of `bits` reaches
/// every bit of the result (a single bit on square s gives `k` rotated by
/// s), which the low half alone would not do for the high squares.
#[inline]
fn folded_multiply(bits: u64, k: u64) -> u64 {
    let product = u128::from(bits) * u128::from(k);
    product as u64 ^ (product >> 64) as u64
}

/// The slot of a piece key in a half of `SIZE` slots.
#[inline]
fn slot(key: u64) -> usize {
    top_bits(key.wrapping_mul(SLOT_MULTIPLIER))
}

/// The top bits of a hash, as many as index `SIZE` slots.
#[inline]
fn top_bits(hash: u64) -> usize {
    (hash >> (64 - SIZE.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots of a FEN with its side to move, after no known move.
    fn keys(fen: &str) -> CorrectionKeys {
        let mut fields = fen.split(' ');
        let board: Board = fields.next().unwrap().parse().unwrap();
        let side = if fields.next() == Some("b") {
            Color::Black
        } else {
            Color::White
        };
        CorrectionKeys::new(&board, side, [None; 2])
    }

    #[test]
    fn each_key_depends_on_its_pieces_only() {
        let start = keys("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w");
        // A white knight moves: the pawn and major keys and Black's key stay.
        let knight = keys("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w");
        assert_eq!(knight.pawn, start.pawn);
        assert_eq!(knight.major, start.major);
        assert_eq!(knight.non_pawn[0], start.non_pawn[0]);
        assert_ne!(knight.non_pawn[1], start.non_pawn[1]);
        assert_ne!(knight.minor, start.minor);
        // A black rook moves: the minor key and White's key stay.
        let rook = keys("rnbqkbn1/pppppppr/8/8/8/8/PPPPPPPP/RNBQKBNR w");
        assert_eq!(rook.minor, start.minor);
        assert_eq!(rook.non_pawn[1], start.non_pawn[1]);
        assert_ne!(rook.non_pawn[0], start.non_pawn[0]);
        assert_ne!(rook.major, start.major);
        // A pawn moves: only the pawn key changes.
        let pawn = keys("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w");
        assert_ne!(pawn.pawn, start.pawn);
        assert_eq!(
            (pawn.non_pawn, pawn.minor, pawn.major),
            (start.non_pawn, start.minor, start.major)
        );
        // A king moves: every key but the pawn key changes.
        let king = keys("rnbqkbnr/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR w");
        assert_ne!(king.non_pawn[1], start.non_pawn[1]);
        assert_ne!(king.minor, start.minor);
        assert_ne!(king.major, start.major);
        assert_eq!(king.non_pawn[0], start.non_pawn[0]);
    }

    #[test]
    fn keys_tell_roles_colours_and_sides_apart() {
        // The same square, a knight or a bishop.
        let knight = keys("4k3/8/8/8/4N3/8/8/4K3 w");
        let bishop = keys("4k3/8/8/8/4B3/8/8/4K3 w");
        assert_ne!(knight.non_pawn[1], bishop.non_pawn[1]);
        assert_ne!(knight.minor, bishop.minor);
        // The same square, a white or a black rook.
        let white = keys("4k3/8/8/8/4R3/8/8/4K3 w");
        let black = keys("4k3/8/8/8/4r3/8/8/4K3 w");
        assert_ne!(white.major, black.major);
        // The other side to move: another half of every table.
        let to_move = keys("4k3/8/8/8/4R3/8/8/4K3 b");
        assert_eq!(to_move.major, white.major - SIZE);
        assert_eq!(to_move.pawn, white.pawn - SIZE);
        for k in [knight, bishop, white, black, to_move] {
            assert!(k.pawn < 2 * SIZE && k.minor < 2 * SIZE && k.major < 2 * SIZE);
            assert!(k.non_pawn.iter().all(|&s| s < 2 * SIZE));
        }
    }

    #[test]
    fn continuation_key_is_the_last_two_moves() {
        let board = Board::default();
        let at = |previous| CorrectionKeys::new(&board, Color::White, previous).continuation;
        assert_eq!(at([None, Some(5)]), None);
        assert_eq!(at([Some(5), None]), Some(PIECE_TO * PIECE_TO + 5));
        assert_eq!(at([Some(5), Some(9)]), Some(9 * PIECE_TO + 5));
        assert_ne!(at([Some(9), Some(5)]), at([Some(5), Some(9)]));
        assert!(at([Some(PIECE_TO - 1), None]).unwrap() < CONTINUATION_SIZE);
    }
}
