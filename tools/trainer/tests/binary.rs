//! The `trainer` binary end to end: self-play data in, one epoch, the
//! per-epoch files and `final.nnue` out, the validation split, a second run
//! resumed by `--init` from each kind of file, and the net read by the
//! engine's `EvalFile` loader.

use std::path::{Path, PathBuf};
use std::process::Command;

use datagen::format::Filter;
use datagen::play::PlayConfig;
use kiraly::nnue::{accumulator, Network};
use trainer::data::{self, Packed};
use trainer::model::{loss, Params, Shape};

const LAMBDA: &str = "0.5";
const VALIDATION: f64 = 0.25;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trainer-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the trainer for one epoch on `data` into `out`; returns its stderr.
fn train(data: &Path, out: &Path, init: Option<&Path>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trainer"));
    command.args([
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    command.args(["--epochs", "1", "--batch", "64", "--lambda", LAMBDA]);
    command.args(["--validation", &VALIDATION.to_string(), "--threads", "1"]);
    command.args(["--progress-batches", "0", "--seed", "7"]);
    if let Some(init) = init {
        command.args(["--init", init.to_str().unwrap()]);
    }
    let output = command.output().expect("trainer runs");
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "trainer failed: {stderr}");
    stderr
}

/// The figure printed after `label` (up to the next space) in `stderr`.
fn figure_after<'a>(stderr: &'a str, label: &str) -> &'a str {
    let at = stderr
        .find(label)
        .unwrap_or_else(|| panic!("no '{label}' in {stderr}"));
    stderr[at + label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
}

/// The starting net's validation loss as the trainer prints it.
fn starting_loss(stderr: &str) -> &str {
    figure_after(stderr, "the starting net scores ")
}

#[test]
fn trains_an_epoch_resumes_from_its_files_and_the_engine_reads_the_net() {
    let dir = temp_dir("run");
    let data = dir.join("games.kdat");
    datagen::play::run(
        &PlayConfig {
            output: data.clone(),
            games: Some(6),
            threads: 1,
            soft_nodes: 300,
            hard_nodes: 3000,
            hash_mb: 1,
            seed: 3,
            progress_secs: 1e6,
            ..PlayConfig::default()
        },
        false,
    )
    .unwrap();
    // The positions the trainer reads (its default filter), and the
    // validation set: the last quarter.
    let mut positions = data::load(&[&data], &Filter::default(), usize::MAX).unwrap();
    let held = (positions.len() as f64 * VALIDATION) as usize;
    assert!(held >= 50, "{} positions", positions.len());
    let validation: Vec<Packed> = positions.split_off(positions.len() - held);
    let loss_text = |params: &Params| format!("{:.6}", loss(params, &validation, 0.5));

    let first = dir.join("first");
    let stderr = train(&data, &first, None);
    assert!(
        stderr.contains(&format!(
            "{} training and {held} validation positions",
            positions.len()
        )),
        "{stderr}"
    );
    assert_eq!(
        starting_loss(&stderr),
        loss_text(&Params::random(Shape::default(), 7))
    );
    let mut files: Vec<String> = std::fs::read_dir(&first)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, ["epoch-1.f32", "epoch-1.nnue", "final.nnue"]);
    // The checkpoint is the trained model: its validation loss is the one
    // the epoch reported, and its quantised net is the final one.
    let checkpoint = Params::from_bytes(
        &std::fs::read(first.join("epoch-1.f32")).unwrap(),
        Shape::default(),
    )
    .unwrap();
    assert_eq!(
        figure_after(&stderr, "validation loss "),
        loss_text(&checkpoint)
    );
    let final_bytes = std::fs::read(first.join("final.nnue")).unwrap();
    assert!(final_bytes == std::fs::read(first.join("epoch-1.nnue")).unwrap());
    assert!(final_bytes == checkpoint.quantise().to_bytes());
    assert!(stderr.contains(&format!(
        "wrote {} (hash {:016x})",
        first.join("final.nnue").display(),
        checkpoint.quantise().hash
    )));

    // `--init` tells a float checkpoint from an engine net by the file
    // itself: each run starts where that file stands.
    let from_checkpoint = train(
        &data,
        &dir.join("resumed"),
        Some(&first.join("epoch-1.f32")),
    );
    assert_eq!(starting_loss(&from_checkpoint), loss_text(&checkpoint));
    let final_net = Network::from_bytes(&final_bytes).unwrap();
    let from_net = train(
        &data,
        &dir.join("from-net"),
        Some(&first.join("final.nnue")),
    );
    assert_eq!(
        starting_loss(&from_net),
        loss_text(&Params::from_network(&final_net, Shape::default()).unwrap())
    );
    assert_ne!(starting_loss(&from_net), starting_loss(&stderr));

    // The engine's `EvalFile` loader reads the final net, and evaluates as
    // the float model within the quantisation's rounding.
    let engine_net = kiraly::nnue::load_file(first.join("final.nnue").to_str().unwrap()).unwrap();
    assert_eq!(engine_net.hash, final_net.hash);
    for packed in &validation {
        let pos = packed.chess().unwrap();
        let engine = accumulator::evaluate(&engine_net, &pos) as f32;
        let float = checkpoint.eval_cp(packed);
        assert!((engine - float).abs() < 10.0, "{engine} vs {float}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
