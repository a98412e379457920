//! Runs the `datagen` binary: self-play into the binary format, resuming an
//! interrupted file, conversion of text and PGN data, and `stats`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use datagen::format::{for_each_sample, Filter, Game, HEADER_BYTES};
use shakmaty::Position;

fn temp_path(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("datagen-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

fn datagen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args(args)
        .output()
        .expect("datagen runs")
}

/// `datagen play` of `games` games into `path` with the tests' small
/// searches (300 soft and 3000 hard nodes, a 1 MB table) on `threads`
/// threads, with the options `extra`.
fn play_small(path: &Path, games: &str, threads: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "play",
        "--games",
        games,
        "--soft-nodes",
        "300",
        "--hard-nodes",
        "3000",
        "--threads",
        threads,
        "--hash",
        "1",
        "--output",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    datagen(&args)
}

/// Two threads of self-play with `seed`; returns the progress report.
fn play(path: &Path, games: &str, seed: &str) -> String {
    let out = play_small(path, games, "2", &["--seed", seed]);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "datagen failed: {stderr}");
    stderr
}

fn read_games(path: &Path) -> Vec<Game> {
    let bytes = std::fs::read(path).unwrap();
    let mut input = bytes.as_slice();
    let mut games = Vec::new();
    while let Some(game) = Game::read(&mut input).unwrap() {
        games.push(game);
    }
    games
}

