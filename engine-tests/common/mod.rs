//! The harness the protocol tests share: the real binary driven through
//! its stdin and stdout, exactly as a GUI drives it, with legality checks
//! of everything it answers.
#![allow(dead_code)] // each test crate uses a different part

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

pub struct Engine {
    pub child: Child,
    pub stdin: ChildStdin,
    pub lines: Receiver<String>,
    /// Everything read so far, for failure messages.
    pub transcript: Vec<String>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with_env(&[])
    }

    /// Starts the binary with extra environment variables.
    pub fn start_with_env(vars: &[(&str, &str)]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kiraly"));
        command.envs(vars.iter().copied());
        Engine::start_command(command)
    }

    /// Starts the binary with its address space limited to `kib` KiB
    /// (`ulimit -v`), so that an allocation beyond it fails whatever the
    /// host's memory-overcommit setting.
    pub fn start_with_address_space_limit(kib: u64) -> Engine {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -v {kib} && exec \"$0\""))
            .arg(env!("CARGO_BIN_EXE_kiraly"));
        Engine::start_command(command)
    }

    /// Starts `command` (the binary, or a wrapper that execs it).
    pub fn start_command(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    pub fn send(&mut self, command: &str) {
        self.transcript.push(format!("> {command}"));
        writeln!(self.stdin, "{command}").expect("engine stdin open");
        self.stdin.flush().unwrap();
    }

    /// Reads lines until one satisfies `done`; returns all lines read.
    pub fn read_until(&mut self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.transcript.push(line.clone());
                    let finished = done(&line);
                    read.push(line);
                    if finished {
                        return read;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!(
                    "timed out after {timeout:?}; transcript:\n{}",
                    self.transcript.join("\n")
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "engine closed stdout; transcript:\n{}",
                    self.transcript.join("\n")
                ),
            }
        }
    }

    /// Waits `wait`, failing on any line but `info` (a search that must
    /// not answer yet); returns the `info` lines.
    pub fn silent_after_info(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Err(RecvTimeoutError::Timeout) => return read,
                Ok(line) if line.starts_with("info") => {
                    self.transcript.push(line.clone());
                    read.push(line);
                }
                Ok(line) => panic!("unexpected: {line}\n{}", self.transcript.join("\n")),
                Err(RecvTimeoutError::Disconnected) => panic!("engine died"),
            }
        }
    }

    pub fn bestmove(&mut self, timeout: Duration) -> Vec<String> {
        self.read_until(timeout, |l| l.starts_with("bestmove"))
    }

    pub fn is_ready(&mut self) {
        self.send("isready");
        self.read_until(Duration::from_secs(5), |l| l == "readyok");
    }

    pub fn quit(mut self) {
        self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(Instant::now() < deadline, "engine did not quit");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Runs the binary on `input` (UCI lines, ending in `quit`) and returns its
/// stdout lines once it exits.
pub fn run_engine(input: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiraly"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the engine");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("engine stdin open");
    let out = child.wait_with_output().expect("engine exits");
    assert!(out.status.success(), "engine exit status {}", out.status);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

pub fn position(fen: &str, mode: CastlingMode) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
}

/// Plays `text` if it is a legal move written as the engine must write it:
/// castling as `e1g1` in a standard game, as king takes rook (`e1h1`) in a
/// Chess960 one (the position's castling mode says which). shakmaty reads
/// either notation in either mode, so the text is compared with the move
/// written back in the position's mode.
pub fn play_uci(pos: &Chess, text: &str) -> Option<Chess> {
    let m = UciMove::from_ascii(text.as_bytes())
        .ok()?
        .to_move(pos)
        .ok()?;
    if m.to_uci(pos.castles().mode()).to_string() != text {
        return None;
    }
    pos.clone().play(m).ok()
}

/// The number after `name` in an `info` line, if any.
pub fn info_field(line: &str, name: &str) -> Option<i64> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == name)?;
    words.next()?.parse().ok()
}

/// The last `info` line with a score (the one a GUI shows for the move).
pub fn last_scored(lines: &[String]) -> &String {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info") && l.contains(" score "))
        .expect("an info line with a score")
}

