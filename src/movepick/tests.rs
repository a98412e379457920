//! The picker's tests over the perft suites' positions.

use super::*;
use crate::history::{piece_to, ContinuationHistory};
use crate::movegen::{gives_check, threats, CheckSquares};
use crate::rng::Rng;
use crate::tt::PackedMove;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Square};
use std::collections::HashSet;

/// The positions of the perft suites (every fourth of the Chess960
/// one) and every position one move after each: checks, en passant,
/// promotions of every kind, castling of both kinds.
#[allow(clippy::result_large_err)]
fn positions() -> Vec<Chess> {
    let suites = [
        (include_str!("../../engine-tests/data/perft.epd"), 1, false),
        (
            include_str!("../../engine-tests/data/perft-extra.epd"),
            1,
            false,
        ),
        (
            include_str!("../../engine-tests/data/perft960.epd"),
            4,
            true,
        ),
    ];
    let mut roots = Vec::new();
    for (text, every, chess960) in suites {
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()).step_by(every) {
            let fen: Fen = line.split(';').next().unwrap().trim().parse().unwrap();
            let pos: Chess = fen
                .into_position(mode)
                .or_else(|e| e.ignore_impossible_check())
                .unwrap();
            roots.push(pos);
        }
    }
    let mut all = Vec::new();
    for pos in roots {
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            all.push(child);
        }
        all.push(pos);
    }
    all
}

/// History tables with random values for the moves of `positions`.
struct Tables {
    butterfly: ButterflyHistory,
    continuation: ContinuationHistory,
    captures: CaptureHistory,
}

impl Tables {
    fn random(positions: &[Chess], rng: &mut Rng) -> Tables {
        let mut t = Tables {
            butterfly: ButterflyHistory::new(),
            continuation: ContinuationHistory::new(),
            captures: CaptureHistory::new(),
        };
        for pos in positions.iter().step_by(7) {
            let side = pos.turn();
            for m in pos.legal_moves() {
                let bonus = rng.below(8192) as i32 - 4096;
                let threats = Bitboard(rng.next_u64());
                t.butterfly.update(side.is_white(), threats, m, bonus);
                t.captures.update(side, m, bonus);
                let prev = rng.below(PIECE_TO);
                t.continuation.update(prev, piece_to(side, m), bonus);
            }
        }
        t
    }

    fn context(&self, previous: [usize; 3]) -> OrderingContext<'_> {
        OrderingContext {
            butterfly: &self.butterfly,
            captures: &self.captures,
            continuations: previous.map(|p| Some(self.continuation.row(p))),
        }
    }
}

/// Where a move comes in the picker's order after the table move.
fn class(pos: &Chess, m: Move, refutations: &[Option<Move>]) -> u8 {
    if is_quiet(m) {
        if refutations.contains(&Some(m)) {
            1
        } else {
            2
        }
    } else if !is_underpromotion(m) && see_ge(pos, m, 0) {
        0
    } else {
        3
    }
}

/// Whether `m` gives check, by playing it.
fn checks(pos: &Chess, m: Move) -> bool {
    let mut after = pos.clone();
    after.play_unchecked(m);
    after.is_check()
}

