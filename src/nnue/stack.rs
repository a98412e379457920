//! The net's accumulators along the search's current line, one per ply: the
//! search pushes what each move (or null move) does, and reads the
//! evaluation of the ply it is at; it never sees the feature changes behind
//! a move. Popping is the search returning to a shallower ply: the entry of
//! a ply is rewritten by the next push from its parent.
//!
//! Updates are lazy: a push only records the move (and, when the mover's
//! king changed bucket or side, the board its side must be rebuilt from);
//! evaluating a ply brings each side's values up to date from the nearest
//! ply where they are computed (or rebuilt), computing the plies between.
//! A node cut off before its evaluation (a table hit, a repetition, a
//! table entry's stored evaluation) costs no column additions, nor does a
//! null move itself. A side rebuilt starts from the refresh cache's entry
//! of its new view (see `refresh_cache`).

use shakmaty::{Board, Chess, Color, Move, Position, Role};

use super::features::View;
use super::refresh_cache::RefreshCache;
use super::{Accumulator, Network};
use crate::delta::Delta;

/// How a ply's position came from its parent's.
#[derive(Clone, Copy)]
enum Change {
    /// The root: computed at the start.
    Root,
    Null,
    Move {
        m: Move,
        mover: Color,
    },
}

#[derive(Clone)]
struct Ply {
    /// The values of the sides in `computed`; the views of both, always.
    acc: Accumulator,
    /// Per side (`Color as usize`): whether its values are up to date.
    computed: [bool; 2],
    change: Change,
    /// The side whose king's move changed its view, which is rebuilt from
    /// `board` rather than updated from the parent.
    rebuilds: Option<Color>,
    /// The board after the move: read only when `rebuilds` names a side.
    board: Board,
}

pub struct AccumulatorStack {
    /// The net of the search in progress; `None`: no net, every push is a
    /// no-op.
    net: Option<&'static Network>,
    /// The accumulators of plies 0 (the root) to the deepest.
    plies: Box<[Ply]>,
    /// Where a side whose king changed view is rebuilt from.
    cache: RefreshCache,
}

impl AccumulatorStack {
    /// A stack for lines of up to `plies` plies below the root, without a
    /// net until [`AccumulatorStack::start`].
    pub fn new(plies: usize) -> AccumulatorStack {
        let empty = Ply {
            acc: Accumulator::EMPTY,
            computed: [false; 2],
            change: Change::Root,
            rebuilds: None,
            board: Board::empty(),
        };
        AccumulatorStack {
            net: None,
            plies: vec![empty; plies + 1].into_boxed_slice(),
            cache: RefreshCache::new(),
        }
    }

    /// Starts a search of `root` with `net` (`None`: without a net). False,
    /// and no net, when the board has no kings to view it from.
    pub fn start(&mut self, net: Option<&'static Network>, root: &Board) -> bool {
        self.net = None;
        let Some(net) = net else {
            return true;
        };
        match Accumulator::refresh(net, root) {
            Some(acc) => {
                let first = &mut self.plies[0];
                first.acc = acc;
                first.computed = [true; 2];
                first.change = Change::Root;
                first.rebuilds = None;
                self.cache.reset(net);
                self.net = Some(net);
                true
            }
            None => false,
        }
    }

