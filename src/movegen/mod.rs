//! Captures and queen promotions for the quiescence search, and the quiet
//! moves for the move picker's quiet stage, generated directly from
//! shakmaty's attack tables.
//!
//! shakmaty's `capture_moves()` builds every legal move and then filters
//! them; quiescence nodes need only the few captures, so generating just
//! those (and checking pins by hand) saves most of the work there. The
//! quiet stage likewise needs only the quiet moves, and gets them in the
//! order shakmaty's `legal_moves()` would list them, so that the picker's
//! order among equally scored moves does not depend on which generator
//! made them. Only for positions where the side to move is not in check:
//! evasions use the full legal move list.
//!
//! Also [`gives_check`], which tells from the bitboards whether a move
//! gives check, without playing it (late-move pruning spares the checks),
//! and [`CheckSquares`], the same answer from squares computed once per
//! position, for a node that asks it of many moves; and [`threats`], the
//! squares the opponent attacks, which index the quiet history.

use shakmaty::attacks::{
    aligned, between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks,
    rook_attacks,
};
use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, File, Move, MoveList, Position, Rank, Role, Square,
};

/// Every square a piece of the opponent of the side to move attacks: its
/// pawns' captures and its pieces' moves through the current occupancy,
/// squares of its own pieces included. Where a piece of the side to move
/// stands or lands on one, it can be taken (defended or not): the quiet
/// history keeps such moves apart.
pub fn threats(pos: &Chess) -> Bitboard {
    let board = pos.board();
    let them = !pos.turn();
    let theirs = board.by_color(them);
    let occupied = board.occupied();
    // The pawns all at once: a capture to the west leaves the a-file
    // behind, one to the east the h-file.
    let pawns = board.pawns() & theirs;
    let (west, east) = (
        pawns & !Bitboard::from_file(File::A),
        pawns & !Bitboard::from_file(File::H),
    );
    let mut attacked = match them {
        Color::White => west.shift(7) | east.shift(9),
        Color::Black => west.shift(-9) | east.shift(-7),
    };
    for sq in board.knights() & theirs {
        attacked |= knight_attacks(sq);
    }
    for sq in board.bishops_and_queens() & theirs {
        attacked |= bishop_attacks(sq, occupied);
    }
    for sq in board.rooks_and_queens() & theirs {
        attacked |= rook_attacks(sq, occupied);
    }
    if let Some(king) = board.king_of(them) {
        attacked |= king_attacks(king);
    }
    attacked
}

/// The squares from which a pawn of `us` could capture one of `theirs` or
/// push to the last rank onto an empty square: one shift per direction for
/// all pawns at once, so that the pawn loop of `noisy_moves` visits only
/// the few pawns with a noisy move (in the same order).
#[inline]
fn noisy_pawn_candidates(us: Color, theirs: Bitboard, occupied: Bitboard) -> Bitboard {
    let not_a = !Bitboard::from_file(File::A).0;
    let not_h = !Bitboard::from_file(File::H).0;
    let (theirs, empty) = (theirs.0, !occupied.0);
    Bitboard(match us {
        // A white pawn on s takes on s + 7 (not from the a-file) and s + 9
        // (not from the h-file), and pushes to s + 8.
        Color::White => {
            ((theirs & not_h) >> 7)
                | ((theirs & not_a) >> 9)
                | ((empty & Bitboard::from_rank(Rank::Eighth).0) >> 8)
        }
        Color::Black => {
            ((theirs & not_h) << 9)
                | ((theirs & not_a) << 7)
                | ((empty & Bitboard::from_rank(Rank::First).0) << 8)
        }
    })
}

