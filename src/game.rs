//! When a game is over by the rules, and its result: for the tools that
//! play games (datagen) and the openings they start from. The search has
//! its own draw rules (a repetition inside the search counts at once).

use shakmaty::{Color, KnownOutcome, Outcome, Position};

use crate::board::Board;

/// A game result from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl GameResult {
    /// The result as White's score: 1.0, 0.5 or 0.0.
    pub fn white_score(self) -> f32 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::Draw => 0.5,
            GameResult::BlackWins => 0.0,
        }
    }

    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// How many times the position of `board` occurred before, in `history`
/// (keys of the earlier positions of the game, oldest first), within the
/// reversible moves.
pub fn repetitions(board: &Board, history: &[u64]) -> usize {
    let reach = (board.pos.halfmoves() as usize).min(history.len());
    let n = history.len();
    (2..=reach)
        .step_by(2)
        .filter(|&d| history[n - d] == board.key)
        .count()
}

/// The result, if the game is over by the rules: checkmate, stalemate,
/// insufficient material, threefold repetition or the fifty-move rule.
pub fn game_over(board: &Board, history: &[u64]) -> Option<GameResult> {
    match board.pos.outcome() {
        Outcome::Known(KnownOutcome::Decisive { winner }) => {
            return Some(GameResult::win_for(winner));
        }
        Outcome::Known(KnownOutcome::Draw) => return Some(GameResult::Draw),
        Outcome::Unknown => {}
    }
    // Checkmate was tested first: it takes precedence over the 50-move rule.
    if board.pos.halfmoves() >= 100 || repetitions(board, history) >= 2 {
        return Some(GameResult::Draw);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse_book_line;
    use shakmaty::uci::UciMove;
    use shakmaty::{Chess, Move};

    fn position(fen: &str) -> Chess {
        parse_book_line(fen).unwrap()
    }

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    #[test]
    fn threefold_repetition_and_fifty_moves() {
        let mut board = Board::new(Chess::default());
        let mut history = Vec::new();
        for _ in 0..2 {
            for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
                assert!(game_over(&board, &history).is_none());
                let m = mv(&board.pos, uci);
                history.push(board.key);
                board = board.play(m);
            }
        }
        assert_eq!(repetitions(&board, &history), 2);
        assert_eq!(game_over(&board, &history), Some(GameResult::Draw));

        let fifty = Board::new(position("8/8/4k3/8/8/3QK3/8/8 w - - 100 80"));
        assert_eq!(game_over(&fifty, &[]), Some(GameResult::Draw));
        let mate = Board::new(position("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80"));
        assert_eq!(game_over(&mate, &[]), Some(GameResult::WhiteWins));
        let bare = Board::new(position("8/8/4k3/8/8/3NK3/8/8 w - - 0 1"));
        assert_eq!(game_over(&bare, &[]), Some(GameResult::Draw));
    }
}
