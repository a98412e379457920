//! Every weight of the evaluation, in one place.
//!
//! # Layout (read and rewritten by the Texel tuner)
//!
//! * The linear weights are declared inside the single `params!` invocation
//!   below, one entry per named parameter, in the form
//!   `NAME[len] in Term = [s(mg, eg), ...];`. Every entry is an array of
//!   tapered `(middlegame, endgame)` pairs written as `s(mg, eg)`, also when
//!   it holds one value (`[1]`). A tuner regenerates the file by printing
//!   the same entries with new numbers; the names, lengths and order must
//!   stay as they are (the evaluation addresses weights through `idx::NAME
//!   + i`).
//! * The entries are laid end to end, in declaration order, in one flat
//!   vector [`VALUES`] of [`NUM_PARAMS`] pairs; `idx::NAME` is the offset of
//!   an entry in it and [`PARAMS`] lists name, offset, values and the trace
//!   row ([`Term`]) of each entry.
//! * Square tables (`PSQT_*`) have 64 entries indexed by square from
//!   White's point of view, a1 = 0, b1 = 1, .. h8 = 63 (rank 1 first); Black
//!   reads them at the vertically mirrored square. Per-rank tables have 8
//!   entries indexed by the relative rank (0 = own back rank). Mobility
//!   tables are indexed by the number of safe squares.
//! * The king-danger weights [`KING_DANGER`] are plain integers (indexed by
//!   the constants in [`kd`]) feeding the non-linear king-safety curve; the
//!   curve's constants and the endgame scale factors follow them.
//!
//! # Coefficients for a tuner
//!
//! [`super::eval_coefficients`] returns, for one position, the linear
//! coefficients of every weight: a sparse list of `(index into VALUES,
//! white count - black count)`; the same count multiplies the middlegame and
//! the endgame half. It also returns the game phase, the endgame scale
//! factor, the halfmove-clock factor and, per king, the king-danger inputs
//! (the counts multiplying each `KING_DANGER` weight and whether the
//! attacker has a queen). The evaluation is then, in integers:
//!
//! ```text
//! mg = sum(coef * VALUES[i].mg) + king_mg(White) - king_mg(Black)
//! eg = sum(coef * VALUES[i].eg) + king_eg(White) - king_eg(Black)
//! danger = sum(inputs * KING_DANGER), times KD_NO_QUEEN_SCALE / 128 without
//!          the attacker's queen, then clamped to 0..=KD_MAX
//! king_mg = -danger^2 / KD_MG_DIV, king_eg = -danger / KD_EG_DIV
//! white = 0 if scale == 0, else
//! white = (mg * phase + (eg * scale / 64) * (24 - phase)) / 24
//! white = white * halfmove_factor / 80
//! score = white for White to move, -white for Black
//! ```

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A tapered weight: a middlegame and an endgame value in centipawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S {
    pub mg: i32,
    pub eg: i32,
}

/// Shorthand for a tapered weight.
pub const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        s(self.mg + o.mg, self.eg + o.eg)
    }
}

impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        s(self.mg - o.mg, self.eg - o.eg)
    }
}

impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        s(-self.mg, -self.eg)
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        s(self.mg * k, self.eg * k)
    }
}

impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

/// The row of the `eval` trace a weight belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Material,
    Psqt,
    Pawns,
    Passed,
    Mobility,
    Bishops,
    Rooks,
    Outposts,
    Threats,
    Space,
    King,
    Tempo,
}

impl Term {
    pub const ALL: [Term; 12] = [
        Term::Material,
        Term::Psqt,
        Term::Pawns,
        Term::Passed,
        Term::Mobility,
        Term::Bishops,
        Term::Rooks,
        Term::Outposts,
        Term::Threats,
        Term::Space,
        Term::King,
        Term::Tempo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Term::Material => "Material",
            Term::Psqt => "Piece-square",
            Term::Pawns => "Pawns",
            Term::Passed => "Passed",
            Term::Mobility => "Mobility",
            Term::Bishops => "Bishops",
            Term::Rooks => "Rooks",
            Term::Outposts => "Knights/outposts",
            Term::Threats => "Threats",
            Term::Space => "Space",
            Term::King => "King safety",
            Term::Tempo => "Tempo",
        }
    }
}

/// One named linear parameter: where it lives in [`VALUES`].
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub offset: usize,
    pub values: &'static [S],
    pub term: Term,
}