/// Appends every legal capture, every capture-promotion and every push
/// promotion to a queen (no under-promotions) to `moves`.
pub fn noisy_moves(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let us = pos.turn();
    let them_color = !us;
    let ours = board.by_color(us);
    let theirs = board.by_color(them_color);
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return;
    };
    let pinned = pinned_pieces(pos, king);
    let legal_from = |from: Square, to: Square| !pinned.contains(from) || aligned(from, to, king);

    // Pawns: diagonal captures (promoting to a queen on the last rank) and
    // straight pushes onto the last rank.
    let promotion_rank = match us {
        Color::White => Bitboard::from_rank(shakmaty::Rank::Eighth),
        Color::Black => Bitboard::from_rank(shakmaty::Rank::First),
    };
    for from in board.pawns() & ours & noisy_pawn_candidates(us, theirs, occupied) {
        for to in pawn_attacks(us, from) & theirs {
            if legal_from(from, to) {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: promotion_rank.contains(to).then_some(Role::Queen),
                });
            }
        }
        let push = match us {
            Color::White => from.offset(8),
            Color::Black => from.offset(-8),
        };
        if let Some(to) = push {
            if promotion_rank.contains(to) && !occupied.contains(to) && legal_from(from, to) {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: None,
                    to,
                    promotion: Some(Role::Queen),
                });
            }
        }
    }
    en_passant_moves(pos, moves);

    for (role, pieces) in [
        (Role::Knight, board.knights() & ours),
        (Role::Bishop, board.bishops() & ours),
        (Role::Rook, board.rooks() & ours),
        (Role::Queen, board.queens() & ours),
    ] {
        for from in pieces {
            let targets = match role {
                Role::Knight => knight_attacks(from),
                Role::Bishop => bishop_attacks(from, occupied),
                Role::Rook => rook_attacks(from, occupied),
                _ => queen_attacks(from, occupied),
            } & theirs;
            for to in targets {
                if legal_from(from, to) {
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion: None,
                    });
                }
            }
        }
    }

    // The king may take anything not defended, looking through its own square.
    let without_king = occupied.without(king);
    for to in king_attacks(king) & theirs {
        if board.attacks_to(to, them_color, without_king).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
}

/// Whether `m` is legal in `pos`: the same answer as shakmaty's
/// `is_legal`, which builds the legal moves of the piece's kind to the
/// target square and looks for `m` among them. A normal move or castling is
/// judged here on the bitboards, in check too, for the table move and the
/// killers of every node; en passant by the generator's answer.
pub fn is_legal(pos: &Chess, m: Move) -> bool {
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(us) else {
        return pos.is_legal(m);
    };
    let checkers = pos.checkers();
    let (role, from, capture, to, promotion) = match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => (role, from, capture, to, promotion),
        Move::Castle { king: k, rook } => {
            let side = CastlingSide::from_king_side(k < rook);
            // (Not in check: castling_move tests the king's square too.)
            return castling_move(pos, king, side) == Some(m);
        }
        Move::EnPassant { .. } => {
            let mut moves = MoveList::new();
            en_passant_moves(pos, &mut moves);
            return moves.contains(&m);
        }
        Move::Put { .. } => return false,
    };
    if board.piece_at(from) != Some(role.of(us)) {
        return false;
    }
    // The target holds what the move says it takes (of theirs), or nothing.
    let target = board.piece_at(to);
    if target.map(|p| p.role) != capture || target.is_some_and(|p| p.color == us) {
        return false;
    }
    let occupied = board.occupied();
    let last_rank = match us {
        Color::White => Rank::Eighth,
        Color::Black => Rank::First,
    };
    let reaches = match role {
        Role::Pawn => {
            let promotes = to.rank() == last_rank;
            let promotion_ok = match promotion {
                None => !promotes,
                Some(r) => promotes && !matches!(r, Role::Pawn | Role::King),
            };
            let (up, double_rank) = match us {
                Color::White => (8, Rank::Fourth),
                Color::Black => (-8, Rank::Fifth),
            };
            let step = if capture.is_some() {
                pawn_attacks(us, from).contains(to)
            } else if from.offset(up) == Some(to) {
                true
            } else {
                from.offset(2 * up) == Some(to)
                    && to.rank() == double_rank
                    && from.offset(up).is_some_and(|mid| !occupied.contains(mid))
            };
            promotion_ok && step
        }
        _ if promotion.is_some() => false,
        Role::Knight => knight_attacks(from).contains(to),
        Role::Bishop => bishop_attacks(from, occupied).contains(to),
        Role::Rook => rook_attacks(from, occupied).contains(to),
        Role::Queen => queen_attacks(from, occupied).contains(to),
        Role::King => {
            // Without the king on its square: a slider that checks it
            // along a line also attacks the square behind it.
            return king_attacks(from).contains(to)
                && board.attacks_to(to, !us, occupied.without(from)).is_empty();
        }
    };
    // In check, another piece must take the only checker or step between it
    // and the king.
    let answers_check = match checkers.single_square() {
        _ if checkers.is_empty() => true,
        Some(checker) => to == checker || between(king, checker).contains(to),
        None => false,
    };
    reaches
        && answers_check
        && (!pinned_pieces(pos, king).contains(from) || aligned(from, to, king))
}