/// Every move the picker returns, calling `skip_quiets` after the
/// first `skip_after` (if any); checks that no quiet move but a check
/// comes after that.
fn drain(picker: &mut MovePicker, ctx: &OrderingContext, skip_after: Option<usize>) -> Vec<Move> {
    let mut got = Vec::new();
    loop {
        if Some(got.len()) == skip_after {
            picker.skip_quiets();
        }
        let Some(m) = picker.next_move(ctx) else {
            return got;
        };
        assert!(
            skip_after.is_none_or(|k| got.len() < k) || !is_quiet(m) || checks(picker.pos, m),
            "quiet {m:?} after skip_quiets"
        );
        got.push(m);
    }
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

#[test]
fn every_legal_move_comes_once_in_stage_order() {
    let positions = positions();
    assert!(positions.len() > 9_000, "{}", positions.len());
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let tables = Tables::random(&positions, &mut rng);
    let (mut tt_first, mut refuted, mut garbage) = (0, 0, 0);
    for (i, pos) in positions.iter().enumerate() {
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        // Killers and counter-moves from another position (often
        // illegal or captures here), and a quiet move of this one.
        let other = positions[(i * 7919) % positions.len()].legal_moves();
        let pick =
            |list: &[Move], rng: &mut Rng| (!list.is_empty()).then(|| list[rng.below(list.len())]);
        let quiets: Vec<Move> = legal.iter().copied().filter(|&m| is_quiet(m)).collect();
        let killers = [pick(&other, &mut rng), pick(&quiets, &mut rng)];
        let counter = pick(if rng.below(2) == 0 { &other } else { &quiets }, &mut rng);
        let legal_tt = pick(&legal, &mut rng);
        for tt in [
            PackedMove::NONE,
            legal_tt.map_or(PackedMove::NONE, PackedMove::new),
            PackedMove(rng.next_u64() as u16),
            other
                .first()
                .map_or(PackedMove::NONE, |&m| PackedMove::new(m)),
        ] {
            let ctx = tables.context([
                rng.below(PIECE_TO),
                rng.below(PIECE_TO),
                rng.below(PIECE_TO),
            ]);
            let mut picker = MovePicker::new(pos, tt.legal_move(pos), killers, counter);
            let refutations = picker.refutations;
            let got = drain(&mut picker, &ctx, None);
            let seen: HashSet<Move> = got.iter().copied().collect();
            assert_eq!(seen.len(), got.len(), "a move twice: {}", fen(pos));
            assert_eq!(
                seen,
                legal.iter().copied().collect::<HashSet<_>>(),
                "{} tt {tt:?}",
                fen(pos)
            );
            let expected_tt = legal.iter().copied().find(|&m| tt.matches(m));
            assert_eq!(tt.legal_move(pos), expected_tt, "{}", fen(pos));
            let rest = match expected_tt {
                Some(t) => {
                    assert_eq!(got[0], t, "table move first: {}", fen(pos));
                    tt_first += 1;
                    &got[1..]
                }
                None => {
                    garbage += usize::from(tt != PackedMove::NONE);
                    &got[..]
                }
            };
            let classes: Vec<u8> = rest.iter().map(|&m| class(pos, m, &refutations)).collect();
            assert!(
                classes.windows(2).all(|w| w[0] <= w[1]),
                "stages out of order in {}: {rest:?} {classes:?}",
                fen(pos)
            );
            refuted += classes.iter().filter(|&&c| c == 1).count();
        }
    }
    assert!(tt_first > 9_000 && refuted > 30_000 && garbage > 10_000);
}

#[test]
fn skip_quiets_drops_the_quiet_moves_left_but_the_checks() {
    let positions = positions();
    let mut rng = Rng::new(23);
    let tables = Tables::random(&positions, &mut rng);
    let (mut skipped_some, mut checks_kept) = (0, 0);
    for pos in &positions {
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        let quiets: Vec<Move> = legal.iter().copied().filter(|&m| is_quiet(m)).collect();
        // A killer, and a counter-move that gives check if one does.
        let killer = quiets.first().copied();
        let counter = quiets.iter().copied().find(|&m| checks(pos, m));
        let tt = PackedMove(rng.next_u64() as u16 & 0x0fff);
        let ctx = tables.context([0, 1, 2]);
        let mut picker = MovePicker::new(pos, tt.legal_move(pos), [killer, None], counter);
        let skip_after = rng.below(legal.len() + 1);
        let got = drain(&mut picker, &ctx, Some(skip_after));
        // What came before the skip, the noisy moves and the quiet
        // checks: each once.
        let mut expected: HashSet<Move> =
            got[..skip_after.min(got.len())].iter().copied().collect();
        expected.extend(
            legal
                .iter()
                .copied()
                .filter(|&m| !is_quiet(m) || checks(pos, m)),
        );
        let seen: HashSet<Move> = got.iter().copied().collect();
        assert_eq!(seen.len(), got.len(), "a move twice: {}", fen(pos));
        assert_eq!(seen, expected, "{}", fen(pos));
        skipped_some += usize::from(got.len() < legal.len());
        checks_kept += got[skip_after.min(got.len())..]
            .iter()
            .filter(|&&m| is_quiet(m))
            .count();
    }
    assert!(skipped_some > 5_000, "{skipped_some}");
    assert!(checks_kept > 1_000, "{checks_kept}");
}

/// Skipping changes which moves come, not their order: after the skip,
/// the moves are those of a picker that never skips, less the quiet moves
/// that give no check, in the same order (equal scores included).
#[test]
fn skip_quiets_keeps_the_order_of_the_moves_left() {
    let positions = positions();
    let mut rng = Rng::new(29);
    let tables = Tables::random(&positions, &mut rng);
    let mut compared = 0;
    for pos in &positions {
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        let quiets: Vec<Move> = legal.iter().copied().filter(|&m| is_quiet(m)).collect();
        let killer = quiets.get(1).copied();
        let counter = quiets.iter().copied().find(|&m| checks(pos, m));
        let tt = PackedMove(rng.next_u64() as u16 & 0x0fff);
        // Few previous moves: many equal continuation scores.
        let ctx = tables.context([rng.below(4), 1, 2]);
        let picker = || MovePicker::new(pos, tt.legal_move(pos), [killer, None], counter);
        let all = drain(&mut picker(), &ctx, None);
        let skip_after = rng.below(legal.len() + 1);
        let got = drain(&mut picker(), &ctx, Some(skip_after));
        let cut = skip_after.min(all.len());
        let expected: Vec<Move> = all[..cut]
            .iter()
            .copied()
            .chain(
                all[cut..]
                    .iter()
                    .copied()
                    .filter(|&m| !is_quiet(m) || checks(pos, m)),
            )
            .collect();
        assert_eq!(got, expected, "{} skip after {skip_after}", fen(pos));
        compared += usize::from(all[cut..].iter().filter(|&&m| is_quiet(m)).count() > 1);
    }
    assert!(compared > 5_000, "{compared}");
}

/// The kinds of check a move can give, counted so the test shows that
/// each was met: by the piece moved, by a piece it uncovers, by a promoted
/// piece, by castling (the rook), by en passant.
#[derive(Default, Debug)]
struct CheckKinds {
    direct: usize,
    discovered: usize,
    double: usize,
    promotion: usize,
    castling: usize,
    en_passant: usize,
}

/// Positions rich in the rarer checks, and every position two plies after
/// each: en passant that checks directly, through the captured pawn's rank
/// and through the diagonal the capturing pawn leaves; discovered and
/// double checks by knight, rook, king and promotion; castling into check
/// on both sides.
fn rare_check_positions() -> Vec<Chess> {
    let fens = [
        "8/8/8/2k5/3Pp3/8/4K3/8 b - d3 0 1",
        "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1",
        "7k/8/8/3pP3/8/8/8/B3K3 w - d6 0 1",
        "4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1",
        "4k3/8/8/8/8/8/4K3/4R3 w - - 0 1",
        "4k3/8/8/4B3/8/8/8/Q5K1 w - - 0 1",
        "1r1q4/P1P3P1/8/6k1/8/8/8/B3K2R w K - 0 1",
        "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
        "4k3/1B6/8/3P4/8/5K2/8/7R w - - 0 1",
    ];
    let mut all = Vec::new();
    for fen in fens {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            for reply in child.legal_moves() {
                let mut grandchild = child.clone();
                grandchild.play_unchecked(reply);
                all.push(grandchild);
            }
            all.push(child);
        }
        all.push(pos);
    }
    all
}