#[test]
fn self_play_writes_whole_legal_games_and_resumes() {
    let path = temp_path("play.kdat");
    let stderr = play(&path, "3", "11");
    assert!(stderr.contains("games 3 |"), "no summary: {stderr}");
    let games = read_games(&path);
    assert_eq!(games.len(), 3);
    let mut positions = 0;
    let mut starts = HashSet::new();
    for game in &games {
        assert!(!game.plies.is_empty());
        starts.insert(format!("{:?}", game.start.board()));
        positions += game.plies.len();
    }
    assert_eq!(starts.len(), 3, "random openings should differ");
    // Every ply replays legally and carries a score; nothing is filtered
    // when writing: some positions are in check or have a capture played.
    let bytes = std::fs::read(&path).unwrap();
    let mut seen = 0;
    let mut noisy = 0;
    for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
        seen += 1;
        let m = s.mv.expect("self-play records a move at every ply");
        if m.is_capture() || s.pos.is_check() {
            noisy += 1;
        }
    })
    .unwrap();
    assert_eq!(seen, positions);
    assert!(noisy > 0, "no capture or check in {positions} plies");
    assert!(
        stderr.contains(&format!("positions {positions}")),
        "{stderr}"
    );

    // An interrupted write leaves part of a game: the next run cuts it off
    // and appends whole games after the three.
    let whole = bytes.len();
    let mut damaged = bytes.clone();
    damaged.extend_from_slice(&bytes[..HEADER_BYTES + 6]);
    std::fs::write(&path, &damaged).unwrap();
    let stderr = play(&path, "1", "11");
    assert!(stderr.contains("cutting"), "{stderr}");
    assert!(stderr.contains("3 games already"), "{stderr}");
    let resumed = read_games(&path);
    assert_eq!(resumed.len(), 4);
    assert_eq!(&std::fs::read(&path).unwrap()[..whole], &bytes[..]);
    // Game numbering continued: the fourth game is not a copy of the first.
    assert_ne!(resumed[3].plies, resumed[0].plies);

    let out = datagen(&["stats", path.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(report.contains("games      4"), "{report}");
    let count = |r: kiraly::game::GameResult| resumed.iter().filter(|g| g.result == r).count();
    let results = format!(
        "results    White wins {} ",
        count(kiraly::game::GameResult::WhiteWins)
    );
    let draws = format!("draws {} ", count(kiraly::game::GameResult::Draw));
    let black = format!("Black wins {} ", count(kiraly::game::GameResult::BlackWins));
    for counted in [results, draws, black] {
        assert!(report.contains(&counted), "{counted} in {report}");
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn self_play_with_the_net() {
    let path = temp_path("net.kdat");
    let out = play_small(&path, "2", "1", &["--seed", "5", "--net", "embedded"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let hash = format!("net {:016x}", kiraly::nnue::embedded().unwrap().hash);
    assert!(stderr.contains(&hash), "{stderr}");
    assert_eq!(read_games(&path).len(), 2);
    // Not the hand-crafted games of the same seed.
    let hce = temp_path("hce.kdat");
    play(&hce, "2", "5");
    assert_ne!(std::fs::read(&path).unwrap(), std::fs::read(&hce).unwrap());
    for p in [path, hce] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn same_seed_same_games_other_seed_other_games() {
    let (a, b, c) = (temp_path("a"), temp_path("b"), temp_path("c"));
    play(&a, "2", "5");
    play(&b, "2", "5");
    play(&c, "2", "6");
    let plies = |p: &PathBuf| {
        // Two threads may finish the games in either order.
        let mut games: Vec<String> = read_games(p)
            .into_iter()
            .map(|g| format!("{:?}", g.plies))
            .collect();
        games.sort();
        games
    };
    assert_eq!(plies(&a), plies(&b));
    assert_ne!(plies(&a), plies(&c));
    for p in [a, b, c] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn converts_text_and_pgn_and_refuses_garbage() {
    let text = temp_path("in.txt");
    std::fs::write(
        &text,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 1.0\n\
         8/8/4k3/8/8/3QK3/8/8 w - - 12 40 | 900 | 0.5\n",
    )
    .unwrap();
    let out_path = temp_path("conv.kdat");
    let out = datagen(&[
        "text",
        text.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pgn = temp_path("in.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 {+0.30/9 0.1s} e5 {-0.25/9 0.1s} 2. Qh5 {+0.10/9 0.1s} 1-0\n",
    )
    .unwrap();
    let out = datagen(&[
        "pgn",
        pgn.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("1 games, 3 positions"), "{stderr}");
    let bytes = std::fs::read(&out_path).unwrap();
    let mut scores = Vec::new();
    for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
        scores.push((s.white_score(), s.stm_result()))
    })
    .unwrap();
    // Text: White's view kept; PGN: the mover's view turned into White's.
    assert_eq!(
        scores,
        vec![(35, 0.0), (900, 0.5), (30, 1.0), (25, 0.0), (10, 1.0)]
    );

    // A file that is not datagen output is refused, not appended to.
    let out = datagen(&["pgn", pgn.to_str().unwrap(), "-o", text.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not datagen output"));
    let out = datagen(&["stats", pgn.to_str().unwrap()]);
    assert!(!out.status.success());
    let out = datagen(&["play", "--soft-nodes", "0"]);
    assert!(!out.status.success());
    // A net that does not load stops the run before any game.
    let out = datagen(&["play", "--net", text.to_str().unwrap(), "--games", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(text.to_str().unwrap()));
    for p in [text, pgn, out_path] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn chess960_games_round_trip_with_their_castling() {
    let path = temp_path("chess960.kdat");
    let out = play_small(&path, "16", "2", &["--seed", "960", "--chess960", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = read_games(&path);
    assert_eq!(games.len(), 16);
    let standard = shakmaty::Chess::default();
    let (mut double, mut castles) = (0, 0);
    for game in &games {
        // The file keeps Chess960 castling, or castling moves would not replay.
        assert_eq!(
            game.start.castles().mode(),
            shakmaty::CastlingMode::Chess960
        );
        assert_ne!(game.start.board(), standard.board(), "a standard start");
        let board = game.start.board();
        let back_rank = |rank: shakmaty::Rank| {
            shakmaty::File::ALL.map(|f| board.role_at(shakmaty::Square::from_coords(f, rank)))
        };
        double +=
            usize::from(back_rank(shakmaty::Rank::First) != back_rank(shakmaty::Rank::Eighth));
    }
    // Every ply replays legally from the recorded start, castling included.
    let mut seen = 0;
    let bytes = std::fs::read(&path).unwrap();
    for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
        seen += 1;
        castles += usize::from(s.mv.is_some_and(|m| m.is_castle()));
    })
    .unwrap();
    assert_eq!(seen, games.iter().map(|g| g.plies.len()).sum::<usize>());
    assert!(
        castles > 0,
        "no game castled: the castling round trip is untested"
    );
    assert!(
        double > 0 && double < 16,
        "{double} of 16 double-Chess960 starts"
    );
    // A share of zero plays the same standard games as a run without it.
    let a = temp_path("share0.kdat");
    let b = temp_path("noshare.kdat");
    play(&a, "2", "5");
    let out = play_small(&b, "2", "2", &["--seed", "5", "--chess960", "0"]);
    assert!(out.status.success());
    // The same games; with two threads they may be written in either order.
    let sorted_records = |p: &Path| {
        let mut records: Vec<Vec<u8>> = read_games(p).iter().map(Game::to_bytes).collect();
        records.sort();
        records
    };
    assert_eq!(sorted_records(&a), sorted_records(&b));
    for p in [path, a, b] {
        let _ = std::fs::remove_file(p);
    }
}

/// Results by colour: games from one-line books, where White or Black is
/// two queens up (adjudicated once both sides' searches agree for
/// `WIN_PLIES` plies) or mates at once (the rules end the game). Each game's
/// record, its samples (side to move's view) and `stats` give the winner.
#[test]
fn wins_are_scored_for_the_side_that_wins() {
    use datagen::play::WIN_PLIES;
    use kiraly::game::GameResult;
    let cases = [
        // Two queens up, no mate within a few plies: adjudicated.
        (
            "4k3/pppppppp/8/8/8/8/1PPPPPPP/2QQK3 w - - 0 1",
            GameResult::WhiteWins,
            WIN_PLIES as usize,
        ),
        (
            "2qqk3/1ppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
            GameResult::BlackWins,
            WIN_PLIES as usize,
        ),
        (
            "2qqk3/1ppppppp/8/8/8/8/PPPPPPPP/4K3 b - - 0 1",
            GameResult::BlackWins,
            WIN_PLIES as usize,
        ),
        // Mate in one, by the side to move.
        (
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            GameResult::WhiteWins,
            1,
        ),
        (
            "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1",
            GameResult::BlackWins,
            1,
        ),
    ];
    let path = temp_path("colours.kdat");
    for (i, (fen, _, _)) in cases.iter().enumerate() {
        let book = temp_path(&format!("colours-{i}.epd"));
        std::fs::write(&book, format!("{fen}\n")).unwrap();
        let extra = [
            "--random-plies",
            "0",
            "--opening-max-score",
            "100000",
            "--book",
            book.to_str().unwrap(),
        ];
        let out = play_small(&path, "1", "1", &extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_file(book).unwrap();
    }
    let games = read_games(&path);
    assert_eq!(games.len(), cases.len());
    for (game, (fen, result, plies)) in games.iter().zip(&cases) {
        assert_eq!(game.result, *result, "{fen}");
        assert_eq!(game.plies.len(), *plies, "{fen}");
    }
    // Every sample of a won game is a win for the winner, a loss for the
    // other side.
    let bytes = std::fs::read(&path).unwrap();
    let mut samples = 0;
    for_each_sample(&mut bytes.as_slice(), &Filter::none(), |s| {
        let white = s.pos.turn() == shakmaty::Color::White;
        let expected = match s.result {
            GameResult::WhiteWins => white,
            GameResult::BlackWins => !white,
            GameResult::Draw => panic!("a drawn game"),
        };
        assert_eq!(s.stm_result(), if expected { 1.0 } else { 0.0 });
        samples += 1;
    })
    .unwrap();
    assert_eq!(samples, 3 * WIN_PLIES as usize + 2);
    let out = datagen(&["stats", path.to_str().unwrap()]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("results    White wins 2 (40.0%), draws 0 (0.0%), Black wins 3 (60.0%)"),
        "{report}"
    );
    std::fs::remove_file(&path).unwrap();
}
