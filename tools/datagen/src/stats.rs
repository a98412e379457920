//! `datagen stats`: what a data file holds.

use std::fmt::Write as _;
use std::io::Read;

use kiraly::game::GameResult;

use crate::format::{Filter, Game, NO_SCORE};

/// Score histogram bins, in centipawns from White's view: the upper bounds
/// of all bins but the last.
const BINS: [i32; 12] = [
    -1000, -500, -300, -150, -50, -10, 10, 50, 150, 300, 500, 1000,
];

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub games: u64,
    pub positions: u64,
    /// Positions the training filter keeps.
    pub kept: u64,
    pub unscored: u64,
    /// Games by result, White's view: wins, draws, losses.
    pub results: [u64; 3],
    pub longest: usize,
    /// Counts per bin of `BINS` (plus the last, open bin); mate scores
    /// (beyond +-10000) are counted apart.
    pub histogram: [u64; BINS.len() + 1],
    pub mates: u64,
}

impl Stats {
    /// Reads every game of `input`; `filter` decides what counts as kept.
    pub fn collect(input: &mut impl Read, filter: &Filter) -> Result<Stats, String> {
        let mut stats = Stats::default();
        while let Some(game) =
            Game::read(input).map_err(|e| format!("game {}: {e}", stats.games + 1))?
        {
            stats.games += 1;
            stats.longest = stats.longest.max(game.plies.len());
            stats.results[match game.result {
                GameResult::WhiteWins => 0,
                GameResult::Draw => 1,
                GameResult::BlackWins => 2,
            }] += 1;
            for sample in game.positions() {
                let s = sample.map_err(|e| format!("game {}: {e}", stats.games))?;
                stats.positions += 1;
                if s.score == NO_SCORE {
                    stats.unscored += 1;
                    continue;
                }
                if filter.accepts(&s) {
                    stats.kept += 1;
                }
                let white = s.white_score();
                if white.abs() >= 10_000 {
                    stats.mates += 1;
                } else {
                    let bin = BINS.iter().position(|&b| white < b).unwrap_or(BINS.len());
                    stats.histogram[bin] += 1;
                }
            }
        }
        Ok(stats)
    }

    pub fn report(&self) -> String {
        let mut out = String::new();
        let share = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
        let _ = writeln!(out, "games      {}", self.games);
        let _ = writeln!(
            out,
            "positions  {} ({:.1} per game, longest {})",
            self.positions,
            self.positions as f64 / self.games.max(1) as f64,
            self.longest
        );
        let _ = writeln!(
            out,
            "kept       {} ({:.1}%) by the training filter",
            self.kept,
            share(self.kept, self.positions)
        );
        let _ = writeln!(out, "unscored   {}", self.unscored);
        let [w, d, l] = self.results;
        let _ = writeln!(
            out,
            "results    White wins {} ({:.1}%), draws {} ({:.1}%), Black wins {} ({:.1}%)",
            w,
            share(w, self.games),
            d,
            share(d, self.games),
            l,
            share(l, self.games)
        );
        let _ = writeln!(out, "scores (cp, White's view)");
        let scored = self.histogram.iter().sum::<u64>() + self.mates;
        for (i, &count) in self.histogram.iter().enumerate() {
            let label = match i {
                0 => format!("< {}", BINS[0]),
                i if i == BINS.len() => format!(">= {}", BINS[BINS.len() - 1]),
                i => format!("{} .. {}", BINS[i - 1], BINS[i]),
            };
            let bar = "#".repeat((60.0 * count as f64 / scored.max(1) as f64).round() as usize);
            let _ = writeln!(
                out,
                "  {label:>14} {count:>10} {:>5.1}% {bar}",
                share(count, scored)
            );
        }
        let _ = writeln!(
            out,
            "  {:>14} {:>10} {:>5.1}%",
            "mate",
            self.mates,
            share(self.mates, scored)
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{encode_move, Ply};
    use shakmaty::{Chess, Position};

    #[test]
    fn counts_and_histogram() {
        let start = Chess::default();
        let moves = start.legal_moves();
        let game = |score: i16, result| Game {
            start: start.clone(),
            plies: vec![Ply {
                mv: encode_move(&moves[0]),
                score,
            }],
            result,
        };
        let mut bytes = Vec::new();
        game(20, GameResult::WhiteWins).write(&mut bytes).unwrap();
        game(-700, GameResult::Draw).write(&mut bytes).unwrap();
        game(31_000, GameResult::WhiteWins)
            .write(&mut bytes)
            .unwrap();
        game(NO_SCORE, GameResult::BlackWins)
            .write(&mut bytes)
            .unwrap();
        let stats = Stats::collect(&mut bytes.as_slice(), &Filter::none()).unwrap();
        assert_eq!((stats.games, stats.positions, stats.unscored), (4, 4, 1));
        assert_eq!(stats.results, [2, 1, 1]);
        assert_eq!(stats.mates, 1);
        assert_eq!(stats.histogram[7], 1); // 10 .. 50
        assert_eq!(stats.histogram[1], 1); // -1000 .. -500
        assert_eq!(stats.kept, 3); // all scored ones pass Filter::none, mates too
        let report = stats.report();
        assert!(report.contains("games      4"), "{report}");
        assert!(report.contains("White wins 2 (50.0%)"), "{report}");
    }
}