    /// Whether a net is in use.
    #[inline]
    pub fn net(&self) -> Option<&'static Network> {
        self.net
    }

    /// Records that `m` was played from `parent` at `ply` and led to
    /// `child`: the accumulators of `ply + 1`, computed when evaluated.
    #[inline]
    pub fn push_move(&mut self, ply: usize, parent: &Chess, m: Move, child: &Board) {
        let Some(net) = self.net else {
            return;
        };
        let mover = parent.turn();
        let (upto, after) = self.plies.split_at_mut(ply + 1);
        let (before, next) = (&upto[ply], &mut after[0]);
        next.acc.views = before.acc.views;
        next.computed = [false; 2];
        next.change = Change::Move { m, mover };
        next.rebuilds = None;
        if m.role() == Role::King {
            let side = mover as usize;
            if let Some(moved) = View::of_board(child, mover, &net.layout) {
                if moved != before.acc.views[side] {
                    next.acc.views[side] = moved;
                    next.rebuilds = Some(mover);
                    next.board.clone_from(child);
                }
            }
        }
    }

    /// Records a null move at `ply`: the same pieces on the same squares at
    /// `ply + 1`.
    #[inline]
    pub fn push_null(&mut self, ply: usize) {
        if self.net.is_some() {
            let views = self.plies[ply].acc.views;
            let next = &mut self.plies[ply + 1];
            next.acc.views = views;
            next.computed = [false; 2];
            next.change = Change::Null;
            next.rebuilds = None;
        }
    }

    /// The net's raw output at `ply`, whose position has `pieces` pieces and
    /// `stm` to move; 0 without a net (the caller asks [`Self::net`] first).
    #[inline]
    pub fn evaluate(&mut self, ply: usize, stm: Color, pieces: usize) -> i32 {
        let Some(net) = self.net else {
            return 0;
        };
        self.bring_up_to_date(net, ply);
        self.plies[ply].acc.evaluate(net, stm, pieces)
    }

    /// Brings the accumulators of `ply` up to date ahead of their use: work
    /// the core can do while the table entry prefetched for `ply` is still
    /// on its way from memory.
    #[inline]
    pub fn prepare(&mut self, ply: usize) {
        if let Some(net) = self.net {
            self.bring_up_to_date(net, ply);
        }
    }

    /// Computes both sides' values at `ply` from the nearest ply where each
    /// is computed or must be rebuilt, and every ply between.
    fn bring_up_to_date(&mut self, net: &Network, ply: usize) {
        if self.plies[ply].computed == [true; 2] {
            return;
        }
        // The common case first: a parent computed on both sides, and no
        // king changing view, so neither side is rebuilt.
        if ply > 0
            && self.plies[ply - 1].computed == [true; 2]
            && self.plies[ply].rebuilds.is_none()
        {
            self.compute_from_parent(net, ply, [true; 2]);
            return;
        }
        let mut start = [ply; 2];
        for color in [Color::Black, Color::White] {
            let side = color as usize;
            let from = &mut start[side];
            // The root is computed, so the walk ends there at the latest.
            while !self.plies[*from].computed[side] && self.plies[*from].rebuilds != Some(color) {
                *from -= 1;
            }
            let Ply {
                acc,
                computed,
                board,
                ..
            } = &mut self.plies[*from];
            if !computed[side] {
                self.cache
                    .refresh(net, board, acc.views[side], &mut acc.values[side]);
                computed[side] = true;
            }
        }
        for i in start[0].min(start[1]) + 1..=ply {
            self.compute_from_parent(net, i, start.map(|from| i > from));
        }
    }

    /// Computes the values of `ply` from its parent's for the sides
    /// `sides` names (by `Color as usize`), whose parent values are up to
    /// date: by the move's columns, or a copy after a null move.
    #[inline(always)]
    fn compute_from_parent(&mut self, net: &Network, ply: usize, sides: [bool; 2]) {
        let (upto, after) = self.plies.split_at_mut(ply);
        let (parent, next) = (&upto[ply - 1].acc, &mut after[0]);
        let delta = match next.change {
            Change::Move { m, mover } => Some(Delta::of_move(&m, mover)),
            Change::Null | Change::Root => None,
        };
        for color in [Color::Black, Color::White] {
            let side = color as usize;
            if !sides[side] {
                continue;
            }
            match &delta {
                Some(delta) => parent.update_side_into(&mut next.acc, net, delta, color),
                None => next.acc.values[side] = parent.values[side],
            }
            next.computed[side] = true;
        }
    }

    /// Whether the accumulators of `ply`, brought up to date, equal those
    /// computed afresh from `board` (true without a net): the unit tests
    /// check every evaluation of a search with it.
    pub fn agrees_with(&mut self, ply: usize, board: &Board) -> bool {
        let Some(net) = self.net else {
            return true;
        };
        self.bring_up_to_date(net, ply);
        Some(self.plies[ply].acc) == Accumulator::refresh(net, board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::accumulator::tests::random_net_with;
    use crate::nnue::{layout_by_name, BucketLayout, ONE_BUCKET};
    use shakmaty::{CastlingMode, EnPassantMode, FromSetup};

    fn leaked_net(layout: BucketLayout) -> &'static Network {
        Box::leak(Box::new(random_net_with(11, layout)))
    }

    /// The position after a null move, if the side to move is not in check.
    fn null_move(pos: &Chess) -> Option<Chess> {
        if pos.is_check() {
            return None;
        }
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        setup.turn = !setup.turn;
        setup.ep_square = None;
        Chess::from_setup(setup, CastlingMode::Chess960).ok()
    }

    /// What `search_like_lines` saw.
    #[derive(Debug, Default)]
    struct Seen {
        checked: usize,
        nulls: usize,
        rebuilds: usize,
    }

    /// Walks lines as a search does: moves (captures and king moves
    /// preferred, so material and king views change), null moves, and
    /// returns to a shallower ply to try another move. Some plies are
    /// evaluated, so the lazy updates cross unevaluated plies, and each
    /// evaluated ply is checked against accumulators and an evaluation
    /// computed afresh from its board.
    fn search_like_lines(net: &'static Network) -> Seen {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "4k3/8/8/3K4/8/8/5P2/8 w - - 0 1",
        ];
        let max_ply = 40;
        let mut stack = AccumulatorStack::new(max_ply);
        let mut seen = Seen::default();
        let mut rng = 0x853C_49E6_748F_EA9Bu64;
        let mut next = move || {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            rng >> 33
        };
        for fen in starts {
            let root = crate::fen::parse_book_line(fen).unwrap();
            for _line in 0..20 {
                assert!(stack.start(Some(net), root.board()));
                let mut line = vec![root.clone()];
                for _step in 0..150 {
                    let ply = line.len() - 1;
                    let r = next();
                    if ply > 0 && (r % 6 == 0 || ply == max_ply) {
                        let back = 1 + (r / 6) as usize % 3;
                        line.truncate(line.len().saturating_sub(back).max(1));
                        continue;
                    }
                    let pos = &line[ply];
                    let child = if r % 6 == 1 {
                        null_move(pos).inspect(|_| {
                            stack.push_null(ply);
                            seen.nulls += 1;
                        })
                    } else {
                        let moves = pos.legal_moves();
                        let preferred: Vec<Move> = moves
                            .iter()
                            .filter(|m| match r % 6 {
                                2 => m.is_capture(),
                                3 => m.role() == Role::King,
                                _ => false,
                            })
                            .copied()
                            .collect();
                        let pool = if preferred.is_empty() {
                            &moves[..]
                        } else {
                            &preferred[..]
                        };
                        pool.get((r >> 8) as usize % pool.len().max(1)).map(|&m| {
                            let mut child = pos.clone();
                            child.play_unchecked(m);
                            stack.push_move(ply, pos, m, child.board());
                            seen.rebuilds += usize::from(stack.plies[ply + 1].rebuilds.is_some());
                            child
                        })
                    };
                    let Some(child) = child else {
                        line.truncate(ply.max(1));
                        continue;
                    };
                    line.push(child);
                    if next() % 3 == 0 {
                        let ply = line.len() - 1;
                        let pos = &line[ply];
                        assert!(
                            stack.agrees_with(ply, pos.board()),
                            "ply {ply} of a line from {fen}: {}",
                            shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal)
                        );
                        let pieces = pos.board().occupied().count();
                        assert_eq!(
                            stack.evaluate(ply, pos.turn(), pieces),
                            crate::nnue::accumulator::evaluate(net, pos)
                        );
                        seen.checked += 1;
                    }
                }
            }
        }
        seen
    }

    /// The lazy stack equals a refresh at every ply evaluated, with one
    /// king bucket (a king rebuilds its side when it changes side) and with
    /// four, and with the built-in net.
    #[test]
    fn lazy_updates_equal_a_refresh() {
        for net in [
            leaked_net(ONE_BUCKET),
            leaked_net(layout_by_name("4").unwrap()),
            crate::nnue::embedded().unwrap(),
        ] {
            let seen = search_like_lines(net);
            assert!(seen.checked > 4000, "{seen:?}");
            assert!(seen.nulls > 300, "{seen:?}");
            assert!(seen.rebuilds > 100, "{seen:?}");
        }
    }
}
