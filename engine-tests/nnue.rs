//! The learned evaluation through the binary: `Use NNUE` and `EvalFile` as
//! in Stockfish 15.1, and the net's part of `eval`.

mod common;

fn engine(input: &str) -> Vec<String> {
    common::run_engine(input)
}

fn net_path() -> String {
    format!("{}/nets/default.nnue", env!("CARGO_MANIFEST_DIR"))
}

/// The engine's output for `setup` (UCI lines) and `go depth 1`, read up
/// to `bestmove`. Waiting for it matters: `quit` stops a search, so a
/// `quit` sent at once can end the search before its depth 1 line on a
/// loaded machine.
fn depth_one(setup: &str) -> Vec<String> {
    let mut engine = common::Engine::start();
    for line in setup.lines() {
        engine.send(line);
    }
    engine.send("go depth 1");
    let lines = engine.bestmove(std::time::Duration::from_secs(30));
    engine.quit();
    lines
}

/// The score of the `go depth 1` line (the quiescence value of the best move).
fn depth_one_score(lines: &[String]) -> String {
    lines
        .iter()
        .find(|l| l.starts_with("info depth 1 "))
        .and_then(|l| l.split(" score ").nth(1))
        .map(|s| s.split(" nodes").next().unwrap_or("").to_string())
        .unwrap_or_else(|| panic!("no depth 1 line: {lines:#?}"))
}

#[test]
fn options_are_declared() {
    let lines = engine("uci\nquit\n");
    assert!(lines.contains(&"option name Use NNUE type check default true".to_string()));
    assert!(lines.contains(&"option name EvalFile type string default <embedded>".to_string()));
}

#[test]
fn use_nnue_switches_the_evaluation_the_search_uses() {
    let position =
        "position fen rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4\n";
    // On by default.
    let nnue = depth_one(position);
    let hce = depth_one(&format!("setoption name Use NNUE value false\n{position}"));
    let back = depth_one(&format!(
        "setoption name Use NNUE value false\nsetoption name Use NNUE value true\n{position}"
    ));
    assert_ne!(depth_one_score(&hce), depth_one_score(&nnue));
    assert_eq!(depth_one_score(&nnue), depth_one_score(&back));
    for lines in [&hce, &nnue] {
        assert!(
            lines.iter().any(|l| l.starts_with("bestmove ")),
            "{lines:#?}"
        );
    }
    // `eval` says which one is in use, by the setting, and shows the net's
    // piece values either way (the net is loaded whatever `Use NNUE` says).
    for (setting, in_use) in [("true", "NNUE"), ("false", "hand-crafted")] {
        let eval = engine(&format!(
            "setoption name Use NNUE value {setting}\nposition startpos\neval\nquit\n"
        ));
        let said: Vec<&String> = eval
            .iter()
            .filter(|l| l.starts_with("Evaluation in use"))
            .collect();
        assert_eq!(
            said,
            [&format!(
                "Evaluation in use      {in_use} (Use NNUE {setting})"
            )],
            "{eval:#?}"
        );
        assert!(
            eval.iter()
                .any(|l| l.starts_with("NNUE derived piece values")),
            "{eval:#?}"
        );
        assert!(
            eval.iter().any(|l| l.starts_with("Final evaluation")),
            "the hand-crafted trace stays"
        );
    }
}

/// The hash of the net in use, from `eval`'s NNUE section.
fn net_in_use(lines: &[String]) -> String {
    lines
        .iter()
        .find_map(|l| l.strip_prefix("NNUE derived piece values (net "))
        .map(|rest| rest[..16].to_string())
        .unwrap_or_else(|| panic!("no NNUE section: {lines:#?}"))
}

