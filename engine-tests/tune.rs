//! The tuning build (`--features tune`, for SPSA): every search parameter is
//! a UCI spin option, and setting one changes the search. Compiled only in
//! that build (`make test-checked` runs it); the normal build declares none
//! of them (`uci_protocol.rs`).
#![cfg(feature = "tune")]

mod common;

use common::*;
use kiraly::parameters::ALL;

/// The nodes of a fixed-depth search of a middlegame after `setup`.
fn nodes_at_depth_8(setup: &[String]) -> i64 {
    let mut engine = Engine::start();
    for line in setup {
        engine.send(line);
    }
    engine
        .send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    engine.send("go depth 8");
    let lines = engine.bestmove(std::time::Duration::from_secs(60));
    engine.quit();
    lines
        .iter()
        .rev()
        .find_map(|l| info_field(l, "nodes"))
        .expect("a nodes count")
}

#[test]
fn every_parameter_is_a_spin_option_that_changes_the_search() {
    let lines = run_engine("uci\nquit\n");
    for p in ALL {
        let declared = format!(
            "option name {} type spin default {} min {} max {}",
            p.name, p.default, p.min, p.max
        );
        assert!(lines.contains(&declared), "missing: {declared}");
    }
    // One search with the defaults, one with the default set explicitly
    // (the same search), one with a pruning margin changed.
    let rfp = ALL
        .iter()
        .find(|p| p.name == "rfp_margin")
        .expect("the parameter rfp_margin");
    let set = |value: i32| vec![format!("setoption name rfp_margin value {value}")];
    let default = nodes_at_depth_8(&[]);
    assert_eq!(nodes_at_depth_8(&set(rfp.default)), default);
    let other = if rfp.default > rfp.min {
        rfp.min
    } else {
        rfp.max
    };
    assert_ne!(nodes_at_depth_8(&set(other)), default);
    // Outside the range: refused, the search as before.
    let refused = run_engine(&format!(
        "setoption name rfp_margin value {}\nisready\nquit\n",
        rfp.max + 1
    ));
    assert!(
        refused.iter().any(|l| l.starts_with("info string")),
        "{refused:?}"
    );
    assert_eq!(nodes_at_depth_8(&set(rfp.max + 1)), default);
}

/// `tools/spsa.py --openbench` reads src/parameters.rs with a pattern of its
/// own; its lines must be the compiled declarations, with the c_end and
/// r_end the local tuner uses (a twentieth of the range, at least 1; 0.002).
#[test]
fn spsa_openbench_input_lists_every_declared_parameter() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = std::process::Command::new("python3")
        .arg(format!("{root}/tools/spsa.py"))
        .arg("--openbench")
        .output()
        .expect("python3 runs tools/spsa.py");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let expected: Vec<String> = ALL
        .iter()
        .map(|p| {
            let c_end = (f64::from(p.max - p.min) / 20.0).max(1.0);
            format!(
                "{}, int, {}, {}, {}, {}, 0.002",
                p.name, p.default, p.min, p.max, c_end
            )
        })
        .collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}
