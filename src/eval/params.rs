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
        s(85, 110), s(330, 300), s(350, 320), s(480, 540), s(990, 960), s(0, 0),
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
        s(-32, -40), s(-11, -15), s(-3, -5), s(4, 3), s(9, 9),
        s(14, 15), s(18, 21), s(22, 25), s(26, 30),
    ];
    /// Bishop mobility by number of safe squares.
    MOBILITY_BISHOP[14] in Mobility = [
        s(-30, -42), s(-11, -19), s(-3, -9), s(3, -2), s(8, 5), s(12, 10), s(16, 15),
        s(20, 20), s(23, 24), s(27, 28), s(30, 32), s(33, 35), s(35, 39), s(38, 42),
    ];
    /// Rook mobility by number of safe squares.
    MOBILITY_ROOK[15] in Mobility = [
        s(-20, -42), s(-8, -14), s(-3, -3), s(1, 6), s(5, 14),
        s(7, 20), s(10, 26), s(13, 32), s(15, 37), s(17, 41),
        s(19, 46), s(21, 50), s(23, 54), s(24, 58), s(26, 62),
    ];
    /// Queen mobility by number of safe squares.
    MOBILITY_QUEEN[28] in Mobility = [
        s(-16, -32), s(-8, -14), s(-5, -6), s(-2, -1), s(0, 4), s(2, 8), s(4, 12),
        s(5, 16), s(7, 19), s(8, 22), s(10, 25), s(11, 28), s(12, 31), s(13, 33),
        s(14, 36), s(15, 38), s(16, 40), s(17, 43), s(18, 45), s(19, 47), s(20, 49),
        s(21, 51), s(22, 53), s(23, 55), s(24, 57), s(24, 58), s(25, 60), s(26, 62),
    ];
    /// Per pawn with an own pawn ahead of it on its file.
    DOUBLED[1] in Pawns = [
        s(-10, -24),
    ];
    /// Per pawn with no own pawn on the adjacent files.
    ISOLATED[1] in Pawns = [
        s(-8, -12),
    ];
    /// Per backward pawn (no own pawn beside or behind on adjacent files, stop square hit by an enemy pawn).
    BACKWARD[1] in Pawns = [
        s(-8, -10),
    ];
    /// Per pawn defended by an own pawn, by relative rank.
    SUPPORTED[8] in Pawns = [
        s(0, 0), s(0, 0), s(8, 4), s(10, 7), s(15, 12), s(26, 24), s(45, 40), s(0, 0),
    ];
    /// Per pawn with an own pawn beside it, by relative rank.
    PHALANX[8] in Pawns = [
        s(0, 0), s(0, 0), s(4, 2), s(7, 5), s(12, 9), s(22, 18), s(38, 30), s(0, 0),
    ];
    /// Passed pawn by relative rank (stored in the pawn table).
    PASSED[8] in Passed = [
        s(0, 0), s(4, 8), s(6, 12), s(10, 22), s(22, 40), s(45, 72), s(75, 120), s(0, 0),
    ];
    /// Passed pawn whose stop square is occupied, by relative rank.
    PASSED_BLOCKED[8] in Passed = [
        s(0, 0), s(0, 0), s(-2, -4), s(-3, -7), s(-5, -12), s(-8, -20), s(-10, -30), s(0, 0),
    ];
    /// Passed pawn with an empty path not attacked by the enemy, by relative rank.
    PASSED_FREE[8] in Passed = [
        s(0, 0), s(0, 0), s(2, 4), s(4, 9), s(8, 18), s(12, 32), s(18, 55), s(0, 0),
    ];
    /// Times the own king's distance to the stop square, by relative rank.
    PASSED_KING_OWN[8] in Passed = [
        s(0, 0), s(0, 0), s(0, -1), s(0, -2), s(0, -4), s(0, -6), s(0, -8), s(0, 0),
    ];
    /// Times the enemy king's distance to the stop square, by relative rank.
    PASSED_KING_ENEMY[8] in Passed = [
        s(0, 0), s(0, 0), s(0, 2), s(0, 4), s(0, 8), s(0, 12), s(0, 16), s(0, 0),
    ];
    /// Passer the enemy king cannot catch (square rule) when the enemy has only pawns.
    UNSTOPPABLE[1] in Passed = [
        s(0, 300),
    ];
    /// Two bishops.
    BISHOP_PAIR[1] in Bishops = [
        s(28, 52),
    ];
    /// Per bishop, per own pawn on squares of the bishop's colour.
    BISHOP_PAWNS[1] in Bishops = [
        s(-2, -5),
    ];
    /// Knight on an outpost (relative ranks 4-6, pawn-defended, out of reach of enemy pawns).
    KNIGHT_OUTPOST[1] in Outposts = [
        s(24, 14),
    ];
    /// Bishop on an outpost.
    BISHOP_OUTPOST[1] in Outposts = [
        s(14, 6),
    ];
    /// Rook on a file without pawns.
    ROOK_OPEN[1] in Rooks = [
        s(32, 10),
    ];
    /// Rook on a file without own pawns.
    ROOK_HALF_OPEN[1] in Rooks = [
        s(14, 7),
    ];
    /// Rook on the relative 7th rank with the enemy king on the 8th or enemy pawns on the 7th.
    ROOK_SEVENTH[1] in Rooks = [
        s(14, 24),
    ];
    /// Enemy piece attacked by a pawn, by victim role.
    THREAT_BY_PAWN[6] in Threats = [
        s(0, 0), s(55, 35), s(55, 35), s(70, 30), s(65, 20), s(0, 0),
    ];
    /// Enemy piece (not defended by a pawn) attacked by a knight or bishop, by victim role.
    THREAT_BY_MINOR[6] in Threats = [
        s(2, 14), s(22, 28), s(24, 30), s(45, 38), s(40, 45), s(0, 0),
    ];
    /// Enemy queen or undefended piece attacked by a rook, by victim role.
    THREAT_BY_ROOK[6] in Threats = [
        s(2, 14), s(12, 22), s(12, 22), s(8, 12), s(40, 38), s(0, 0),
    ];
    /// Enemy non-pawn piece attacked and not defended at all.
    HANGING[1] in Threats = [
        s(28, 14),
    ];
    /// Per safe square in the centre files on relative ranks 2-4 (squares behind own pawns count twice); only with many pieces on the board.
    SPACE[1] in Space = [
        s(2, 0),
    ];
    /// Pawn shelter per file around the king: [is king file][rank distance of the nearest own pawn in front, 0 = none].
    SHELTER[16] in King = [
        s(-24, -4), s(14, 2), s(8, 2), s(-2, 0), s(-8, -2), s(-10, -2), s(-10, -2), s(-10, -2),
        s(-34, -6), s(20, 2), s(10, 2), s(-4, 0), s(-10, -2), s(-12, -2), s(-12, -2), s(-12, -2),
    ];
    /// Enemy pawn storm per file around the king: [storm pawn blocked by an own pawn][rank distance of the nearest enemy pawn in front, 0 = none].
    STORM[16] in King = [
        s(0, 0), s(-6, -2), s(-28, -6), s(-16, -4), s(-7, -2), s(-2, 0), s(0, 0), s(0, 0),
        s(0, 0), s(0, 0), s(-4, 0), s(-6, 0), s(-2, 0), s(0, 0), s(0, 0), s(0, 0),
    ];
    /// Side to move.
    TEMPO[1] in Tempo = [
        s(16, 8),
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
    22,  // knight attacker
    16,  // bishop attacker
    20,  // rook attacker
    34,  // queen attacker
    7,   // zone attacks
    70,  // safe knight check
    45,  // safe bishop check
    75,  // safe rook check
    65,  // safe queen check
    14,  // weak squares
    24,  // open files
    12,  // half-open files
    -12, // defenders
    -60, // base
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
