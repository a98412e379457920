//! King safety: pawn shelter and pawn storm (linear weights) and the king
//! danger, a weighted sum of attack features sent through a non-linear
//! curve (all weights in `params`).

use shakmaty::attacks::{bishop_attacks, knight_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Color, Role};

use super::params::{
    idx, kd, s, KD_EG_DIV, KD_MAX, KD_MG_DIV, KD_NO_QUEEN_SCALE, KING_DANGER, S, VALUES,
};
use super::{file_bb, Acc, Info, Tracer};

/// Everything about one king's safety, for the trace and the tuner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KingInfo {
    /// Inputs of the danger sum, indexed by the constants in `params::kd`.
    pub inputs: [i32; kd::COUNT],
    /// Whether the attacking side has a queen (else the danger is scaled).
    pub attacker_has_queen: bool,
    /// Enemy pieces attacking the zone (all types).
    pub zone_attackers: i32,
    /// Linear shelter and storm scores (already in the King row).
    pub shelter: S,
    pub storm: S,
    /// Danger after queen scaling and clamping.
    pub danger: i32,
    /// The non-linear penalty (negative for the king's side).
    pub penalty: S,
}

/// Danger after the queen scaling and the clamp.
pub fn danger(inputs: &[i32; kd::COUNT], attacker_has_queen: bool) -> i32 {
    let mut raw = 0;
    for (w, x) in KING_DANGER.iter().zip(inputs.iter()) {
        raw += w * x;
    }
    if !attacker_has_queen {
        raw = raw * KD_NO_QUEEN_SCALE / 128;
    }
    raw.clamp(0, KD_MAX)
}

/// The king-safety penalty for a given danger.
pub fn penalty(danger: i32) -> S {
    s(-danger * danger / KD_MG_DIV, -danger / KD_EG_DIV)
}

/// Squares strictly ahead of rank `rank` (0..7, absolute) from `color`'s side.
#[inline(always)]
fn ahead_of_rank(color: Color, rank: usize) -> u64 {
    match color {
        Color::White => {
            if rank == 7 {
                0
            } else {
                u64::MAX << (8 * (rank + 1))
            }
        }
        Color::Black => (1u64 << (8 * rank)) - 1,
    }
}

/// Of a set of squares ahead of a king, the one nearest to it.
#[inline(always)]
fn nearest(color: Color, bb: u64) -> usize {
    match color {
        Color::White => bb.trailing_zeros() as usize,
        Color::Black => 63 - bb.leading_zeros() as usize,
    }
}

/// King safety of `defender`'s king (added to `defender`'s score).
pub fn king_safety<T: Tracer>(acc: &mut Acc<T>, board: &Board, info: &Info, defender: Color) {
    let d = defender as usize;
    let attacker = !defender;
    let a = attacker as usize;
    let ksq = info.king_sq[d];
    let kfile = ksq.file() as usize;
    let krank = ksq.rank() as usize;
    let ahead = ahead_of_rank(defender, krank);
    let own_pawns = info.pawns[d];
    let enemy_pawns = info.pawns[a];

    let mut shelter = S::default();
    let mut storm = S::default();
    let mut open = 0;
    let mut half_open = 0;
    for f in kfile.saturating_sub(1)..=(kfile + 1).min(7) {
        let file = file_bb(f);
        let king_file = usize::from(f == kfile);
        let ours = own_pawns & file & ahead;
        let dist = if ours != 0 {
            (nearest(defender, ours) / 8).abs_diff(krank).min(7)
        } else {
            0
        };
        let index = idx::SHELTER + king_file * 8 + dist;
        acc.add(defender, index, 1);
        shelter += VALUES[index];

        let theirs = enemy_pawns & file & ahead;
        if theirs != 0 {
            let sq = nearest(defender, theirs);
            let dist = (sq / 8).abs_diff(krank).min(7);
            // The square in front of the storm pawn, towards our king.
            let front = match defender {
                Color::White => sq.checked_sub(8),
                Color::Black => Some(sq + 8).filter(|&x| x < 64),
            };
            let blocked = front.is_some_and(|x| own_pawns & (1u64 << x) != 0);
            let index = idx::STORM + usize::from(blocked) * 8 + dist;
            acc.add(defender, index, 1);
            storm += VALUES[index];
        }
        if own_pawns & file == 0 {
            if enemy_pawns & file == 0 {
                open += 1;
            } else {
                half_open += 1;
            }
        }
    }

    // Safe checks: check squares the attacker reaches, not occupied by its
    // own pieces, not defended by the defender's other pieces, and not
    // defended by the king unless the attacker hits them twice.
    let occ = Bitboard(info.occupied);
    let by = |side: usize, role: Role| info.attacks_by(side, role);
    let defended = by(d, Role::Pawn)
        | by(d, Role::Knight)
        | by(d, Role::Bishop)
        | by(d, Role::Rook)
        | by(d, Role::Queen);
    let safe = !info.pieces[a] & !defended & (!by(d, Role::King) | info.attacked2[a]);
    let knight_checks = knight_attacks(ksq).0;
    let bishop_checks = bishop_attacks(ksq, occ).0;
    let rook_checks = rook_attacks(ksq, occ).0;
    let count = |bb: u64| (bb & safe).count_ones().min(2) as i32;
    let safe_n = count(knight_checks & by(a, Role::Knight));
    let safe_b = count(bishop_checks & by(a, Role::Bishop));
    let safe_r = count(rook_checks & by(a, Role::Rook));
    let safe_q = count((bishop_checks | rook_checks) & by(a, Role::Queen));

    // Zone squares the attacker hits that only the king or queen defends.
    let weak = info.king_zone[d]
        & info.attacked[a]
        & !(by(d, Role::Pawn) | by(d, Role::Knight) | by(d, Role::Bishop) | by(d, Role::Rook));

    let mut inputs = [0; kd::COUNT];
    inputs[kd::KNIGHT_ATTACKER] = info.zone_attackers_by(a, Role::Knight);
    inputs[kd::BISHOP_ATTACKER] = info.zone_attackers_by(a, Role::Bishop);
    inputs[kd::ROOK_ATTACKER] = info.zone_attackers_by(a, Role::Rook);
    inputs[kd::QUEEN_ATTACKER] = info.zone_attackers_by(a, Role::Queen);
    inputs[kd::ZONE_ATTACKS] = info.zone_attacks[a];
    inputs[kd::SAFE_KNIGHT_CHECK] = safe_n;
    inputs[kd::SAFE_BISHOP_CHECK] = safe_b;
    inputs[kd::SAFE_ROOK_CHECK] = safe_r;
    inputs[kd::SAFE_QUEEN_CHECK] = safe_q;
    inputs[kd::WEAK_SQUARES] = weak.count_ones() as i32;
    inputs[kd::OPEN_FILE] = open;
    inputs[kd::HALF_OPEN_FILE] = half_open;
    inputs[kd::DEFENDERS] = info.defenders[d];
    inputs[kd::BASE] = 1;
    let attacker_has_queen = board.by_piece(Role::Queen.of(attacker)).any();
    let danger = danger(&inputs, attacker_has_queen);
    let penalty = penalty(danger);
    acc.score[d] += penalty;
    if T::ACTIVE {
        acc.tracer.king(
            defender,
            &KingInfo {
                inputs,
                attacker_has_queen,
                zone_attackers: info.zone_attackers[a].iter().sum(),
                shelter,
                storm,
                danger,
                penalty,
            },
        );
    }
}
