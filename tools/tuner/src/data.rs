//! The training positions, reduced to what the model needs.
//!
//! Every position is evaluated once with `kiraly::eval::eval_coefficients`;
//! its sparse linear coefficients go into one flat vector shared by all
//! positions and the rest (taper weights, king-danger inputs, labels) into a
//! small fixed-size record, so a position costs 60 bytes plus 4 bytes
//! per non-zero coefficient and no heap allocation of its own.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use kiraly::eval::params::{kd, KD_NO_QUEEN_SCALE};
use kiraly::eval::{eval_coefficients, MAX_PHASE};
use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

/// One non-zero linear coefficient: `VALUES[index]` times `count` (White
/// minus Black).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coef {
    pub index: u16,
    pub count: i16,
}

/// King-danger inputs of one king (the defender), see `params::kd`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct King {
    pub inputs: [i8; kd::COUNT],
    /// 1 when the attacker has a queen, else `KD_NO_QUEEN_SCALE / 128`.
    pub queen_scale: f32,
}

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Its coefficients are `coefs[start..start + len]`.
    pub start: u32,
    pub len: u16,
    /// Game phase 0..=24, endgame scale factor out of 64 (0: the score is
    /// 0), halfmove-clock factor out of 80.
    pub phase: u8,
    pub scale: u8,
    pub halfmove_factor: u8,
    /// Indexed by `Color as usize` of the defending king.
    pub kings: [King; 2],
    /// Game result for White: 1.0, 0.5 or 0.0.
    pub result: f32,
    /// Search score in centipawns, White's view (for `--lambda`).
    pub score: f32,
}

/// Positions and their coefficients.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// The training positions.
    pub samples: Vec<Sample>,
    /// Held-out positions (see [`Dataset::hold_out`]); not trained on.
    pub validation: Vec<Sample>,
    pub coefs: Vec<Coef>,
    /// Positions dropped because a count did not fit the compact storage.
    pub dropped: usize,
}

/// A position parsed from a data line, before its coefficients.
pub struct Labelled {
    pub pos: Chess,
    pub score: f32,
    pub result: f32,
}

impl Labelled {
    /// A position of datagen's game records, score and result from White's
    /// view as in the text lines.
    pub fn from_sample(s: &datagen::format::Sample) -> Labelled {
        Labelled {
            pos: s.pos.clone(),
            score: s.white_score() as f32,
            result: s.result.white_score(),
        }
    }
}

/// Whether `path` holds datagen's binary game records (else text lines).
pub fn is_game_records(path: &Path) -> Result<bool, String> {
    let mut head = [0u8; datagen::format::HEADER_BYTES];
    let mut file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    match std::io::Read::read_exact(&mut file, &mut head) {
        Ok(()) => Ok(datagen::format::header_plies(&head).is_ok()),
        Err(_) => Ok(false),
    }
}

/// Parses `<FEN> | <score> | <result>`.
pub fn parse_line(line: &str) -> Result<Labelled, String> {
    let mut parts = line.split('|');
    let (Some(fen), Some(score), Some(result), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err("expected '<FEN> | <score> | <result>'".into());
    };
    let pos: Chess = fen
        .trim()
        .parse::<Fen>()
        .map_err(|e| format!("bad FEN: {e}"))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("illegal position: {e}"))?;
    let score = score
        .trim()
        .parse::<f32>()
        .map_err(|_| format!("bad score '{}'", score.trim()))?;
    let result = match result.trim() {
        "1.0" | "1" => 1.0,
        "0.5" => 0.5,
        "0.0" | "0" => 0.0,
        other => return Err(format!("bad result '{other}'")),
    };
    Ok(Labelled { pos, score, result })
}

/// The compact record and coefficients of one position; `None` if a count
/// does not fit.
fn reduce(item: &Labelled) -> Option<(Sample, Vec<Coef>)> {
    let c = eval_coefficients(&item.pos);
    let coefs = c
        .linear
        .iter()
        .map(|&(index, count)| {
            Some(Coef {
                index: u16::try_from(index).ok()?,
                count: i16::try_from(count).ok()?,
            })
        })
        .collect::<Option<Vec<Coef>>>()?;
    let mut kings = [King::default(); 2];
    for color in Color::ALL {
        let k = &c.king[color as usize];
        for (dst, &src) in kings[color as usize].inputs.iter_mut().zip(&k.inputs) {
            *dst = i8::try_from(src).ok()?;
        }
        kings[color as usize].queen_scale = if k.attacker_has_queen {
            1.0
        } else {
            KD_NO_QUEEN_SCALE as f32 / 128.0
        };
    }
    let sample = Sample {
        start: 0,
        len: u16::try_from(coefs.len()).ok()?,
        phase: u8::try_from(c.phase).ok()?,
        scale: u8::try_from(c.scale).ok()?,
        halfmove_factor: u8::try_from(c.halfmove_factor).ok()?,
        kings,
        result: item.result,
        score: item.score,
    };
    Some((sample, coefs))
}

