//! Scores for positions that come from no game (`--augment`): the
//! hand-crafted evaluation's static value, or a short search with it or
//! with a net.
//!
//! A net trained only on the static evaluation's scores can at best equal
//! that evaluation; a short search's score carries what the search sees
//! beyond it, and a net that learns it can do better than the evaluation
//! that labelled it.

use datagen::format::stored_score;
use kiraly::board::Board;
use kiraly::score::is_mate;
use kiraly::search::SoloSearch;
use rayon::prelude::*;
use shakmaty::Position;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::data::Packed;

/// Replaces every score by the hand-crafted evaluation (a net trained on
/// these with lambda 0 learns that evaluation: a check of the whole
/// pipeline, and a starting point).
pub fn hand_crafted(positions: &mut [Packed]) {
    positions.par_iter_mut().for_each(|pos| {
        if let Some(eval) = crate::model::hand_crafted_eval(pos) {
            pos.score = stored_score(eval);
        }
    });
}

/// Positions searched one after another by one searcher between two
/// resets: resetting the 1 MB table and the histories for every position
/// took about a third of the rescoring's time (`docs/evaluation.md`), and
/// fixed chunks keep the result independent of the thread count and of
/// rayon's scheduling.
pub const SEARCH_CHUNK: usize = 256;

/// Scores each position by a search with `net`, or the hand-crafted
/// evaluation for `None`, that starts no iteration after `nodes` nodes (and
/// stops at eight times as many), where that search's score is what the
/// evaluation should say at a quiet node: not in check, a quiet best move,
/// no mate score. The rest get the same evaluation's static value, which is
/// what the search uses there (the stand-pat of the quiescence search).
/// Returns how many got a score other than the static one.
/// Deterministic: each chunk of `SEARCH_CHUNK` positions starts with an
/// empty table and empty histories and is searched in order.
pub fn searched(
    positions: &mut [Packed],
    nodes: u64,
    net: Option<&'static kiraly::nnue::Network>,
) -> usize {
    let done = AtomicUsize::new(0);
    let start = Instant::now();
    let total = positions.len();
    positions
        .par_chunks_mut(SEARCH_CHUNK)
        .map_init(
            || {
                let mut search = SoloSearch::new(1).expect("a 1 MB table");
                search.net = net;
                search
            },
            |search, chunk| {
                search.new_game();
                let changed = chunk
                    .iter_mut()
                    .map(|pos| usize::from(search_one(search, pos, nodes)))
                    .sum::<usize>();
                let before = done.fetch_add(chunk.len(), Ordering::Relaxed);
                let after = before + chunk.len();
                if after / 1_000_000 > before / 1_000_000 {
                    eprintln!(
                        "trainer: searched {after} of {total} added positions, {:.0}/s",
                        after as f64 / start.elapsed().as_secs_f64()
                    );
                }
                changed
            },
        )
        .sum()
}

/// Scores one position as `searched` says; true when the score differs
/// from the static evaluation.
fn search_one(search: &mut SoloSearch, pos: &mut Packed, nodes: u64) -> bool {
    let Some(chess) = pos.chess() else {
        return false;
    };
    let static_eval = match search.net {
        Some(net) => kiraly::eval::evaluate_nnue(net, &chess),
        None => kiraly::eval::evaluate(&chess),
    };
    let mut score = static_eval;
    if !chess.is_check() {
        let found = search.search(&Board::new(chess), &[], nodes, nodes * 8);
        let quiet = found
            .best
            .is_some_and(|m| !m.is_capture() && !m.is_promotion());
        if quiet && !is_mate(found.score) {
            score = found.score;
        }
    }
    pos.score = stored_score(score);
    score != static_eval
}
