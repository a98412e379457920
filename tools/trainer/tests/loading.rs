//! What the trainer loads from a data file is each kept position of the
//! games, with its score and the game's result from the side to move's view
//! (the view of the net's output), whichever side that is.

mod common;

use datagen::format::{for_each_sample, Filter};
use datagen::play::PlayConfig;
use kiraly::game::GameResult;
use shakmaty::{Color, Position};

#[test]
fn loaded_positions_carry_the_side_to_moves_score_and_result() {
    let config = PlayConfig {
        soft_nodes: 300,
        hard_nodes: 3000,
        threads: 1,
        hash_mb: 1,
        seed: 11,
        ..PlayConfig::default()
    };
    let common::LoadedGames { bytes, loaded, .. } = common::play_and_load(&config, 8, "load");
    let filter = Filter::default();

    let mut samples = Vec::new();
    for_each_sample(&mut bytes.as_slice(), &filter, |s| samples.push(s.clone())).unwrap();
    assert_eq!(loaded.len(), samples.len());
    // Results on the trainer's scale: 0 loss, 1 draw, 2 win, for the side
    // to move; both sides to move win and lose somewhere in these games.
    let mut seen = std::collections::HashSet::new();
    for (packed, sample) in loaded.iter().zip(&samples) {
        let turn = sample.pos.turn();
        let white: u8 = match sample.result {
            GameResult::WhiteWins => 2,
            GameResult::Draw => 1,
            GameResult::BlackWins => 0,
        };
        let result = if turn == Color::White {
            white
        } else {
            2 - white
        };
        assert_eq!(packed.turn(), turn);
        assert_eq!(&packed.board(), sample.pos.board());
        assert_eq!(
            packed.score, sample.score,
            "the stored score is the mover's"
        );
        assert_eq!(
            packed.result, result,
            "{:?}, {turn:?} to move",
            sample.result
        );
        seen.insert((turn, result));
    }
    for want in [
        (Color::White, 0),
        (Color::White, 2),
        (Color::Black, 0),
        (Color::Black, 2),
    ] {
        assert!(
            seen.contains(&want),
            "no position with {want:?} in {seen:?}"
        );
    }
}
