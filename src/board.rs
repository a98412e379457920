//! The position the engine searches: a shakmaty `Chess` plus its Zobrist key,
//! kept up to date incrementally where shakmaty can, recomputed where it cannot.

use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Move, Position};

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

    /// Plays a legal move (copy-make: `self` is the parent, the child is returned).
    #[inline]
    pub fn play(&self, m: Move) -> Board {
        let mut pos = self.pos.clone();
        // shakmaty only updates the key incrementally for the common case
        // (no en-passant square before or after, no castling-right change);
        // the rest falls back to the full computation.
        let incremental =
            self.pos
                .update_zobrist_hash(Zobrist64(self.key), m, EnPassantMode::Legal);
        pos.play_unchecked(m);
        let key = match incremental {
            Some(Zobrist64(k)) => k,
            None => full_key(&pos),
        };
        Board { pos, key }
    }

    /// The position with the other side to move and no en-passant square
    /// (a "null move"), for null-move pruning. The halfmove clock restarts so
    /// that no repetition is ever counted across the null move.
    pub fn play_null(&self) -> Option<Board> {
        let mut setup = self.pos.to_setup(EnPassantMode::Always);
        setup.swap_turn();
        setup.halfmoves = 0;
        let pos = Chess::from_setup(setup, self.pos.castles().mode()).ok()?;
        Some(Board::new(pos))
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
    /// maintained key always equals the key computed from scratch.
    fn walk(board: &Board, depth: u32, checked: &mut u64) {
        assert_eq!(
            board.key,
            full_key(&board.pos),
            "key drift at {:?}",
            board.pos
        );
        *checked += 1;
        if depth == 0 {
            return;
        }
        for m in board.pos.legal_moves() {
            walk(&board.play(m), depth - 1, checked);
        }
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
