//! Positions added near the game positions (`--augment`) and the hand-crafted
//! evaluation's scores (`--rescore-hand-crafted`).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};
use trainer::data::{augment, Packed, NO_RESULT};
use trainer::model::{hand_crafted_eval, target};
use trainer::rescore;

fn packed(fen: &str, score: i16, result: f32) -> Packed {
    let fen: Fen = fen.parse().unwrap();
    let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
    Packed::new(pos.board(), pos.turn(), score, result)
}

#[test]
fn augmented_positions_are_legal_new_and_have_no_result() {
    let starts = [
        packed(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            30,
            1.0,
        ),
        packed("8/5k2/8/3K4/8/8/4P3/8 b - - 0 60", 150, 0.5),
        // Checkmated: no move to start from is fine, the position yields
        // whatever its moves allow and never a terminal position.
        packed("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", -20000, 0.0),
    ];
    let extra = augment(&starts, 50, 7);
    assert!(extra.len() >= 2 * 50, "{} positions", extra.len());
    let mut differ = 0;
    for p in &extra {
        assert_eq!(p.result, NO_RESULT);
        let pos = p.chess().expect("a legal position");
        assert!(!pos.legal_moves().is_empty(), "no terminal positions");
        if starts
            .iter()
            .all(|s| (s.occupied, s.pieces) != (p.occupied, p.pieces))
        {
            differ += 1;
        }
    }
    // One to four random moves: nearly every board differs from the start
    // (a pair of moves can come back to it).
    assert!(
        differ * 10 >= extra.len() * 9,
        "{differ} of {}",
        extra.len()
    );
    // Deterministic for a seed.
    assert_eq!(augment(&starts, 50, 7), extra);
}

#[test]
fn positions_from_no_game_are_trained_on_their_score_alone() {
    let mut p = packed("8/5k2/8/3K4/8/8/4P3/8 w - - 0 60", 200, 1.0);
    let blended = target(&p, 0.5);
    p.result = NO_RESULT;
    let score_only = 1.0 / (1.0 + (-200.0f32 / 400.0).exp());
    for lambda in [0.0, 0.5, 1.0] {
        assert!((target(&p, lambda) - score_only).abs() < 1e-6);
    }
    assert!((blended - (0.5 + 0.5 * score_only)).abs() < 1e-6);
}

#[test]
fn rescoring_puts_the_hand_crafted_evaluation_in_the_score() {
    let mut ps = vec![
        packed("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", 0, 0.5),
        packed("4k3/8/8/8/8/8/8/3QK3 b - - 0 1", 0, 0.5),
    ];
    rescore::hand_crafted(&mut ps);
    assert!(ps[0].score > 500, "{}", ps[0].score);
    assert!(ps[1].score < -500, "{}", ps[1].score);
    assert_eq!(Some(i32::from(ps[0].score)), hand_crafted_eval(&ps[0]));
}

#[test]
fn searched_scores_see_beyond_the_static_evaluation_at_quiet_positions_only() {
    let mut positions = vec![
        // Nc7+ forks king and rook: the static evaluation sees knight and
        // pawn against a rook, the search sees the rook won. The fork is a
        // quiet move, so the position gets the search's score.
        packed("r3k3/8/8/1N6/8/8/4P3/4K3 w - - 0 1", 0, 0.5),
        // In check (the best move is quiet): the static evaluation.
        packed("4k3/8/8/8/8/8/8/r3K3 w - - 0 1", 0, 0.5),
        // A hanging queen: the best move is a capture, the static value.
        packed("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", 0, 0.5),
        // Mate in one (Qg7#, a quiet move but a mate score): static.
        packed("7k/8/5KQ1/8/8/8/8/8 w - - 0 1", 0, 0.5),
    ];
    let statics: Vec<i32> = positions
        .iter()
        .map(|p| hand_crafted_eval(p).unwrap())
        .collect();
    let first = positions.clone();
    assert_eq!(rescore::searched(&mut positions, 2000, None), 1);
    assert!(
        i32::from(positions[0].score) > statics[0] + 200,
        "search {} against static {}",
        positions[0].score,
        statics[0]
    );
    for (p, s) in positions.iter().zip(&statics).skip(1) {
        assert_eq!(i32::from(p.score), *s);
    }
    // Deterministic, and only the scores change.
    let mut again = first.clone();
    rescore::searched(&mut again, 2000, None);
    assert_eq!(again, positions);
    for (a, b) in first.iter().zip(&positions) {
        assert_eq!(
            (a.occupied, a.pieces, a.result),
            (b.occupied, b.pieces, b.result)
        );
    }
}

#[test]
fn searched_scores_do_not_depend_on_the_thread_count() {
    let starts = [
        packed(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            30,
            1.0,
        ),
        packed(
            "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
            0,
            0.5,
        ),
    ];
    let positions = augment(&starts, 400, 3);
    assert!(
        positions.len() > 2 * rescore::SEARCH_CHUNK,
        "several chunks: {}",
        positions.len()
    );
    let with_threads = |threads: usize| {
        let mut scored = positions.clone();
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| rescore::searched(&mut scored, 300, None));
        scored
    };
    let one = with_threads(1);
    assert_ne!(one, positions, "the search changed some scores");
    assert_eq!(with_threads(3), one);
}

#[test]
fn searched_scores_can_come_from_a_net() {
    let net = kiraly::nnue::embedded().expect("the built-in net");
    let fork = "r3k3/8/8/1N6/8/8/4P3/4K3 w - - 0 1";
    let in_check = "4k3/8/8/8/8/8/8/r3K3 w - - 0 1";
    let mut positions = vec![packed(fork, 0, 0.5), packed(in_check, 0, 0.5)];
    let net_static = |p: &Packed| kiraly::eval::evaluate_nnue(net, &p.chess().unwrap());
    let statics: Vec<i32> = positions.iter().map(net_static).collect();
    assert_eq!(rescore::searched(&mut positions, 2000, Some(net)), 1);
    // The net's search sees the rook won; in check, the net's static value
    // (not the hand-crafted one).
    assert!(
        i32::from(positions[0].score) > statics[0] + 200,
        "search {} against the net's static {}",
        positions[0].score,
        statics[0]
    );
    assert_eq!(i32::from(positions[1].score), statics[1]);
    assert_ne!(
        Some(statics[1]),
        hand_crafted_eval(&positions[1]),
        "the two evaluations differ here"
    );
}
