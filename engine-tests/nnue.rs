//! The learned evaluation through the binary: `Use NNUE` and `EvalFile` as
//! in Stockfish 15.1, and the net's part of `eval`.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the engine on `input` (UCI lines) and returns its stdout lines.
fn engine(input: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiraly"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the engine");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("engine exits");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

fn net_path() -> String {
    format!("{}/nets/default.nnue", env!("CARGO_MANIFEST_DIR"))
}

/// The score of the `go depth 1` line (the quiescence value of the best move).
fn depth_one_score(lines: &[String]) -> String {
    lines
        .iter()
        .find(|l| l.starts_with("info depth 1 "))
        .and_then(|l| l.split(" score ").nth(1))
        .map(|s| s.split(" nodes").next().unwrap_or("").to_string())
        .unwrap_or_else(|| panic!("no depth 1 line: {lines:#?}"))
}

#[test]
fn options_are_declared() {
    let lines = engine("uci\nquit\n");
    assert!(lines.contains(&"option name Use NNUE type check default false".to_string()));
    assert!(lines.contains(&"option name EvalFile type string default <embedded>".to_string()));
}

#[test]
fn use_nnue_switches_the_evaluation_the_search_uses() {
    let position =
        "position fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4\n";
    let hce = engine(&format!("{position}go depth 1\nisready\nquit\n"));
    let nnue = engine(&format!(
        "setoption name Use NNUE value true\n{position}go depth 1\nisready\nquit\n"
    ));
    let back = engine(&format!(
        "setoption name Use NNUE value true\nsetoption name Use NNUE value false\n{position}go depth 1\nisready\nquit\n"
    ));
    assert_ne!(depth_one_score(&hce), depth_one_score(&nnue));
    assert_eq!(depth_one_score(&hce), depth_one_score(&back));
    for lines in [&hce, &nnue] {
        assert!(
            lines.iter().any(|l| l.starts_with("bestmove ")),
            "{lines:#?}"
        );
    }
    // `eval` says which one is in use and shows the net's piece values.
    let eval = engine("setoption name Use NNUE value true\nposition startpos\neval\nquit\n");
    assert!(
        eval.iter()
            .any(|l| l.starts_with("NNUE derived piece values")),
        "{eval:#?}"
    );
    assert!(eval
        .iter()
        .any(|l| l == "Evaluation in use      NNUE (Use NNUE true)"));
    assert!(
        eval.iter().any(|l| l.starts_with("Final evaluation")),
        "the hand-crafted trace stays"
    );
}

#[test]
fn eval_file_loads_or_keeps_the_current_net() {
    let dir = std::env::temp_dir().join(format!("kiraly-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(net_path()).unwrap();
    let truncated = dir.join("truncated.nnue");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let mut other = good.clone();
    other[16] = 32; // another hidden width
    let wrong = dir.join("wrong.nnue");
    std::fs::write(&wrong, &other).unwrap();
    let copy = dir.join("copy.nnue");
    std::fs::write(&copy, &good).unwrap();

    let position = "position startpos moves e2e4 e7e5\n";
    let reference = engine(&format!(
        "setoption name Use NNUE value true\n{position}go depth 1\nisready\nquit\n"
    ));
    let lines = engine(&format!(
        "setoption name Use NNUE value true\n\
         setoption name EvalFile value /nonexistent/net.nnue\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value {}\n\
         {position}go depth 1\nisready\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value <embedded>\n\
         isready\nquit\n",
        truncated.display(),
        wrong.display(),
        copy.display()
    ));
    let strings: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string"))
        .collect();
    assert_eq!(strings.len(), 5, "{lines:#?}");
    assert!(strings[0].contains("cannot read") && strings[0].contains("keeping the current net"));
    assert!(strings[1].contains("truncated"), "{}", strings[1]);
    assert!(strings[2].contains("wrong architecture"), "{}", strings[2]);
    assert!(strings[3].contains("copy.nnue: net "), "{}", strings[3]);
    assert!(strings[4].contains("<embedded>: net "), "{}", strings[4]);
    // The refused files left the built-in net in place: same search.
    assert_eq!(depth_one_score(&lines), depth_one_score(&reference));
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
