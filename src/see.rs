//! Static exchange evaluation: the material balance of the capture sequence
//! on one square when both sides always recapture with their least valuable
//! piece, and may stop when continuing would lose.

use shakmaty::attacks::{bishop_attacks, rook_attacks};
use shakmaty::{Bitboard, Chess, Color, Move, Position, Role};

/// Exchange values; the king is worth more than anything it could win.
pub fn see_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 20_000,
    }
}

/// Whether the exchange started by `m` gains at least `threshold`.
/// Castling counts as neutral; promotions are judged as the capture alone
/// (the promotion is a gain the search sees anyway).
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (from, to, captured) = match m {
        Move::Normal {
            from, to, capture, ..
        } => (from, to, capture),
        Move::EnPassant { .. } => return see_value(Role::Pawn) >= threshold,
        _ => return 0 >= threshold,
    };
    let board = pos.board();
    // What we win if the opponent does not recapture...
    let mut swap = captured.map_or(0, see_value) - threshold;
    if swap < 0 {
        return false;
    }
    // ...and what we still have if they recapture the moving piece for free.
    swap = see_value(m.role()) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(to);
    let mut attackers =
        board.attacks_to(to, Color::White, occupied) | board.attacks_to(to, Color::Black, occupied);
    let diagonal = board.bishops_and_queens();
    let straight = board.rooks_and_queens();
    let mut side = pos.turn();
    // 1 while the side that made the last capture is winning the exchange.
    let mut result = 1;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        result ^= 1;
        // The least valuable attacker recaptures.
        let Some((role, sq)) = [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ]
        .into_iter()
        .find_map(|role| (ours & board.by_role(role)).first().map(|sq| (role, sq))) else {
            break;
        };
        if role == Role::King {
            // The king may only take last: if the other side still has an
            // attacker, the capture is illegal and the exchange ends.
            if (attackers & board.by_color(!side)).any() {
                result ^= 1;
            }
            break;
        }
        swap = see_value(role) - swap;
        if swap < result {
            break;
        }
        occupied ^= Bitboard::from(sq);
        // Sliders behind the piece just used join in (x-rays).
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & straight;
        }
    }
    result == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;
    use shakmaty::CastlingMode;

    fn check(fen: &str, uci: &str, value: i32) {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        assert!(see_ge(&pos, m, value), "{fen} {uci}: expected >= {value}");
        assert!(
            !see_ge(&pos, m, value + 1),
            "{fen} {uci}: expected exactly {value}"
        );
    }

    #[test]
    fn exchange_values() {
        // Undefended pawn.
        check(
            "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1",
            "e1e5",
            100,
        );
        // Knight takes a pawn defended twice: the knight is lost for the pawn.
        check(
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            "d3e5",
            100 - 320,
        );
        // Pawn takes a defended knight: wins a knight for a pawn.
        check("4k3/8/2n1p3/3P4/8/8/8/4K3 w - - 0 1", "d5c6", 320);
        check("4k3/3p4/2n5/3P4/8/8/8/4K3 w - - 0 1", "d5c6", 320 - 100);
        // Rook takes a rook defended by a queen, backed by a second rook (x-ray).
        check("3qk3/8/8/3r4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 500);
        // Rook takes a pawn defended by a rook with a rook behind it: the
        // second black rook joins through the first (an x-ray), so the
        // exchange loses the rook for the pawn.
        check("3rk3/3r4/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100 - 500);
        // Queen takes a pawn that only the king defends, with a rook behind
        // the queen: the king may not recapture, so the pawn is won.
        check("8/8/4k3/3p4/8/8/3Q4/3RK3 w - - 0 1", "d2d5", 100);
        // Quiet move to an attacked square loses the piece.
        check("4k3/8/4p3/8/8/8/8/3NK3 w - - 0 1", "d1c3", 0);
        check("4k3/4p3/8/8/2N5/8/8/4K3 w - - 0 1", "c4d6", -320);
    }
}
