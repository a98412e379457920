//! The network's inputs: 768 per perspective (piece colour relative to the
//! perspective, piece type, square), seen from each side as if it played
//! White (ranks flipped for Black) and mirrored so that the perspective's own
//! king stands on files e-h. King buckets split the inputs further by where
//! that king stands. The trainer (`tools/trainer`) uses these same functions,
//! so training and inference cannot disagree on an index.

use shakmaty::{Board, Color, Move, Piece, Role, Square};

/// Inputs per perspective and king bucket.
pub const INPUTS: usize = 768;

/// King buckets by the perspective's own king square, oriented (a1..h8 from
/// that side, files e-h after mirroring): index `rank * 4 + (file - 4)`.
pub type BucketLayout = [u8; 32];

/// How a perspective sees the board: its colour, whether files are mirrored
/// (its king is on files a-d), and its king bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    pub perspective: Color,
    pub mirrored: bool,
    pub bucket: usize,
}

impl View {
    /// No view yet (an accumulator never computed).
    pub const NONE: View = View {
        perspective: Color::White,
        mirrored: false,
        bucket: usize::MAX,
    };

    /// The view of `perspective` whose king stands on `king`.
    #[inline]
    pub fn new(perspective: Color, king: Square, layout: &BucketLayout) -> View {
        let oriented = orient_rank(perspective, king);
        let mirrored = (oriented.file() as usize) < 4;
        let sq = if mirrored {
            oriented.flip_horizontal()
        } else {
            oriented
        };
        let bucket = layout[sq.rank() as usize * 4 + (sq.file() as usize - 4)] as usize;
        View {
            perspective,
            mirrored,
            bucket,
        }
    }

    /// The view from `perspective` of a board (which must have that king).
    pub fn of_board(board: &Board, perspective: Color, layout: &BucketLayout) -> Option<View> {
        let king = (board.kings() & board.by_color(perspective)).first()?;
        Some(View::new(perspective, king, layout))
    }

    /// The input index of `piece` on `sq`.
    #[inline]
    pub fn index(&self, piece: Piece, sq: Square) -> usize {
        let mut sq = orient_rank(self.perspective, sq);
        if self.mirrored {
            sq = sq.flip_horizontal();
        }
        let relative = usize::from(piece.color != self.perspective);
        self.bucket * INPUTS + (relative * 6 + (piece.role as usize - 1)) * 64 + sq as usize
    }
}

#[inline]
fn orient_rank(perspective: Color, sq: Square) -> Square {
    match perspective {
        Color::White => sq,
        Color::Black => sq.flip_vertical(),
    }
}

/// The pieces a move takes away and puts down, so the inputs can be updated
/// instead of recomputed. At most two of each (castling; a capture with
/// promotion removes two and adds one).
#[derive(Clone, Copy, Debug)]
pub struct Delta {
    pub removed: [(Option<Piece>, Square); 2],
    pub added: [(Option<Piece>, Square); 2],
}

impl Delta {
    /// What `m`, played by `mover`, changes on the board.
    pub fn of_move(m: &Move, mover: Color) -> Delta {
        let own = |role| Some(Piece { color: mover, role });
        let theirs = |role| {
            Some(Piece {
                color: !mover,
                role,
            })
        };
        let none = (None, Square::A1);
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => Delta {
                removed: [(own(role), from), capture.map_or(none, |c| (theirs(c), to))],
                added: [(own(promotion.unwrap_or(role)), to), none],
            },
            Move::EnPassant { from, to } => Delta {
                removed: [
                    (own(Role::Pawn), from),
                    (
                        theirs(Role::Pawn),
                        Square::from_coords(to.file(), from.rank()),
                    ),
                ],
                added: [(own(Role::Pawn), to), none],
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
                }
            }
            Move::Put { role, to } => Delta {
                removed: [none, none],
                added: [(own(role), to), none],
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_BUCKET: BucketLayout = [0; 32];

    #[test]
    fn indices_are_in_range_and_distinct() {
        let mut layout = [0u8; 32];
        for (i, b) in layout.iter_mut().enumerate() {
            *b = (i / 8) as u8;
        }
        for king in Square::ALL {
            for perspective in [Color::White, Color::Black] {
                let view = View::new(perspective, king, &layout);
                assert!(view.bucket < 4);
                let mut seen = std::collections::HashSet::new();
                for sq in Square::ALL {
                    for color in [Color::White, Color::Black] {
                        for role in Role::ALL {
                            let i = view.index(Piece { color, role }, sq);
                            assert!(i < 4 * INPUTS);
                            assert!(seen.insert(i));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn perspectives_mirror_each_other() {
        // White's pawn on e4 seen by White with its king on g1 is Black's
        // pawn on e5 seen by Black with its king on g8.
        let w = View::new(Color::White, Square::G1, &ONE_BUCKET);
        let b = View::new(Color::Black, Square::G8, &ONE_BUCKET);
        let wp = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let bp = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        assert_eq!(w.index(wp, Square::E4), b.index(bp, Square::E5));
        // Kings on the queen side mirror the files: a king on b1 sees its
        // pawn on d2 where a king on g1 sees its pawn on e2.
        let q = View::new(Color::White, Square::B1, &ONE_BUCKET);
        assert!(q.mirrored && !w.mirrored);
        assert_eq!(q.index(wp, Square::D2), w.index(wp, Square::E2));
    }
}
