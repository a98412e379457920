//! Kiraly's training-data format: whole games, about 4 bytes a position.
//!
//! A file is a plain sequence of game records, with no file header, so
//! files can be concatenated (`cat a.kdat b.kdat > c.kdat`) and appended to.
//! One record:
//!
//! ```text
//! header, 32 bytes
//!   0..8    occupancy, u64 little-endian, bit i = square i (a1 = 0, h8 = 63)
//!   8..24   the occupied squares' pieces in square order, one nibble each,
//!           low nibble first: bits 0-2 pawn 0, knight 1, bishop 2, rook 3,
//!           queen 4, king 5, rook that still has a castling right 6;
//!           bit 3 set for Black
//!   24      bit 7: Black to move; bits 0-6: en-passant square, 64 for none
//!   25      halfmove clock (saturated at 255)
//!   26..28  fullmove number, u16 little-endian (saturated)
//!   28      result from White's view: 0 loss, 1 draw, 2 win
//!   29      bits 4-7: format version (1); bit 0: Chess960 castling
//!   30..32  number of plies that follow, u16 little-endian
//! then per ply, 4 bytes
//!   0..2    the move played, u16 little-endian: bits 0-5 from, 6-11 to,
//!           12-15 kind: 0 normal, 1-4 promotion to knight, bishop, rook,
//!           queen, 5 castling (to = the rook's square), 6 en passant.
//!           0 (a1a1) means "no move known" and may only end a record: it
//!           labels the last position without playing on (converted data).
//!   2..4    the search score of the position before the move, from the
//!           side to move's view, i16 little-endian, centipawns or the
//!           engine's mate scores (32000 - plies); -32768 for "no score"
//! ```
//!
//! Positions are rebuilt by replaying the moves, which checks every move is
//! legal. Filters (opening plies, checks, captures, mate scores) are applied
//! when the data is read, never when it is written.

use std::io::{self, Read, Write};

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Piece, Position,
    Role, Setup, Square,
};

use kiraly::game::GameResult;

pub const HEADER_BYTES: usize = 32;
pub const PLY_BYTES: usize = 4;
pub const VERSION: u8 = 1;
/// The score of a ply whose score is not known (a PGN move without one).
pub const NO_SCORE: i16 = i16::MIN;

/// A centipawn score as stored: clamped to +-`i16::MAX`, so it never reads
/// as `NO_SCORE`.
pub fn stored_score(cp: i32) -> i16 {
    cp.clamp(-i16::MAX as i32, i16::MAX as i32) as i16
}
/// A record holds at most this many plies (the count is 16 bits).
pub const MAX_PLIES: usize = u16::MAX as usize;

const UNMOVED_ROOK: u8 = 6;
const NO_EP: u8 = 64;
const KIND_CASTLE: u16 = 5;
const KIND_EN_PASSANT: u16 = 6;

/// One ply of a game: the move played and the score of the position before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: u16,
    pub score: i16,
}

/// A whole game: where it starts, its plies and its result.
#[derive(Clone, Debug)]
pub struct Game {
    pub start: Chess,
    pub plies: Vec<Ply>,
    pub result: GameResult,
}

/// A move as 16 bits (see the module documentation).
pub fn encode_move(m: &Move) -> u16 {
    let (from, to, kind) = match *m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            let kind = match promotion {
                None => 0,
                Some(Role::Knight) => 1,
                Some(Role::Bishop) => 2,
                Some(Role::Rook) => 3,
                Some(_) => 4,
            };
            (from, to, kind)
        }
        Move::EnPassant { from, to } => (from, to, KIND_EN_PASSANT),
        Move::Castle { king, rook } => (king, rook, KIND_CASTLE),
        Move::Put { to, .. } => (to, to, 0),
    };
    u16::from(from) | (u16::from(to) << 6) | (kind << 12)
}

/// The legal move of `pos` whose code is `code`, if any.
pub fn decode_move(pos: &Chess, code: u16) -> Option<Move> {
    if code == 0 {
        return None;
    }
    pos.legal_moves()
        .into_iter()
        .find(|m| encode_move(m) == code)
}

fn piece_nibble(piece: Piece, castling_rook: bool) -> u8 {
    let role = if castling_rook {
        UNMOVED_ROOK
    } else {
        piece.role as u8 - 1
    };
    role | (u8::from(piece.color == Color::Black) << 3)
}

