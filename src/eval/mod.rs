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
//! * [`trace`]: the `eval` command's table and the tuner's coefficients,
//! * `info`: the attack maps and king zones the terms share,
//! * `bits`: the terms' bitboard helpers on plain `u64`,
//! * `net`: the net's evaluation with the same dead-position and
//!   fifty-move handling.
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

mod bits;
mod info;
mod net;

use shakmaty::{Chess, Color, Position};

pub(crate) use bits::*;
pub use info::Info;
pub use net::{evaluate_nnue, finish_net_eval};

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
    use shakmaty::{CastlingMode, Square};

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
