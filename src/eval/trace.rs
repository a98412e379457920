//! The `eval` command's table and the tuner's coefficients, both recorded
//! by a tracer during an ordinary evaluation.

use shakmaty::{Chess, Color};

use super::king::{self, KingInfo};
use super::params::{kd, term_of, Term, NUM_PARAMS, S, VALUES};
use super::{combine, evaluate_with, Tracer};

/// Records every count, per side.
struct Collector {
    /// `counts[color][index]`.
    counts: [Vec<i32>; 2],
    king: [KingInfo; 2],
}

impl Collector {
    fn new() -> Collector {
        Collector {
            counts: [vec![0; NUM_PARAMS], vec![0; NUM_PARAMS]],
            king: [KingInfo::default(); 2],
        }
    }
}

impl Tracer for Collector {
    const ACTIVE: bool = true;
    fn linear(&mut self, color: Color, index: usize, count: i32) {
        self.counts[color as usize][index] += count;
    }
    fn king(&mut self, defender: Color, info: &KingInfo) {
        self.king[defender as usize] = *info;
    }
}

/// King-danger inputs of one king, for the tuner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KingDangerInputs {
    /// Counts multiplying `params::KING_DANGER`, indexed by `params::kd`.
    pub inputs: [i32; kd::COUNT],
    pub attacker_has_queen: bool,
}

/// Everything a Texel tuner needs to recompute the evaluation of a position
/// from the parameters (see the documentation of `params`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coefficients {
    /// `(index into params::VALUES, white count - black count)`, non-zero only.
    pub linear: Vec<(usize, i32)>,
    /// Per king (indexed by `Color as usize`), the danger inputs.
    pub king: [KingDangerInputs; 2],
    pub phase: i32,
    /// Endgame scale factor out of 64 (0: the score is 0).
    pub scale: i32,
    /// Halfmove-clock factor out of 80.
    pub halfmove_factor: i32,
    pub turn: Color,
}

impl Coefficients {
    /// Tapered White-minus-Black sums with the current parameters.
    pub fn totals(&self) -> S {
        let mut total = S::default();
        for &(index, count) in &self.linear {
            total += VALUES[index] * count;
        }
        let white = &self.king[Color::White as usize];
        let black = &self.king[Color::Black as usize];
        total += king::penalty(king::danger(&white.inputs, white.attacker_has_queen));
        total -= king::penalty(king::danger(&black.inputs, black.attacker_has_queen));
        total
    }

    /// The evaluation (side to move) recomputed from the coefficients.
    pub fn evaluate(&self) -> i32 {
        let white = combine(self.totals(), self.phase, self.scale, self.halfmove_factor);
        if self.turn == Color::White {
            white
        } else {
            -white
        }
    }
}

/// Linear coefficients and king-danger inputs of `pos` (see `params`).
pub fn eval_coefficients(pos: &Chess) -> Coefficients {
    use shakmaty::Position;
    let mut collector = Collector::new();
    let outcome = evaluate_with(pos, None, &mut collector);
    let linear = (0..NUM_PARAMS)
        .filter_map(|i| {
            let c = collector.counts[Color::White as usize][i]
                - collector.counts[Color::Black as usize][i];
            (c != 0).then_some((i, c))
        })
        .collect();
    let king = collector.king.map(|k| KingDangerInputs {
        inputs: k.inputs,
        attacker_has_queen: k.attacker_has_queen,
    });
    Coefficients {
        linear,
        king,
        phase: outcome.phase,
        scale: outcome.scale,
        halfmove_factor: outcome.halfmove_factor,
        turn: pos.turn(),
    }
}

/// The evaluation of one position broken down by term.
#[derive(Clone, Debug)]
pub struct EvalTrace {
    /// Per term (in `Term::ALL` order), the (White, Black) sums; the King
    /// row includes the non-linear danger penalty.
    pub terms: Vec<(Term, S, S)>,
    /// Per king (indexed by `Color as usize`).
    pub king: [KingInfo; 2],
    /// White-minus-Black totals before scaling.
    pub total: S,
    pub phase: i32,
    pub scale: i32,
    pub halfmove_factor: i32,
    /// Both sides lack mating material.
    pub dead: bool,
    /// Final score in centipawns, White's point of view.
    pub white: i32,
    /// Final score in centipawns, side to move's point of view.
    pub stm: i32,
}

