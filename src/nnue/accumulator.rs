//! Accumulators: the first layer's output for each side, kept up to date by
//! adding and subtracting weight columns as moves are played, and rebuilt
//! from the board only when a king moves to another bucket or side.

use shakmaty::{Board, Chess, Color, Piece, Position, Square};

use super::features::View;
use super::simd::{self, Column};
use super::{Network, HIDDEN};
use crate::delta::{Delta, Shape};

/// Both sides' accumulators (indexed by `Color as usize`: Black 0, White 1,
/// as shakmaty orders colours) and how each side viewed the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub values: [[i16; HIDDEN]; 2],
    pub views: [View; 2],
}

impl Accumulator {
    /// A placeholder for stack entries before their first use.
    pub const EMPTY: Accumulator = Accumulator {
        values: [[0; HIDDEN]; 2],
        views: [View::NONE; 2],
    };

    /// Both sides computed from the board. `None` when a king is missing
    /// (never in a legal position).
    pub fn refresh(net: &Network, board: &Board) -> Option<Accumulator> {
        let view = |c| View::of_board(board, c, &net.layout);
        let views = [view(Color::Black)?, view(Color::White)?];
        let mut acc = Accumulator {
            values: [[0; HIDDEN]; 2],
            views,
        };
        for color in [Color::Black, Color::White] {
            acc.refresh_side(net, board, color);
        }
        Some(acc)
    }

    /// Rebuilds `color`'s values from `board`, as `self.views` sees it.
    pub(super) fn refresh_side(&mut self, net: &Network, board: &Board, color: Color) {
        let side = color as usize;
        let view = self.views[side];
        self.values[side] = net.feature_bias;
        // The columns of up to 32 pieces (a legal position's most) at once;
        // the array's rest only fills it and is never read.
        let mut pieces = board.iter();
        loop {
            let mut columns: [&Column; 32] = [&net.feature_bias; 32];
            let mut count = 0;
            // Columns first: zip stops on them without taking a piece.
            for (column, (sq, piece)) in columns.iter_mut().zip(pieces.by_ref()) {
                *column = &net.feature_weights[view.index(piece, sq)];
                count += 1;
            }
            simd::add_sub_in_place(&mut self.values[side], &columns[..count], &[]);
            if count < columns.len() {
                break;
            }
        }
    }

    /// The accumulator after a move: `delta` is what the move, played by
    /// `mover`, changed, and `after` the board it led to.
    pub fn after_move(
        &self,
        net: &Network,
        after: &Board,
        delta: &Delta,
        mover: Color,
    ) -> Accumulator {
        let mut next = Accumulator::EMPTY;
        self.update_into(&mut next, net, after, delta, mover);
        next
    }

    /// Writes the accumulator after a move into `next` (the search's next
    /// stack entry, so nothing is copied twice). A side whose king changed
    /// bucket or mirroring is rebuilt from `after`; the other is updated
    /// from `self` by the move's columns.
    #[inline]
    pub fn update_into(
        &self,
        next: &mut Accumulator,
        net: &Network,
        after: &Board,
        delta: &Delta,
        mover: Color,
    ) {
        for color in [Color::Black, Color::White] {
            let side = color as usize;
            if color == mover {
                if let Some(moved) = View::of_board(after, color, &net.layout) {
                    if moved != self.views[side] {
                        next.views[side] = moved;
                        next.refresh_side(net, after, color);
                        continue;
                    }
                }
            }
            next.views[side] = self.views[side];
            self.update_side_into(next, net, delta, color);
        }
    }

    /// Writes `color`'s values after a move into `next`, from `self`'s by the
    /// move's columns: for a side whose view the move kept.
    #[inline]
    pub(super) fn update_side_into(
        &self,
        next: &mut Accumulator,
        net: &Network,
        delta: &Delta,
        color: Color,
    ) {
        let side = color as usize;
        let view = self.views[side];
        let column = |(piece, sq): (Piece, Square)| &net.feature_weights[view.index(piece, sq)];
        let (out, from) = (&mut next.values[side], &self.values[side]);
        let (added, removed) = (&delta.added, &delta.removed);
        // Each shape passes arrays of its own lengths, so the kernel's loop
        // is unrolled for exactly the move's columns.
        match delta.shape {
            Shape::Quiet => simd::add_sub(out, from, &[column(added[0])], &[column(removed[0])]),
            Shape::Capture => simd::add_sub(
                out,
                from,
                &[column(added[0])],
                &[column(removed[0]), column(removed[1])],
            ),
            Shape::Castle => simd::add_sub(
                out,
                from,
                &[column(added[0]), column(added[1])],
                &[column(removed[0]), column(removed[1])],
            ),
            Shape::Drop => simd::add_sub(out, from, &[column(added[0])], &[]),
        }
    }