#[test]
fn eval_file_loads_or_keeps_the_current_net() {
    let dir = std::env::temp_dir().join(format!("kiraly-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(net_path()).unwrap();
    let truncated = dir.join("truncated.nnue");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let mut other = good.clone();
    other[16] = 32; // another hidden width
    let wrong = dir.join("wrong.nnue");
    std::fs::write(&wrong, &other).unwrap();
    // Another valid net: one feature weight changed, the hash made anew.
    let header = kiraly::nnue::network::HEADER_BYTES;
    let mut changed = good.clone();
    changed[header + 10] = changed[header + 10].wrapping_add(3);
    let hash = kiraly::nnue::network::fnv1a(&changed[header..]);
    changed[header - 8..header].copy_from_slice(&hash.to_le_bytes());
    let changed_path = dir.join("changed.nnue");
    std::fs::write(&changed_path, &changed).unwrap();
    let built_in = format!("{:016x}", kiraly::nnue::network::fnv1a(&good[header..]));
    let new = format!("{hash:016x}");
    // A byte too many; a parameter changed without a new hash; an output
    // weight beyond the bound that keeps the forward pass's sums in range,
    // with a hash made anew.
    let mut long = good.clone();
    long.push(0);
    let too_long = dir.join("long.nnue");
    std::fs::write(&too_long, &long).unwrap();
    let mut damaged_bytes = good.clone();
    damaged_bytes[header + 10] ^= 1;
    let damaged = dir.join("damaged.nnue");
    std::fs::write(&damaged, &damaged_bytes).unwrap();
    let heavy = dir.join("heavy.nnue");
    std::fs::write(&heavy, with_output_weight(513).to_bytes()).unwrap();

    let lines = engine(&format!(
        "setoption name Use NNUE value true\n\
         position startpos\neval\n\
         setoption name EvalFile value {}\neval\n\
         setoption name EvalFile value /nonexistent/net.nnue\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value Cargo.toml\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value {}\n\
         setoption name EvalFile value {}\n\
         eval\ngo depth 1\nisready\n\
         setoption name EvalFile value <embedded>\neval\n\
         isready\nquit\n",
        changed_path.display(),
        truncated.display(),
        wrong.display(),
        too_long.display(),
        damaged.display(),
        heavy.display(),
    ));
    let evals: Vec<&[String]> = lines
        .split(|l| l.starts_with("Final evaluation"))
        .skip(1)
        .collect();
    assert_eq!(evals.len(), 4, "{lines:#?}");
    let in_use: Vec<String> = evals.iter().map(|e| net_in_use(e)).collect();
    // Built in, the changed file, still the changed file after seven
    // refused files, built in again.
    assert_eq!(in_use, vec![built_in.clone(), new.clone(), new, built_in]);
    let strings: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string"))
        .collect();
    let reasons = [
        "cannot read",
        "truncated",
        "wrong architecture",
        "not a Kiraly network",
        "too long",
        "damaged: the parameter hash does not match",
        "an output weight beyond +-512",
    ];
    assert_eq!(strings.len(), reasons.len(), "{lines:#?}");
    for (line, reason) in strings.iter().zip(reasons) {
        assert!(
            line.contains(reason) && line.ends_with("keeping the current net"),
            "{line}: expected {reason}"
        );
    }
    assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The built-in net with one output weight set to `weight`, its hash made
/// anew.
fn with_output_weight(weight: i16) -> kiraly::nnue::Network {
    let mut net = kiraly::nnue::embedded().unwrap().clone();
    let last = net.output_weights.len() - 1;
    net.output_weights[last][1][kiraly::nnue::HIDDEN - 1] = weight;
    net.hash = kiraly::nnue::network::fnv1a(&net.param_bytes());
    net
}

/// Output weights up to the bound the forward pass's integer sums rely on
/// load, of either sign; one beyond it is refused.
#[test]
fn output_weights_beyond_the_bound_are_refused() {
    use kiraly::nnue::network::{NetworkError, MAX_OUTPUT_WEIGHT};
    use kiraly::nnue::Network;
    let most = MAX_OUTPUT_WEIGHT as i16;
    for weight in [most, -most] {
        let net = Network::from_bytes(&with_output_weight(weight).to_bytes());
        assert!(net.is_ok(), "{weight}: {:?}", net.err());
    }
    for weight in [most + 1, -most - 1, i16::MIN] {
        match Network::from_bytes(&with_output_weight(weight).to_bytes()) {
            Err(NetworkError::Architecture(why)) => {
                assert!(why.contains("output weight"), "{why}")
            }
            other => panic!("{weight}: {:?}", other.err()),
        }
    }
}

/// `UCI_LimitStrength` searches with the hand-crafted evaluation whatever
/// `Use NNUE` says: `UCI_Elo`'s node budgets were calibrated with it.
#[test]
fn a_limited_strength_searches_with_the_hand_crafted_evaluation() {
    let position =
        "position fen rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4\n";
    let limited =
        "setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value 1500\n";
    let run = |use_nnue: bool, limit: bool| {
        depth_one_score(&depth_one(&format!(
            "setoption name Use NNUE value {use_nnue}\n{}{position}",
            if limit { limited } else { "" }
        )))
    };
    let hce = run(false, false);
    assert_ne!(
        run(true, false),
        hce,
        "the net and the hand-crafted evaluation differ here"
    );
    assert_eq!(run(true, true), run(false, true));
    // `eval` names the evaluation the search uses, and why.
    let eval = engine(&format!("{limited}{position}eval\nquit\n"));
    assert!(
        eval.iter()
            .any(|l| l
                == "Evaluation in use      hand-crafted (Use NNUE true, UCI_LimitStrength true)"),
        "{eval:#?}"
    );
}

/// The `NNUE evaluation` lines of `eval`, in order.
fn nnue_evaluations(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("NNUE evaluation"))
        .map(|rest| rest.trim().to_string())
        .collect()
}

/// The `NNUE evaluation` lines of `eval` for each of `positions` (UCI
/// `position` and `eval` lines), with each net of `nets` loaded by
/// `EvalFile` in turn from a temporary file; no net may be refused.
fn evaluations_with_nets(
    tag: &str,
    nets: &[&kiraly::nnue::Network],
    positions: &str,
) -> Vec<Vec<String>> {
    let dir = std::env::temp_dir().join(format!("kiraly-{tag}-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let expected = positions.matches("eval\n").count();
    let results = nets
        .iter()
        .enumerate()
        .map(|(i, net)| {
            let path = dir.join(format!("net{i}.nnue"));
            std::fs::write(&path, net.to_bytes()).unwrap();
            let lines = engine(&format!(
                "setoption name EvalFile value {}\n{positions}quit\n",
                path.display()
            ));
            assert!(
                !lines.iter().any(|l| l.starts_with("info string")),
                "{lines:#?}"
            );
            let evaluations = nnue_evaluations(&lines);
            assert_eq!(evaluations.len(), expected, "{lines:#?}");
            evaluations
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    results
}

/// A net with king buckets loads with `EvalFile` in the same build, and its
/// buckets are indexed by the king's square: a one-bucket net (the built-in
/// net's first bucket) spread to four buckets (each a copy of it) evaluates
/// exactly as the one-bucket net; changing the weights of one bucket alone
/// (kings beyond their second rank) changes the evaluation only where a
/// king stands there.
#[test]
fn eval_file_takes_any_king_bucket_layout() {
    use kiraly::huge_pages::HugePageSlice;
    use kiraly::nnue::{layout_by_name, Network, INPUTS, ONE_BUCKET};
    let built_in = Network::from_bytes(&std::fs::read(net_path()).unwrap()).unwrap();
    let mut one = built_in.clone();
    one.layout = ONE_BUCKET;
    one.feature_weights = HugePageSlice::from_slice(&built_in.feature_weights[..INPUTS]);
    let mut spread = one.clone();
    spread.layout = layout_by_name("4").unwrap();
    spread.feature_weights = HugePageSlice::from_slice(&one.feature_weights.repeat(4));
    let mut changed = spread.clone();
    for column in &mut changed.feature_weights[3 * INPUTS..] {
        column.iter_mut().for_each(|w| *w = w.wrapping_add(20));
    }
    // Kings on their first ranks, then White's king on e4 (bucket 3).
    let positions = "position startpos\neval\n\
                     position fen 4k3/pppp1ppp/8/8/4K3/8/PPPP1PPP/8 w - - 0 1\neval\n";
    let [reference, spread, moved]: [Vec<String>; 3] =
        evaluations_with_nets("buckets", &[&one, &spread, &changed], positions)
            .try_into()
            .unwrap();
    assert_eq!(spread, reference);
    assert_eq!(moved[0], reference[0], "no king in the changed bucket");
    assert_ne!(moved[1], reference[1], "White's king in the changed bucket");
}

/// A net with output buckets loads with `EvalFile`, and the number of
/// pieces picks the bucket: a one-output net (the built-in net's first
/// output bucket) spread to eight output buckets (each a copy of its output
/// layer) evaluates exactly as the one-output net; raising the bias of the
/// bucket of 30-32 pieces alone changes the evaluation of the starting
/// position (32 pieces) and not of one with 21.
#[test]
fn eval_file_takes_output_buckets() {
    use kiraly::nnue::Network;
    let built_in = Network::from_bytes(&std::fs::read(net_path()).unwrap()).unwrap();
    let mut one = built_in.clone();
    one.output_weights.truncate(1);
    one.output_bias.truncate(1);
    let mut spread = one.clone();
    spread.output_weights = vec![one.output_weights[0]; 8];
    spread.output_bias = vec![one.output_bias[0]; 8];
    let mut changed = spread.clone();
    changed.output_bias[7] += 255 * 256 / 4; // a quarter of SCALE: +100 cp
    let positions = "position startpos\neval\n\
                     position fen r3k2r/pppp1ppp/8/8/8/8/PPPP1PPP/R2QK2R w - - 0 1\neval\n";
    let [reference, spread, moved]: [Vec<String>; 3] =
        evaluations_with_nets("outputs", &[&one, &spread, &changed], positions)
            .try_into()
            .unwrap();
    assert_eq!(spread, reference);
    assert_ne!(moved[0], reference[0], "32 pieces: the changed bucket");
    assert_eq!(moved[1], reference[1], "21 pieces: another bucket");
}
