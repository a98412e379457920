//! The tuner reads datagen's binary game records as well as text lines.

use datagen::format::{encode_move, Game, Ply};
use kiraly::game::GameResult;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};
use tuner::data::{is_game_records, Dataset};
use tuner::wdl::{self, Outcome};

/// Twelve quiet plies (knights out and back), ply i scored 10 i for the
/// side to move.
fn knight_dance(result: GameResult) -> Game {
    let mut pos = Chess::default();
    let mut plies = Vec::new();
    for (i, uci) in ["g1f3", "g8f6", "f3g1", "f6g8"]
        .iter()
        .cycle()
        .take(12)
        .enumerate()
    {
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        plies.push(Ply {
            mv: encode_move(&m),
            score: 10 * i as i16,
        });
        pos.play_unchecked(m);
    }
    Game {
        start: Chess::default(),
        plies,
        result,
    }
}

#[test]
fn loads_game_records_through_the_training_filter() {
    // The filter skips the first eight plies as opening plies, so four
    // positions are loaded.
    let game = knight_dance(GameResult::BlackWins);
    let path = std::env::temp_dir().join(format!("tuner-records-{}.kdat", std::process::id()));
    std::fs::write(&path, game.to_bytes()).unwrap();
    assert!(is_game_records(&path).unwrap());

    let mut data = Dataset::default();
    let bad = data.load(&path, usize::MAX, |_| {}).unwrap();
    assert_eq!(bad, 0);
    assert_eq!(data.len(), 4);
    // Scores are stored from White's view: ply 8 (White to move) +80,
    // ply 9 (Black to move, +90 for Black) -90.
    let scores: Vec<f32> = data.samples.iter().map(|s| s.score).collect();
    assert_eq!(scores, vec![80.0, -90.0, 100.0, -110.0]);
    assert!(data.samples.iter().all(|s| s.result == 0.0));

    // A limit stops the read early.
    let mut few = Dataset::default();
    few.load(&path, 2, |_| {}).unwrap();
    assert_eq!(few.len(), 2);

    // Text data is still read as text.
    std::fs::write(
        &path,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 15 | 0.5\n",
    )
    .unwrap();
    assert!(!is_game_records(&path).unwrap());
    let mut text = Dataset::default();
    text.load(&path, usize::MAX, |_| {}).unwrap();
    assert_eq!(text.len(), 1);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn the_wdl_fit_reads_game_records_too() {
    // The four plies the training filter keeps, each from the side to
    // move's view.
    let game = knight_dance(GameResult::WhiteWins);
    let path = std::env::temp_dir().join(format!("tuner-wdl-records-{}.kdat", std::process::id()));
    std::fs::write(&path, game.to_bytes()).unwrap();
    let mut positions = Vec::new();
    let skipped = wdl::load(&path, usize::MAX, &mut positions).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(skipped, wdl::Skipped::default());
    let seen: Vec<(f32, Outcome, u8)> = positions
        .iter()
        .map(|p| (p.score, p.outcome, p.material))
        .collect();
    // The search scores are the mover's own; White wins, so Black to move
    // has lost. All material is on the board (78).
    assert_eq!(
        seen,
        vec![
            (80.0, Outcome::Win, 78),
            (90.0, Outcome::Loss, 78),
            (100.0, Outcome::Win, 78),
            (110.0, Outcome::Loss, 78),
        ]
    );
}
