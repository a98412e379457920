//! What the terms share: the attack maps of both sides, the king zones and
//! the game phase, computed once per evaluation.

use shakmaty::attacks::king_attacks;
use shakmaty::{Board, Color, Role, Square};

use super::bits::{forward, pawn_attacks_bb};
use super::MAX_PHASE;

/// Attack maps and king-attack tallies shared by the terms. Arrays are
/// indexed by `Color as usize`; `attacked_by` by `Role as usize - 1`.
pub struct Info {
    pub occupied: u64,
    pub pieces: [u64; 2],
    pub pawns: [u64; 2],
    pub king_sq: [Square; 2],
    pub attacked_by: [[u64; 6]; 2],
    /// Squares attacked by any piece of the side.
    pub attacked: [u64; 2],
    /// Squares attacked at least twice.
    pub attacked2: [u64; 2],
    pub king_zone: [u64; 2],
    pub mobility_area: [u64; 2],
    /// Pieces of a side attacking the enemy king zone, by role (N, B, R, Q).
    pub zone_attackers: [[i32; 4]; 2],
    /// Attacks of a side's pieces on enemy king-zone squares.
    pub zone_attacks: [i32; 2],
    /// A side's knights and bishops attacking its own king zone.
    pub defenders: [i32; 2],
    pub phase: i32,
}

impl Info {
    /// The squares the pieces of one role of side `c` attack.
    #[inline]
    pub fn attacks_by(&self, c: usize, role: Role) -> u64 {
        self.attacked_by[c][role as usize - 1]
    }

    /// The pieces of one role (knight to queen) of side `c` that attack
    /// the enemy king zone.
    #[inline]
    pub fn zone_attackers_by(&self, c: usize, role: Role) -> i32 {
        self.zone_attackers[c][role as usize - Role::Knight as usize]
    }

    pub(super) fn new(board: &Board) -> Info {
        let mut info = Info {
            occupied: board.occupied().0,
            pieces: [board.black().0, board.white().0],
            pawns: [
                board.by_piece(Role::Pawn.of(Color::Black)).0,
                board.by_piece(Role::Pawn.of(Color::White)).0,
            ],
            king_sq: [Square::E8, Square::E1],
            attacked_by: [[0; 6]; 2],
            attacked: [0; 2],
            attacked2: [0; 2],
            king_zone: [0; 2],
            mobility_area: [0; 2],
            zone_attackers: [[0; 4]; 2],
            zone_attacks: [0; 2],
            defenders: [0; 2],
            phase: 0,
        };
        for color in Color::ALL {
            let c = color as usize;
            let ksq = board.king_of(color).unwrap_or(info.king_sq[c]);
            info.king_sq[c] = ksq;
            let pawn_att = pawn_attacks_bb(color, info.pawns[c]);
            let king_att = king_attacks(ksq).0;
            info.attacked_by[c][0] = pawn_att;
            info.attacked_by[c][5] = king_att;
            info.attacked[c] = pawn_att | king_att;
            info.attacked2[c] = pawn_att & king_att;
            let around = king_att | (1u64 << ksq as usize);
            info.king_zone[c] = around | forward(color, around);
        }
        for color in Color::ALL {
            let c = color as usize;
            let them = !color as usize;
            info.mobility_area[c] = !info.pieces[c] & !info.attacked_by[them][0];
        }
        let minors = (board.knights() | board.bishops()).count() as i32;
        let rooks = board.rooks().count() as i32;
        let queens = board.queens().count() as i32;
        info.phase = (minors + 2 * rooks + 4 * queens).min(MAX_PHASE);
        info
    }
}