macro_rules! params {
    ($( $(#[$m:meta])* $name:ident [$len:literal] in $term:ident = $val:expr; )*) => {
        $( $(#[$m])* pub const $name: [S; $len] = $val; )*

        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy)]
        enum Id { $($name),* }

        const LENS: &[usize] = &[$($len),*];

        const fn offset(id: usize) -> usize {
            let mut i = 0;
            let mut total = 0;
            while i < id {
                total += LENS[i];
                i += 1;
            }
            total
        }

        /// Offsets of the parameters in [`VALUES`].
        pub mod idx {
            $( pub const $name: usize = super::offset(super::Id::$name as usize); )*
        }

        /// Number of tapered weights in [`VALUES`].
        pub const NUM_PARAMS: usize = offset(LENS.len());

        /// Every linear parameter, in declaration (and storage) order.
        pub const PARAMS: &[Param] = &[
            $( Param { name: stringify!($name), offset: idx::$name, values: &$name, term: Term::$term } ),*
        ];
    };
}

/// All linear weights laid end to end (see the module documentation).
pub static VALUES: [S; NUM_PARAMS] = flatten();

const fn flatten() -> [S; NUM_PARAMS] {
    let mut out = [s(0, 0); NUM_PARAMS];
    let mut i = 0;
    while i < PARAMS.len() {
        let p = &PARAMS[i];
        let mut j = 0;
        while j < p.values.len() {
            out[p.offset + j] = p.values[j];
            j += 1;
        }
        i += 1;
    }
    out
}

/// The trace row of the weight at `index` in [`VALUES`].
pub fn term_of(index: usize) -> Term {
    let mut term = PARAMS[0].term;
    for p in PARAMS {
        if p.offset > index {
            break;
        }
        term = p.term;
    }
    term
}

/// Name of the weight at `index`, e.g. `MOBILITY_ROOK[7]`.
pub fn name_of(index: usize) -> String {
    for p in PARAMS {
        if index >= p.offset && index < p.offset + p.values.len() {
            return format!("{}[{}]", p.name, index - p.offset);
        }
    }
    format!("?{index}")
}

#[rustfmt::skip]
params! {
    /// Piece values by role: pawn, knight, bishop, rook, queen, king.
    MATERIAL[6] in Material = [
        s(85, 144), s(367, 352), s(371, 390), s(494, 660), s(1093, 1086), s(0, 0),
    ];
    /// Pawn square table, a1..h8 from White's view (rank 1 first).
    PSQT_PAWN[64] in Psqt = [
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
        s(-4, 0), s(0, 0), s(0, 0), s(-4, 0), s(-4, 0), s(0, 0), s(0, 0), s(-4, 0),
        s(-6, 0), s(-2, 0), s(-2, 0), s(-2, 0), s(-2, 0), s(-2, 0), s(-2, 0), s(-6, 0),
        s(-2, 4), s(2, 4), s(6, 4), s(12, 4), s(12, 4), s(6, 4), s(2, 4), s(-2, 4),
        s(4, 10), s(8, 10), s(12, 10), s(18, 10), s(18, 10), s(12, 10), s(8, 10), s(4, 10),
        s(12, 20), s(16, 20), s(16, 20), s(16, 20), s(16, 20), s(16, 20), s(16, 20), s(12, 20),
        s(26, 34), s(30, 34), s(30, 34), s(30, 34), s(30, 34), s(30, 34), s(30, 34), s(26, 34),
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    ];
    /// Knight square table.
    PSQT_KNIGHT[64] in Psqt = [
        s(-28, -16), s(-22, -11), s(-16, -6), s(-10, -1), s(-10, -1), s(-16, -6), s(-22, -11), s(-28, -16),
        s(-14, -11), s(-8, -6), s(-2, -1), s(4, 4), s(4, 4), s(-2, -1), s(-8, -6), s(-14, -11),
        s(-8, -6), s(-2, -1), s(4, 4), s(10, 9), s(10, 9), s(4, 4), s(-2, -1), s(-8, -6),
        s(-2, -1), s(4, 4), s(10, 9), s(16, 14), s(16, 14), s(10, 9), s(4, 4), s(-2, -1),
        s(2, -1), s(8, 4), s(14, 9), s(20, 14), s(20, 14), s(14, 9), s(8, 4), s(2, -1),
        s(-4, -6), s(2, -1), s(8, 4), s(14, 9), s(14, 9), s(8, 4), s(2, -1), s(-4, -6),
        s(-14, -11), s(-8, -6), s(-2, -1), s(4, 4), s(4, 4), s(-2, -1), s(-8, -6), s(-14, -11),
        s(-20, -16), s(-14, -11), s(-8, -6), s(-2, -1), s(-2, -1), s(-8, -6), s(-14, -11), s(-20, -16),
    ];
    /// Bishop square table.
    PSQT_BISHOP[64] in Psqt = [
        s(-14, -9), s(-11, -6), s(-8, -3), s(-5, 0), s(-5, 0), s(-8, -3), s(-11, -6), s(-14, -9),
        s(-5, -6), s(-2, -3), s(1, 0), s(4, 3), s(4, 3), s(1, 0), s(-2, -3), s(-5, -6),
        s(-2, -3), s(1, 0), s(4, 3), s(7, 6), s(7, 6), s(4, 3), s(1, 0), s(-2, -3),
        s(1, 0), s(4, 3), s(7, 6), s(10, 9), s(10, 9), s(7, 6), s(4, 3), s(1, 0),
        s(1, 0), s(4, 3), s(7, 6), s(10, 9), s(10, 9), s(7, 6), s(4, 3), s(1, 0),
        s(-2, -3), s(1, 0), s(4, 3), s(7, 6), s(7, 6), s(4, 3), s(1, 0), s(-2, -3),
        s(-5, -6), s(-2, -3), s(1, 0), s(4, 3), s(4, 3), s(1, 0), s(-2, -3), s(-5, -6),
        s(-8, -9), s(-5, -6), s(-2, -3), s(1, 0), s(1, 0), s(-2, -3), s(-5, -6), s(-8, -9),
    ];
    /// Rook square table.
    PSQT_ROOK[64] in Psqt = [
        s(-4, -3), s(0, -2), s(2, -1), s(5, 0), s(5, 0), s(2, -1), s(0, -2), s(-4, -3),
        s(0, -2), s(0, -1), s(2, 0), s(5, 1), s(5, 1), s(2, 0), s(0, -1), s(0, -2),
        s(0, -1), s(0, 0), s(2, 1), s(5, 2), s(5, 2), s(2, 1), s(0, 0), s(0, -1),
        s(0, 0), s(0, 1), s(2, 2), s(5, 3), s(5, 3), s(2, 2), s(0, 1), s(0, 0),
        s(0, 0), s(0, 1), s(2, 2), s(5, 3), s(5, 3), s(2, 2), s(0, 1), s(0, 0),
        s(0, -1), s(0, 0), s(2, 1), s(5, 2), s(5, 2), s(2, 1), s(0, 0), s(0, -1),
        s(0, -2), s(0, -1), s(2, 0), s(5, 1), s(5, 1), s(2, 0), s(0, -1), s(0, -2),
        s(0, -3), s(0, -2), s(2, -1), s(5, 0), s(5, 0), s(2, -1), s(0, -2), s(0, -3),
    ];
    /// Queen square table.
    PSQT_QUEEN[64] in Psqt = [
        s(-8, -12), s(-6, -8), s(-4, -4), s(-2, 0), s(-2, 0), s(-4, -4), s(-6, -8), s(-8, -12),
        s(-4, -8), s(-2, -4), s(0, 0), s(2, 4), s(2, 4), s(0, 0), s(-2, -4), s(-4, -8),
        s(-2, -4), s(0, 0), s(2, 4), s(4, 8), s(4, 8), s(2, 4), s(0, 0), s(-2, -4),
        s(0, 0), s(2, 4), s(4, 8), s(6, 12), s(6, 12), s(4, 8), s(2, 4), s(0, 0),
        s(0, 0), s(2, 4), s(4, 8), s(6, 12), s(6, 12), s(4, 8), s(2, 4), s(0, 0),
        s(-2, -4), s(0, 0), s(2, 4), s(4, 8), s(4, 8), s(2, 4), s(0, 0), s(-2, -4),
        s(-4, -8), s(-2, -4), s(0, 0), s(2, 4), s(2, 4), s(0, 0), s(-2, -4), s(-4, -8),
        s(-6, -12), s(-4, -8), s(-2, -4), s(0, 0), s(0, 0), s(-2, -4), s(-4, -8), s(-6, -12),
    ];
    /// King square table.
    PSQT_KING[64] in Psqt = [
        s(14, -24), s(26, -16), s(20, -8), s(0, 0), s(4, 0), s(0, -8), s(28, -16), s(16, -24),
        s(-21, -16), s(-15, -8), s(-18, 0), s(-28, 8), s(-26, 8), s(-28, 0), s(-14, -8), s(-20, -16),
        s(-49, -8), s(-43, 0), s(-46, 8), s(-56, 16), s(-54, 16), s(-56, 8), s(-42, 0), s(-48, -8),
        s(-77, 0), s(-71, 8), s(-74, 16), s(-84, 24), s(-82, 24), s(-84, 16), s(-70, 8), s(-76, 0),
        s(-105, 0), s(-99, 8), s(-102, 16), s(-112, 24), s(-110, 24), s(-112, 16), s(-98, 8), s(-104, 0),
        s(-133, -8), s(-127, 0), s(-130, 8), s(-140, 16), s(-138, 16), s(-140, 8), s(-126, 0), s(-132, -8),
        s(-161, -16), s(-155, -8), s(-158, 0), s(-168, 8), s(-166, 8), s(-168, 0), s(-154, -8), s(-160, -16),
        s(-189, -24), s(-183, -16), s(-186, -8), s(-196, 0), s(-194, 0), s(-196, -8), s(-182, -16), s(-188, -24),
    ];
    /// Knight mobility by number of safe squares.
    MOBILITY_KNIGHT[9] in Mobility = [
        s(-19, -37), s(0, -17), s(4, 0), s(12, 12), s(13, 16),
        s(13, 26), s(15, 35), s(16, 36), s(30, 25),
    ];
    /// Bishop mobility by number of safe squares.
    MOBILITY_BISHOP[14] in Mobility = [
        s(-11, -39), s(0, -14), s(8, 1), s(11, 2), s(12, 17), s(11, 23), s(16, 22),
        s(11, 34), s(11, 31), s(23, 34), s(28, 29), s(29, 36), s(36, 36), s(37, 35),
    ];
    /// Rook mobility by number of safe squares.
    MOBILITY_ROOK[15] in Mobility = [
        s(-15, -45), s(-4, -11), s(6, -2), s(7, 9), s(12, 23),
        s(7, 37), s(10, 38), s(9, 44), s(11, 55), s(15, 56),
        s(24, 55), s(15, 58), s(22, 61), s(20, 64), s(25, 68),
    ];
    /// Queen mobility by number of safe squares.
    MOBILITY_QUEEN[28] in Mobility = [
        s(-1, -31), s(2, -14), s(-1, -9), s(3, -1), s(10, 6), s(8, 4), s(5, 9),
        s(6, 15), s(8, 25), s(11, 27), s(11, 36), s(13, 42), s(23, 43), s(15, 53),
        s(15, 47), s(25, 55), s(20, 58), s(19, 54), s(24, 55), s(25, 56), s(24, 55),
        s(19, 47), s(25, 56), s(23, 49), s(23, 55), s(23, 53), s(25, 59), s(25, 59),
    ];
    /// Per pawn with an own pawn ahead of it on its file.
    DOUBLED[1] in Pawns = [
        s(-1, -2),
    ];
    /// Per pawn with no own pawn on the adjacent files.
    ISOLATED[1] in Pawns = [
        s(-4, -6),
    ];
    /// Per backward pawn (no own pawn beside or behind on adjacent files, stop square hit by an enemy pawn).
    BACKWARD[1] in Pawns = [
        s(4, -11),
    ];
    /// Per pawn defended by an own pawn, by relative rank.
    SUPPORTED[8] in Pawns = [
        s(0, 0), s(0, 0), s(16, -9), s(9, -7), s(8, 2), s(23, 50), s(46, 38), s(0, 0),
    ];
    /// Per pawn with an own pawn beside it, by relative rank.
    PHALANX[8] in Pawns = [
        s(0, 0), s(6, -2), s(4, -3), s(4, 0), s(9, 23), s(29, 43), s(40, 41), s(0, 0),
    ];
    /// Passed pawn by relative rank (stored in the pawn table).
    PASSED[8] in Passed = [
        s(0, 0), s(3, 1), s(9, 10), s(1, 26), s(16, 43), s(48, 72), s(81, 135), s(0, 0),
    ];
    /// Passed pawn whose stop square is occupied, by relative rank.
    PASSED_BLOCKED[8] in Passed = [
        s(0, 0), s(-2, -6), s(2, -6), s(2, -5), s(-1, -5), s(-21, -17), s(-13, -23), s(0, 0),
    ];
    /// Passed pawn with an empty path not attacked by the enemy, by relative rank.
    PASSED_FREE[8] in Passed = [
        s(0, 0), s(-5, 4), s(-4, 1), s(-4, 14), s(-2, 19), s(12, 36), s(19, 57), s(0, 0),
    ];
    /// Times the own king's distance to the stop square, by relative rank.
    PASSED_KING_OWN[8] in Passed = [
        s(0, 0), s(8, 8), s(5, -2), s(6, -9), s(0, -13), s(0, -14), s(3, -19), s(0, 0),
    ];
    /// Times the enemy king's distance to the stop square, by relative rank.
    PASSED_KING_ENEMY[8] in Passed = [
        s(0, 0), s(-3, -1), s(-2, 4), s(-5, 13), s(-2, 19), s(-1, 28), s(12, 29), s(0, 0),
    ];
    /// Passer the enemy king cannot catch (square rule) when the enemy has only pawns.
    UNSTOPPABLE[1] in Passed = [
        s(0, 297),
    ];
    /// Two bishops.
    BISHOP_PAIR[1] in Bishops = [
        s(46, 62),
    ];
    /// Per bishop, per own pawn on squares of the bishop's colour.
    BISHOP_PAWNS[1] in Bishops = [
        s(-2, 0),
    ];
    /// Knight on an outpost (relative ranks 4-6, pawn-defended, out of reach of enemy pawns).
    KNIGHT_OUTPOST[1] in Outposts = [
        s(12, 5),
    ];
    /// Bishop on an outpost.
    BISHOP_OUTPOST[1] in Outposts = [
        s(18, 10),
    ];
    /// Rook on a file without pawns.
    ROOK_OPEN[1] in Rooks = [
        s(35, -1),
    ];
    /// Rook on a file without own pawns.
    ROOK_HALF_OPEN[1] in Rooks = [
        s(20, 16),
    ];
    /// Rook on the relative 7th rank with the enemy king on the 8th or enemy pawns on the 7th.
    ROOK_SEVENTH[1] in Rooks = [
        s(26, 26),
    ];
    /// Enemy piece attacked by a pawn, by victim role.
    THREAT_BY_PAWN[6] in Threats = [
        s(0, 0), s(45, 30), s(50, 39), s(68, 27), s(54, 18), s(0, 0),
    ];
    /// Enemy piece (not defended by a pawn) attacked by a knight or bishop, by victim role.
    THREAT_BY_MINOR[6] in Threats = [
        s(0, 22), s(15, 16), s(21, 28), s(52, 27), s(35, 43), s(0, 0),
    ];
    /// Enemy queen or undefended piece attacked by a rook, by victim role.
    THREAT_BY_ROOK[6] in Threats = [
        s(17, 44), s(16, 26), s(15, 28), s(0, 6), s(45, 35), s(0, 0),
    ];
    /// Enemy non-pawn piece attacked and not defended at all.
    HANGING[1] in Threats = [
        s(13, 11),
    ];
    /// Per safe square in the centre files on relative ranks 2-4 (squares behind own pawns count twice); only with many pieces on the board.
    SPACE[1] in Space = [
        s(3, -5),
    ];
    /// Pawn shelter per file around the king: [is king file][rank distance of the nearest own pawn in front, 0 = none].
    SHELTER[16] in King = [
        s(-13, 9), s(7, 1), s(3, 2), s(-5, -2), s(-5, -7), s(-2, 3), s(-6, 12), s(-10, -2),
        s(-17, 7), s(10, -1), s(13, -5), s(-10, -7), s(-2, -6), s(-21, 0), s(-13, 4), s(-12, -2),
    ];
    /// Enemy pawn storm per file around the king: [storm pawn blocked by an own pawn][rank distance of the nearest enemy pawn in front, 0 = none].
    STORM[16] in King = [
        s(0, 0), s(6, 7), s(-11, 6), s(-3, 8), s(2, 10), s(14, 0), s(14, 0), s(0, 0),
        s(0, 0), s(0, 0), s(-12, -13), s(8, -14), s(1, 4), s(10, -6), s(8, 1), s(0, 0),
    ];
    /// Side to move.
    TEMPO[1] in Tempo = [
        s(16, 7),
    ];
}

/// Indices of the king-danger inputs and weights ([`KING_DANGER`]).
pub mod kd {
    /// Per enemy knight attacking the king zone.
    pub const KNIGHT_ATTACKER: usize = 0;
    /// Per enemy bishop attacking the king zone.
    pub const BISHOP_ATTACKER: usize = 1;
    /// Per enemy rook attacking the king zone.
    pub const ROOK_ATTACKER: usize = 2;
    /// Per enemy queen attacking the king zone.
    pub const QUEEN_ATTACKER: usize = 3;
    /// Per attack of an enemy piece on a zone square (one piece hitting three
    /// zone squares counts three).
    pub const ZONE_ATTACKS: usize = 4;
    /// Safe checking squares per piece type (counted up to 2 each).
    pub const SAFE_KNIGHT_CHECK: usize = 5;
    pub const SAFE_BISHOP_CHECK: usize = 6;
    pub const SAFE_ROOK_CHECK: usize = 7;
    pub const SAFE_QUEEN_CHECK: usize = 8;
    /// Zone squares attacked by the enemy and defended at most by the king
    /// or the queen.
    pub const WEAK_SQUARES: usize = 9;
    /// Files among the king's file and its neighbours without any pawn.
    pub const OPEN_FILE: usize = 10;
    /// Files among them without an own pawn but with an enemy pawn.
    pub const HALF_OPEN_FILE: usize = 11;
    /// Own knights and bishops defending the king zone.
    pub const DEFENDERS: usize = 12;
    /// Constant offset (input always 1).
    pub const BASE: usize = 13;
    pub const COUNT: usize = 14;
    pub const NAMES: [&str; COUNT] = [
        "knight attackers",
        "bishop attackers",
        "rook attackers",
        "queen attackers",
        "zone attacks",
        "safe knight checks",
        "safe bishop checks",
        "safe rook checks",
        "safe queen checks",
        "weak squares",
        "open files",
        "half-open files",
        "defenders",
        "base",
    ];
}

/// King-danger weights, indexed by the constants in [`kd`].
pub const KING_DANGER: [i32; kd::COUNT] = [
    27,  // knight attacker
    20,  // bishop attacker
    25,  // rook attacker
    48,  // queen attacker
    16,  // zone attacks
    74,  // safe knight check
    59,  // safe bishop check
    94,  // safe rook check
    83,  // safe queen check
    22,  // weak squares
    37,  // open files
    14,  // half-open files
    -16, // defenders
    -25, // base
];

/// Danger is multiplied by this / 128 when the attacker has no queen.
pub const KD_NO_QUEEN_SCALE: i32 = 40;
/// Danger is clamped to `0..=KD_MAX`.
pub const KD_MAX: i32 = 1000;
/// Middlegame penalty = danger^2 / KD_MG_DIV.
pub const KD_MG_DIV: i32 = 720;
/// Endgame penalty = danger / KD_EG_DIV.
pub const KD_EG_DIV: i32 = 10;

/// Endgame scale factors (out of 64).
pub const SCALE_NORMAL: i32 = 64;
/// Opposite-coloured bishops, no other pieces.
pub const SCALE_OCB_PURE: i32 = 22;
/// Opposite-coloured bishops with other pieces.
pub const SCALE_OCB_PIECES: i32 = 46;
/// Strong side without pawns, up at most a minor piece.
pub const SCALE_NO_PAWNS_MINOR_UP: i32 = 12;
/// Strong side without pawns and with only a minor or two knights.
pub const SCALE_DRAWN: i32 = 0;
/// Minimum game phase for the space term.
pub const SPACE_MIN_PHASE: i32 = 12;
/// Halfmove clock at which the score starts shrinking towards 0 at 100.
pub const HALFMOVE_FREE: i32 = 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_consistent() {
        let mut offset = 0;
        for p in PARAMS {
            assert_eq!(p.offset, offset, "{}", p.name);
            for (j, v) in p.values.iter().enumerate() {
                assert_eq!(VALUES[offset + j], *v);
            }
            offset += p.values.len();
        }
        assert_eq!(offset, NUM_PARAMS);
        // The square tables are addressed as PSQT_PAWN + 64 * role.
        assert_eq!(idx::PSQT_KNIGHT, idx::PSQT_PAWN + 64);
        assert_eq!(idx::PSQT_KING, idx::PSQT_PAWN + 5 * 64);
        assert_eq!(term_of(idx::TEMPO), Term::Tempo);
        assert_eq!(name_of(idx::MOBILITY_ROOK + 7), "MOBILITY_ROOK[7]");
    }
}
