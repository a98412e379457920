//! The trainer against the engine: gradients, learning, and the quantised
//! export evaluated by the engine's own inference.

use kiraly::nnue::{accumulator, Network};
use shakmaty::{Chess, Color, Position, Role};
use trainer::data::Packed;
use trainer::model::{gradient, loss, target, Params, Shape, MAX_FEATURES};
use trainer::train::{train, TrainConfig};

/// Positions from pseudo-random games, with a material score as label.
fn positions(n: usize, seed: u64) -> Vec<(Chess, Packed)> {
    let mut rng = seed;
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Chess::default();
        for _ in 0..80 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            // Prefer captures, so material varies.
            let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
            let m = if !captures.is_empty() && rng >> 62 != 0 {
                *captures[(rng >> 33) as usize % captures.len()]
            } else {
                moves[(rng >> 33) as usize % moves.len()]
            };
            pos.play_unchecked(m);
            if out.len() < n {
                let material = |c: Color| {
                    let b = pos.board();
                    let v = [
                        (Role::Pawn, 100),
                        (Role::Knight, 300),
                        (Role::Bishop, 300),
                        (Role::Rook, 500),
                        (Role::Queen, 900),
                    ];
                    v.iter()
                        .map(|&(r, x)| (b.by_role(r) & b.by_color(c)).count() as i32 * x)
                        .sum::<i32>()
                };
                let stm = pos.turn();
                let score = (material(stm) - material(!stm)).clamp(-3000, 3000) as i16;
                let result = if score > 150 {
                    1.0
                } else if score < -150 {
                    0.0
                } else {
                    0.5
                };
                out.push((pos.clone(), Packed::new(pos.board(), stm, score, result)));
            }
        }
    }
    out
}

/// The loss of `values` (the model's parameters, in f64) over positions
/// whose feature lists are given: the model's forward pass written again in
/// f64, so finite differences resolve gradients of 1e-4 (in f32 the loss's
/// rounding is of that order).
fn loss_f64(
    shape: Shape,
    values: &[f64],
    data: &[(Packed, Vec<u16>, Vec<u16>)],
    lambda: f32,
) -> f64 {
    let hidden = kiraly::nnue::HIDDEN;
    let accumulate = |features: &[u16]| -> Vec<f64> {
        let mut acc = values[shape.feature_bias..shape.feature_bias + hidden].to_vec();
        for &f in features {
            let column = &values[f as usize * hidden..(f as usize + 1) * hidden];
            acc.iter_mut().zip(column).for_each(|(a, w)| *a += w);
        }
        acc
    };
    let mut total = 0.0;
    for (packed, us, them) in data {
        let bucket =
            kiraly::nnue::output_bucket(packed.occupied.count_ones() as usize, shape.outputs);
        let start = shape.output_weights + bucket * 2 * hidden;
        let mut out = values[shape.output_bias + bucket];
        for (half, acc) in [accumulate(us), accumulate(them)].iter().enumerate() {
            for (j, a) in acc.iter().enumerate() {
                let x = a.clamp(0.0, 1.0);
                out += values[start + half * hidden + j] * x * x;
            }
        }
        let error = 1.0 / (1.0 + (-out).exp()) - f64::from(target(packed, lambda));
        total += error * error;
    }
    total / data.len() as f64
}

/// The target: `lambda` of the game result, the rest the search score
/// through the output's sigmoid (400 cp to one unit); a position from no
/// game has the score alone.
#[test]
fn the_target_is_lambda_of_the_result_and_the_rest_the_score() {
    let board = Chess::default().board().clone();
    let packed = |score: i16, result: f32| Packed::new(&board, Color::White, score, result);
    let near = |got: f32, want: f64| assert!((f64::from(got) - want).abs() < 1e-6, "{got} {want}");
    let sigmoid = |cp: f64| 1.0 / (1.0 + (-cp / 400.0).exp());
    near(target(&packed(0, 1.0), 0.1), 0.1 + 0.9 * 0.5);
    near(
        target(&packed(400, 0.5), 0.1),
        0.1 * 0.5 + 0.9 * sigmoid(400.0),
    );
    near(target(&packed(-200, 0.0), 0.25), 0.75 * sigmoid(-200.0));
    let mut unplayed = packed(400, 1.0);
    unplayed.result = trainer::data::NO_RESULT;
    near(target(&unplayed, 0.5), sigmoid(400.0));
}

