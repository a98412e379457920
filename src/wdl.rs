//! Win/draw/loss model for `UCI_ShowWDL`: the expected game outcome of a
//! search score, per mille, from the side to move's view.
//!
//! With the score `s` in centipawns (side to move) and `x = m / 58`, where
//! `m` is the material of both sides (pawn 1, knight and bishop 3, rook 5,
//! queen 9) clamped to `17..=78`:
//!
//! ```text
//! win  = 1 / (1 + exp((a(x) - s) / b(x)))
//! loss = 1 / (1 + exp((a(x) + s) / b(x)))
//! draw = 1 - win - loss
//! a(x) = A[0] + A[1] x + A[2] x^2 + A[3] x^3
//! b(x) = B[0] + B[1] x + B[2] x^2 + B[3] x^3
//! ```
//!
//! `a` is the score at which a win is 50% likely, `b` sets how fast the
//! outcome turns with the score. The draw is positive exactly where `a > 0`.
//!
//! # The fit
//!
//! `A` and `B` were fitted by maximum likelihood (the mean multinomial log
//! loss of the game outcomes, Fisher scoring) on the project's self-play
//! games searched with the built-in net, with `tools/tuner` (see
//! `docs/tools.md`, "Fitting the WDL model"):
//!
//! ```text
//! cargo run --release -p tuner -- wdl --data net-s2000.kdat --threads 2
//! ```
//!
//! `net-s2000.kdat` is `datagen play --net embedded --soft-nodes 2000
//! --hard-nodes 20000 --seed 20261204` at 517283b (net `a314665c013b7a06`):
//! 4364 games, of whose 558,843 positions the training filter keeps 388,497
//! (no opening plies, checks, captures or promotions; none has a mate
//! score). Outcomes from the side to move's view: win 28.4%, draw 43.4%,
//! loss 28.2%. The previous constants, fitted on 844,936 positions of
//! hand-crafted-evaluation games at 5000 nodes, score 0.6711 on these
//! positions: the net's scores run larger than the hand-crafted search's
//! for the same outcome.
//!
//! | model | log loss (nats) |
//! | --- | --- |
//! | constant rates (neither score nor material) | 1.0768 |
//! | constant `a` = 240.7, `b` = 154.5 (score only) | 0.7188 |
//! | this one (cubic `a`, `b`) | 0.6321 |
//!
//! Fitted on all but the last 40,000 positions (`--validation 40000`, about
//! 450 games), those score 0.5985 against 0.6840 for the score-only model
//! and 1.0867 for constant rates; linear and quadratic polynomials score
//! 0.6204 and 0.6041 there.
//!
//! | material | 17 | 24 | 32 | 40 | 48 | 56 | 64 | 72 | 78 |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | `a` (cp) | 386.7 | 248.1 | 158.7 | 123.6 | 122.6 | 135.5 | 142.0 | 122.0 | 77.4 |
//! | `b` (cp) | 142.1 | 107.3 | 91.3 | 93.0 | 104.8 | 118.8 | 127.2 | 122.1 | 104.8 |
//!
//! So 0 cp is 62/876/62 per mille with 17 material, 247/506/247 with 64
//! and 323/354/323 with all 78, and +200 cp is 212/772/16 with 17 and
//! 763/171/66 with 78. Predicted and observed rates by score bucket (all
//! 388,497 positions, 21 buckets) agree within 8.0 points: the largest gaps
//! are at -10..10 cp (75.3% draws observed, 67.3% predicted: datagen
//! adjudicates a draw once the score stays within 10 cp), at 300..400 cp
//! either way (more decisive than predicted, by up to 6 points) and at
//! 600..1000 cp either way (more draws than predicted, by 6 points); by
//! material bucket within 4.5 points. The tables are in the tuner's output.
//!
//! Checked on generation 2's games (the net built in since 1ad5bde):
//! 824,249 positions of 9210 games, `datagen play --net embedded
//! --soft-nodes 2000 --hard-nodes 20000 --seed 20261206` at 1ad5bde. These
//! constants score 0.6251 there and a refit on those games 0.6232 (held out
//! 40,000: 0.6197), with `a` within 11 cp of these from 32 material up (20
//! at 24, 32 at 17) and `b` within 6 cp everywhere: the second net's
//! scores mean what the first's did, so the fit stays.

