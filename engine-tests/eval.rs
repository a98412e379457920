//! Evaluation tests: colour symmetry over the EPD suites, king safety on
//! hand-built positions, endgame scaling, and the tuner's coefficients.

use std::fs;

use kiraly::eval::params::{kd, Term};
use kiraly::eval::{eval_coefficients, evaluate, trace, Evaluator};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// Every position of the suites in `engine-tests/data`. Every line must give
/// a position (the engine accepts unreachable set-ups, so they count too): a
/// line or a whole suite that no longer parses fails here instead of
/// silently shrinking the tests below.
#[allow(clippy::result_large_err)]
fn suite_positions() -> Vec<Chess> {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data");
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "epd"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 9, "the EPD suites: {files:?}");
    for file in files {
        let mode = if file.to_string_lossy().contains("960") {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let mut from_file = 0;
        for (number, line) in fs::read_to_string(&file).unwrap().lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().take(4).collect();
            let fen = format!("{} 0 1", fields.join(" "));
            let parsed = fen.parse::<Fen>().map_err(|e| e.to_string()).and_then(|f| {
                f.into_position::<Chess>(mode)
                    .or_else(|e| e.ignore_impossible_check())
                    .or_else(|e| e.ignore_too_much_material())
                    .map_err(|e| e.to_string())
            });
            match parsed {
                Ok(p) => {
                    out.push(p);
                    from_file += 1;
                }
                Err(e) => bad.push(format!("{}:{}: {e}", file.display(), number + 1)),
            }
        }
        assert!(from_file > 0, "{}: no positions", file.display());
    }
    assert!(bad.is_empty(), "unusable suite lines:\n{}", bad.join("\n"));
    out
}

#[allow(clippy::result_large_err)]
fn mirrored(p: &Chess) -> Chess {
    let mode = p.castles().mode();
    let setup = p.to_setup(EnPassantMode::Legal).into_mirrored();
    // The mirror of an unreachable set-up the engine accepts is one too.
    Chess::from_setup(setup, mode)
        .or_else(|e| e.ignore_impossible_check())
        .or_else(|e| e.ignore_too_much_material())
        .expect("mirror of a position the engine accepts")
}

