//! Chess960 self-play games reach the trainer: the reader replays their
//! castling and keeps the same positions the data format's filter keeps.

use datagen::format::{for_each_sample, Filter};
use datagen::play::{play_game, PlayConfig};
use kiraly::search::SoloSearch;
use shakmaty::{CastlingMode, Chess, Position};

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
    let mut search = SoloSearch::new(1).unwrap();
    let mut bytes = Vec::new();
    let mut castled = false;
    for number in 0..6 {
        let played = play_game(&mut search, &[Chess::default()], &config, number).unwrap();
        assert_eq!(played.game.start.castles().mode(), CastlingMode::Chess960);
        bytes.extend(played.game.to_bytes());
    }
    let path = std::env::temp_dir().join(format!("trainer-960-{}.kdat", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let filter = Filter::default();
    let mut expected = 0;
    for_each_sample(&mut bytes.as_slice(), &filter, |s| {
        expected += 1;
        castled |= s.mv.is_some_and(|m| m.is_castle());
    })
    .unwrap();
    let loaded = trainer::data::load(&[&path], &filter, usize::MAX).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(expected > 100, "only {expected} positions");
    assert_eq!(loaded.len(), expected);
    assert!(castled, "no kept position castled next");
}
