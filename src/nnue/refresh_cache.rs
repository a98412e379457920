//! The refresh cache ("Finny table"): for each perspective, mirroring and
//! king bucket, the accumulator values of the last board rebuilt there and
//! that board's pieces. A king move that changes its side's view rebuilds
//! that side from the cached values by the difference between the cached
//! board and the current one (a few pieces moved since that view was last
//! used) rather than from every piece on the board.

use shakmaty::{Bitboard, Board, Color, Piece, Role};

use super::features::View;
use super::simd::{self, Column};
use super::Network;

#[derive(Clone)]
struct Entry {
    /// The values of `pieces` as the entry's view sees them.
    values: Column,
    /// The board the values are for, per colour (`Color as usize`) and
    /// role (`Role as usize - 1`).
    pieces: [[Bitboard; 6]; 2],
}

pub struct RefreshCache {
    /// `[perspective][mirrored][bucket]`, flattened.
    entries: Vec<Entry>,
}

impl RefreshCache {
    pub fn new() -> RefreshCache {
        RefreshCache {
            entries: Vec::new(),
        }
    }

    /// Empties every entry for `net`: the bias alone, for an empty board.
    /// Allocates only when the net has more king buckets than the last.
    pub fn reset(&mut self, net: &Network) {
        let empty = Entry {
            values: net.feature_bias,
            pieces: [[Bitboard::EMPTY; 6]; 2],
        };
        self.entries.clear();
        self.entries.resize(2 * 2 * net.buckets(), empty);
    }

    /// Writes the values of `board` as `view` sees it into `out`, from the
    /// view's entry brought to `board` (which the entry then holds).
    pub fn refresh(&mut self, net: &Network, board: &Board, view: View, out: &mut Column) {
        let index = (view.perspective as usize * 2 + usize::from(view.mirrored)) * net.buckets()
            + usize::from(view.bucket);
        let entry = &mut self.entries[index];
        // The columns of up to 32 pieces each way at once (a legal
        // position's most), flushed when full; the arrays' rest only fills
        // them and is never read.
        let mut added: [&Column; 32] = [&net.feature_bias; 32];
        let mut removed: [&Column; 32] = [&net.feature_bias; 32];
        let (mut added_count, mut removed_count) = (0, 0);
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                let now = board.by_piece(piece);
                let cached = &mut entry.pieces[color as usize][role as usize - 1];
                for sq in now & !*cached {
                    if added_count == added.len() {
                        simd::add_sub_in_place(&mut entry.values, &added, &[]);
                        added_count = 0;
                    }
                    added[added_count] = &net.feature_weights[view.index(piece, sq)];
                    added_count += 1;
                }
                for sq in *cached & !now {
                    if removed_count == removed.len() {
                        simd::add_sub_in_place(&mut entry.values, &[], &removed);
                        removed_count = 0;
                    }
                    removed[removed_count] = &net.feature_weights[view.index(piece, sq)];
                    removed_count += 1;
                }
                *cached = now;
            }
        }
        simd::add_sub_in_place(
            &mut entry.values,
            &added[..added_count],
            &removed[..removed_count],
        );
        *out = entry.values;
    }
}

impl Default for RefreshCache {
    fn default() -> RefreshCache {
        RefreshCache::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::accumulator::tests::random_net_with;
    use crate::nnue::{layout_by_name, Accumulator, ONE_BUCKET};
    use shakmaty::{Chess, Position};

    /// Along pseudo-random games, each side's values from the cache (whose
    /// entries last saw boards many moves earlier, or never) equal a
    /// refresh from the board, with one king bucket and with four.
    #[test]
    fn cached_refreshes_equal_a_refresh() {
        for layout in [ONE_BUCKET, layout_by_name("4").unwrap()] {
            let net = random_net_with(5, layout);
            let mut cache = RefreshCache::new();
            cache.reset(&net);
            let mut rng = 0x2545_F491_4F6C_DD1Du64;
            let mut checked = 0;
            for _game in 0..20 {
                let mut pos = Chess::default();
                for ply in 0..160 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    rng = rng
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let kings: Vec<_> = moves.iter().filter(|m| m.role() == Role::King).collect();
                    let m = match kings.len() {
                        n if n > 0 && (rng >> 60) < 6 => *kings[(rng >> 33) as usize % n],
                        _ => moves[(rng >> 33) as usize % moves.len()],
                    };
                    pos.play_unchecked(m);
                    if ply % 3 != 0 {
                        continue;
                    }
                    let fresh = Accumulator::refresh(&net, pos.board()).unwrap();
                    for color in Color::ALL {
                        let side = color as usize;
                        let mut values = [0; crate::nnue::HIDDEN];
                        cache.refresh(&net, pos.board(), fresh.views[side], &mut values);
                        assert_eq!(values, fresh.values[side], "{color:?}, ply {ply}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 1500, "{checked}");
        }
    }
}
