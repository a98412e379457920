//! The network's inputs: 768 per perspective (piece colour relative to the
//! perspective, piece type, square), seen from each side as if it played
//! White (ranks flipped for Black) and mirrored so that the perspective's own
//! king stands on files e-h. King buckets split the inputs further by where
//! that king stands. The trainer (`tools/trainer`) uses these same functions,
//! so training and inference cannot disagree on an index.

use shakmaty::{Board, Color, Piece, Square};

/// Inputs per perspective and king bucket.
pub const INPUTS: usize = 768;

const _: () = assert!(32 * INPUTS <= u16::MAX as usize, "a view's base fits u16");

/// King buckets by the perspective's own king square, oriented (a1..h8 from
/// that side, files e-h after mirroring): index `rank * 4 + (file - 4)`.
/// A net's file carries its layout, so one build reads nets of any layout.
pub type BucketLayout = [u8; 32];

/// No king buckets: inputs depend on the king only through the mirroring.
pub const ONE_BUCKET: BucketLayout = [0; 32];

/// The layouts the trainer offers by name (`--buckets`):
/// * `1`: none;
/// * `2`: the king on its first rank, or anywhere else;
/// * `4`: on its first rank castled (files g-h, or b-a mirrored), on its
///   first rank in the centre (files e-f, or d-c), on the second rank, or
///   further up: the king safety cases the hand-crafted evaluation
///   separates too (sheltered, uncastled, stepped up, exposed or endgame);
///
/// or 32 comma-separated bucket numbers in the order of `BucketLayout`.
pub fn layout_by_name(name: &str) -> Result<BucketLayout, String> {
    let by_square = |bucket: fn(usize, usize) -> u8| {
        let mut layout = ONE_BUCKET;
        for (i, b) in layout.iter_mut().enumerate() {
            *b = bucket(i / 4, 4 + i % 4);
        }
        layout
    };
    let layout = match name.trim() {
        "1" => ONE_BUCKET,
        "2" => by_square(|rank, _| u8::from(rank > 0)),
        "4" => by_square(|rank, file| match (rank, file) {
            (0, 6..) => 0,
            (0, _) => 1,
            (1, _) => 2,
            _ => 3,
        }),
        list => {
            let numbers: Vec<u8> = list
                .split(',')
                .map(|n| n.trim().parse::<u8>())
                .collect::<Result<_, _>>()
                .map_err(|_| format!("bucket layout {list:?}: not 1, 2, 4 or 32 numbers"))?;
            numbers
                .try_into()
                .map_err(|_| format!("bucket layout {list:?}: 32 numbers are needed"))?
        }
    };
    bucket_count(&layout).map(|_| layout)
}

/// The number of buckets a layout uses (its largest bucket plus one), if
/// it is well formed: buckets 0 to that largest one all used.
pub fn bucket_count(layout: &BucketLayout) -> Result<usize, String> {
    let count = usize::from(layout.iter().copied().max().unwrap_or(0)) + 1;
    match (0..count as u8).find(|b| !layout.contains(b)) {
        Some(unused) => Err(format!("bucket layout: bucket {unused} is never used")),
        None => Ok(count),
    }
}

/// How a perspective sees the board: its colour, whether files are mirrored
/// (its king is on files a-d), and its king bucket.
///
/// Eight bytes without padding, so that the search copies a ply's two views
/// as one word each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct View {
    /// The first input of the bucket's block (`bucket * INPUTS`; a layout
    /// names at most 32 buckets, so it stays below 32 * 768) ...
    base: u16,
    pub bucket: u8,
    /// ... and what a square is XORed with to be seen from the
    /// perspective: 56 flips the ranks for Black, 7 mirrors the files.
    /// Both follow from the other fields (the bucket, the perspective and
    /// the mirroring), so they change no comparison;
    /// they save [`View::index`] the work on every column of every update.
    flip: u8,
    pub perspective: Color,
    pub mirrored: bool,
    /// Always zero: it fills the word, so that no byte is padding.
    unused: [u8; 2],
}

impl View {
    /// No view yet (an accumulator never computed).
    pub const NONE: View = View {
        base: 0,
        bucket: u8::MAX,
        flip: 0,
        perspective: Color::White,
        mirrored: false,
        unused: [0; 2],
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
        let bucket = layout[sq.rank() as usize * 4 + (sq.file() as usize - 4)];
        View {
            base: u16::from(bucket) * INPUTS as u16,
            bucket,
            flip: (orient_rank(perspective, Square::A1) as u8) ^ if mirrored { 7 } else { 0 },
            perspective,
            mirrored,
            unused: [0; 2],
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
        let relative = usize::from(piece.color != self.perspective);
        self.base as usize
            + (relative * 6 + (piece.role as usize - 1)) * 64
            + (sq as usize ^ usize::from(self.flip))
    }
}

#[inline]
fn orient_rank(perspective: Color, sq: Square) -> Square {
    match perspective {
        Color::White => sq,
        Color::Black => sq.flip_vertical(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

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

    /// [`View::index`] by its definition: the square seen from the
    /// perspective (ranks turned for Black, files mirrored), the piece as
    /// ours or theirs, in the bucket's block.
    fn defined_index(view: &View, piece: Piece, sq: Square) -> usize {
        let mut sq = orient_rank(view.perspective, sq);
        if view.mirrored {
            sq = sq.flip_horizontal();
        }
        let relative = usize::from(piece.color != view.perspective);
        usize::from(view.bucket) * INPUTS
            + (relative * 6 + (piece.role as usize - 1)) * 64
            + sq as usize
    }

    #[test]
    fn indices_follow_the_definition() {
        let four = layout_by_name("4").unwrap();
        let mut mirrored = 0;
        for king in Square::ALL {
            for perspective in [Color::White, Color::Black] {
                let view = View::new(perspective, king, &four);
                mirrored += usize::from(view.mirrored);
                for sq in Square::ALL {
                    for color in [Color::White, Color::Black] {
                        for role in Role::ALL {
                            let piece = Piece { color, role };
                            assert_eq!(
                                view.index(piece, sq),
                                defined_index(&view, piece, sq),
                                "{view:?} {piece:?} {sq}"
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(mirrored, 64);
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

    #[test]
    fn named_layouts() {
        assert_eq!(layout_by_name("1"), Ok(ONE_BUCKET));
        let two = layout_by_name("2").unwrap();
        assert_eq!(bucket_count(&two), Ok(2));
        let four = layout_by_name("4").unwrap();
        assert_eq!(bucket_count(&four), Ok(4));
        // White's king on g1 and b1 (mirrored): castled; e1: centre; f2:
        // second rank; Black's king on g8 is White's g1.
        let bucket = |color, king| View::new(color, king, &four).bucket;
        assert_eq!(bucket(Color::White, Square::G1), 0);
        assert_eq!(bucket(Color::White, Square::B1), 0);
        assert_eq!(bucket(Color::White, Square::E1), 1);
        assert_eq!(bucket(Color::White, Square::F2), 2);
        assert_eq!(bucket(Color::White, Square::D5), 3);
        assert_eq!(bucket(Color::Black, Square::G8), 0);
        assert_eq!(bucket(Color::Black, Square::E7), 2);
        let listed = four.map(|b| b.to_string()).join(",");
        assert_eq!(layout_by_name(&listed), Ok(four));
        assert!(layout_by_name("3").is_err());
        assert!(layout_by_name("0,1").is_err());
        let mut gap = ONE_BUCKET;
        gap[5] = 2;
        assert!(bucket_count(&gap).is_err());
    }
}
