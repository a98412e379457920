//! What the engine does around the net's raw output (`evaluate_nnue`): 0 for
//! dead material, a clamp below tablebase scores, the fade towards the
//! fifty-move rule, and no change at all while the halfmove clock is within
//! what the transposition table's clock-free caching assumes.

use kiraly::eval::params::HALFMOVE_FREE;
use kiraly::eval::{evaluate_nnue, is_clock_free};
use kiraly::nnue::{accumulator, Network};
use kiraly::score::TB_WIN_BOUND;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

fn at_clock(board_and_rest: &str, halfmoves: u32) -> Chess {
    format!("{board_and_rest} {halfmoves} 60")
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn net() -> &'static Network {
    kiraly::nnue::embedded().expect("a built-in net")
}

/// Positions with a material edge either way, without castling rights (so
/// any halfmove clock is consistent).
const POSITIONS: [&str; 4] = [
    "r4rk1/pp3ppp/4b3/3p4/3P4/2N1B3/PP3PPP/R4RK1 w - -",
    "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 w - -",
    "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 b - -",
    "8/5k2/8/3r4/8/2B5/5K2/8 w - -",
];

#[test]
fn dead_material_is_zero_whatever_the_net_says() {
    for fen in [
        "8/8/4k3/8/8/3NK3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3BK3/8/8 b - - 0 1",
        "8/8/4k3/8/8/4K3/8/8 w - - 0 1",
    ] {
        let pos = at_clock(&fen[..fen.len() - 4], 0);
        assert_eq!(evaluate_nnue(net(), &pos), 0, "{fen}");
    }
    // The raw net does not say 0 there, so the rule is what makes it.
    let knight = at_clock("8/8/4k3/8/8/3NK3/8/8 w - -", 0);
    assert_ne!(accumulator::evaluate(net(), &knight), 0);
    // A knight and a pawn are not dead.
    let alive = at_clock("8/8/4k3/8/8/3NK3/4P3/8 w - -", 0);
    assert_eq!(
        evaluate_nnue(net(), &alive),
        accumulator::evaluate(net(), &alive)
    );
}

#[test]
fn the_clock_changes_nothing_while_the_table_caches_and_fades_to_zero_after() {
    let free = HALFMOVE_FREE as u32;
    for fen in POSITIONS {
        let fresh = evaluate_nnue(net(), &at_clock(fen, 0));
        assert_eq!(fresh, accumulator::evaluate(net(), &at_clock(fen, 0)));
        assert!(fresh.abs() > 100, "{fen}: {fresh}, too small to see a fade");
        let mut previous = fresh;
        for clock in 1..=100 {
            let pos = at_clock(fen, clock);
            let score = evaluate_nnue(net(), &pos);
            if is_clock_free(&pos) {
                assert_eq!(score, fresh, "{fen} at clock {clock}");
            } else {
                // Past the free half-moves: strictly smaller towards 100,
                // linear within rounding.
                assert!(clock > free);
                assert!(score.abs() < previous.abs(), "{fen} at clock {clock}");
                let expected = fresh as f64 * f64::from(100 - clock) / f64::from(100 - free);
                assert!(
                    (f64::from(score) - expected).abs() <= 1.0,
                    "{fen} at clock {clock}: {score}, expected {expected}"
                );
            }
            previous = score;
        }
        assert_eq!(previous, 0, "{fen} at clock 100");
        // The free range is the one the engine's evaluation caching trusts.
        assert!(is_clock_free(&at_clock(fen, free)));
        assert!(!is_clock_free(&at_clock(fen, free + 1)));
    }
}

/// A net whose output is huge (its output biases), either way.
fn saturated(sign: i32) -> Network {
    let mut net = net().clone();
    for bias in &mut net.output_bias {
        *bias = sign * (i32::MAX / 4);
    }
    net
}

#[test]
fn the_net_stays_below_tablebase_and_mate_scores() {
    for sign in [1, -1] {
        let net = saturated(sign);
        for fen in POSITIONS {
            let pos = at_clock(fen, 0);
            let raw = accumulator::evaluate(&net, &pos);
            assert!(raw.abs() >= TB_WIN_BOUND, "{fen}: raw {raw}");
            assert_eq!(
                evaluate_nnue(&net, &pos),
                sign * (TB_WIN_BOUND - 1),
                "{fen}"
            );
            // The fade applies to the clamped value.
            let late = evaluate_nnue(&net, &at_clock(fen, 60));
            assert_eq!(
                late,
                sign * (TB_WIN_BOUND - 1) * 40 / (100 - HALFMOVE_FREE),
                "{fen}"
            );
        }
    }
}

/// `eval` prints the evaluations the engine uses: its NNUE line is
/// `evaluate_nnue` and its final line the hand-crafted `evaluate`, both in
/// pawns from White's view, for either side to move and a late clock.
#[test]
fn the_eval_command_prints_the_evaluations_themselves() {
    for fen in POSITIONS {
        for clock in [0, 70] {
            let pos = at_clock(fen, clock);
            let white = |stm: i32| {
                if pos.turn() == shakmaty::Color::White {
                    stm
                } else {
                    -stm
                }
            };
            let lines = kiraly_eval(&format!("{fen} {clock} 60"));
            let shown = |prefix: &str| {
                lines
                    .iter()
                    .find_map(|l| l.strip_prefix(prefix))
                    .unwrap_or_else(|| panic!("no '{prefix}' line: {lines:#?}"))
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string()
            };
            let pawns = |cp: i32| format!("{:+.2}", f64::from(cp) / 100.0);
            assert_eq!(
                shown("NNUE evaluation"),
                pawns(white(evaluate_nnue(net(), &pos))),
                "{fen} {clock}"
            );
            assert_eq!(
                shown("Final evaluation:"),
                pawns(white(kiraly::eval::evaluate(&pos))),
                "{fen} {clock}"
            );
        }
    }
}

/// The binary's `eval` output for a FEN, with the net on.
fn kiraly_eval(fen: &str) -> Vec<String> {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kiraly"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let input = format!("setoption name Use NNUE value true\nposition fen {fen}\neval\nquit\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}