fn nibble_piece(nibble: u8) -> Option<(Piece, bool)> {
    let color = if nibble & 8 != 0 {
        Color::Black
    } else {
        Color::White
    };
    let (role, castling) = match nibble & 7 {
        0 => (Role::Pawn, false),
        1 => (Role::Knight, false),
        2 => (Role::Bishop, false),
        3 => (Role::Rook, false),
        4 => (Role::Queen, false),
        5 => (Role::King, false),
        6 => (Role::Rook, true),
        _ => return None,
    };
    Some((Piece { color, role }, castling))
}

/// The 32-byte header of a game starting at `pos`.
pub fn encode_header(pos: &Chess, result: GameResult, plies: usize) -> [u8; HEADER_BYTES] {
    let mut out = [0u8; HEADER_BYTES];
    let board = pos.board();
    let occupied = board.occupied();
    out[0..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
    let rights = pos.castles().castling_rights();
    for (i, sq) in occupied.into_iter().enumerate() {
        if let Some(piece) = board.piece_at(sq) {
            let nibble = piece_nibble(piece, rights.contains(sq));
            out[8 + i / 2] |= nibble << (4 * (i % 2));
        }
    }
    let ep = pos.ep_square(EnPassantMode::Legal).map_or(NO_EP, u8::from);
    out[24] = ep | (u8::from(pos.turn() == Color::Black) << 7);
    out[25] = pos.halfmoves().min(255) as u8;
    out[26..28].copy_from_slice(&(pos.fullmoves().get().min(u16::MAX as u32) as u16).to_le_bytes());
    out[28] = match result {
        GameResult::BlackWins => 0,
        GameResult::Draw => 1,
        GameResult::WhiteWins => 2,
    };
    let chess960 = pos.castles().mode() == CastlingMode::Chess960;
    out[29] = (VERSION << 4) | u8::from(chess960);
    out[30..32].copy_from_slice(&(plies.min(MAX_PLIES) as u16).to_le_bytes());
    out
}

/// What a header says, before the plies are read.
#[derive(Clone, Debug)]
pub struct Header {
    pub start: Chess,
    pub result: GameResult,
    pub plies: usize,
}

/// Checks the fixed fields of a header and returns its ply count; cheap, for
/// scanning a file without rebuilding positions.
pub fn header_plies(bytes: &[u8; HEADER_BYTES]) -> Result<usize, String> {
    if bytes[29] >> 4 != VERSION || bytes[29] & 0x0E != 0 {
        return Err(format!(
            "not a game record (version byte {:#04x}, expected {:#04x})",
            bytes[29],
            VERSION << 4
        ));
    }
    if bytes[28] > 2 {
        return Err(format!("bad result byte {}", bytes[28]));
    }
    let occupied = u64::from_le_bytes(bytes[0..8].try_into().unwrap_or_default());
    if occupied.count_ones() > 32 {
        return Err("more than 32 pieces".to_string());
    }
    Ok(u16::from_le_bytes([bytes[30], bytes[31]]) as usize)
}

/// Rebuilds the start position and result of a header.
pub fn decode_header(bytes: &[u8; HEADER_BYTES]) -> Result<Header, String> {
    let plies = header_plies(bytes)?;
    let occupied = Bitboard(u64::from_le_bytes(
        bytes[0..8].try_into().unwrap_or_default(),
    ));
    let mut board = Board::empty();
    let mut rights = Bitboard::EMPTY;
    for (i, sq) in occupied.into_iter().enumerate() {
        let nibble = (bytes[8 + i / 2] >> (4 * (i % 2))) & 0x0F;
        let (piece, castling) =
            nibble_piece(nibble).ok_or_else(|| format!("bad piece code {nibble}"))?;
        board.set_piece_at(sq, piece);
        if castling {
            rights.add(sq);
        }
    }
    let turn = if bytes[24] & 0x80 != 0 {
        Color::Black
    } else {
        Color::White
    };
    let ep = bytes[24] & 0x7F;
    let ep_square = match ep {
        NO_EP => None,
        0..=63 => Some(Square::new(u32::from(ep))),
        _ => return Err(format!("bad en-passant square {ep}")),
    };
    let fullmoves = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let setup = Setup {
        board,
        promoted: Bitboard::EMPTY,
        pockets: None,
        turn,
        castling_rights: rights,
        ep_square,
        remaining_checks: None,
        halfmoves: u32::from(bytes[25]),
        fullmoves: std::num::NonZeroU32::new(u32::from(fullmoves))
            .unwrap_or(std::num::NonZeroU32::MIN),
    };
    let mode = if bytes[29] & 1 != 0 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let start = Chess::from_setup(setup, mode).map_err(|e| format!("illegal position: {e}"))?;
    let result = match bytes[28] {
        0 => GameResult::BlackWins,
        1 => GameResult::Draw,
        _ => GameResult::WhiteWins,
    };
    Ok(Header {
        start,
        result,
        plies,
    })
}

impl Game {
    /// The record's bytes. Games longer than `MAX_PLIES` are cut there.
    pub fn to_bytes(&self) -> Vec<u8> {
        let plies = &self.plies[..self.plies.len().min(MAX_PLIES)];
        let mut out = Vec::with_capacity(HEADER_BYTES + PLY_BYTES * plies.len());
        out.extend_from_slice(&encode_header(&self.start, self.result, plies.len()));
        for ply in plies {
            out.extend_from_slice(&ply.mv.to_le_bytes());
            out.extend_from_slice(&ply.score.to_le_bytes());
        }
        out
    }

    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.to_bytes())
    }

    /// Reads the next record; `Ok(None)` at a clean end of input. A record
    /// cut short is an error (`UnexpectedEof`), as is a malformed header.
    pub fn read(input: &mut impl Read) -> io::Result<Option<Game>> {
        let mut header = [0u8; HEADER_BYTES];
        match read_full(input, &mut header)? {
            0 => return Ok(None),
            HEADER_BYTES => {}
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "record cut short",
                ))
            }
        }
        let Header {
            start,
            result,
            plies,
        } = decode_header(&header).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        let mut body = vec![0u8; plies * PLY_BYTES];
        if read_full(input, &mut body)? != body.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "record cut short",
            ));
        }
        let plies = body
            .chunks_exact(PLY_BYTES)
            .map(|c| Ply {
                mv: u16::from_le_bytes([c[0], c[1]]),
                score: i16::from_le_bytes([c[2], c[3]]),
            })
            .collect();
        Ok(Some(Game {
            start,
            plies,
            result,
        }))
    }

    /// The game's positions in order, each with the move played from it
    /// (`None` for a final "no move" ply), its score and its index in the
    /// record. Stops with an error at the first move that is not legal.
    pub fn positions(&self) -> Positions<'_> {
        Positions {
            game: self,
            pos: self.start.clone(),
            index: 0,
            failed: false,
        }
    }
}