impl EvalTrace {
    /// The (White, Black) sums of one term.
    pub fn term(&self, term: Term) -> (S, S) {
        let row = self.terms.iter().find(|r| r.0 == term).unwrap();
        (row.1, row.2)
    }
}

/// Evaluates `pos` with the full breakdown.
pub fn trace(pos: &Chess) -> EvalTrace {
    let mut collector = Collector::new();
    let outcome = evaluate_with(pos, None, &mut collector);
    let mut terms: Vec<(Term, S, S)> = Term::ALL
        .iter()
        .map(|&t| (t, S::default(), S::default()))
        .collect();
    for (i, &value) in VALUES.iter().enumerate() {
        let row = Term::ALL.iter().position(|&t| t == term_of(i)).unwrap();
        terms[row].1 += value * collector.counts[Color::White as usize][i];
        terms[row].2 += value * collector.counts[Color::Black as usize][i];
    }
    let king_row = Term::ALL.iter().position(|&t| t == Term::King).unwrap();
    terms[king_row].1 += collector.king[Color::White as usize].penalty;
    terms[king_row].2 += collector.king[Color::Black as usize].penalty;
    EvalTrace {
        terms,
        king: collector.king,
        total: outcome.total,
        phase: outcome.phase,
        scale: outcome.scale,
        halfmove_factor: outcome.halfmove_factor,
        dead: outcome.dead,
        white: outcome.white,
        stm: outcome.stm,
    }
}

fn pawns(cp: i32) -> String {
    format!("{:6.2}", cp as f64 / 100.0)
}

fn pair(v: S) -> String {
    format!("{} {}", pawns(v.mg), pawns(v.eg))
}

/// The lines of the `eval` command.
pub fn trace_lines(pos: &Chess) -> Vec<String> {
    let t = trace(pos);
    let mut out = Vec::new();
    let rule = "--------------------+---------------+---------------+---------------";
    out.push("        Term        |     White     |     Black     |     Total".to_string());
    out.push("                    |    MG     EG  |    MG     EG  |    MG     EG".to_string());
    out.push(rule.to_string());
    for (term, w, b) in &t.terms {
        out.push(format!(
            "{:>19} | {} | {} | {}",
            term.name(),
            pair(*w),
            pair(*b),
            pair(*w - *b)
        ));
    }
    let scaled_eg = if t.scale == 0 {
        0
    } else {
        t.total.eg * t.scale / 64
    };
    out.push(format!(
        "{:>19} |       ---     |       ---     | {} {}",
        "Scaling",
        pawns(0),
        pawns(scaled_eg - t.total.eg)
    ));
    out.push(rule.to_string());
    out.push(format!(
        "{:>19} |       ---     |       ---     | {} {}",
        "Total",
        pawns(t.total.mg),
        pawns(scaled_eg)
    ));
    out.push(String::new());

    out.push("King safety         |     White king |     Black king".to_string());
    out.push("--------------------+----------------+----------------".to_string());
    let w = &t.king[Color::White as usize];
    let b = &t.king[Color::Black as usize];
    let row = |name: &str, f: &dyn Fn(&KingInfo) -> String| {
        format!("{:>19} | {:>14} | {:>14}", name, f(w), f(b))
    };
    let input = |i: usize| move |k: &KingInfo| k.inputs[i].to_string();
    out.push(row("zone attackers", &|k| k.zone_attackers.to_string()));
    out.push(row("attackers N/B/R/Q", &|k| {
        format!(
            "{}/{}/{}/{}",
            k.inputs[kd::KNIGHT_ATTACKER],
            k.inputs[kd::BISHOP_ATTACKER],
            k.inputs[kd::ROOK_ATTACKER],
            k.inputs[kd::QUEEN_ATTACKER]
        )
    }));
    out.push(row("attack weight", &|k| {
        let mut weight = 0;
        for i in kd::KNIGHT_ATTACKER..=kd::ZONE_ATTACKS {
            weight += k.inputs[i] * super::params::KING_DANGER[i];
        }
        weight.to_string()
    }));
    out.push(row("zone attacks", &input(kd::ZONE_ATTACKS)));
    out.push(row("safe checks N/B/R/Q", &|k| {
        format!(
            "{}/{}/{}/{}",
            k.inputs[kd::SAFE_KNIGHT_CHECK],
            k.inputs[kd::SAFE_BISHOP_CHECK],
            k.inputs[kd::SAFE_ROOK_CHECK],
            k.inputs[kd::SAFE_QUEEN_CHECK]
        )
    }));
    out.push(row("weak squares", &input(kd::WEAK_SQUARES)));
    out.push(row("open/half-open", &|k| {
        format!(
            "{}/{}",
            k.inputs[kd::OPEN_FILE],
            k.inputs[kd::HALF_OPEN_FILE]
        )
    }));
    out.push(row("defenders", &input(kd::DEFENDERS)));
    out.push(row("attacker queen", &|k| {
        if k.attacker_has_queen { "yes" } else { "no" }.to_string()
    }));
    out.push(row("shelter mg/eg", &|k| {
        format!("{}/{}", k.shelter.mg, k.shelter.eg)
    }));
    out.push(row("storm mg/eg", &|k| {
        format!("{}/{}", k.storm.mg, k.storm.eg)
    }));
    out.push(row("danger", &|k| k.danger.to_string()));
    out.push(row("penalty mg/eg", &|k| {
        format!("{}/{}", k.penalty.mg, k.penalty.eg)
    }));
    out.push(String::new());
    out.push(format!(
        "Phase: {}/24, scale factor: {}/64, halfmove factor: {}/80{}",
        t.phase,
        t.scale,
        t.halfmove_factor,
        if t.dead {
            " (insufficient material)"
        } else {
            ""
        }
    ));
    out.push(format!(
        "Final evaluation: {:+.2} (white side)",
        t.white as f64 / 100.0
    ));
    out
}

