//! The position the engine searches: a shakmaty `Chess` plus its Zobrist key,
//! kept up to date incrementally by every move and null move.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, EnPassantMode, FromSetup, Move, MoveList, Piece,
    Position, Role, Square,
};

use crate::delta::{Delta, Shape};
use crate::movegen::en_passant_moves;

/// A position together with its 64-bit Zobrist key.
///
/// The key uses `EnPassantMode::Legal`, so two positions that differ only by
/// an en-passant square on which no capture is possible share a key: that is
/// what the repetition rule asks for.
#[derive(Clone, Debug)]
pub struct Board {
    pub pos: Chess,
    pub key: u64,
}

impl Board {
    pub fn new(pos: Chess) -> Board {
        let key = full_key(&pos);
        Board { pos, key }
    }

    /// Plays a legal move (copy-make: `self` is the parent, the child is
    /// returned).
    #[inline]
    pub fn play(&self, m: Move) -> Board {
        self.play_from_key_after(m, self.key_after(m))
    }

    /// Plays a legal move whose `key_after` the caller already has (it
    /// prefetched the child's table entry with it). The key is completed by
    /// what only the child tells: shakmaty's own incremental update leaves
    /// out moves that touch an en-passant square or a castling right, which
    /// would cost a full computation.
    #[inline]
    pub fn play_from_key_after(&self, m: Move, key_after: u64) -> Board {
        let mut pos = self.pos.clone();
        pos.play_unchecked(m);
        let mut key = key_after ^ en_passant_key(&self.pos) ^ en_passant_key(&pos);
        let (before, after) = (self.pos.castles(), pos.castles());
        if before.castling_rights() != after.castling_rights() {
            for color in Color::ALL {
                for side in CastlingSide::ALL {
                    if before.has(color, side) != after.has(color, side) {
                        key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
                    }
                }
            }
        }
        Board { pos, key }
    }

    /// The child's key as far as the move alone tells it, before the move
    /// is made: the side to move and the pieces moved, taken and placed.
    /// It leaves out what only the position after the move settles (an
    /// en-passant square gained or lost, castling rights lost), so it is
    /// the child's key for all but a few moves. The search prefetches the
    /// child's table entry with it before deciding whether to make the
    /// move (a wrong address costs a useless load, never a wrong entry),
    /// and `play_from_key_after` completes it into the child's key.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        let delta = Delta::of_move(&m, self.pos.turn());
        let key = |(piece, square): (Piece, Square)| piece_key(square, piece.role, piece.color);
        let ([r0, r1], [a0, a1]) = (delta.removed, delta.added);
        self.key
            ^ turn_key()
            ^ match delta.shape {
                Shape::Quiet => key(r0) ^ key(a0),
                Shape::Capture => key(r0) ^ key(r1) ^ key(a0),
                Shape::Castle => key(r0) ^ key(r1) ^ key(a0) ^ key(a1),
                Shape::Drop => unreachable!("no drops in standard chess"),
            }
    }

    /// The key after a null move as far as the side to move tells it: the
    /// null move's key unless the position has an en-passant capture. Only
    /// a prefetch address: `play_null` computes the key itself.
    #[inline]
    pub fn key_after_null(&self) -> u64 {
        self.key ^ turn_key()
    }

    /// The position with the other side to move and no en-passant square
    /// (a "null move"), for null-move pruning. The halfmove clock restarts so
    /// that no repetition is ever counted across the null move. shakmaty
    /// changes the side to move only through a `Setup`; the key changes by
    /// the side to move and the en-passant square only.
    pub fn play_null(&self) -> Option<Board> {
        let mut setup = self.pos.to_setup(EnPassantMode::Always);
        setup.swap_turn();
        setup.halfmoves = 0;
        let pos = Chess::from_setup(setup, self.pos.castles().mode()).ok()?;
        let key = self.key ^ turn_key() ^ en_passant_key(&self.pos);
        Some(Board { pos, key })
    }

    /// Whether the rules draw the position outright: the fifty-move rule
    /// (a mate on the hundredth half-move still counts as mate) or a dead
    /// position (neither side has mating material). Repetitions depend on
    /// the game's history and are the caller's.
    #[inline]
    pub fn is_rule_draw(&self) -> bool {
        let pos = &self.pos;
        (pos.halfmoves() >= 100 && !(pos.is_check() && pos.legal_moves().is_empty()))
            || pos.is_insufficient_material()
    }

    /// Whether the side to move has a piece other than pawns and the king:
    /// without one, zugzwang is common and a null move proves nothing.
    pub fn has_non_pawn_material(&self) -> bool {
        let board = self.pos.board();
        let ours = board.by_color(self.pos.turn());
        (ours & !board.pawns() & !board.kings()).any()
    }
}

