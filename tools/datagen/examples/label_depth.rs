//! How much a longer search improves the generator's labels: a study, not a
//! tool the pipeline runs.
//!
//! Samples positions the training filter keeps from a data file, scores each
//! with the net's static evaluation and with fresh searches of several node
//! budgets (soft limit, hard limit ten times it, as `datagen play` uses
//! them), and compares every label, and the one stored in the file, with a
//! much longer reference search and with the game's result. All in the
//! trainer's target space: `sigmoid(cp / 400)`, side to move's view.
//!
//! ```sh
//! cargo run --release -p datagen --example label_depth -- FILE.kdat \
//!     --samples 1000 --budgets 2000,5000,10000,20000 --reference 200000
//! ```
//!
//! A label far from the static evaluation is what the net can learn from;
//! a label close to the reference and to the result is one worth learning.

use std::fs::File;
use std::io::BufReader;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use datagen::format::{for_each_sample, Filter, Sample};
use kiraly::board::Board;
use kiraly::search::SoloSearch;
use shakmaty::Chess;

/// Scores beyond this (mates, table wins) count as this much: the sigmoid
/// is flat there anyway.
const CLAMP_CP: i32 = 3000;

struct Args {
    file: String,
    samples: usize,
    budgets: Vec<u64>,
    reference: u64,
    threads: usize,
    net: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        file: String::new(),
        samples: 1000,
        budgets: vec![2000, 5000, 10000, 20000],
        reference: 200_000,
        threads: 2,
        net: "embedded".to_string(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} wants a value"));
        match a.as_str() {
            "--samples" => args.samples = value()?.parse().map_err(|e| format!("{e}"))?,
            "--reference" => args.reference = value()?.parse().map_err(|e| format!("{e}"))?,
            "--threads" => args.threads = value()?.parse().map_err(|e| format!("{e}"))?,
            "--net" => args.net = value()?,
            "--budgets" => {
                args.budgets = value()?
                    .split(',')
                    .map(|b| b.parse().map_err(|e| format!("{b}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            _ if args.file.is_empty() && !a.starts_with('-') => args.file = a,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if args.file.is_empty() {
        return Err("usage: label_depth FILE.kdat [--samples N] [--budgets a,b,..] [--reference N] [--threads N] [--net PATH]".into());
    }
    Ok(args)
}

fn win_probability(cp: i32) -> f64 {
    let cp = cp.clamp(-CLAMP_CP, CLAMP_CP) as f64;
    1.0 / (1.0 + (-cp / kiraly::nnue::SCALE as f64).exp())
}

/// Every `stride`-th accepted position of the file, so that the sample
/// spreads over all of it.
fn sample_positions(file: &str, samples: usize) -> Result<Vec<Sample>, String> {
    let filter = Filter::default();
    let mut accepted = 0usize;
    let open = || {
        File::open(file)
            .map(BufReader::new)
            .map_err(|e| e.to_string())
    };
    for_each_sample(&mut open()?, &filter, |_| accepted += 1)?;
    let stride = (accepted / samples.max(1)).max(1);
    let mut picked = Vec::with_capacity(samples);
    let mut seen = 0usize;
    for_each_sample(&mut open()?, &filter, |s| {
        if seen % stride == stride / 2 && picked.len() < samples {
            picked.push(s.clone());
        }
        seen += 1;
    })?;
    eprintln!(
        "{accepted} positions accepted, every {stride}th taken: {}",
        picked.len()
    );
    Ok(picked)
}

/// One position's labels, side to move's view, as win probabilities:
/// static, stored, each budget, the reference; and the result.
struct Labels {
    static_eval: f64,
    stored: f64,
    budgets: Vec<f64>,
    reference: f64,
    result: f64,
}

/// What one worker scored (each position with its index in the sample)
/// and the time it spent on each budget.
type WorkerOutput = (Vec<(usize, Labels)>, Vec<Duration>);

fn main() -> Result<(), String> {
    let args = parse_args()?;
    let net = kiraly::nnue::load_named_for_run(&args.net)?;
    let samples = sample_positions(&args.file, args.samples)?;
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let results: Vec<WorkerOutput> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..args.threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut search = SoloSearch::new(16).expect("a 16 MB table");
                    search.net = Some(net);
                    let mut spent = vec![Duration::ZERO; args.budgets.len()];
                    let mut out = Vec::new();
                    let mut fresh = |pos: &Chess, soft: u64| {
                        search.new_game();
                        search
                            .search(&Board::new(pos.clone()), &[], soft, soft * 10)
                            .score
                    };
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(s) = samples.get(i) else { break };
                        let mut budgets = Vec::with_capacity(args.budgets.len());
                        for (k, &soft) in args.budgets.iter().enumerate() {
                            let t = Instant::now();
                            budgets.push(win_probability(fresh(&s.pos, soft)));
                            spent[k] += t.elapsed();
                        }
                        out.push((
                            i,
                            Labels {
                                static_eval: win_probability(kiraly::eval::evaluate_nnue(
                                    net, &s.pos,
                                )),
                                stored: win_probability(i32::from(s.score)),
                                budgets,
                                reference: win_probability(fresh(&s.pos, args.reference)),
                                result: f64::from(s.stm_result()),
                            },
                        ));
                    }
                    (out, spent)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a worker"))
            .collect()
    });
    let mut spent = vec![Duration::ZERO; args.budgets.len()];
    let mut labels: Vec<(usize, Labels)> = Vec::new();
    for (out, times) in results {
        labels.extend(out);
        for (total, t) in spent.iter_mut().zip(times) {
            *total += t;
        }
    }
    labels.sort_by_key(|(i, _)| *i);
    let n = labels.len() as f64;
    let mean = |f: &dyn Fn(&Labels) -> f64| labels.iter().map(|(_, l)| f(l)).sum::<f64>() / n;
    let row = |name: &str, get: &dyn Fn(&Labels) -> f64, time: Option<Duration>| {
        let to_ref = mean(&|l| (get(l) - l.reference).powi(2));
        let to_result = mean(&|l| (get(l) - l.result).powi(2));
        let from_static = mean(&|l| (get(l) - l.static_eval).powi(2));
        let ms = time.map_or("".to_string(), |t| {
            format!("{:.2}", t.as_secs_f64() * 1000.0 / n)
        });
        println!("| {name} | {to_ref:.6} | {to_result:.6} | {from_static:.6} | {ms} |");
    };
    println!(
        "{} positions of {}, reference {} nodes soft, {:.0} s",
        labels.len(),
        args.file,
        args.reference,
        started.elapsed().as_secs_f64()
    );
    println!("| label | MSE to the reference | MSE to the result | MSE from the static eval | ms a search |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    row("static evaluation", &|l| l.static_eval, None);
    row(
        "stored in the file (the game's search)",
        &|l| l.stored,
        None,
    );
    for (k, soft) in args.budgets.iter().enumerate() {
        row(
            &format!("fresh search, {soft} soft nodes"),
            &|l| l.budgets[k],
            Some(spent[k]),
        );
    }
    row(
        &format!("reference, {} soft nodes", args.reference),
        &|l| l.reference,
        None,
    );
    Ok(())
}
