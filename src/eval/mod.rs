//! Static evaluation: a tapered, hand-crafted evaluation with king safety.
//!
//! Scores are centipawns from the side to move. One concern per file:
//!
//! * [`params`]: every weight (the tuner's file),
//! * [`pieces`]: material, square tables, mobility, bishops, rooks,
//!   outposts, threats, space (and the attack maps the other terms use),
//! * [`pawns`]: pawn structure behind a pawn hash table, passed pawns,
//! * [`king`]: king safety (shelter, storm and the non-linear danger),
//! * [`endgame`]: scale factors for drawish endings,
//! * [`trace`]: the `eval` command's table and the tuner's coefficients.
//!
//! Every linear term goes through [`Acc::add`], which adds `VALUES[index] *
//! count` to one side's score and, when tracing, records the count, so the
//! trace and the tuner's coefficients come from the very code that scores.

pub mod endgame;
pub mod king;
pub mod params;
pub mod pawns;
pub mod pieces;
pub mod trace;

use shakmaty::attacks::king_attacks;
use shakmaty::{Board, Chess, Color, Position, Role, Square};

use params::{idx, HALFMOVE_FREE, S, VALUES};
pub use trace::{eval_coefficients, nnue_lines, trace, trace_lines, Coefficients, EvalTrace};

pub use king::KingInfo;
use pawns::PawnTable;

/// Full phase: knights and bishops count 1, rooks 2, queens 4.
pub const MAX_PHASE: i32 = 24;

/// Receives the counts behind the score (the `eval` trace, the tuner).
pub trait Tracer {
    /// Whether anything is recorded; the pawn table is bypassed when true.
    const ACTIVE: bool;
    fn linear(&mut self, color: Color, index: usize, count: i32);
    fn king(&mut self, defender: Color, info: &KingInfo);
}

/// The tracer of the search: records nothing, costs nothing.
pub struct NoTrace;

impl Tracer for NoTrace {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn linear(&mut self, _: Color, _: usize, _: i32) {}
    #[inline(always)]
    fn king(&mut self, _: Color, _: &KingInfo) {}
}

/// Per-side score accumulator.
pub struct Acc<'a, T: Tracer> {
    /// Indexed by `Color as usize`.
    pub score: [S; 2],
    pub tracer: &'a mut T,
}

impl<T: Tracer> Acc<'_, T> {
    /// Adds `count` times the weight at `index` to `color`'s score.
    #[inline(always)]
    pub fn add(&mut self, color: Color, index: usize, count: i32) {
        self.score[color as usize] += VALUES[index] * count;
        if T::ACTIVE {
            self.tracer.linear(color, index, count);
        }
    }
}

// ---------------------------------------------------------------------------
// Bitboard helpers (plain u64, a1 = bit 0).

pub(crate) const FILE_A: u64 = 0x0101_0101_0101_0101;
pub(crate) const FILE_H: u64 = FILE_A << 7;
pub(crate) const LIGHT_SQUARES: u64 = 0x55AA_55AA_55AA_55AA;
pub(crate) const DARK_SQUARES: u64 = !LIGHT_SQUARES;

#[inline(always)]
pub(crate) const fn file_bb(file: usize) -> u64 {
    FILE_A << file
}

#[inline(always)]
pub(crate) const fn rank_bb(rank: usize) -> u64 {
    0xFF << (8 * rank)
}

pub(crate) const fn adjacent_files(file: usize) -> u64 {
    let mut bb = 0;
    if file > 0 {
        bb |= file_bb(file - 1);
    }
    if file < 7 {
        bb |= file_bb(file + 1);
    }
    bb
}

#[inline(always)]
pub(crate) const fn north_fill(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b |= b << 32;
    b
}

#[inline(always)]
pub(crate) const fn south_fill(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b |= b >> 32;
    b
}

/// One rank towards the enemy.
#[inline(always)]
pub(crate) fn forward(color: Color, b: u64) -> u64 {
    match color {
        Color::White => b << 8,
        Color::Black => b >> 8,
    }
}

/// All squares attacked by `color`'s pawns in `pawns`.
#[inline(always)]
pub(crate) fn pawn_attacks_bb(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns & !FILE_A) << 7) | ((pawns & !FILE_H) << 9),
        Color::Black => ((pawns & !FILE_A) >> 9) | ((pawns & !FILE_H) >> 7),
    }
}

