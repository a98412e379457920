//! The move generators' tests: shakmaty's own moves as the reference,
//! over the trees of the perft positions.

use super::*;
use shakmaty::fen::Fen;
use shakmaty::CastlingMode;

/// The reference: shakmaty's legal moves, keeping what the generator
/// promises (captures, queen promotions).
fn reference(pos: &Chess) -> Vec<Move> {
    let mut v: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| {
            (m.is_capture() && m.promotion().is_none_or(|r| r == Role::Queen))
                || m.promotion() == Some(Role::Queen)
        })
        .collect();
    v.sort_by_key(|&m| key(m));
    v
}

/// Castling, en passant, promotions, pins and checks.
const FENS: [&str; 6] = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "8/8/8/2k5/3Pp3/8/8/4K2Q b - d3 0 1",
];

fn key(m: Move) -> (Option<Square>, Square, Option<Role>) {
    (m.from(), m.to(), m.promotion())
}

/// The reference for [`quiet_moves`]: shakmaty's legal moves that are
/// neither captures nor promotions, in shakmaty's order.
fn quiet_reference(pos: &Chess) -> Vec<Move> {
    pos.legal_moves()
        .into_iter()
        .filter(|m| !m.is_capture() && m.promotion().is_none())
        .collect()
}

/// Checks [`quiet_moves`] against the reference, order included, in
/// every position of the tree below `pos` not in check, and
/// [`en_passant_moves`] against shakmaty's in every position; returns
/// how many castling and en-passant moves it met.
fn walk_quiets(pos: &Chess, depth: u32, checked: &mut u32) -> (u32, u32) {
    let mut castles = 0;
    let mut en_passant = MoveList::new();
    en_passant_moves(pos, &mut en_passant);
    assert_eq!(
        en_passant,
        pos.en_passant_moves(),
        "{}",
        Fen::from_position(pos, shakmaty::EnPassantMode::Always)
    );
    let mut en_passant = en_passant.len() as u32;
    if !pos.is_check() {
        let mut moves = MoveList::new();
        quiet_moves(pos, &mut moves);
        let got: Vec<Move> = moves.into_iter().collect();
        assert_eq!(
            got,
            quiet_reference(pos),
            "{}",
            Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
        castles += got.iter().filter(|m| m.is_castle()).count() as u32;
        *checked += 1;
    }
    if depth > 0 {
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let (c, e) = walk_quiets(&child, depth - 1, checked);
            castles += c;
            en_passant += e;
        }
    }
    (castles, en_passant)
}

#[test]
fn quiet_and_en_passant_moves_are_shakmatys_in_its_order() {
    let (mut checked, mut castles, mut en_passant) = (0, 0, 0);
    for fen in FENS {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let (c, e) = walk_quiets(&pos, 3, &mut checked);
        castles += c;
        en_passant += e;
    }
    // Chess960: castling with the rook or king on other files.
    let suite = include_str!("../../engine-tests/data/perft960.epd");
    for line in suite.lines().step_by(40) {
        let fen: Fen = line.split(';').next().unwrap().trim().parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Chess960).unwrap();
        let (c, e) = walk_quiets(&pos, 2, &mut checked);
        castles += c;
        en_passant += e;
    }
    assert!(checked > 150_000, "{checked}");
    assert!(castles > 100_000, "{castles}");
    assert!(en_passant > 1_000, "{en_passant}");
}

/// Moves close to `m`: another kind of piece, another capture, another
/// promotion, castling with the other rook.
fn neighbours(m: Move) -> Vec<Move> {
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let normal = |role, capture, promotion| Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            };
            vec![
                normal(Role::Knight, capture, promotion),
                normal(Role::Pawn, capture, promotion),
                normal(role, capture.xor(Some(Role::Pawn)), promotion),
                normal(role, capture, promotion.xor(Some(Role::Queen))),
                normal(role, capture, Some(Role::King)),
                Move::EnPassant { from, to },
                Move::Castle {
                    king: from,
                    rook: to,
                },
            ]
        }
        Move::Castle { king, rook } => vec![Move::Castle {
            king,
            rook: rook.flip_horizontal(),
        }],
        _ => Vec::new(),
    }
}