#[test]
fn gives_check_agrees_with_playing_the_move() {
    let mut kinds = CheckKinds::default();
    let mut quiet_checks = 0;
    for pos in positions().into_iter().chain(rare_check_positions()) {
        let squares = CheckSquares::new(&pos);
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let checkers = after.checkers();
            assert_eq!(gives_check(&pos, m), checkers.any(), "{} {m:?}", fen(&pos));
            assert_eq!(
                squares.gives_check(&pos, m),
                checkers.any(),
                "check squares: {} {m:?}",
                fen(&pos)
            );
            if checkers.is_empty() {
                continue;
            }
            quiet_checks += usize::from(is_quiet(m));
            match m {
                Move::Castle { .. } => kinds.castling += 1,
                Move::EnPassant { .. } => kinds.en_passant += 1,
                _ if m.promotion().is_some() => kinds.promotion += 1,
                _ => {}
            }
            if checkers.contains(m.to()) {
                kinds.direct += 1;
            }
            if checkers.without(m.to()).any() {
                kinds.discovered += 1;
            }
            kinds.double += usize::from(checkers.more_than_one());
        }
    }
    // Every kind, often enough that a mistake in any would show.
    assert!(quiet_checks > 5_000, "{quiet_checks}");
    assert!(kinds.direct > 5_000, "{kinds:?}");
    assert!(kinds.discovered > 300, "{kinds:?}");
    assert!(kinds.double > 10, "{kinds:?}");
    assert!(kinds.promotion > 1_000, "{kinds:?}");
    assert!(kinds.castling > 50, "{kinds:?}");
    assert!(kinds.en_passant > 3, "{kinds:?}");
}

