//! Perft: counts the leaf nodes of the legal move tree, to prove the move
//! generator right and to measure its speed. Leaves are bulk-counted: at the
//! last ply the length of the legal move list is the count.

use shakmaty::{CastlingMode, Chess, Position};

use crate::board::move_to_uci;

pub fn perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &m in &moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        total += perft(&child, depth - 1);
    }
    total
}

/// Counts per root move, in the order the moves are generated.
pub fn divide(pos: &Chess, depth: u32, mode: CastlingMode) -> (Vec<(String, u64)>, u64) {
    let mut lines = Vec::new();
    let mut total = 0;
    if depth == 0 {
        return (lines, 1);
    }
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let n = perft(&child, depth - 1);
        total += n;
        lines.push((move_to_uci(m, mode), n));
    }
    (lines, total)
}

/// The text of a divide in Stockfish's format: `move: count` lines, a blank
/// line, then `Nodes searched: N`.
pub fn divide_report(pos: &Chess, depth: u32, mode: CastlingMode) -> String {
    let (lines, total) = divide(pos, depth, mode);
    let mut out = String::new();
    for (mv, n) in lines {
        out.push_str(&format!("{mv}: {n}\n"));
    }
    out.push_str(&format!("\nNodes searched: {total}\n"));
    out
}