fn flipped_left_right(p: &Chess) -> Option<Chess> {
    if p.castles().any() {
        return None;
    }
    let mut setup = p.to_setup(EnPassantMode::Legal);
    setup.board.flip_horizontal();
    setup.ep_square = setup.ep_square.map(|s| s.flip_horizontal());
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

#[test]
fn colour_flip_symmetry_over_suites() {
    let mut evaluator = Evaluator::new();
    for p in suite_positions() {
        let m = mirrored(&p);
        let a = evaluator.evaluate_hand_crafted(&p);
        assert_eq!(a, evaluate(&p), "pawn table changes the score");
        let b = evaluator.evaluate_hand_crafted(&m);
        assert_eq!(
            a,
            b,
            "{} vs mirrored {}",
            Fen::from_position(&p, EnPassantMode::Legal),
            Fen::from_position(&m, EnPassantMode::Legal)
        );
        if let Some(lr) = flipped_left_right(&p) {
            // The king's square table prefers the king side, so compare
            // everything but the square tables.
            let without_psqt = |q: &Chess| {
                let t = trace(q);
                let (w, b) = t.term(Term::Psqt);
                (t.total - (w - b), t.scale)
            };
            assert_eq!(
                without_psqt(&p),
                without_psqt(&lr),
                "left-right {}",
                Fen::from_position(&p, EnPassantMode::Legal)
            );
        }
    }
}

#[test]
fn coefficients_reproduce_the_evaluation() {
    for p in suite_positions() {
        let c = eval_coefficients(&p);
        assert_eq!(
            c.evaluate(),
            evaluate(&p),
            "{}",
            Fen::from_position(&p, EnPassantMode::Legal)
        );
        let t = trace(&p);
        assert_eq!(t.stm, evaluate(&p));
    }
}

/// King safety (King row, total mg) for `color` in `fen`.
fn king_row(fen: &str, color: Color) -> i32 {
    let t = trace(&pos(fen));
    let (w, b) = t.term(Term::King);
    match color {
        Color::White => w.mg,
        Color::Black => b.mg,
    }
}

#[test]
fn intact_shelter_beats_exposed_king() {
    // Same material; White's queen, rook and bishop aim at the black king.
    // Black's shelter is intact in the first, pushed and broken in the second.
    let intact = "r5k1/5ppp/8/8/8/3B1Q2/5PPP/3R2K1 w - - 0 1";
    let exposed = "r5k1/8/5p1p/6p1/8/3B1Q2/5PPP/3R2K1 w - - 0 1";
    let ks_intact = king_row(intact, Color::Black);
    let ks_exposed = king_row(exposed, Color::Black);
    assert!(
        ks_exposed < ks_intact - 30,
        "exposed {ks_exposed} vs intact {ks_intact}"
    );
    let t_intact = trace(&pos(intact));
    let t_exposed = trace(&pos(exposed));
    let black = Color::Black as usize;
    assert!(t_exposed.king[black].danger > t_intact.king[black].danger);
    assert!(t_exposed.king[black].shelter.mg < t_intact.king[black].shelter.mg);
    assert!(
        t_exposed.white > t_intact.white,
        "total must favour the attacker"
    );
}

#[test]
fn more_attackers_more_danger() {
    // Black king on g8 behind f7/g7/h7; White adds attackers one by one.
    let fens = [
        "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
        "6k1/5ppp/8/6N1/8/8/5PPP/3Q2K1 w - - 0 1",
        "6k1/5ppp/8/6N1/7Q/8/5PPP/6K1 w - - 0 1",
        "6k1/5ppp/8/6N1/7Q/3B4/5PPP/6K1 w - - 0 1",
        "6k1/5ppp/8/6N1/7Q/3B4/5PPP/4R1K1 w - - 0 1",
    ];
    let mut last_danger = -1;
    let mut last_attackers = -1;
    for fen in fens {
        let t = trace(&pos(fen));
        let k = &t.king[Color::Black as usize];
        assert!(k.zone_attackers >= last_attackers, "{fen}");
        assert!(
            k.danger >= last_danger,
            "{fen}: {} < {last_danger}",
            k.danger
        );
        last_danger = k.danger;
        last_attackers = k.zone_attackers;
    }
    let first = trace(&pos(fens[1])).king[0].danger;
    assert!(last_danger > first + 100, "{last_danger} vs {first}");
    assert!(king_row(fens[4], Color::Black) < king_row(fens[1], Color::Black) - 50);
}

#[test]
fn safe_checks_count() {
    // A rook or queen checking on the undefended back rank.
    let no_check = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let with_queen = "6k1/5ppp/8/8/8/8/5PPP/Q5K1 w - - 0 1";
    let t0 = trace(&pos(no_check));
    let t1 = trace(&pos(with_queen));
    let k0 = &t0.king[Color::Black as usize];
    let k1 = &t1.king[Color::Black as usize];
    assert_eq!(k0.inputs[kd::SAFE_ROOK_CHECK], 1, "{k0:?}");
    assert_eq!(k1.inputs[kd::SAFE_QUEEN_CHECK], 1, "{k1:?}");
    // Defending the back rank removes the safe check.
    let defended = "3r2k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let t2 = trace(&pos(defended));
    assert_eq!(t2.king[0].inputs[kd::SAFE_ROOK_CHECK], 0);
    // A knight with a safe check raises the danger over one without.
    let knight_check = "6k1/5ppp/8/3N4/8/7Q/5PPP/6K1 w - - 0 1";
    let knight_nocheck = "6k1/5ppp/8/1N6/8/7Q/5PPP/6K1 w - - 0 1";
    let a = trace(&pos(knight_check)).king[0];
    let b = trace(&pos(knight_nocheck)).king[0];
    assert!(a.inputs[kd::SAFE_KNIGHT_CHECK] > b.inputs[kd::SAFE_KNIGHT_CHECK]);
    assert!(a.danger > b.danger);
}

#[test]
fn drawn_material_is_zero() {
    for fen in [
        "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/2N1K3 b - - 0 1",
        "4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/1NN1K3 b - - 0 1",
        // A lone minor against pawns cannot win either (the rules' dead
        // positions above are zero anyway; these are not dead).
        "4k3/4p3/8/8/8/8/8/2B1K3 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/2n1K3 b - - 0 1",
    ] {
        assert!(
            evaluate(&pos(fen)).abs() <= 5,
            "{fen}: {}",
            evaluate(&pos(fen))
        );
    }
    // Wrong rook pawn: h-pawn, light-squared bishop, king in the corner.
    let wrong = "7k/8/8/8/8/8/7P/3BK3 w - - 0 1";
    assert!(
        evaluate(&pos(wrong)).abs() <= 5,
        "{}",
        evaluate(&pos(wrong))
    );
    let right = "7k/8/8/8/8/8/7P/2B1K3 w - - 0 1";
    assert!(evaluate(&pos(right)) > 100);
}

#[test]
fn opposite_bishops_are_scaled() {
    let ocb = "4k3/4b3/8/p1p5/P1P1P3/8/4B3/4K3 w - - 0 1";
    let same = "4k3/3b4/8/p1p5/P1P1P3/8/4B3/4K3 w - - 0 1";
    let t_ocb = trace(&pos(ocb));
    let t_same = trace(&pos(same));
    assert!(t_ocb.scale < 64 && t_ocb.scale > 0, "{}", t_ocb.scale);
    assert_eq!(t_same.scale, 64);
    assert!(t_ocb.white.abs() < t_same.white.abs());
}

#[test]
fn fifty_move_clock_shrinks_the_score() {
    let fresh = evaluate(&pos("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 60"));
    let old = evaluate(&pos("4k3/8/8/8/8/8/4P3/R3K3 w - - 90 60"));
    assert!(fresh > 300);
    assert!(old.abs() < fresh / 4);
}

#[test]
fn extra_queen_wins_and_start_is_small() {
    assert!(evaluate(&pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) > 800);
    assert!(evaluate(&Chess::default()).abs() < 40);
}
