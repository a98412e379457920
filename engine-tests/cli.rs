//! The command line: `--help`, `--version`, the tools' argument errors, and
//! arguments that are UCI command lines (how OpenBench runs `genfens`).

use std::process::{Command, Output, Stdio};

fn kiraly(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiraly"))
        .args(args)
        // No input at all: whatever runs must come from the arguments.
        .stdin(Stdio::null())
        .output()
        .expect("run the engine")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn help_lists_the_commands() {
    let out = kiraly(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for command in ["bench", "speedtest", "perft"] {
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("{command} "))),
            "{command} missing from --help:\n{text}"
        );
    }
    assert!(text.contains("UCI"), "{text}");
}

#[test]
fn version_names_the_commit() {
    let out = kiraly(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let root = env!("CARGO_MANIFEST_DIR");
    // The commit of this checkout, as the build script reads it; `unknown`
    // outside git.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let ours = git(&["rev-parse", "--show-toplevel"])
        .is_some_and(|top| std::fs::canonicalize(top).ok() == std::fs::canonicalize(root).ok());
    let commit = ours
        .then(|| git(&["rev-parse", "--short", "HEAD"]))
        .flatten()
        .unwrap_or_else(|| "unknown".into());
    assert_eq!(
        text.trim(),
        format!("kiraly {} (commit {commit})", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn arguments_are_uci_lines_in_order_then_quit() {
    // Each argument is one line, run in order; the engine then exits on its
    // own, with stdin closed from the start.
    let out = kiraly(&["position startpos moves e2e4", "d", "isready", "uci"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let fen = text
        .lines()
        .position(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let ready = text.lines().position(|l| l == "readyok");
    let uciok = text.lines().position(|l| l == "uciok");
    assert!(
        fen.is_some() && ready.is_some() && uciok.is_some(),
        "{text}"
    );
    assert!(fen < ready && ready < uciok, "out of order:\n{text}");

    // A newline inside an argument does not start another command.
    let out = kiraly(&["isready\nuci"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(!text.contains("uciok"), "{text}");

    // OpenBench's form: the lines, then an explicit quit.
    let out = kiraly(&["isready", "quit", "uci"]);
    assert_eq!(stdout(&out).trim(), "readyok");
}

#[test]
fn tool_arguments_are_checked() {
    for args in [
        &["bench", "0"][..],
        &["bench", "x"],
        &["speedtest", "0"],
        &["speedtest", "1", "0"],
        &["perft"],
        &["perft", "2", "not a fen"],
        &["--bogus"],
    ] {
        let out = kiraly(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
        assert!(!out.stderr.is_empty(), "{args:?} gave no reason");
    }
}

#[test]
fn perft_takes_a_fen_in_one_argument_or_many() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    for args in [
        vec!["perft", "2", fen],
        [vec!["perft", "2"], fen.split(' ').collect()].concat(),
    ] {
        let out = kiraly(&args);
        assert_eq!(out.status.code(), Some(0));
        // Kiwipete: 2039 nodes at depth 2.
        assert!(
            stdout(&out).contains("Nodes searched: 2039"),
            "{}",
            stdout(&out)
        );
    }
}
