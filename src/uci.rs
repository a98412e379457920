//! The UCI protocol's input: reading and parsing commands (the replies go
//! out through `output::Output`, which the engine holds).
//!
//! Parsing is pure (text in, `Command` out) so that every malformed input can
//! be tested without a running engine. Nothing here panics on any input.

use std::io::{self, BufRead};

use crossbeam_channel::Sender;

/// Longest command line accepted; the rest of a longer line is discarded.
/// A position command for a 1000-move game is about 5 KB.
pub const MAX_LINE_BYTES: usize = 1 << 20;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub depth: Option<u64>,
    pub nodes: Option<u64>,
    pub mate: Option<u64>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    pub perft: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionSpec {
    StartPos,
    Fen(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        spec: PositionSpec,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    /// `d`: show the board, FEN and key.
    Display,
    /// `eval`: show the static evaluation.
    Eval,
    /// `genfens N seed S book B ...`: the words after `genfens`, parsed by
    /// `openings::GenFens` (this module only splits lines into commands).
    GenFens(Vec<String>),
    /// `debug on|off` and `register` are accepted and ignored.
    Ignored,
    Empty,
    /// A command that could not be understood; the text says why.
    Invalid(String),
}

/// Reads stdin line by line and forwards parsed commands until `quit` or the
/// end of input, which counts as `quit`.
pub fn reader_loop(input: impl BufRead, commands: Sender<Command>) {
    let mut input = input;
    loop {
        let line = match read_bounded_line(&mut input, MAX_LINE_BYTES) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                log::error!("cannot read stdin: {e}");
                break;
            }
        };
        // An overlong line is not parsed; the controller reports it.
        let command = if line.truncated {
            Command::Invalid(format!("line longer than {MAX_LINE_BYTES} bytes ignored"))
        } else {
            parse_command(&line.text)
        };
        let quit = command == Command::Quit;
        if commands.send(command).is_err() || quit {
            return;
        }
    }
    let _ = commands.send(Command::Quit);
}

pub struct Line {
    pub text: String,
    pub truncated: bool,
}

/// Reads one line without ever holding more than `max` bytes of it.
pub fn read_bounded_line(input: &mut impl BufRead, max: usize) -> io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let mut truncated = false;
    let mut saw_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            if !saw_any {
                return Ok(None);
            }
            break;
        }
        saw_any = true;
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if bytes.len() + chunk.len() > max {
            truncated = true;
        } else {
            bytes.extend_from_slice(chunk);
        }
        input.consume(used);
        if done {
            break;
        }
    }
    let text = String::from_utf8_lossy(&bytes).trim().to_string();
    Ok(Some(Line { text, truncated }))
}

pub fn parse_command(line: &str) -> Command {
    let mut tokens = line.split_whitespace();
    let Some(first) = tokens.next() else {
        return Command::Empty;
    };
    let rest: Vec<&str> = tokens.collect();
    match first {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "setoption" => parse_setoption(&rest),
        "position" => parse_position(&rest),
        "go" => parse_go(&rest),
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "d" => Command::Display,
        "eval" => Command::Eval,
        "genfens" => Command::GenFens(rest.iter().map(|w| w.to_string()).collect()),
        "debug" | "register" => Command::Ignored,
        other => Command::Invalid(format!("unknown command: {}", shorten(other))),
    }
}

/// Echoing back a megabyte of garbage helps nobody.
fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}...")
    }
}

fn parse_setoption(tokens: &[&str]) -> Command {
    // setoption name <id with spaces> [value <x with spaces>]
    if tokens.first() != Some(&"name") {
        return Command::Invalid("setoption: expected 'setoption name <id> [value <x>]'".into());
    }
    let value_at = tokens.iter().position(|&t| t == "value");
    let name_tokens = &tokens[1..value_at.unwrap_or(tokens.len())];
    if name_tokens.is_empty() {
        return Command::Invalid("setoption: missing option name".into());
    }
    let value = value_at.map(|i| tokens[i + 1..].join(" "));
    Command::SetOption {
        name: name_tokens.join(" "),
        value,
    }
}

fn parse_position(tokens: &[&str]) -> Command {
    let moves_at = tokens.iter().position(|&t| t == "moves");
    let head = &tokens[..moves_at.unwrap_or(tokens.len())];
    let moves = moves_at
        .map(|i| tokens[i + 1..].iter().map(|s| s.to_string()).collect())
        .unwrap_or_default();
    let spec = match head.first() {
        Some(&"startpos") if head.len() == 1 => PositionSpec::StartPos,
        Some(&"fen") if head.len() > 1 => PositionSpec::Fen(head[1..].join(" ")),
        _ => {
            return Command::Invalid(
                "position: expected 'position startpos|fen <fen> [moves ...]'".into(),
            )
        }
    };
    Command::Position { spec, moves }
}