/// Checks every pv in `lines` and the final bestmove (and ponder move) for
/// legality from `root` (`0000` only where `root` has no legal move);
/// returns the bestmove text.
pub fn check_search_output(root: &Chess, lines: &[String]) -> String {
    for line in lines
        .iter()
        .filter(|l| l.starts_with("info") && l.contains(" pv "))
    {
        let pv = line.split(" pv ").nth(1).unwrap();
        let mut pos = root.clone();
        for mv in pv.split_whitespace() {
            pos = play_uci(&pos, mv).unwrap_or_else(|| panic!("illegal pv move {mv} in: {line}"));
        }
        for field in [
            "depth", "seldepth", "score", "nodes", "nps", "time", "hashfull",
        ] {
            assert!(
                line.contains(&format!(" {field} ")),
                "info without {field}: {line}"
            );
        }
        // The figures agree with one another: nps is the line's nodes over
        // its own time (GUIs and fastchess show it as such), and the
        // selective depth is never below the depth.
        let field = |name| info_field(line, name).unwrap_or_else(|| panic!("{name}: {line}"));
        let (nodes, nps, ms) = (field("nodes"), field("nps"), field("time"));
        assert_eq!(nps, nodes * 1000 / ms.max(1), "nps of: {line}");
        assert!(field("seldepth") >= field("depth"), "seldepth of: {line}");
    }
    let last = lines.last().expect("some output");
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words[0], "bestmove", "{last}");
    let best = words[1].to_string();
    // The null move is the answer only where there is no legal move.
    if best == "0000" {
        assert!(
            root.legal_moves().is_empty(),
            "bestmove 0000 with legal moves: {last}"
        );
    } else {
        let after = play_uci(root, &best).unwrap_or_else(|| panic!("illegal bestmove: {last}"));
        if words.get(2) == Some(&"ponder") {
            play_uci(&after, words[3]).unwrap_or_else(|| panic!("illegal ponder move: {last}"));
        }
    }
    best
}

pub fn last_score(lines: &[String]) -> String {
    let line = lines
        .iter()
        .rev()
        .find(|l| l.contains(" score "))
        .expect("an info line with a score");
    let rest = line.split(" score ").nth(1).unwrap();
    rest.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The CPU time, in clock ticks, each thread of process `pid` has used so
/// far, by thread id (Linux: `/proc/PID/task/TID/stat`, user plus system).
/// What a thread did, unlike a wall clock, does not depend on how busy the
/// machine is.
#[cfg(target_os = "linux")]
pub fn thread_cpu_ticks(pid: u32) -> std::collections::BTreeMap<u32, u64> {
    threads_cpu_ticks(pid, "")
}

/// `thread_cpu_ticks` of the search threads only (named `search-N`): not
/// the main thread, the UCI reader, or the short-lived threads that clear
/// the table between searches, whose share grows when the machine is busy.
#[cfg(target_os = "linux")]
pub fn search_thread_cpu_ticks(pid: u32) -> std::collections::BTreeMap<u32, u64> {
    threads_cpu_ticks(pid, "search-")
}

#[cfg(target_os = "linux")]
fn threads_cpu_ticks(pid: u32, name_prefix: &str) -> std::collections::BTreeMap<u32, u64> {
    let mut ticks = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return ticks;
    };
    for task in tasks.flatten() {
        let named = std::fs::read_to_string(task.path().join("comm"))
            .is_ok_and(|comm| comm.starts_with(name_prefix));
        if !named {
            continue;
        }
        let tid = task.file_name().to_str().and_then(|t| t.parse().ok());
        let used = cpu_ticks_of(&task.path().join("stat"));
        if let (Some(tid), Some(used)) = (tid, used) {
            ticks.insert(tid, used);
        }
    }
    ticks
}

/// Resident memory of a process in MiB, from /proc (Linux).
pub fn resident_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .expect("VmRSS line");
    kb / 1024.0
}

/// User plus system time of a `/proc` `stat` file.
#[cfg(target_os = "linux")]
fn cpu_ticks_of(stat: &std::path::Path) -> Option<u64> {
    let stat = std::fs::read_to_string(stat).ok()?;
    // The fields after the command name, which is in parentheses: the
    // state is field 3, utime and stime fields 14 and 15.
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    Some(field(14)? + field(15)?)
}
