//! Training data for Kiraly's evaluation: self-play generation, the compact
//! game format (`format`), and conversions from PGN and the older text format.
//!
//! * [`format`]: whole games at about 4 bytes a position; filters applied
//!   when reading.
//! * [`chess960`]: Chess960 and double-Chess960 start positions.
//! * [`play`]: self-play games with a soft node limit, every ply written.
//! * [`pgn`]: PGNs with engine score comments (fastchess, cutechess,
//!   OpenBench, `tools/match.py`) to records.
//! * [`text`]: the older `<FEN> | <score> | <result>` lines to records.
//! * [`stats`]: counts, result split and score histogram of a file.

pub mod chess960;
pub mod format;
pub mod pgn;
pub mod play;
pub mod stats;
pub mod text;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Opens an input file for reading, `-` for standard input; bzip2 input
/// (by its magic bytes) is decompressed on the fly.
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead>, String> {
    let raw: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?)
    };
    let mut reader = BufReader::with_capacity(1 << 20, raw);
    let head = reader
        .fill_buf()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if head.starts_with(b"BZh") {
        let decoder = bzip2::read::MultiBzDecoder::new(reader);
        Ok(Box::new(BufReader::with_capacity(1 << 20, decoder)))
    } else {
        Ok(Box::new(reader))
    }
}
