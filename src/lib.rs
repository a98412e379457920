//! Kiraly, a UCI chess engine built on shakmaty. The library holds the
//! engine; `main.rs` is the command-line front end, and the integration tests
//! and tools use the modules directly.

pub mod bench;
pub mod board;
pub mod build_info;
pub mod correction;
pub mod delta;
pub mod engine;
pub mod eval;
#[cfg(feature = "fault-injection")]
pub mod faults;
pub mod fen;
pub mod game;
pub mod generator_pause;
pub mod history;
pub mod huge_pages;
pub mod movegen;
pub mod movepick;
pub mod nnue;
pub mod openings;
pub mod options;
pub mod output;
pub mod parameters;
pub mod perft;
pub mod replay;
pub mod rng;
pub mod score;
pub mod search;
pub mod see;
pub mod stack;
pub mod strength;
pub mod tb;
pub mod threadpool;
pub mod time;
pub mod tt;
pub mod uci;
pub mod wdl;