    /// The evaluation in centipawns from `stm`'s view, with `pieces` on
    /// the board (for the output bucket).
    #[inline]
    pub fn evaluate(&self, net: &Network, stm: Color, pieces: usize) -> i32 {
        net.output(
            &self.values[stm as usize],
            &self.values[(!stm) as usize],
            pieces,
        )
    }
}

/// The network's evaluation of a position from scratch, in centipawns from
/// the side to move's view (0 for a position without both kings).
pub fn evaluate(net: &Network, pos: &Chess) -> i32 {
    Accumulator::refresh(net, pos.board()).map_or(0, |acc| {
        acc.evaluate(net, pos.turn(), pos.board().occupied().count())
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::huge_pages::HugePageSlice;
    use crate::nnue::{layout_by_name, BucketLayout, INPUTS, ONE_BUCKET};
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode};

    /// A network with weights from a fixed pseudo-random sequence.
    pub(crate) fn random_net(seed: u64) -> Network {
        random_net_with(seed, ONE_BUCKET)
    }

    pub(crate) fn random_net_with(seed: u64, layout: BucketLayout) -> Network {
        let buckets = crate::nnue::features::bucket_count(&layout).unwrap();
        let mut state = seed;
        let mut next = |range: i64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as i64 % (2 * range + 1) - range) as i16
        };
        let mut feature_weights = HugePageSlice::<[i16; HIDDEN]>::zeroed(buckets * INPUTS);
        for column in feature_weights.iter_mut() {
            column.iter_mut().for_each(|w| *w = next(40));
        }
        let mut feature_bias = [0i16; HIDDEN];
        feature_bias.iter_mut().for_each(|b| *b = next(60) + 60);
        let mut output_weights = vec![[[0i16; HIDDEN]; 2]; 1];
        for half in output_weights.iter_mut().flatten() {
            half.iter_mut().for_each(|w| *w = next(120));
        }
        Network {
            layout,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias: vec![i32::from(next(3000))],
            hash: 0,
        }
    }

    fn position(fen: &str) -> Chess {
        crate::fen::parse_book_line(fen).unwrap()
    }

    /// Plays pseudo-random games (captures preferred, so material changes)
    /// and checks the updated accumulator against a rebuilt one at every
    /// ply, with one king bucket and with four (where a king's step to
    /// another bucket rebuilds its side).
    #[test]
    fn incremental_updates_equal_a_refresh() {
        assert_eq!(bucket_changes_checked(&random_net(7)), 0);
        let four = random_net_with(7, layout_by_name("4").unwrap());
        let changes = bucket_changes_checked(&four);
        assert!(changes > 100, "{changes}");
    }

    /// The check itself; returns how many moves took a king to another
    /// bucket.
    fn bucket_changes_checked(net: &Network) -> usize {
        let mut bucket_changes = 0;
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            // Chess960 castling.
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ];
        let mut rng = 12345u64;
        let mut plies = 0;
        for fen in starts {
            for _game in 0..12 {
                let mut pos = position(fen);
                let mut acc = Accumulator::refresh(net, pos.board()).unwrap();
                for _ in 0..120 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
                    let m = if !captures.is_empty() && rng >> 62 == 0 {
                        *captures[(rng >> 33) as usize % captures.len()]
                    } else {
                        moves[(rng >> 33) as usize % moves.len()]
                    };
                    let mover = pos.turn();
                    let delta = Delta::of_move(&m, mover);
                    pos.play_unchecked(m);
                    let before = acc.views;
                    acc = acc.after_move(net, pos.board(), &delta, mover);
                    if acc.views[mover as usize].bucket != before[mover as usize].bucket {
                        bucket_changes += 1;
                    }
                    let fresh = Accumulator::refresh(net, pos.board()).unwrap();
                    assert_eq!(
                        acc,
                        fresh,
                        "after {} in {}",
                        m,
                        Fen::from_position(&pos, EnPassantMode::Legal)
                    );
                    plies += 1;
                }
            }
        }
        assert!(plies > 4000, "{plies}");
        bucket_changes
    }

    /// The evaluation does not depend on which colour plays: a position and
    /// its colour-flipped twin score the same for the side to move.
    #[test]
    fn colour_flip_symmetry() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 b - - 0 1",
        ];
        for net in [
            random_net(3),
            random_net_with(3, layout_by_name("4").unwrap()),
        ] {
            for fen in fens {
                let pos = position(fen);
                let mut setup = pos.to_setup(EnPassantMode::Legal);
                setup.mirror();
                let flipped: Chess = shakmaty::FromSetup::from_setup(setup, CastlingMode::Standard)
                    .unwrap_or_else(|e: shakmaty::PositionError<Chess>| panic!("{fen}: {e}"));
                assert_eq!(evaluate(&net, &pos), evaluate(&net, &flipped), "{fen}");
            }
        }
    }
}