/// Appends every legal en-passant capture to `moves`, by origin square as
/// shakmaty lists them (its own `en_passant_moves()` builds the whole legal
/// move list to filter it). An en-passant capture is legal when, with both
/// pawns gone from their squares and ours on the target, nothing but the
/// captured pawn attacks our king: this also settles a check, whichever
/// piece gives it.
pub fn en_passant_moves(pos: &Chess, moves: &mut MoveList) {
    let Some(to) = pos.maybe_ep_square() else {
        return;
    };
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(us) else {
        return;
    };
    for from in board.pawns() & board.by_color(us) & pawn_attacks(!us, to) {
        let captured = Square::from_coords(to.file(), from.rank());
        let occupied = board.occupied().without(from).without(captured).with(to);
        if board
            .attacks_to(king, !us, occupied)
            .without(captured)
            .is_empty()
        {
            moves.push(Move::EnPassant { from, to });
        }
    }
}

/// Appends every legal quiet move (neither a capture nor a promotion) to
/// `moves`, in the order of shakmaty's `legal_moves()`: pawn single steps,
/// double steps, knight, bishop, rook, queen and king moves (by origin,
/// then destination square), king-side castling, queen-side castling.
pub fn quiet_moves(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let us = pos.turn();
    let ours = board.by_color(us);
    let occupied = board.occupied();
    let empty = !occupied;
    let Some(king) = board.king_of(us) else {
        return;
    };
    let pinned = pinned_pieces(pos, king);
    let legal_from = |from: Square, to: Square| !pinned.contains(from) || aligned(from, to, king);
    let mut push = |role: Role, from: Square, to: Square| {
        if legal_from(from, to) {
            moves.push(Move::Normal {
                role,
                from,
                capture: None,
                to,
                promotion: None,
            });
        }
    };

    let (up, last_rank, double_rank) = match us {
        Color::White => (8, Rank::Eighth, Rank::Fourth),
        Color::Black => (-8, Rank::First, Rank::Fifth),
    };
    let single = (board.pawns() & ours).shift(up) & empty;
    let double = single.shift(up) & Bitboard::from_rank(double_rank) & empty;
    for (targets, back) in [
        (single & !Bitboard::from_rank(last_rank), up),
        (double, 2 * up),
    ] {
        for to in targets {
            if let Some(from) = to.offset(-back) {
                push(Role::Pawn, from, to);
            }
        }
    }

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.by_role(role) & ours {
            let targets = match role {
                Role::Knight => knight_attacks(from),
                Role::Bishop => bishop_attacks(from, occupied),
                Role::Rook => rook_attacks(from, occupied),
                _ => queen_attacks(from, occupied),
            } & empty;
            for to in targets {
                push(role, from, to);
            }
        }
    }

    // Not in check, so no slider sees the king: nothing hides behind it.
    for to in king_attacks(king) & empty {
        if board.attacks_to(to, !us, occupied).is_empty() {
            push(Role::King, king, to);
        }
    }

    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        if let Some(m) = castling_move(pos, king, side) {
            moves.push(m);
        }
    }
}

/// The castling move to `side`, if it is legal: the right is kept, the
/// squares between king and rook are free (but for those two), no square
/// the king crosses or lands on is attacked, and none would be once the
/// rook has moved (Chess960: the rook may have shielded the king's target).
fn castling_move(pos: &Chess, king: Square, side: CastlingSide) -> Option<Move> {
    let us = pos.turn();
    let castles = pos.castles();
    let rook = castles.rook(us, side)?;
    let occupied = pos.board().occupied();
    if (castles.path(us, side) & occupied).any() {
        return None;
    }
    let king_to = side.king_to(us);
    let after = occupied
        .toggled(king)
        .toggled(rook)
        .toggled(side.rook_to(us));
    if pos.king_attackers(king_to, !us, after).any() {
        return None;
    }
    let without_king = occupied.toggled(king);
    for sq in between(king, king_to).with(king) {
        if pos.king_attackers(sq, !us, without_king).any() {
            return None;
        }
    }
    Some(Move::Castle { king, rook })
}

