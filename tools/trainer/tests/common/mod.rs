//! Self-play games written to a scratch data file and read back as the
//! trainer reads it, for the tests that check what reaches training.

// Each test file compiles this module on its own and reads only some fields.
#![allow(dead_code)]

use datagen::format::{Filter, Game};
use datagen::play::{play_game, PlayConfig};
use kiraly::search::SoloSearch;
use shakmaty::Chess;
use trainer::data::Packed;

/// The games played, their bytes as the data file holds them, and the
/// positions the trainer loaded from that file with the default filter.
pub struct LoadedGames {
    pub games: Vec<Game>,
    pub bytes: Vec<u8>,
    pub loaded: Vec<Packed>,
}

/// Plays `count` games from the standard start under `config` (one thread,
/// its own search), writes them to a file named after `name` and the
/// process, and loads that file with `trainer::data::load`.
pub fn play_and_load(config: &PlayConfig, count: u64, name: &str) -> LoadedGames {
    let mut search = SoloSearch::new(1).unwrap();
    let mut games = Vec::new();
    let mut bytes = Vec::new();
    for number in 0..count {
        let played = play_game(&mut search, &[Chess::default()], config, number).unwrap();
        bytes.extend(played.game.to_bytes());
        games.push(played.game);
    }
    let path = std::env::temp_dir().join(format!("trainer-{name}-{}.kdat", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let loaded = trainer::data::load(&[&path], &Filter::default(), usize::MAX);
    let _ = std::fs::remove_file(&path);
    LoadedGames {
        games,
        bytes,
        loaded: loaded.unwrap(),
    }
}