/// Rank 0..7 seen from `color` (0 = its back rank).
#[inline(always)]
pub(crate) fn relative_rank(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.rank() as usize,
        Color::Black => 7 - sq.rank() as usize,
    }
}

/// Square index seen from `color` (White's squares as they are).
#[inline(always)]
pub(crate) fn relative_square(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    }
}

/// Squares strictly ahead of `sq` on its file, from `color`'s side.
pub(crate) static FORWARD_FILE: [[u64; 64]; 2] = build_spans(false);
/// Squares strictly ahead of `sq` on its file and the adjacent files.
pub(crate) static PASSED_SPAN: [[u64; 64]; 2] = build_spans(true);

const fn build_spans(wide: bool) -> [[u64; 64]; 2] {
    let mut out = [[0; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let file = sq % 8;
        let mut files = file_bb(file);
        if wide {
            files |= adjacent_files(file);
        }
        let rank = sq / 8;
        let white_ahead = if rank == 7 {
            0
        } else {
            u64::MAX << (8 * (rank + 1))
        };
        let black_ahead = (1u64 << (8 * rank)) - 1;
        out[Color::White as usize][sq] = white_ahead & files;
        out[Color::Black as usize][sq] = black_ahead & files;
        sq += 1;
    }
    out
}

// ---------------------------------------------------------------------------

/// Attack maps and king-attack tallies shared by the terms. Arrays are
/// indexed by `Color as usize`; `attacked_by` by `Role as usize - 1`.
pub struct Info {
    pub occupied: u64,
    pub pieces: [u64; 2],
    pub pawns: [u64; 2],
    pub king_sq: [Square; 2],
    pub attacked_by: [[u64; 6]; 2],
    /// Squares attacked by any piece of the side.
    pub attacked: [u64; 2],
    /// Squares attacked at least twice.
    pub attacked2: [u64; 2],
    pub king_zone: [u64; 2],
    pub mobility_area: [u64; 2],
    /// Pieces of a side attacking the enemy king zone, by role (N, B, R, Q).
    pub zone_attackers: [[i32; 4]; 2],
    /// Attacks of a side's pieces on enemy king-zone squares.
    pub zone_attacks: [i32; 2],
    /// A side's knights and bishops attacking its own king zone.
    pub defenders: [i32; 2],
    pub phase: i32,
}

impl Info {
    /// The squares the pieces of one role of side `c` attack.
    #[inline]
    pub fn attacks_by(&self, c: usize, role: Role) -> u64 {
        self.attacked_by[c][role as usize - 1]
    }

    /// The pieces of one role (knight to queen) of side `c` that attack
    /// the enemy king zone.
    #[inline]
    pub fn zone_attackers_by(&self, c: usize, role: Role) -> i32 {
        self.zone_attackers[c][role as usize - Role::Knight as usize]
    }

    fn new(board: &Board) -> Info {
        let mut info = Info {
            occupied: board.occupied().0,
            pieces: [board.black().0, board.white().0],
            pawns: [
                board.by_piece(Role::Pawn.of(Color::Black)).0,
                board.by_piece(Role::Pawn.of(Color::White)).0,
            ],
            king_sq: [Square::E8, Square::E1],
            attacked_by: [[0; 6]; 2],
            attacked: [0; 2],
            attacked2: [0; 2],
            king_zone: [0; 2],
            mobility_area: [0; 2],
            zone_attackers: [[0; 4]; 2],
            zone_attacks: [0; 2],
            defenders: [0; 2],
            phase: 0,
        };
        for color in Color::ALL {
            let c = color as usize;
            let ksq = board.king_of(color).unwrap_or(info.king_sq[c]);
            info.king_sq[c] = ksq;
            let pawn_att = pawn_attacks_bb(color, info.pawns[c]);
            let king_att = king_attacks(ksq).0;
            info.attacked_by[c][0] = pawn_att;
            info.attacked_by[c][5] = king_att;
            info.attacked[c] = pawn_att | king_att;
            info.attacked2[c] = pawn_att & king_att;
            let around = king_att | (1u64 << ksq as usize);
            info.king_zone[c] = around | forward(color, around);
        }
        for color in Color::ALL {
            let c = color as usize;
            let them = !color as usize;
            info.mobility_area[c] = !info.pieces[c] & !info.attacked_by[them][0];
        }
        let minors = (board.knights() | board.bishops()).count() as i32;
        let rooks = board.rooks().count() as i32;
        let queens = board.queens().count() as i32;
        info.phase = (minors + 2 * rooks + 4 * queens).min(MAX_PHASE);
        info
    }
}

/// Per-search-thread evaluator: owns the pawn hash table (allocated once).
pub struct Evaluator {
    pawns: PawnTable,
}

impl Default for Evaluator {
    fn default() -> Self {
        Self::new()
    }
}

impl Evaluator {
    pub fn new() -> Evaluator {
        Evaluator {
            pawns: PawnTable::new(),
        }
    }

    /// The hand-crafted evaluation, whatever `Use NNUE` says.
    #[inline]
    pub fn evaluate_hand_crafted(&mut self, pos: &Chess) -> i32 {
        evaluate_with(pos, Some(&mut self.pawns), &mut NoTrace).stm
    }
}

/// The net's evaluation, side to move's view, with what the hand-crafted
/// one also applies around its terms: 0 for a dead position, and the same
/// fade towards the fifty-move rule (so the table's clock-free caching of
/// evaluations holds for both).
pub fn evaluate_nnue(net: &crate::nnue::Network, pos: &Chess) -> i32 {
    match crate::nnue::Accumulator::refresh(net, pos.board()) {
        Some(acc) => finish_net_eval(pos, || {
            acc.evaluate(net, pos.turn(), pos.board().occupied().count())
        }),
        None => 0,
    }
}

/// The net's evaluation of `pos` from its raw output `raw` (called only
/// when needed), with what the hand-crafted evaluation also applies around
/// its terms: 0 for a dead position, clear of mate and tablebase scores, and
/// the fade towards the fifty-move rule.
#[inline]
pub fn finish_net_eval(pos: &Chess, raw: impl FnOnce() -> i32) -> i32 {
    if is_dead(pos) {
        return 0;
    }
    let raw = raw().clamp(
        -crate::score::TB_WIN_BOUND + 1,
        crate::score::TB_WIN_BOUND - 1,
    );
    raw * halfmove_factor(pos.halfmoves()) / (100 - HALFMOVE_FREE)
}

/// Evaluates without a pawn table (convenience for one-off calls).
pub fn evaluate(pos: &Chess) -> i32 {
    evaluate_with(pos, None, &mut NoTrace).stm
}

/// What [`evaluate_with`] found besides the score.
pub struct Outcome {
    /// Centipawns for the side to move.
    pub stm: i32,
    /// Centipawns for White.
    pub white: i32,
    /// White-minus-Black middlegame and endgame sums (king danger included).
    pub total: S,
    pub phase: i32,
    /// Endgame scale factor out of 64.
    pub scale: i32,
    /// Halfmove-clock factor out of 80.
    pub halfmove_factor: i32,
    /// Both sides lack mating material: the score is 0 whatever the terms.
    pub dead: bool,
}

/// Combines the tapered totals into the final White score.
pub fn combine(total: S, phase: i32, scale: i32, halfmove_factor: i32) -> i32 {
    if scale == 0 {
        return 0;
    }
    let eg = total.eg * scale / 64;
    let tapered = (total.mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    tapered * halfmove_factor / (100 - HALFMOVE_FREE)
}

/// Whether neither side has mating material: both evaluations score such a
/// position 0. Only positions without pawns, rooks and queens can be dead,
/// which the first test settles for almost every position.
#[inline]
pub fn is_dead(pos: &Chess) -> bool {
    (pos.board().pawns() | pos.board().rooks() | pos.board().queens()).is_empty()
        && pos.has_insufficient_material(Color::White)
        && pos.has_insufficient_material(Color::Black)
}

/// Whether the evaluation of `pos` would be the same at any halfmove clock
/// up to its own: the clock is not part of the position key, so only such
/// evaluations may be cached under it.
pub fn is_clock_free(pos: &Chess) -> bool {
    pos.halfmoves() <= HALFMOVE_FREE as u32
}

/// Factor out of 80 for the halfmove clock: 80 up to `HALFMOVE_FREE`, 0 at 100.
pub fn halfmove_factor(halfmoves: u32) -> i32 {
    100 - (halfmoves.min(100) as i32).max(HALFMOVE_FREE)
}

/// The evaluation proper, generic over the tracer.
pub fn evaluate_with<T: Tracer>(
    pos: &Chess,
    pawn_table: Option<&mut PawnTable>,
    tracer: &mut T,
) -> Outcome {
    let board = pos.board();
    let turn = pos.turn();
    let hm_factor = halfmove_factor(pos.halfmoves());
    let mut info = Info::new(board);
    let phase = info.phase;
    let dead = is_dead(pos);
    if dead && !T::ACTIVE {
        return Outcome {
            stm: 0,
            white: 0,
            total: S::default(),
            phase,
            scale: 0,
            halfmove_factor: hm_factor,
            dead,
        };
    }

    let mut acc = Acc {
        score: [S::default(); 2],
        tracer,
    };
    pieces::material(&mut acc, board);
    let passed = pawns::structure(&mut acc, &info, pawn_table);
    for color in Color::ALL {
        pieces::pieces(&mut acc, board, &mut info, color);
    }
    for color in Color::ALL {
        pieces::threats(&mut acc, board, &info, color);
        pieces::space(&mut acc, &info, color);
        pawns::passed_extras(&mut acc, board, &info, passed[color as usize], color, turn);
    }
    for color in Color::ALL {
        king::king_safety(&mut acc, board, &info, color);
    }
    acc.add(turn, idx::TEMPO, 1);

    let total = acc.score[Color::White as usize] - acc.score[Color::Black as usize];
    let scale = if dead {
        0
    } else {
        endgame::scale_factor(board, &info, total.eg)
    };
    let white = combine(total, phase, scale, hm_factor);
    Outcome {
        stm: if turn == Color::White { white } else { -white },
        white,
        total,
        phase,
        scale,
        halfmove_factor: hm_factor,
        dead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// The table caches evaluations by a key without the halfmove clock,
    /// trusting `is_clock_free`: up to HALFMOVE_FREE the clock must not
    /// change the value, and past it the clock must be reported as mattering.
    #[test]
    fn clock_free_evaluations_ignore_the_clock() {
        let placement = "r3k2r/pp3ppp/2n5/3q4/3P4/5N2/PP3PPP/R2Q1RK1 w kq - ";
        let at = |clock: i32| pos(&format!("{placement}{clock} 30"));
        let fresh = evaluate(&at(0));
        assert_ne!(fresh, 0);
        for clock in 1..=HALFMOVE_FREE {
            assert!(is_clock_free(&at(clock)));
            assert_eq!(evaluate(&at(clock)), fresh, "clock {clock}");
        }
        let late = at(HALFMOVE_FREE + 1);
        assert!(!is_clock_free(&late));
        assert_ne!(evaluate(&at(HALFMOVE_FREE + 30)), fresh);
    }

    #[test]
    fn start_position_is_tempo_only() {
        let tempo = VALUES[idx::TEMPO];
        assert_eq!(evaluate(&Chess::default()), tempo.mg);
        let black_to_move = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(evaluate(&black_to_move), tempo.mg);
    }

    #[test]
    fn pawn_table_gives_the_same_scores() {
        let mut evaluator = Evaluator::new();
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/5pk1/6p1/3P4/8/6P1/5PK1/8 w - - 0 1",
            "8/8/8/8/8/8/8/K6k w - - 0 1",
        ] {
            let p = pos(fen);
            let first = evaluator.evaluate_hand_crafted(&p);
            assert_eq!(first, evaluator.evaluate_hand_crafted(&p), "{fen}");
            assert_eq!(first, evaluate(&p), "{fen}");
        }
    }

    #[test]
    fn bare_minor_is_zero() {
        assert_eq!(evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1")), 0);
        assert_eq!(evaluate(&pos("4k3/8/8/8/8/8/8/3BK3 b - - 0 1")), 0);
    }

    #[test]
    fn spans_and_fills() {
        assert_eq!(
            FORWARD_FILE[Color::White as usize][Square::E2 as usize].count_ones(),
            6
        );
        assert_eq!(
            FORWARD_FILE[Color::Black as usize][Square::E2 as usize].count_ones(),
            1
        );
        assert_eq!(
            PASSED_SPAN[Color::White as usize][Square::A7 as usize].count_ones(),
            2
        );
        assert_eq!(
            pawn_attacks_bb(Color::White, 1 << Square::A2 as usize),
            1 << Square::B3 as usize
        );
        assert_eq!(
            pawn_attacks_bb(Color::Black, 1 << Square::H7 as usize),
            1 << Square::G6 as usize
        );
    }

    #[test]
    fn unstoppable_passer_in_pawn_ending() {
        // The a-pawn runs; the black king is too far away.
        let far = evaluate(&pos("7k/8/8/P7/8/8/8/K7 w - - 0 1"));
        let near = evaluate(&pos("1k6/8/8/P7/8/8/8/K7 w - - 0 1"));
        assert!(far > near + 200, "{far} vs {near}");
    }
}