/// Fills `buf` as far as the input allows; returns the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// One labelled position of a game.
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Chess,
    /// The move played from here (`None`: not known).
    pub mv: Option<Move>,
    /// The search score from the side to move's view (`NO_SCORE`: none).
    pub score: i16,
    pub result: GameResult,
    /// Index of the ply in its record (0 = the record's start position).
    pub ply: usize,
}

impl Sample {
    /// The game result from the side to move's view: 1.0, 0.5 or 0.0.
    pub fn stm_result(&self) -> f32 {
        let white = self.result.white_score();
        match self.pos.turn() {
            Color::White => white,
            Color::Black => 1.0 - white,
        }
    }

    /// The score from White's view.
    pub fn white_score(&self) -> i32 {
        match self.pos.turn() {
            Color::White => i32::from(self.score),
            Color::Black => -i32::from(self.score),
        }
    }
}

pub struct Positions<'a> {
    game: &'a Game,
    pos: Chess,
    index: usize,
    failed: bool,
}

impl Iterator for Positions<'_> {
    type Item = Result<Sample, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.index >= self.game.plies.len() {
            return None;
        }
        let ply = self.game.plies[self.index];
        let mv = if ply.mv == 0 {
            if self.index + 1 != self.game.plies.len() {
                self.failed = true;
                return Some(Err(format!(
                    "ply {}: 'no move' before the end of the record",
                    self.index
                )));
            }
            None
        } else {
            match decode_move(&self.pos, ply.mv) {
                Some(m) => Some(m),
                None => {
                    self.failed = true;
                    return Some(Err(format!(
                        "ply {}: move code {:#06x} is not legal",
                        self.index, ply.mv
                    )));
                }
            }
        };
        let sample = Sample {
            pos: self.pos.clone(),
            mv,
            score: ply.score,
            result: self.game.result,
            ply: self.index,
        };
        if let Some(m) = mv {
            self.pos.play_unchecked(m);
        }
        self.index += 1;
        Some(Ok(sample))
    }
}

/// Which positions training uses; applied when data is read.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// Skip the first this many plies of each record (the opening).
    pub skip_plies: usize,
    /// Skip positions whose side to move is in check.
    pub skip_in_check: bool,
    /// Skip positions whose move played is a capture or a promotion.
    pub skip_tactical: bool,
    /// Skip scores at or beyond +-this (mate scores), and unscored plies.
    pub max_score: i32,
}