fn parse_go(tokens: &[&str]) -> Command {
    let mut params = GoParams::default();
    let mut i = 0;
    while i < tokens.len() {
        let key = tokens[i];
        i += 1;
        let slot = match key {
            "infinite" => {
                params.infinite = true;
                continue;
            }
            "ponder" => {
                params.ponder = true;
                continue;
            }
            "searchmoves" => {
                // Every following token that is not a go keyword is a move.
                while i < tokens.len() && !is_go_keyword(tokens[i]) {
                    params.searchmoves.push(tokens[i].to_string());
                    i += 1;
                }
                continue;
            }
            "wtime" => &mut params.wtime,
            "btime" => &mut params.btime,
            "winc" => &mut params.winc,
            "binc" => &mut params.binc,
            "movestogo" => &mut params.movestogo,
            "depth" => &mut params.depth,
            "nodes" => &mut params.nodes,
            "mate" => &mut params.mate,
            "movetime" => &mut params.movetime,
            "perft" => &mut params.perft,
            other => {
                return Command::Invalid(format!("go: unknown parameter '{}'", shorten(other)));
            }
        };
        let Some(text) = tokens.get(i) else {
            return Command::Invalid(format!("go: '{key}' needs a number"));
        };
        i += 1;
        match parse_number(text) {
            Some(n) => *slot = Some(n),
            None => {
                return Command::Invalid(format!(
                    "go: '{key}' needs a number, got '{}'",
                    shorten(text)
                ))
            }
        }
    }
    Command::Go(params)
}

fn is_go_keyword(token: &str) -> bool {
    matches!(
        token,
        "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "mate"
            | "movetime"
            | "infinite"
            | "ponder"
            | "searchmoves"
            | "perft"
    )
}

/// A non-negative count. Clocks can arrive negative (a GUI that lets the
/// clock run past zero); those count as zero rather than as an error.
fn parse_number(text: &str) -> Option<u64> {
    if let Ok(n) = text.parse::<u64>() {
        return Some(n);
    }
    match text.parse::<i64>() {
        Ok(n) if n < 0 => Some(0),
        _ => {
            // Some GUIs send fractional values; take the integer part.
            let f: f64 = text.parse().ok()?;
            (f.is_finite()).then(|| f.max(0.0).min(u64::MAX as f64) as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_with_every_parameter() {
        let cmd = parse_command(
            "go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 depth 7 nodes 99 mate 3 movetime 50 infinite ponder searchmoves e2e4 d2d4",
        );
        let Command::Go(p) = cmd else {
            panic!("{cmd:?}")
        };
        assert_eq!(p.wtime, Some(1000));
        assert_eq!(p.btime, Some(2000));
        assert_eq!(p.winc, Some(10));
        assert_eq!(p.binc, Some(20));
        assert_eq!(p.movestogo, Some(5));
        assert_eq!(p.depth, Some(7));
        assert_eq!(p.nodes, Some(99));
        assert_eq!(p.mate, Some(3));
        assert_eq!(p.movetime, Some(50));
        assert!(p.infinite && p.ponder);
        assert_eq!(p.searchmoves, vec!["e2e4", "d2d4"]);
    }

    #[test]
    fn searchmoves_stop_at_the_next_keyword() {
        let Command::Go(p) = parse_command("go searchmoves e2e4 depth 3") else {
            panic!()
        };
        assert_eq!(p.searchmoves, vec!["e2e4"]);
        assert_eq!(p.depth, Some(3));
    }

    #[test]
    fn negative_clock_counts_as_zero() {
        let Command::Go(p) = parse_command("go wtime -150 btime 100") else {
            panic!()
        };
        assert_eq!(p.wtime, Some(0));
        // A fractional value keeps its whole milliseconds.
        let Command::Go(p) = parse_command("go wtime 1000.7 btime -0.5") else {
            panic!()
        };
        assert_eq!((p.wtime, p.btime), (Some(1000), Some(0)));
    }

    #[test]
    fn malformed_go_is_invalid() {
        assert!(matches!(parse_command("go depth"), Command::Invalid(_)));
        assert!(matches!(parse_command("go depth x"), Command::Invalid(_)));
        assert!(matches!(
            parse_command("go sideways 3"),
            Command::Invalid(_)
        ));
    }

    #[test]
    fn parses_setoption_names_with_spaces() {
        assert_eq!(
            parse_command("setoption name Move Overhead value 100"),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            }
        );
        assert_eq!(
            parse_command("setoption name Clear Hash"),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert!(matches!(
            parse_command("setoption value 3"),
            Command::Invalid(_)
        ));
    }

    #[test]
    fn parses_position() {
        assert_eq!(
            parse_command("position startpos moves e2e4 e7e5"),
            Command::Position {
                spec: PositionSpec::StartPos,
                moves: vec!["e2e4".into(), "e7e5".into()]
            }
        );
        assert_eq!(
            parse_command("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1"),
            Command::Position {
                spec: PositionSpec::Fen("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
                moves: vec![]
            }
        );
        assert!(matches!(parse_command("position"), Command::Invalid(_)));
        assert!(matches!(parse_command("position fen"), Command::Invalid(_)));
        assert!(matches!(
            parse_command("position startpos e2e4"),
            Command::Invalid(_)
        ));
    }

    #[test]
    fn garbage_is_invalid_not_fatal() {
        assert_eq!(parse_command("   "), Command::Empty);
        assert!(matches!(parse_command("xyzzy"), Command::Invalid(_)));
        let long = "x".repeat(10_000);
        let Command::Invalid(msg) = parse_command(&long) else {
            panic!()
        };
        assert!(msg.len() < 200);
    }

    #[test]
    fn bounded_reader_drops_overlong_lines() {
        let data = format!("isready\n{}\nuci\n", "y".repeat(5000));
        let mut input = io::Cursor::new(data.into_bytes());
        let a = read_bounded_line(&mut input, 100).unwrap().unwrap();
        assert_eq!((a.text.as_str(), a.truncated), ("isready", false));
        let b = read_bounded_line(&mut input, 100).unwrap().unwrap();
        assert!(b.truncated);
        let c = read_bounded_line(&mut input, 100).unwrap().unwrap();
        assert_eq!(c.text, "uci");
        assert!(read_bounded_line(&mut input, 100).unwrap().is_none());
    }
}