/// The analytic gradient against central differences of the f64 loss, for
/// parameters of every kind: feature weights of features that occur, feature
/// biases, output weights and biases of the output buckets in use. Each
/// checked gradient is far above the tolerance, so a backward pass that
/// drops, halves or flips a kind's gradient fails.
///
/// With king buckets and output buckets, so the columns and output weights
/// checked are a bucket's own; and again with a factoriser, whose shared
/// columns (the last of each feature list) learn from every bucket.
#[test]
fn gradient_matches_finite_differences() {
    let layout = kiraly::nnue::layout_by_name("4").unwrap();
    check_gradient(Shape::with_outputs(layout, 8).unwrap());
    check_gradient(Shape::build(layout, 8, true).unwrap());
}

fn check_gradient(shape: Shape) {
    let lambda = 0.3;
    let data: Vec<Packed> = positions(64, 3).into_iter().map(|(_, p)| p).collect();
    let batch: Vec<&Packed> = data.iter().collect();
    let params = Params::random(shape, 5);
    let (_, grad) = gradient(&params, &batch, lambda);
    let with_features: Vec<(Packed, Vec<u16>, Vec<u16>)> = data
        .iter()
        .map(|p| {
            let (mut us, mut them) = ([0u16; MAX_FEATURES], [0u16; MAX_FEATURES]);
            let n = params.features(p, &mut us, &mut them).unwrap();
            (*p, us[..n].to_vec(), them[..n].to_vec())
        })
        .collect();
    let values: Vec<f64> = params.values.iter().map(|&v| f64::from(v)).collect();
    // The f64 forward pass is the model's own.
    let model_loss = f64::from(loss(&params, &data, lambda));
    let reference = loss_f64(shape, &values, &with_features, lambda);
    assert!(
        (model_loss - reference).abs() < 1e-5,
        "loss {model_loss} vs f64 {reference}"
    );

    let hidden = kiraly::nnue::HIDDEN;
    let (us, them) = (&with_features[0].1, &with_features[0].2);
    // Candidates of each kind; those whose gradient is (numerically) zero
    // (a hidden unit outside the activation's slope for every position) are
    // skipped, and each kind must keep enough.
    let kinds: [(&str, Vec<usize>, usize); 4] = [
        (
            "feature weight",
            (0..hidden)
                .step_by(5)
                .flat_map(|j| {
                    [
                        us[0] as usize * hidden + j,
                        them[them.len() - 1] as usize * hidden + j,
                    ]
                })
                .collect(),
            40,
        ),
        (
            "feature bias",
            (0..hidden)
                .step_by(3)
                .map(|j| shape.feature_bias + j)
                .collect(),
            40,
        ),
        (
            "output weight",
            (shape.output_weights..shape.output_bias)
                .step_by(37)
                .collect(),
            40,
        ),
        // The positions fall in some output buckets only.
        ("output bias", (shape.output_bias..shape.len).collect(), 5),
    ];
    let h = 1e-5;
    let floor = 1e-9;
    for (kind, candidates, enough) in kinds {
        let mut checked = 0;
        for i in candidates {
            let mut plus = values.clone();
            plus[i] += h;
            let mut minus = values.clone();
            minus[i] -= h;
            let numeric = (loss_f64(shape, &plus, &with_features, lambda)
                - loss_f64(shape, &minus, &with_features, lambda))
                / (2.0 * h);
            let analytic = f64::from(grad[i]);
            let tolerance = 1e-2 * numeric.abs().max(analytic.abs()) + floor;
            assert!(
                (numeric - analytic).abs() <= tolerance,
                "{kind} {i} of {}: analytic {analytic:e} numeric {numeric:e}",
                shape.len
            );
            if numeric.abs() > 1000.0 * floor {
                checked += 1;
            }
        }
        assert!(
            checked >= enough,
            "{kind}: only {checked} gradients well above the tolerance"
        );
    }
}

