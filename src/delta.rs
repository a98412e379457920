//! What a move changes on the board: the pieces it takes away and puts
//! down. The net's inputs are updated from it instead of recomputed, and
//! the Zobrist key of the child is the parent's with those pieces' terms
//! exchanged (`Board::key_after`).

use shakmaty::{Color, Move, Piece, Role, Square};

/// The pieces a move takes away and puts down. At most two of each
/// (castling; a capture with promotion removes two and adds one); `shape`
/// says how many, so that a net's update runs unrolled for exactly its
/// columns.
#[derive(Clone, Copy, Debug)]
pub struct Delta {
    /// The move's first, as many as `shape` says; the rest only fill.
    pub removed: [(Piece, Square); 2],
    /// The same for the pieces put down.
    pub added: [(Piece, Square); 2],
    pub shape: Shape,
}

/// How many pieces a move puts down and takes away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One each way: a quiet move or a promotion without capture.
    Quiet,
    /// One put down, two taken away: a capture (en passant included).
    Capture,
    /// Two each way: castling.
    Castle,
    /// One put down, none taken away (a drop, in variants with them).
    Drop,
}

impl Delta {
    /// What `m`, played by `mover`, changes on the board.
    pub fn of_move(m: &Move, mover: Color) -> Delta {
        let own = |role| Piece { color: mover, role };
        let theirs = |role| Piece {
            color: !mover,
            role,
        };
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                let put = (own(promotion.unwrap_or(role)), to);
                match capture {
                    Some(c) => Delta {
                        removed: [(own(role), from), (theirs(c), to)],
                        added: [put, put],
                        shape: Shape::Capture,
                    },
                    None => Delta {
                        removed: [(own(role), from); 2],
                        added: [put, put],
                        shape: Shape::Quiet,
                    },
                }
            }
            Move::EnPassant { from, to } => Delta {
                removed: [
                    (own(Role::Pawn), from),
                    (
                        theirs(Role::Pawn),
                        Square::from_coords(to.file(), from.rank()),
                    ),
                ],
                added: [(own(Role::Pawn), to); 2],
                shape: Shape::Capture,
            },
            Move::Castle { king, rook } => {
                let kingside = rook.file() > king.file();
                let (king_file, rook_file) = if kingside {
                    (shakmaty::File::G, shakmaty::File::F)
                } else {
                    (shakmaty::File::C, shakmaty::File::D)
                };
                Delta {
                    removed: [(own(Role::King), king), (own(Role::Rook), rook)],
                    added: [
                        (own(Role::King), Square::from_coords(king_file, king.rank())),
                        (own(Role::Rook), Square::from_coords(rook_file, king.rank())),
                    ],
                    shape: Shape::Castle,
                }
            }
            Move::Put { role, to } => Delta {
                removed: [(own(role), to); 2],
                added: [(own(role), to); 2],
                shape: Shape::Drop,
            },
        }
    }
}