impl Default for Filter {
    fn default() -> Filter {
        Filter {
            skip_plies: 8,
            skip_in_check: true,
            skip_tactical: true,
            max_score: 10_000,
        }
    }
}

impl Filter {
    /// Keeps everything that has a score.
    pub fn none() -> Filter {
        Filter {
            skip_plies: 0,
            skip_in_check: false,
            skip_tactical: false,
            max_score: i32::from(i16::MAX) + 1,
        }
    }

    /// Whether a sample is used. A "no move" ply (data converted from the
    /// older text format, already filtered when it was written, one position
    /// per record) is not subject to the opening-ply rule.
    pub fn accepts(&self, s: &Sample) -> bool {
        s.score != NO_SCORE
            && (s.ply >= self.skip_plies || s.mv.is_none())
            && i32::from(s.score).abs() < self.max_score
            && !(self.skip_in_check && s.pos.is_check())
            && !(self.skip_tactical && s.mv.is_some_and(|m| m.is_capture() || m.is_promotion()))
    }
}

/// Calls `visit` with every accepted sample of every game in `input`.
/// Returns the number of games read. A malformed record ends the read with
/// an error naming the game.
pub fn for_each_sample(
    input: &mut impl Read,
    filter: &Filter,
    mut visit: impl FnMut(&Sample),
) -> Result<u64, String> {
    let mut games = 0u64;
    while let Some(game) = Game::read(input).map_err(|e| format!("game {}: {e}", games + 1))? {
        games += 1;
        for sample in game.positions() {
            let sample = sample.map_err(|e| format!("game {games}: {e}"))?;
            if filter.accepts(&sample) {
                visit(&sample);
            }
        }
    }
    Ok(games)
}