/// The net's part of `eval`, as Stockfish 15.1 shows it: each piece's value
/// (the evaluation minus the evaluation without that piece, White's view,
/// in pawns) on a board, then the net's evaluation and which one the
/// search uses (`in_use`: the net), with the settings that decided it
/// (`Use NNUE`, `UCI_LimitStrength`).
pub fn nnue_lines(
    net: &crate::nnue::Network,
    pos: &Chess,
    in_use: bool,
    use_nnue: bool,
    limited_strength: bool,
) -> Vec<String> {
    use shakmaty::{Color, EnPassantMode, File, FromSetup, Position, Rank, Role, Square};
    let white = |p: &Chess| {
        let stm = crate::eval::evaluate_nnue(net, p);
        if p.turn() == Color::White {
            stm
        } else {
            -stm
        }
    };
    let base = white(pos);
    let mut lines = vec![
        String::new(),
        format!(
            "NNUE derived piece values (net {:016x}, White's view, pawns):",
            net.hash
        ),
    ];
    let border = "+-------+-------+-------+-------+-------+-------+-------+-------+";
    lines.push(border.to_string());
    for rank in Rank::ALL.iter().rev() {
        let mut names = String::from("|");
        let mut values = String::from("|");
        for file in File::ALL {
            let sq = Square::from_coords(file, *rank);
            match pos.board().piece_at(sq) {
                Some(piece) => {
                    names.push_str(&format!("   {}   |", piece.char()));
                    if piece.role == Role::King {
                        values.push_str("       |");
                        continue;
                    }
                    let mut setup = pos.to_setup(EnPassantMode::Legal);
                    setup.board.discard_piece_at(sq);
                    setup.castling_rights.discard(sq);
                    setup.ep_square = None;
                    match Chess::from_setup(setup, pos.castles().mode()) {
                        Ok(without) => values.push_str(&format!(
                            "{:>6.2} |",
                            f64::from(base - white(&without)) / 100.0
                        )),
                        // Removing it leaves the other side in check.
                        Err(_) => values.push_str("       |"),
                    }
                }
                None => {
                    names.push_str("       |");
                    values.push_str("       |");
                }
            }
        }
        lines.push(names);
        lines.push(values);
        lines.push(border.to_string());
    }
    lines.push(String::new());
    lines.push(format!(
        "NNUE evaluation        {:+.2} (White side)",
        f64::from(base) / 100.0
    ));
    lines.push(format!(
        "Evaluation in use      {} (Use NNUE {}{})",
        if in_use { "NNUE" } else { "hand-crafted" },
        use_nnue,
        if limited_strength {
            ", UCI_LimitStrength true"
        } else {
            ""
        }
    ));
    lines
}
