//! Chess960 and double-Chess960 start positions for self-play.
//!
//! A share of the games starts from one of the 960 Chess960 back ranks
//! (both sides alike) or from two independent ones ("double Chess960"). Such
//! games put pieces on squares the standard opening rarely reaches, which
//! broadens what the net sees in its training data.

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, File, FromSetup, Piece, Rank, Role, Setup, Square,
};

/// The number of Chess960 back ranks.
pub const POSITIONS: u16 = 960;

/// The back rank (files a..h) of Chess960 position `index` (0..960) by
/// Scharnagl's numbering, in which 518 is the standard RNBQKBNR.
pub fn back_rank(index: u16) -> [Role; 8] {
    assert!(index < POSITIONS, "Chess960 index {index} out of range");
    let mut rank: [Option<Role>; 8] = [None; 8];
    let mut n = usize::from(index);
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[2 * (n % 4) + 1] = Some(Role::Bishop);
    n /= 4;
    rank[2 * (n % 4)] = Some(Role::Bishop);
    n /= 4;
    place_on_nth_free(&mut rank, n % 6, Role::Queen);
    n /= 6;
    // The ten ways to put two knights on the five squares left.
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (first, second) = KNIGHTS[n];
    // The second knight's index counts the free squares after the first is placed.
    place_on_nth_free(&mut rank, second, Role::Knight);
    place_on_nth_free(&mut rank, first, Role::Knight);
    // The king between the two rooks on the three squares left.
    for role in [Role::Rook, Role::King, Role::Rook] {
        place_on_nth_free(&mut rank, 0, role);
    }
    rank.map(|r| r.expect("every file is filled"))
}

fn place_on_nth_free(rank: &mut [Option<Role>; 8], nth: usize, role: Role) {
    let file = rank
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_none())
        .nth(nth)
        .map(|(f, _)| f)
        .expect("a free file");
    rank[file] = Some(role);
}

/// The start position with White's back rank `white` and Black's `black`
/// (equal for Chess960, independent for double Chess960), all castling
/// rights, in Chess960 castling mode.
pub fn start_position(white: u16, black: u16) -> Chess {
    let mut board = Board::empty();
    let mut rooks = Bitboard::EMPTY;
    for (color, index, back, pawns) in [
        (Color::White, white, Rank::First, Rank::Second),
        (Color::Black, black, Rank::Eighth, Rank::Seventh),
    ] {
        for (file, role) in back_rank(index).into_iter().enumerate() {
            let file = File::new(file as u32);
            let square = Square::from_coords(file, back);
            board.set_piece_at(square, Piece { color, role });
            if role == Role::Rook {
                rooks.add(square);
            }
            board.set_piece_at(
                Square::from_coords(file, pawns),
                Piece {
                    color,
                    role: Role::Pawn,
                },
            );
        }
    }
    let setup = Setup {
        board,
        castling_rights: rooks,
        ..Setup::default()
    };
    Chess::from_setup(setup, CastlingMode::Chess960)
        .expect("every Chess960 start position is legal")
}

/// Which start a game gets: the standard one (or a book line), a Chess960
/// position, or a double-Chess960 one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartKind {
    Standard,
    Chess960(u16),
    DoubleChess960(u16, u16),
}

impl StartKind {
    pub fn position(self) -> Option<Chess> {
        match self {
            StartKind::Standard => None,
            StartKind::Chess960(i) => Some(start_position(i, i)),
            StartKind::DoubleChess960(w, b) => Some(start_position(w, b)),
        }
    }
}

/// Chooses the start of a game from `draw`, three uniform random numbers:
/// a `share` of the games (0..=1) start from Chess960 positions, half of
/// those from double-Chess960 ones.
pub fn choose(share: f64, draw: [u64; 3]) -> StartKind {
    let unit = |x: u64| (x >> 11) as f64 / (1u64 << 53) as f64;
    if unit(draw[0]) >= share {
        return StartKind::Standard;
    }
    let index = |x: u64| ((u128::from(x) * u128::from(POSITIONS)) >> 64) as u16;
    if draw[1] & 1 == 0 {
        StartKind::Chess960(index(draw[2]))
    } else {
        let (white, black) = (index(draw[2]), index(draw[2].rotate_left(32) ^ draw[1]));
        StartKind::DoubleChess960(white, black)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{ByColor, Position};
    use std::collections::HashSet;

    /// Both colours' castling rooks.
    fn castling_rooks(pos: &Chess) -> ByColor<Bitboard> {
        ByColor::new_with(|c| pos.castles().castling_rights() & pos.board().by_color(c))
    }

    #[test]
    fn index_518_is_the_standard_back_rank() {
        use Role::*;
        assert_eq!(
            back_rank(518),
            [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook]
        );
        let pos = start_position(518, 518);
        assert_eq!(pos.board(), Chess::default().board());
        assert_eq!(pos.legal_moves().len(), 20);
    }

    #[test]
    fn the_960_back_ranks_are_distinct_and_legal() {
        let mut seen = HashSet::new();
        for i in 0..POSITIONS {
            let rank = back_rank(i);
            assert!(seen.insert(rank), "index {i} repeats a back rank");
            let files = |role| (0..8).filter(move |&f| rank[f] == role);
            let bishops: Vec<_> = files(Role::Bishop).collect();
            assert_eq!(bishops.len(), 2);
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "index {i}: bishops alike");
            let rooks: Vec<_> = files(Role::Rook).collect();
            let king = files(Role::King).next().unwrap();
            assert!(
                rooks[0] < king && king < rooks[1],
                "index {i}: king not between rooks"
            );
            let pos = start_position(i, i);
            assert!(pos.legal_moves().len() >= 18);
            assert_eq!(castling_rooks(&pos).white.count(), 2);
            assert_eq!(castling_rooks(&pos).black.count(), 2);
        }
    }

    #[test]
    fn double_chess960_has_both_back_ranks() {
        let pos = start_position(0, 959);
        let rank = |r: Rank| {
            (0..8)
                .map(|f| pos.board().role_at(Square::from_coords(File::new(f), r)))
                .collect::<Vec<_>>()
        };
        let expect = |i: u16| back_rank(i).map(Some).to_vec();
        assert_eq!(rank(Rank::First), expect(0));
        assert_eq!(rank(Rank::Eighth), expect(959));
    }

    #[test]
    fn choose_honours_the_share() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state ^ (state >> 29)
        };
        let (mut single, mut double, n) = (0, 0, 20_000);
        for _ in 0..n {
            match choose(0.2, [next(), next(), next()]) {
                StartKind::Standard => {}
                StartKind::Chess960(_) => single += 1,
                StartKind::DoubleChess960(_, _) => double += 1,
            }
        }
        let share = f64::from(single + double) / f64::from(n);
        assert!((0.18..0.22).contains(&share), "share {share}");
        assert!(
            single > 1500 && double > 1500,
            "{single} single, {double} double"
        );
        for _ in 0..100 {
            assert_eq!(choose(0.0, [next(), next(), next()]), StartKind::Standard);
        }
    }
}
