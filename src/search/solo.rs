//! A single-threaded search with its own table and no output, for tools
//! that play or screen many positions (datagen, `genfens`, rescoring).

use std::sync::Arc;

use super::{Job, SearchResult, Searcher};
use crate::board::Board;
use crate::time::Limits;
use crate::tt::TranspositionTable;

/// A single-threaded searcher with its own table and no output, for tools
/// that play or screen many positions (datagen, `genfens`).
pub struct SoloSearch {
    /// The net to evaluate with; `None` (the default): hand-crafted.
    pub net: Option<&'static crate::nnue::Network>,
    searcher: Searcher,
    tt: Arc<TranspositionTable>,
}

impl SoloSearch {
    pub fn new(hash_mb: usize) -> Result<SoloSearch, String> {
        let mut searcher = Searcher::new(0);
        searcher.verbose = false;
        Ok(SoloSearch {
            net: None,
            searcher,
            tt: Arc::new(TranspositionTable::new(hash_mb)?),
        })
    }

    /// Forgets everything learned in the previous game.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.searcher.clear();
    }

    /// A search of `board` (with `history` the keys of the positions before
    /// it) that starts no iteration once `soft_nodes` are spent and stops
    /// outright at `hard_nodes`.
    pub fn search(
        &mut self,
        board: &Board,
        history: &[u64],
        soft_nodes: u64,
        hard_nodes: u64,
    ) -> SearchResult {
        self.tt.new_search();
        let limits = Limits {
            nodes: Some(hard_nodes.max(soft_nodes)),
            soft_nodes: Some(soft_nodes),
            ..Limits::default()
        };
        let job = Job {
            game_keys: history.to_vec(),
            net: self.net,
            ..Job::new(board.clone(), limits, Arc::clone(&self.tt))
        };
        self.searcher.think(&job.root, &job.context())
    }
}
