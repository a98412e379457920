//! Training positions, packed to 28 bytes each; features are computed when
//! a batch is built, with the engine's own indexing (`kiraly::nnue`).

use std::path::Path;

use datagen::format::{for_each_sample, Filter};
use kiraly::nnue::{BucketLayout, View};
use shakmaty::{Bitboard, Board, Color, Piece, Position, Role, Square};

/// `Packed::result` of a position that comes from no game.
pub const NO_RESULT: u8 = 3;

/// One position: the board from the side to move's point of view is not
/// stored; colours stay absolute and the side to move is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed {
    pub occupied: u64,
    /// One nibble per occupied square in square order: role - 1 in bits
    /// 0-2, bit 3 for Black.
    pub pieces: [u8; 16],
    /// Search score, centipawns, side to move's view.
    pub score: i16,
    /// Game result from the side to move's view: 0 loss, 1 draw, 2 win,
    /// or `NO_RESULT` (a position from no game: its score is the target).
    pub result: u8,
    /// 1 when Black is to move.
    pub black_to_move: u8,
}

impl Packed {
    pub fn new(board: &Board, turn: Color, score: i16, stm_result: f32) -> Packed {
        let mut pieces = [0u8; 16];
        for (i, (_, piece)) in board.iter().enumerate().take(32) {
            let nibble = (piece.role as u8 - 1) | (u8::from(piece.color == Color::Black) << 3);
            pieces[i / 2] |= nibble << (4 * (i % 2));
        }
        Packed {
            occupied: u64::from(board.occupied()),
            pieces,
            score,
            result: (stm_result * 2.0).round() as u8,
            black_to_move: u8::from(turn == Color::Black),
        }
    }

    pub fn turn(&self) -> Color {
        if self.black_to_move != 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The pieces and their squares.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Bitboard(self.occupied)
            .into_iter()
            .enumerate()
            .map(move |(i, sq)| {
                let nibble = (self.pieces[i / 2] >> (4 * (i % 2))) & 0x0F;
                let role = Role::ALL[usize::from(nibble & 7).min(5)];
                let color = if nibble & 8 != 0 {
                    Color::Black
                } else {
                    Color::White
                };
                (sq, Piece { color, role })
            })
    }

    /// The position for the engine's functions: the board and the side to
    /// move (no castling or en passant rights are stored); `None` if
    /// shakmaty refuses it.
    pub fn chess(&self) -> Option<shakmaty::Chess> {
        use shakmaty::{CastlingMode, Chess, FromSetup, Setup};
        let mut setup = Setup::empty();
        setup.board = self.board();
        setup.turn = self.turn();
        Chess::from_setup(setup, CastlingMode::Standard).ok()
    }

    pub fn board(&self) -> Board {
        let mut board = Board::empty();
        for (sq, piece) in self.pieces() {
            board.set_piece_at(sq, piece);
        }
        board
    }

    /// The input indices of the side to move and of the other side under a
    /// king bucket layout; `n` of each are filled. `None` without both
    /// kings.
    pub fn features(
        &self,
        layout: &BucketLayout,
        us: &mut [u16; 32],
        them: &mut [u16; 32],
    ) -> Option<usize> {
        let mut kings = [None, None];
        for (sq, piece) in self.pieces() {
            if piece.role == Role::King {
                kings[piece.color as usize] = Some(sq);
            }
        }
        let stm = self.turn();
        let our_view = View::new(stm, kings[stm as usize]?, layout);
        let their_view = View::new(!stm, kings[(!stm) as usize]?, layout);
        let mut n = 0;
        for (sq, piece) in self.pieces() {
            us[n] = our_view.index(piece, sq) as u16;
            them[n] = their_view.index(piece, sq) as u16;
            n += 1;
        }
        Some(n)
    }
}

/// Reads the positions of data files through `filter`, at most `limit`.
/// Files are read in order and games stay in order within them, so the last
/// positions are the last games (for a held-out set).
pub fn load(
    paths: &[impl AsRef<Path>],
    filter: &Filter,
    limit: usize,
) -> Result<Vec<Packed>, String> {
    let mut out = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let mut input = datagen::open_input(path)?;
        let mut full = false;
        for_each_sample(&mut input, filter, |s| {
            if out.len() >= limit {
                full = true;
                return;
            }
            out.push(Packed::new(
                s.pos.board(),
                s.pos.turn(),
                s.score,
                s.stm_result(),
            ));
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
        if full {
            break;
        }
    }
    Ok(out)
}

/// Positions near the given ones: each one's board after 1 to 4 random legal
/// moves, `copies` per position (no castling or en passant rights are
/// kept). Meant for training on the
/// hand-crafted evaluation's scores (the trainer's `--augment` rescores
/// them so): the search also evaluates positions reached by bad moves,
/// which self-play games never show. Their result is `NO_RESULT`.
pub fn augment(positions: &[Packed], copies: usize, seed: u64) -> Vec<Packed> {
    use rayon::prelude::*;
    positions
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, pos)| {
            let mut rng = kiraly::rng::Rng::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9));
            let start = pos.chess();
            let mut out = Vec::with_capacity(copies);
            if let Some(start) = start {
                for _ in 0..copies {
                    let mut chess = start.clone();
                    let plies = 1 + rng.below(4);
                    for _ in 0..plies {
                        let moves = chess.legal_moves();
                        if moves.is_empty() {
                            break;
                        }
                        let m = moves[rng.below(moves.len())];
                        chess.play_unchecked(m);
                    }
                    if !chess.legal_moves().is_empty() {
                        let mut packed = Packed::new(chess.board(), chess.turn(), 0, 0.5);
                        packed.result = NO_RESULT;
                        out.push(packed);
                    }
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};

    #[test]
    fn packs_and_unpacks_every_piece() {
        let fen: Fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1"
            .parse()
            .unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let packed = Packed::new(pos.board(), pos.turn(), -42, 1.0);
        assert_eq!(&packed.board(), pos.board());
        assert_eq!(
            (packed.turn(), packed.score, packed.result),
            (Color::Black, -42, 2)
        );
        let (mut us, mut them) = ([0u16; 32], [0u16; 32]);
        let n = packed
            .features(&kiraly::nnue::ONE_BUCKET, &mut us, &mut them)
            .unwrap();
        assert_eq!(n, pos.board().occupied().count());
        // Black to move: its own pawn on a7 is, from its view, a "friendly
        // pawn" on the second rank (a2 -> mirrored: king on e8 is file e, no
        // mirroring).
        let view = View::new(Color::Black, Square::E8, &kiraly::nnue::ONE_BUCKET);
        let pawn = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        assert!(us[..n].contains(&(view.index(pawn, Square::A7) as u16)));
        assert_eq!(view.index(pawn, Square::A7), Square::A2 as usize);
    }
}