#[test]
fn training_learns_material_and_the_engine_reads_the_net() {
    learns_and_exports(Shape::default());
}

/// The same with four king buckets: the file carries the layout and the
/// engine reads it with the same build.
#[test]
fn a_bucketed_net_learns_and_the_engine_reads_it() {
    let shape = Shape::new(kiraly::nnue::layout_by_name("4").unwrap()).unwrap();
    let net = learns_and_exports(shape);
    assert_eq!((net.buckets(), net.layout), (4, shape.layout));
}

/// With a factoriser: the engine's file has each bucket's own weights plus
/// the shared ones (its evaluation follows the float model's, which adds
/// them), in the plain four-bucket format.
#[test]
fn a_factorised_net_learns_and_the_engine_reads_it() {
    let shape = Shape::build(kiraly::nnue::layout_by_name("4").unwrap(), 1, true).unwrap();
    let net = learns_and_exports(shape);
    assert_eq!((net.buckets(), net.layout), (4, shape.layout));
    assert!(Shape::build(kiraly::nnue::ONE_BUCKET, 1, true).is_err());
}

/// A one-bucket checkpoint starts a factorised model as its shared block,
/// the buckets' own weights zero: the model, and the engine's net it
/// exports, evaluate as the one bucket did, and export the same file as
/// the plain spread. A checkpoint of the factorised model resumes as
/// itself, and a model without a factoriser refuses it.
#[test]
fn a_one_bucket_checkpoint_starts_a_factoriser_as_its_shared_block() {
    let one = Params::random(Shape::default(), 9);
    let layout = kiraly::nnue::layout_by_name("4").unwrap();
    let shape = Shape::build(layout, 8, true).unwrap();
    let factorised = Params::from_bytes(&one.to_bytes(), shape).unwrap();
    assert_eq!(factorised.values.len(), shape.len);
    let plain =
        Params::from_bytes(&one.to_bytes(), Shape::with_outputs(layout, 8).unwrap()).unwrap();
    for (_, packed) in positions(300, 5) {
        assert_eq!(one.output(&packed), factorised.output(&packed));
    }
    assert!(factorised.quantise().to_bytes() == plain.quantise().to_bytes());
    let resumed = Params::from_bytes(&factorised.to_bytes(), shape).unwrap();
    assert_eq!(resumed, factorised);
    assert!(Params::from_bytes(&factorised.to_bytes(), plain.shape).is_err());
    // The built-in net (one king bucket) starts it the same way.
    let net = kiraly::nnue::embedded().expect("a built-in net");
    let from_net = Shape::build(layout, net.output_buckets(), true).unwrap();
    let started = Params::from_network(net, from_net).unwrap().quantise();
    for (pos, _) in positions(100, 6) {
        assert_eq!(
            accumulator::evaluate(&started, &pos),
            accumulator::evaluate(net, &pos)
        );
    }
}

/// With eight output buckets, by the number of pieces: the engine reads the
/// file and picks each position's bucket as the trainer does.
#[test]
fn a_net_with_output_buckets_learns_and_the_engine_reads_it() {
    let shape = Shape::with_outputs(kiraly::nnue::ONE_BUCKET, 8).unwrap();
    let net = learns_and_exports(shape);
    assert_eq!(net.output_buckets(), 8);
    assert!(Shape::with_outputs(kiraly::nnue::ONE_BUCKET, 9).is_err());
    assert!(Shape::with_outputs(kiraly::nnue::ONE_BUCKET, 0).is_err());
}