/// The squares the opponent attacks, as shakmaty's attack tables give
/// them piece by piece.
#[test]
fn threats_are_every_square_the_opponent_attacks() {
    let mut by_pawns_only = 0;
    for pos in positions().into_iter().chain(rare_check_positions()) {
        let board = pos.board();
        let theirs = board.by_color(!pos.turn());
        let expected: Bitboard = theirs
            .into_iter()
            .map(|sq| board.attacks_from(sq))
            .fold(Bitboard::EMPTY, |all, a| all | a);
        assert_eq!(threats(&pos), expected, "{}", fen(&pos));
        let pawns = theirs & board.pawns();
        let by_pieces: Bitboard = (theirs & !pawns)
            .into_iter()
            .map(|sq| board.attacks_from(sq))
            .fold(Bitboard::EMPTY, |all, a| all | a);
        by_pawns_only += (expected & !by_pieces).count();
    }
    assert!(by_pawns_only > 10_000, "{by_pawns_only}");
}

/// The quiet score is the butterfly entry under the node's threats plus
/// each continuation row, the row four plies back at its weight.
#[test]
fn quiet_score_sums_the_histories_of_the_node() {
    let m = crate::history::tests::knight_g1_f3();
    let side = Color::White;
    let threats = Bitboard::from(Square::F3);
    let mut butterfly = ButterflyHistory::new();
    butterfly.update(true, threats, m, 1000);
    let mut continuation = ContinuationHistory::new();
    let to = piece_to(side, m);
    for (prev, bonus) in [(10, 200), (20, 30), (30, 4000)] {
        continuation.update(prev, to, bonus);
    }
    let captures = CaptureHistory::new();
    let ctx = |rows: [Option<usize>; 3]| OrderingContext {
        butterfly: &butterfly,
        captures: &captures,
        continuations: rows.map(|r| r.map(|p| continuation.row(p))),
    };
    let four = 4000 * params::cont_hist_4_order_pct() / 100;
    let all = ctx([Some(10), Some(20), Some(30)]);
    assert_eq!(all.quiet_score(side, threats, m), 1000 + 200 + 30 + four);
    // Other threats, another butterfly entry.
    assert_eq!(all.quiet_score(side, Bitboard::EMPTY, m), 200 + 30 + four);
    // No move four plies back (a null move, or before the root).
    let three = ctx([Some(10), Some(20), None]);
    assert_eq!(three.quiet_score(side, threats, m), 1000 + 200 + 30);
}