use shakmaty::{Chess, Position};

use crate::score::MATE_BOUND;

/// The material count is clamped to this range before the model uses it.
pub const MATERIAL_MIN: i32 = 17;
pub const MATERIAL_MAX: i32 = 78;
/// The polynomials take `x = material / MATERIAL_NORM`.
pub const MATERIAL_NORM: f64 = 58.0;

/// Coefficients of `a(x)`, ascending powers of `x`, in centipawns.
pub const A: [f64; 4] = [1044.341278, -3174.651680, 3553.108649, -1284.286494];
/// Coefficients of `b(x)`, ascending powers of `x`, in centipawns.
pub const B: [f64; 4] = [340.571689, -1012.512536, 1290.030339, -496.349472];

/// Material of both sides: pawn 1, knight and bishop 3, rook 5, queen 9
/// (78 in the start position), not clamped.
pub fn material_count(pos: &Chess) -> i32 {
    let b = pos.board();
    (b.pawns().count()
        + 3 * b.knights().count()
        + 3 * b.bishops().count()
        + 5 * b.rooks().count()
        + 9 * b.queens().count()) as i32
}

/// The polynomial with coefficients `c` (ascending powers) at `x`.
pub fn poly(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

/// The model input `x` of a material count: clamped, over `MATERIAL_NORM`.
pub fn model_input(material: i32) -> f64 {
    material.clamp(MATERIAL_MIN, MATERIAL_MAX) as f64 / MATERIAL_NORM
}

/// `a` and `b` (centipawns) of a material count.
pub fn params(material: i32) -> (f64, f64) {
    let x = model_input(material);
    (poly(&A, x), poly(&B, x))
}

/// Win, draw and loss probabilities of a centipawn score (side to move) at
/// a material count; mate scores give a certain result.
pub fn probabilities(score_cp: i32, material: i32) -> (f64, f64, f64) {
    if score_cp >= MATE_BOUND {
        return (1.0, 0.0, 0.0);
    }
    if score_cp <= -MATE_BOUND {
        return (0.0, 0.0, 1.0);
    }
    let (a, b) = params(material);
    let s = score_cp as f64;
    // exp() overflowing to infinity gives 0, never NaN.
    let win = 1.0 / (1.0 + ((a - s) / b).exp());
    let loss = 1.0 / (1.0 + ((a + s) / b).exp());
    (win, (1.0 - win - loss).max(0.0), loss)
}

/// Win, draw and loss per mille (summing to exactly 1000) of a centipawn
/// score (side to move) at a material count (see [`material_count`]).
/// Mate scores give `(1000, 0, 0)` or `(0, 0, 1000)`.
pub fn wdl(score_cp: i32, material: i32) -> (u32, u32, u32) {
    let (w, _, l) = probabilities(score_cp, material);
    let mut win = (w * 1000.0).round() as u32;
    let mut loss = (l * 1000.0).round() as u32;
    // Rounding both up can overshoot by one: take it from the smaller one,
    // which keeps wdl(-s) the mirror of wdl(s).
    if win + loss > 1000 {
        if win < loss {
            win -= 1;
        } else {
            loss -= 1;
        }
    }
    (win, 1000 - win - loss, loss)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    const SCORES: [i32; 14] = [
        0, 1, 10, 25, 50, 100, 150, 200, 300, 500, 1000, 3000, 10000, 31000,
    ];

    #[test]
    fn material_of_positions() {
        assert_eq!(material_count(&Chess::default()), 78);
        let pos: Chess = "8/8/4k3/8/2R5/8/3PK3/8 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(material_count(&pos), 6);
        assert_eq!(model_input(6), 17.0 / 58.0);
        assert_eq!(model_input(100), 78.0 / 58.0);
    }

    #[test]
    fn the_model_is_valid_at_every_material() {
        for m in MATERIAL_MIN..=MATERIAL_MAX {
            let (a, b) = params(m);
            assert!(a > 0.0 && b > 0.0, "material {m}: a {a}, b {b}");
        }
    }

    #[test]
    fn sums_to_1000() {
        for m in 0..=100 {
            for s in -3000..=3000 {
                let (w, d, l) = wdl(s, m);
                assert_eq!(w + d + l, 1000, "score {s}, material {m}");
            }
        }
        for s in [i32::MIN, i32::MIN + 1, -MATE_BOUND, MATE_BOUND, i32::MAX] {
            let (w, d, l) = wdl(s, 40);
            assert_eq!(w + d + l, 1000, "score {s}");
        }
    }

    #[test]
    fn symmetric() {
        for m in 0..=100 {
            for s in -5000..=5000 {
                let (w, d, l) = wdl(s, m);
                assert_eq!(wdl(-s, m), (l, d, w), "score {s}, material {m}");
            }
            for s in SCORES {
                let (w, d, l) = wdl(s, m);
                assert_eq!(wdl(-s, m), (l, d, w), "score {s}, material {m}");
            }
        }
    }

    #[test]
    fn monotone_in_score() {
        for m in MATERIAL_MIN - 5..=MATERIAL_MAX + 5 {
            let mut last = wdl(-MATE_BOUND + 1, m);
            for s in -MATE_BOUND + 2..MATE_BOUND {
                let now = wdl(s, m);
                assert!(
                    now.0 >= last.0 && now.2 <= last.2,
                    "score {s}, material {m}"
                );
                last = now;
            }
            // The probabilities themselves, strictly.
            let mut last = probabilities(-1000, m);
            for s in -999..=1000 {
                let now = probabilities(s, m);
                assert!(now.0 > last.0 && now.2 < last.2, "score {s}, material {m}");
                last = now;
            }
        }
    }

    #[test]
    fn zero_is_balanced() {
        for m in 0..=100 {
            let (w, d, l) = wdl(0, m);
            assert_eq!(w, l, "material {m}");
            assert!(d >= 200, "material {m}: {w} {d} {l}");
            // A draw is the likeliest outcome of a level position, except
            // with (nearly) all the material: fast self-play games from
            // level openings are mostly decisive.
            if m <= 64 {
                assert!(d > w, "material {m}: {w} {d} {l}");
            }
        }
        assert!(wdl(0, 17).1 > 700);
    }

    #[test]
    fn big_scores_are_nearly_certain() {
        for m in MATERIAL_MIN..=MATERIAL_MAX {
            let (w, _, _) = wdl(3000, m);
            assert!(w >= 990, "material {m}: {w}");
            let (_, _, l) = wdl(-3000, m);
            assert!(l >= 990, "material {m}: {l}");
        }
    }

    #[test]
    fn mate_is_certain() {
        for m in [0, 17, 40, 78, 200] {
            assert_eq!(wdl(MATE_BOUND, m), (1000, 0, 0));
            assert_eq!(wdl(crate::score::MATE - 1, m), (1000, 0, 0));
            assert_eq!(wdl(i32::MAX, m), (1000, 0, 0));
            assert_eq!(wdl(-MATE_BOUND, m), (0, 0, 1000));
            assert_eq!(wdl(-crate::score::MATE + 2, m), (0, 0, 1000));
            assert_eq!(wdl(i32::MIN, m), (0, 0, 1000));
            // The last non-mate scores are nearly as certain, without NaN.
            let (w, d, l) = wdl(MATE_BOUND - 1, m);
            assert_eq!((w, d, l), (1000, 0, 0));
            let (w, d, l) = wdl(-MATE_BOUND + 1, m);
            assert_eq!((w, d, l), (0, 0, 1000));
        }
    }
}
