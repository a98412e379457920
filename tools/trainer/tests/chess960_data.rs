//! Chess960 self-play games reach the trainer: the reader replays their
//! castling and keeps the same positions the data format's filter keeps.

mod common;

use datagen::format::{for_each_sample, Filter};
use datagen::play::PlayConfig;
use shakmaty::{CastlingMode, Position};

#[test]
fn chess960_games_load_for_training() {
    let config = PlayConfig {
        soft_nodes: 300,
        hard_nodes: 3000,
        threads: 1,
        hash_mb: 1,
        seed: 96,
        chess960: 1.0,
        ..PlayConfig::default()
    };
    let played = common::play_and_load(&config, 6, "960");
    for game in &played.games {
        assert_eq!(game.start.castles().mode(), CastlingMode::Chess960);
    }
    let mut expected = 0;
    let mut castled = false;
    for_each_sample(&mut played.bytes.as_slice(), &Filter::default(), |s| {
        expected += 1;
        castled |= s.mv.is_some_and(|m| m.is_castle());
    })
    .unwrap();
    assert!(expected > 100, "only {expected} positions");
    assert_eq!(played.loaded.len(), expected);
    assert!(castled, "no kept position castled next");
}