/// The scorer's one-pass lookups read the entries the search updates: the
/// butterfly entry under the node's threats and each continuation row at
/// the move's (piece, to) index ([`piece_to`]), for every quiet move of the
/// suites' positions, castling included, with and without earlier moves.
#[test]
fn quiet_scorer_reads_the_entries_the_search_updates() {
    let mut rng = Rng::new(11);
    let mut castlings = 0;
    for pos in positions().iter().step_by(3) {
        let side = pos.turn();
        let threats = threats(pos);
        let quiets: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|&m| is_quiet(m))
            .collect();
        let mut butterfly = ButterflyHistory::new();
        let mut continuation = ContinuationHistory::new();
        let mut bonus = || rng.below(8192) as i32 - 4096;
        for &m in &quiets {
            butterfly.update(side.is_white(), threats, m, bonus());
            for prev in [10, 20, 30] {
                continuation.update(prev, piece_to(side, m), bonus());
            }
        }
        let captures = CaptureHistory::new();
        for rows in [[Some(10), Some(20), Some(30)], [Some(10), None, None]] {
            let ctx = OrderingContext {
                butterfly: &butterfly,
                captures: &captures,
                continuations: rows.map(|r| r.map(|p| continuation.row(p))),
            };
            let scorer = ctx.quiet_scorer(side, threats);
            for &m in &quiets {
                let row = |p: Option<usize>| {
                    p.map_or(0, |p| i32::from(continuation.row(p)[piece_to(side, m)]))
                };
                let expected = butterfly.get(side.is_white(), threats, m)
                    + row(rows[0])
                    + row(rows[1])
                    + row(rows[2]) * params::cont_hist_4_order_pct() / 100;
                assert_eq!(scorer.score(m), expected, "{m:?}");
            }
        }
        castlings += quiets.iter().filter(|m| m.is_castle()).count();
    }
    assert!(castlings > 10, "{castlings} castling moves");
}

#[test]
fn table_moves_round_trip_and_garbage_is_refused() {
    let mut rng = Rng::new(7);
    for pos in positions().iter().step_by(3) {
        let legal = pos.legal_moves();
        for &m in &legal {
            assert_eq!(PackedMove::new(m).legal_move(pos), Some(m), "{}", fen(pos));
        }
        for _ in 0..64 {
            let packed = PackedMove(rng.next_u64() as u16);
            if let Some(m) = packed.legal_move(pos) {
                assert!(legal.contains(&m) && PackedMove::new(m) == packed);
            }
        }
    }
}

/// Within the winning captures and within the quiet moves, the best
/// score comes first (the first of equals: the picker's selection is
/// stable); the quiescence lists come by MVV-LVA, the table move first.
#[test]
fn each_stage_comes_best_score_first() {
    let positions = positions();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let tables = Tables::random(&positions, &mut rng);
    let (mut noisy_pairs, mut quiet_pairs) = (0, 0);
    for pos in positions.iter().step_by(2) {
        let side = pos.turn();
        let ctx = tables.context([
            rng.below(PIECE_TO),
            rng.below(PIECE_TO),
            rng.below(PIECE_TO),
        ]);
        let mut picker = MovePicker::new(pos, None, [None; 2], None);
        let got = drain(&mut picker, &ctx, None);
        let threats = threats(pos);
        let stage = |wanted: u8, score: &dyn Fn(Move) -> i32| -> Vec<i32> {
            got.iter()
                .filter(|&&m| class(pos, m, &[]) == wanted)
                .map(|&m| score(m))
                .collect()
        };
        let noisy = stage(0, &|m| ctx.noisy_score(side, m));
        let quiet = stage(2, &|m| ctx.quiet_score(side, threats, m));
        for scores in [&noisy, &quiet] {
            assert!(
                scores.windows(2).all(|w| w[0] >= w[1]),
                "not best first in {}: {scores:?}",
                fen(pos)
            );
        }
        noisy_pairs += noisy.len().saturating_sub(1);
        quiet_pairs += quiet.len().saturating_sub(1);

        let mut captures = pos.legal_moves();
        let tt = captures
            .iter()
            .copied()
            .find(|&m| scored::mvv_lva(m).is_some())
            .filter(|_| rng.below(2) == 0);
        let mut scores = Scores::new();
        let mut scored = ScoredMoves::noisy(
            &mut captures,
            &mut scores,
            tt.map_or(PackedMove::NONE, PackedMove::new),
        );
        let mut order = Vec::new();
        while let Some(m) = scored.next_move() {
            order.push(m);
        }
        if let Some(t) = tt {
            assert_eq!(order.first(), Some(&t), "table move first: {}", fen(pos));
            order.remove(0);
        }
        let values: Vec<i32> = order.iter().map(|&m| scored::mvv_lva(m).unwrap()).collect();
        assert!(
            values.windows(2).all(|w| w[0] >= w[1]),
            "{}: {values:?}",
            fen(pos)
        );
    }
    assert!(
        noisy_pairs > 1_000 && quiet_pairs > 50_000,
        "{noisy_pairs} {quiet_pairs}"
    );
}