impl Sample {
    /// The factors of the middlegame and endgame sums in the White
    /// evaluation: `eval = mg * w_mg + eg * w_eg` (taper, scale and
    /// halfmove factor together; both 0 when the scale factor is 0).
    #[inline]
    pub fn weights(&self) -> (f64, f64) {
        if self.scale == 0 {
            return (0.0, 0.0);
        }
        let max = MAX_PHASE as f64;
        let phase = self.phase as f64;
        let hm = self.halfmove_factor as f64 / 80.0;
        (
            phase / max * hm,
            self.scale as f64 / 64.0 * (max - phase) / max * hm,
        )
    }
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The coefficients of one sample.
    #[inline]
    pub fn coefs_of(&self, s: &Sample) -> &[Coef] {
        &self.coefs[s.start as usize..s.start as usize + s.len as usize]
    }

    /// Adds positions (in parallel on the current rayon pool).
    pub fn extend(&mut self, items: &[Labelled]) {
        let reduced: Vec<Option<(Sample, Vec<Coef>)>> = items.par_iter().map(reduce).collect();
        for r in reduced {
            match r {
                Some((mut sample, coefs)) => {
                    sample.start = u32::try_from(self.coefs.len()).expect("too many coefficients");
                    self.coefs.extend_from_slice(&coefs);
                    self.samples.push(sample);
                }
                None => self.dropped += 1,
            }
        }
    }

    /// Adds one position.
    pub fn push(&mut self, pos: Chess, result: f32, score: f32) {
        self.extend(&[Labelled { pos, score, result }]);
    }

    /// Loads complete lines (ending in a newline) of a datagen file, at most
    /// `limit` positions in total in the dataset; `progress` is called every
    /// chunk with the number of positions so far. Returns the number of bad
    /// lines skipped.
    pub fn load(
        &mut self,
        path: &Path,
        limit: usize,
        mut progress: impl FnMut(usize),
    ) -> Result<usize, String> {
        const CHUNK: usize = 32_768;
        if is_game_records(path)? {
            return self.load_records(path, limit, progress);
        }
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut line = Vec::new();
        let mut batch = Vec::with_capacity(CHUNK);
        let mut bad = 0;
        let mut line_no = 0;
        loop {
            if self.len() + batch.len() >= limit {
                break;
            }
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            // End of file, or a last line still being written.
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            line_no += 1;
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            match parse_line(text.trim()) {
                Ok(item) => batch.push(item),
                Err(e) => {
                    if bad < 5 {
                        eprintln!("{}:{line_no}: skipped: {e}", path.display());
                    }
                    bad += 1;
                }
            }
            if batch.len() == CHUNK {
                self.extend(&batch);
                batch.clear();
                progress(self.len());
            }
        }
        self.extend(&batch);
        progress(self.len());
        Ok(bad)
    }

    /// Loads positions of a file in datagen's game format (`datagen::format`),
    /// with the training filter's defaults: no opening plies, no position in
    /// check, no capture or promotion played, no mate score.
    fn load_records(
        &mut self,
        path: &Path,
        limit: usize,
        mut progress: impl FnMut(usize),
    ) -> Result<usize, String> {
        const CHUNK: usize = 32_768;
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut batch = Vec::with_capacity(CHUNK);
        let filter = datagen::format::Filter::default();
        let mut full = false;
        let read = datagen::format::for_each_sample(&mut reader, &filter, |s| {
            if full || self.len() + batch.len() >= limit {
                full = true;
                return;
            }
            batch.push(Labelled::from_sample(s));
            if batch.len() == CHUNK {
                self.extend(&batch);
                batch.clear();
                progress(self.len());
            }
        });
        self.extend(&batch);
        progress(self.len());
        read.map(|_| 0)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Moves the last `n` positions loaded (whole games, as datagen writes
    /// games contiguously; call before [`Dataset::shuffle`]) to
    /// `validation`.
    pub fn hold_out(&mut self, n: usize) {
        let keep = self.samples.len().saturating_sub(n);
        self.validation = self.samples.split_off(keep);
    }

    /// Shuffles the training positions (deterministically from `seed`).
    pub fn shuffle(&mut self, seed: u64) {
        let mut state = seed;
        let mut next = || {
            // splitmix64
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        for i in (1..self.samples.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            self.samples.swap(i, j);
        }
    }
}