/// The moves of our pieces to every square they would reach on an
/// empty board (pawns: one and two steps ahead, the two diagonals),
/// taking what stands there: pinned pieces, king steps into attack,
/// blocked paths and steps onto our own pieces among them.
fn pseudo_moves(pos: &Chess) -> Vec<Move> {
    let board = pos.board();
    let us = pos.turn();
    let last = match us {
        Color::White => Rank::Eighth,
        Color::Black => Rank::First,
    };
    let mut moves = Vec::new();
    for from in board.by_color(us) {
        let role = board.role_at(from).unwrap();
        let targets = match role {
            Role::Pawn => {
                let up = if us == Color::White { 8 } else { -8 };
                let pushes: Bitboard = [from.offset(up), from.offset(2 * up)]
                    .into_iter()
                    .flatten()
                    .collect();
                pushes | pawn_attacks(us, from)
            }
            Role::Knight => knight_attacks(from),
            Role::Bishop => bishop_attacks(from, Bitboard::EMPTY),
            Role::Rook => rook_attacks(from, Bitboard::EMPTY),
            Role::Queen => queen_attacks(from, Bitboard::EMPTY),
            Role::King => king_attacks(from),
        };
        for to in targets {
            let promotion = (role == Role::Pawn && to.rank() == last).then_some(Role::Queen);
            moves.push(Move::Normal {
                role,
                from,
                capture: board.role_at(to),
                to,
                promotion,
            });
        }
    }
    moves
}

/// Checks [`is_legal`] against shakmaty's in every position of the
/// tree below `pos`, for the legal moves of the position and of the
/// position two plies before (`earlier`, the same side to move), the
/// pseudo-moves of its pieces and moves close to those; returns how
/// many legal and illegal moves it judged.
fn walk_legality(pos: &Chess, parent: &[Move], earlier: &[Move], depth: u32) -> (u32, u32) {
    let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
    let mut candidates: Vec<Move> = legal.iter().chain(earlier).copied().collect();
    candidates.extend(legal.iter().chain(earlier).flat_map(|&m| neighbours(m)));
    candidates.extend(pseudo_moves(pos));
    let (mut yes, mut no) = (0, 0);
    for m in candidates {
        let expected = pos.is_legal(m);
        assert_eq!(
            is_legal(pos, m),
            expected,
            "{} {m:?}",
            Fen::from_position(pos, shakmaty::EnPassantMode::Always)
        );
        if expected {
            yes += 1;
        } else {
            no += 1;
        }
    }
    if depth > 0 {
        for &m in &legal {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let (y, n) = walk_legality(&child, &legal, parent, depth - 1);
            yes += y;
            no += n;
        }
    }
    (yes, no)
}

/// Double checks, which the trees of `FENS` hardly reach: only the
/// king may move (a bishop could take the knight, a rook block the
/// file; the king could take the queen).
const DOUBLE_CHECKS: [&str; 2] = [
    "4r1k1/8/8/8/R7/3n4/8/1B2K3 w - - 0 1",
    "4k3/8/8/8/8/8/4q3/r3K2R w K - 0 1",
];

#[test]
fn is_legal_agrees_with_shakmaty() {
    let (mut yes, mut no) = (0, 0);
    let standard = FENS
        .iter()
        .chain(&DOUBLE_CHECKS)
        .map(|f| (*f, CastlingMode::Standard));
    let suite = include_str!("../../engine-tests/data/perft960.epd");
    let chess960 = suite
        .lines()
        .step_by(80)
        .map(|l| (l.split(';').next().unwrap().trim(), CastlingMode::Chess960));
    for (fen, mode) in standard.chain(chess960) {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
        let (y, n) = walk_legality(&pos, &[], &[], 2);
        yes += y;
        no += n;
    }
    assert!(yes > 1_000_000 && no > 5_000_000, "{yes} {no}");
}

fn walk(pos: &Chess, depth: u32, checked: &mut u32) {
    if !pos.is_check() {
        let mut moves = MoveList::new();
        noisy_moves(pos, &mut moves);
        let mut got: Vec<Move> = moves.into_iter().collect();
        got.sort_by_key(|&m| key(m));
        assert_eq!(
            got,
            reference(pos),
            "{}",
            Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
        *checked += 1;
    }
    if depth == 0 {
        return;
    }
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        walk(&child, depth - 1, checked);
    }
}

#[test]
fn matches_filtered_legal_moves_over_whole_trees() {
    let mut checked = 0;
    for fen in FENS {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        walk(&pos, 3, &mut checked);
    }
    assert!(checked > 50_000, "{checked}");
}