/// The Zobrist key computed from scratch.
pub fn full_key(pos: &Chess) -> u64 {
    let Zobrist64(key) = pos.zobrist_hash(EnPassantMode::Legal);
    key
}

/// The key of the side to move's changing.
#[inline]
fn turn_key() -> u64 {
    Zobrist64::zobrist_for_white_turn().0
}

/// The key of `role` of `color` on `square`.
#[inline]
fn piece_key(square: Square, role: Role, color: Color) -> u64 {
    Zobrist64::zobrist_for_piece(square, role.of(color)).0
}

/// The en-passant part of a position's key (`EnPassantMode::Legal`: only
/// when an en-passant capture is legal), 0 for none.
#[inline]
fn en_passant_key(pos: &Chess) -> u64 {
    let Some(square) = pos.maybe_ep_square() else {
        return 0;
    };
    let mut captures = MoveList::new();
    en_passant_moves(pos, &mut captures);
    if captures.is_empty() {
        0
    } else {
        Zobrist64::zobrist_for_en_passant_file(square.file()).0
    }
}

/// The castling notation the GUI speaks, from the `UCI_Chess960` option.
pub fn castling_mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

/// A move as UCI text in the given castling notation.
pub fn move_to_uci(m: Move, mode: CastlingMode) -> String {
    m.to_uci(mode).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    /// Walks every line of a small tree and checks that the incrementally
    /// maintained key always equals the key computed from scratch, after
    /// moves and after a null move (where the side to move is not in
    /// check).
    fn walk(board: &Board, depth: u32, checked: &mut u64) {
        assert_eq!(
            board.key,
            full_key(&board.pos),
            "key drift at {:?}",
            board.pos
        );
        *checked += 1;
        if !board.pos.is_check() {
            let null = board.play_null().unwrap();
            assert_eq!(
                null.key,
                full_key(&null.pos),
                "null move at {:?}",
                board.pos
            );
            if en_passant_key(&board.pos) == 0 {
                assert_eq!(board.key_after_null(), null.key, "{:?}", board.pos);
            }
        }
        if depth == 0 {
            return;
        }
        for m in board.pos.legal_moves() {
            walk(&board.play(m), depth - 1, checked);
        }
    }

    /// The prefetch key equals the child's key for every move that neither
    /// changes castling rights nor meets an en-passant square (before or
    /// after), and those are nearly all moves.
    #[test]
    fn key_after_is_the_child_key_for_plain_moves() {
        fn walk_plain(board: &Board, depth: u32, plain: &mut u64, all: &mut u64) {
            for m in board.pos.legal_moves() {
                let child = board.play(m);
                *all += 1;
                let rights_kept =
                    board.pos.castles().castling_rights() == child.pos.castles().castling_rights();
                if rights_kept && en_passant_key(&board.pos) == 0 && en_passant_key(&child.pos) == 0
                {
                    *plain += 1;
                    // Against the key from scratch: `play` builds the
                    // child's key on `key_after`, so `child.key` would not do.
                    let full = full_key(&child.pos);
                    assert_eq!(board.key_after(m), full, "{m:?} at {:?}", board.pos);
                }
                if depth > 1 {
                    walk_plain(&child, depth - 1, plain, all);
                }
            }
        }
        let (mut plain, mut all) = (0, 0);
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            walk_plain(&Board::new(pos), 3, &mut plain, &mut all);
        }
        assert!(plain * 10 > all * 8, "{plain} plain moves of {all}");
    }

    #[test]
    fn incremental_keys_equal_full_keys() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Kiwipete: castling, en passant, promotions all reachable.
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            // En passant possible immediately.
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            // Promotions with captures.
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            walk(&Board::new(pos), 3, &mut checked);
        }
        // Chess960 position with castling rights on non-standard files.
        let pos: Chess = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        walk(&Board::new(pos), 3, &mut checked);
        assert!(checked > 100_000);
    }
}