/// Scans a file's records without rebuilding positions. Returns the number
/// of whole games and the byte length they take; bytes past that are a
/// record cut short (an interrupted write).
pub fn scan_records(bytes: &[u8]) -> Result<(u64, usize), String> {
    let mut offset = 0;
    let mut games = 0;
    while bytes.len() - offset >= HEADER_BYTES {
        let header: &[u8; HEADER_BYTES] = bytes[offset..offset + HEADER_BYTES]
            .try_into()
            .map_err(|_| "short header".to_string())?;
        let plies = header_plies(header)
            .map_err(|e| format!("game {} at byte {offset}: {e}", games + 1))?;
        let end = offset + HEADER_BYTES + plies * PLY_BYTES;
        if end > bytes.len() {
            break;
        }
        offset = end;
        games += 1;
    }
    Ok((games, offset))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiraly::fen::parse_book_line;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    fn play(pos: &Chess, moves: &[&str]) -> Vec<Ply> {
        let mut pos = pos.clone();
        let mut plies = Vec::new();
        for (i, uci) in moves.iter().enumerate() {
            let m = uci
                .parse::<UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{uci}: {e}"));
            plies.push(Ply {
                mv: encode_move(&m),
                score: i as i16 * 7 - 20,
            });
            pos.play_unchecked(m);
        }
        plies
    }

    #[test]
    fn headers_round_trip_special_positions() {
        for text in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // En passant possible, partial castling rights, clocks.
            "r3k2r/pp1ppppp/8/2pP4/8/8/PPP1PPPP/R3K2R w Kq c6 0 13",
            "4k3/8/8/8/8/8/8/4K2R b K - 37 120",
            // Chess960 castling rights (Shredder-FEN).
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            // Thirty-two pieces, Black to move.
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ] {
            let pos = parse_book_line(text).unwrap();
            let bytes = encode_header(&pos, GameResult::Draw, 3);
            let header = decode_header(&bytes).unwrap();
            assert_eq!(fen(&header.start), fen(&pos), "{text}");
            assert_eq!(header.start.castles().mode(), pos.castles().mode());
            assert_eq!((header.plies, header.result), (3, GameResult::Draw));
        }
    }

    #[test]
    fn games_round_trip_with_every_move_kind() {
        // Castling both ways, en passant, promotion with and without capture.
        let start = parse_book_line("r3k2r/P5pp/8/8/4p3/8/5PPP/R3K2R w KQkq - 0 1").unwrap();
        let plies = play(
            &start,
            &["f2f4", "e4f3", "e1g1", "e8c8", "a7a8q", "c8d7", "a8d8"],
        );
        let game = Game {
            start: start.clone(),
            plies: plies.clone(),
            result: GameResult::WhiteWins,
        };
        let bytes = game.to_bytes();
        assert_eq!(bytes.len(), HEADER_BYTES + PLY_BYTES * plies.len());
        let back = Game::read(&mut bytes.as_slice()).unwrap().unwrap();
        assert_eq!(back.plies, plies);
        let samples: Vec<Sample> = back.positions().map(Result::unwrap).collect();
        assert_eq!(samples.len(), plies.len());
        assert_eq!(fen(&samples[0].pos), fen(&start));
        assert!(samples[1].pos.ep_square(EnPassantMode::Legal).is_some());
        assert!(samples[1].mv.unwrap().is_en_passant());
        assert!(samples[2].mv.unwrap().is_castle());
        assert!(samples[4].mv.unwrap().is_promotion());
        assert_eq!(samples[3].score, 3 * 7 - 20);
        // Black to move at ply 1: the result is seen from Black's side.
        assert_eq!(samples[1].stm_result(), 0.0);
        assert_eq!(samples[0].stm_result(), 1.0);
    }

    #[test]
    fn filters_apply_when_reading() {
        let start = Chess::default();
        let moves = [
            "e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5e5", "f1e2", "e5e4",
        ];
        let game = Game {
            start: start.clone(),
            plies: play(&start, &moves),
            result: GameResult::Draw,
        };
        let bytes = game.to_bytes();
        let mut all = 0;
        for_each_sample(&mut bytes.as_slice(), &Filter::none(), |_| all += 1).unwrap();
        assert_eq!(all, 8);
        let quiet = Filter {
            skip_plies: 1,
            max_score: 10_000,
            ..Filter::default()
        };
        let mut kept = Vec::new();
        for_each_sample(&mut bytes.as_slice(), &quiet, |s| kept.push(s.ply)).unwrap();
        // Ply 0 skipped (opening), 2 is exd5 (capture), 3 is Qxd5 (capture);
        // after Qe5 (ply 5) White is in check at ply 6.
        assert_eq!(kept, vec![1, 4, 5, 7]);
        let tight = Filter {
            skip_plies: 0,
            skip_in_check: false,
            skip_tactical: false,
            max_score: 20,
        };
        let mut scores = Vec::new();
        for_each_sample(&mut bytes.as_slice(), &tight, |s| scores.push(s.score)).unwrap();
        assert!(scores.iter().all(|s| s.abs() < 20), "{scores:?}");
        assert_eq!(scores.len(), 5);
    }

    #[test]
    fn damaged_input_is_an_error_not_a_panic() {
        let start = Chess::default();
        let game = Game {
            start: start.clone(),
            plies: play(&start, &["e2e4", "e7e5"]),
            result: GameResult::BlackWins,
        };
        let mut bytes = game.to_bytes();
        bytes.extend_from_slice(&game.to_bytes());
        // Two whole games; a cut one is reported by the reader and left out
        // by the scanner.
        assert_eq!(scan_records(&bytes).unwrap(), (2, bytes.len()));
        let cut = &bytes[..bytes.len() - 3];
        assert_eq!(scan_records(cut).unwrap(), (1, bytes.len() / 2));
        let err = for_each_sample(&mut &cut[..], &Filter::none(), |_| {}).unwrap_err();
        assert!(err.starts_with("game 2"), "{err}");
        // An illegal move code.
        let mut bad = game.to_bytes();
        bad[HEADER_BYTES] ^= 0x3F;
        let err = for_each_sample(&mut bad.as_slice(), &Filter::none(), |_| {}).unwrap_err();
        assert!(err.contains("not legal"), "{err}");
        // Text is not a record.
        let err = Game::read(&mut "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w".as_bytes())
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        // "No move" only at the end.
        let mut early = game.clone();
        early.plies[0].mv = 0;
        let err =
            for_each_sample(&mut early.to_bytes().as_slice(), &Filter::none(), |_| {}).unwrap_err();
        assert!(err.contains("before the end"), "{err}");
    }

    #[test]
    fn unscored_plies_are_never_accepted() {
        let start = Chess::default();
        let mut plies = play(&start, &["e2e4", "e7e5", "g1f3"]);
        plies[1].score = NO_SCORE;
        let game = Game {
            start,
            plies,
            result: GameResult::Draw,
        };
        let mut kept = Vec::new();
        for_each_sample(&mut game.to_bytes().as_slice(), &Filter::none(), |s| {
            kept.push(s.ply)
        })
        .unwrap();
        assert_eq!(kept, vec![0, 2]);
    }
}