/// Our pieces that stand alone between our king and an enemy slider.
fn pinned_pieces(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let them = board.by_color(!pos.turn());
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens() & them)
        | (bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens() & them);
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let blockers = between(king, sniper) & board.occupied();
        if let Some(sq) = blockers.single_square() {
            if pos.us().contains(sq) {
                pinned.add(sq);
            }
        }
    }
    pinned
}

/// Whether `m`, legal in `pos`, gives check: by the piece moved (or the
/// promoted one) from its new square, or by a slider of ours it uncovers.
/// Cheaper than playing the move; castling and en passant, which move two
/// pieces, are played.
pub fn gives_check(pos: &Chess, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = m
    else {
        let mut after = pos.clone();
        after.play_unchecked(m);
        return after.is_check();
    };
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let occupied = board.occupied().without(from).with(to);
    let direct = match promotion.unwrap_or(role) {
        Role::Pawn => pawn_attacks(us, to),
        Role::Knight => knight_attacks(to),
        Role::Bishop => bishop_attacks(to, occupied),
        Role::Rook => rook_attacks(to, occupied),
        Role::Queen => queen_attacks(to, occupied),
        Role::King => Bitboard::EMPTY,
    };
    if direct.contains(king) {
        return true;
    }
    // The moved piece is accounted for; what it leaves behind may see the
    // king now.
    let ours = board.by_color(us).without(from);
    let uncovered = (bishop_attacks(king, occupied) & board.bishops_and_queens())
        | (rook_attacks(king, occupied) & board.rooks_and_queens());
    (uncovered & ours).any()
}

/// What settles, for every move of the side to move in one position,
/// whether it gives check, computed once for the position: the squares
/// from which each kind of piece of ours would attack their king, and our
/// pieces that alone stand between one of our sliders and their king (a
/// move of one off that line uncovers a check). A normal move is then
/// answered by two lookups; promotions (the promoted piece may look
/// through the square the pawn leaves), castling and en passant by
/// [`gives_check`].
#[derive(Clone, Copy, Debug)]
pub struct CheckSquares {
    /// Their king's square (any square when there is none: nothing checks).
    king: Square,
    /// By role, pawn first: the squares a piece of that role of ours
    /// checks from. Sliders' squares are computed with our piece still on
    /// its square: a slider that stood between its target and the king
    /// would already give check, which a legal position rules out.
    by_role: [Bitboard; 6],
    /// Our pieces that alone block one of our sliders from their king.
    blockers: Bitboard,
}

impl CheckSquares {
    pub fn new(pos: &Chess) -> CheckSquares {
        let board = pos.board();
        let us = pos.turn();
        let Some(king) = board.king_of(!us) else {
            return CheckSquares {
                king: Square::A1,
                by_role: [Bitboard::EMPTY; 6],
                blockers: Bitboard::EMPTY,
            };
        };
        let occupied = board.occupied();
        let ours = board.by_color(us);
        let diagonal = bishop_attacks(king, occupied);
        let straight = rook_attacks(king, occupied);
        let snipers = ((bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
            | (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()))
            & ours;
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            if let Some(sq) = (between(king, sniper) & occupied).single_square() {
                if ours.contains(sq) {
                    blockers.add(sq);
                }
            }
        }
        CheckSquares {
            king,
            by_role: [
                pawn_attacks(!us, king),
                knight_attacks(king),
                diagonal,
                straight,
                diagonal | straight,
                Bitboard::EMPTY,
            ],
            blockers,
        }
    }

    /// Whether `m`, legal in `pos` (the position these squares were
    /// computed for), gives check: [`gives_check`]'s answer.
    #[inline]
    pub fn gives_check(&self, pos: &Chess, m: Move) -> bool {
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            } => {
                self.by_role[role as usize - 1].contains(to)
                    || (self.blockers.contains(from) && !aligned(from, to, self.king))
            }
            _ => gives_check(pos, m),
        }
    }
}

#[cfg(test)]
mod tests;
