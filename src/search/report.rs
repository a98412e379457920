//! The UCI `info` lines a search sends.

use std::sync::atomic::Ordering;
use std::time::Duration;

use shakmaty::Move;

use super::{SearchContext, Searcher};
use crate::board::move_to_uci;

/// Root moves are announced with `info currmove` once a search runs this long.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

impl Searcher {
    /// The `info` lines of a completed iteration: its first `shown` lines,
    /// numbered when `MultiPV` asks for several.
    pub(super) fn report_lines(&mut self, depth: i32, shown: usize, ctx: &SearchContext) {
        let nodes = ctx.signals.nodes.load(Ordering::Relaxed) + self.counts.unflushed;
        let multi = ctx.limits.multipv > 1;
        for k in 0..shown {
            let l = &self.root.moves[k];
            let mut line = info_line(
                depth,
                self.counts.seldepth,
                l.score,
                nodes,
                l.pv.iter(),
                ctx,
            );
            if multi {
                number_line(&mut line, k + 1);
            }
            ctx.output.send(&line);
            if k == 0 {
                self.last_report = line;
                self.last_shown = Some((l.mv, l.score));
            }
        }
    }

    /// `info currmove`: after the first second, GUIs show which root move
    /// is being searched.
    pub(super) fn report_current_move(
        &self,
        m: Move,
        number: usize,
        depth: i32,
        ctx: &SearchContext,
    ) {
        if ctx.start.elapsed() >= CURRMOVE_AFTER {
            ctx.output.send(&format!(
                "info depth {depth} currmove {} currmovenumber {number}",
                move_to_uci(m, ctx.castling_mode)
            ));
        }
    }
}

/// A UCI `info` line for a finished iteration; `nodes` counts all threads.
/// Every score the search shows passes here, and only here does it become
/// the score shown: the root's tablebase value when the tables ranked the
/// root ([`crate::tb::shown_score`]). Inside the search, and in
/// [`SearchResult::score`], scores stay those the search computed.
pub fn info_line<'a>(
    depth: i32,
    seldepth: usize,
    score: i32,
    nodes: u64,
    pv: impl Iterator<Item = &'a Move>,
    ctx: &SearchContext,
) -> String {
    let score = crate::tb::shown_score(ctx.tb, score);
    let ms = ctx.start.elapsed().as_millis() as u64;
    let nps = nodes * 1000 / ms.max(1);
    let wdl = match ctx.limits.wdl_material {
        Some(material) => {
            let (w, d, l) = crate::wdl::wdl(score, material);
            format!(" wdl {w} {d} {l}")
        }
        None => String::new(),
    };
    // Tablebase hits, when there are tables.
    let tbhits = ctx.tb.map_or(String::new(), |_| {
        format!(" tbhits {}", ctx.signals.tbhits.load(Ordering::Relaxed))
    });
    let mut line = format!(
        "info depth {depth} seldepth {} score {}{wdl} nodes {nodes} nps {nps} hashfull {}{tbhits} time {ms} pv",
        seldepth.max(depth as usize),
        crate::score::to_uci(score),
        ctx.tt.hashfull(),
    );
    for m in pv {
        line.push(' ');
        line.push_str(&move_to_uci(*m, ctx.castling_mode));
    }
    line
}

/// Numbers an `info` line as line `k` of `MultiPV`: `info depth D seldepth S
/// multipv K score ...`, as GUIs expect.
pub fn number_line(line: &mut String, k: usize) {
    let at = line.find(" score ").unwrap_or(line.len());
    line.insert_str(at, &format!(" multipv {k}"));
}