/// A one-bucket checkpoint starts every bucket of a bucketed net, king
/// buckets and output buckets alike: the two evaluate every position alike
/// until training parts them.
#[test]
fn a_one_bucket_checkpoint_spreads_to_every_bucket() {
    let one = Params::random(Shape::default(), 9);
    let four = Shape::new(kiraly::nnue::layout_by_name("4").unwrap()).unwrap();
    let spread = Params::from_bytes(&one.to_bytes(), four).unwrap();
    assert_eq!(spread.values.len(), four.len);
    let four_by_eight = Shape::with_outputs(four.layout, 8).unwrap();
    let both = Params::from_bytes(&one.to_bytes(), four_by_eight).unwrap();
    let from_four = Params::from_bytes(&spread.to_bytes(), four_by_eight).unwrap();
    assert_eq!(both, from_four);
    for (_, packed) in positions(300, 5) {
        assert_eq!(one.output(&packed), spread.output(&packed));
        assert_eq!(one.output(&packed), both.output(&packed));
    }
    let two = Shape::new(kiraly::nnue::layout_by_name("2").unwrap()).unwrap();
    assert!(Params::from_bytes(&spread.to_bytes(), two).is_err());
    assert!(Params::from_bytes(&one.to_bytes()[1..], Shape::default()).is_err());
    // Eight output buckets do not shrink to four.
    let four_outputs = Shape::with_outputs(four.layout, 4).unwrap();
    assert!(Params::from_bytes(&both.to_bytes(), four_outputs).is_err());
}

/// An engine net turns back into the float model it came from (what
/// `--init` of the built-in net relies on): quantised again it is the same
/// file, and spread to four king buckets it evaluates every position as
/// before, in the float model and in the engine.
#[test]
fn an_engine_net_starts_training_where_it_stands() {
    let net = kiraly::nnue::embedded().expect("a built-in net");
    let own_shape = Shape::with_outputs(net.layout, net.output_buckets()).unwrap();
    let own = Params::from_network(net, own_shape).unwrap();
    // Compared as a whole: the files are megabytes, not worth printing.
    assert!(
        own.quantise().to_bytes() == net.to_bytes(),
        "not the same net"
    );
    let four = Shape::with_outputs(
        kiraly::nnue::layout_by_name("4").unwrap(),
        net.output_buckets(),
    )
    .unwrap();
    let spread = Params::from_network(net, four).unwrap();
    let spread_net = spread.quantise();
    assert_eq!(spread_net.buckets(), 4);
    for (pos, packed) in positions(300, 7) {
        assert_eq!(spread.output(&packed), own.output(&packed));
        assert_eq!(
            accumulator::evaluate(&spread_net, &pos),
            accumulator::evaluate(net, &pos)
        );
    }
    let two = Shape::new(kiraly::nnue::layout_by_name("2").unwrap()).unwrap();
    assert!(Params::from_network(&spread_net, two).is_err());

    // Spread to eight output buckets (from the built-in net's first, if it
    // has several), the same again; trained apart, the buckets give the
    // engine different evaluations where the piece count differs, and the
    // engine's file keeps them.
    let mut first = net.clone();
    first.output_weights.truncate(1);
    first.output_bias.truncate(1);
    let first_shape = Shape::new(first.layout).unwrap();
    let first_params = Params::from_network(&first, first_shape).unwrap();
    let eight = Shape::with_outputs(net.layout, 8).unwrap();
    let mut outputs = Params::from_network(&first, eight).unwrap();
    let outputs_net = outputs.quantise();
    assert_eq!(outputs_net.output_buckets(), 8);
    let sample = positions(300, 8);
    for (pos, packed) in &sample {
        assert_eq!(outputs.output(packed), first_params.output(packed));
        assert_eq!(
            accumulator::evaluate(&outputs_net, pos),
            accumulator::evaluate(&first, pos)
        );
    }
    assert!(Params::from_network(&outputs_net, Shape::default()).is_err());
    let back = Params::from_network(&outputs_net, eight).unwrap();
    assert!(back.quantise().to_bytes() == outputs_net.to_bytes());
    // Bucket 7 (30-32 pieces) alone made more optimistic: positions with
    // that many pieces change, the others do not.
    outputs.values[eight.output_bias + 7] += 0.5;
    let changed = outputs.quantise();
    for (pos, _) in &sample {
        let many = pos.board().occupied().count() >= 30;
        let (before, after) = (
            accumulator::evaluate(&first, pos),
            accumulator::evaluate(&changed, pos),
        );
        assert_eq!(
            many,
            before != after,
            "{} pieces",
            pos.board().occupied().count()
        );
    }
}

