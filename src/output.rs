//! Where the engine's protocol lines go: to the GUI on stdout, or nowhere
//! (bench, the tools' searches, in-process replays). The engine hands its
//! `Output` to each search, so every line a search or the controller sends
//! goes one way, and a caller that wants silence says so once, for itself
//! alone.

use std::io::{self, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// UCI lines on stdout, each flushed at once: a GUI reading through a
    /// pipe would otherwise see it only when the buffer fills.
    Uci,
    /// Nothing is written (a problem still goes to the log).
    Silent,
}

impl Output {
    /// Sends one protocol line.
    pub fn send(self, line: &str) {
        if self == Output::Silent {
            return;
        }
        let stdout = io::stdout();
        let mut out = stdout.lock();
        // A closed stdout means the GUI is gone; there is no one left to tell.
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    /// Reports a problem to the GUI as `info string` and to the log on
    /// stderr.
    pub fn problem(self, message: &str) {
        log::warn!("{message}");
        self.send(&format!("info string {message}"));
    }
}