fn learns_and_exports(shape: Shape) -> Network {
    let all = positions(6000, 11);
    let (train_set, held): (Vec<_>, Vec<_>) =
        all.iter().enumerate().partition(|(i, _)| i % 10 != 0);
    let train_packed: Vec<Packed> = train_set.iter().map(|(_, (_, p))| *p).collect();
    let held_packed: Vec<Packed> = held.iter().map(|(_, (_, p))| *p).collect();
    let mut params = Params::random(shape, 1);
    let before = loss(&params, &held_packed, 0.0);
    let config = TrainConfig {
        epochs: 12,
        batch: 256,
        lr: 0.005,
        lambda: 0.0,
        ..TrainConfig::default()
    };
    let mut reports = Vec::new();
    train(&mut params, &train_packed, &held_packed, &config, |r| {
        reports.push(r.clone())
    })
    .unwrap();
    let after = reports.last().unwrap().validation_loss;
    assert!(after < 0.5 * before, "held-out loss {before} -> {after}");

    // A queen up is clearly good for the side to move. (With 21 pieces, a
    // count these random games pass through often: with eight output
    // buckets, a bare king and queen's bucket may have seen no position.)
    let fen: shakmaty::fen::Fen = "r3k2r/pppp1ppp/8/8/8/8/PPPP1PPP/R2QK2R w - - 0 1"
        .parse()
        .unwrap();
    let queen: Chess = fen.into_position(shakmaty::CastlingMode::Standard).unwrap();
    let packed = Packed::new(queen.board(), queen.turn(), 0, 0.5);
    assert!(
        params.eval_cp(&packed) > 200.0,
        "{}",
        params.eval_cp(&packed)
    );

    // The exported file loads in the engine, and the engine's quantised
    // evaluation follows the float model.
    let bytes = params.quantise().to_bytes();
    let net = Network::from_bytes(&bytes).expect("the engine reads the trainer's file");
    // Rounding each weight to 1/255 moves an accumulator by a few units, so
    // the two agree closely on average and within a bound everywhere.
    let mut total = 0.0f32;
    let mut worst = 0.0f32;
    let sample = &all[..1000];
    for (pos, packed) in sample {
        let float = params.eval_cp(packed);
        let engine = accumulator::evaluate(&net, pos) as f32;
        let diff = (float - engine).abs();
        total += diff;
        worst = worst.max(diff);
        assert!(
            diff <= 60.0 + 0.05 * float.abs(),
            "float {float} engine {engine} in {}",
            shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
    }
    let mean = total / sample.len() as f32;
    // Stated tolerance: the mean difference within 5 cp plus 3% of the mean
    // evaluation size (these labels reach +-3000 cp, so evaluations are large
    // and so are this test's weights; the rounding errors of 2 x 256 hidden
    // values add up: 14 cp at a mean |evaluation| of 581 cp, against 6.7 cp
    // for 64 hidden). A mismatch of indexing or scaling is off by hundreds.
    let size: f32 = sample
        .iter()
        .map(|(_, p)| params.eval_cp(p).abs())
        .sum::<f32>()
        / sample.len() as f32;
    assert!(
        mean <= 5.0 + 0.03 * size,
        "mean float/engine difference {mean} cp at mean |eval| {size}"
    );
    eprintln!("float/engine difference: mean {mean:.2} cp, largest {worst:.2} cp, mean |eval| {size:.0} cp");
    net
}
