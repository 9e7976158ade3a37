//! The NNUE trainer: mini-batch AdamW on the CPU, all cores, deterministic for a given
//! thread count.
//!
//! Each epoch shuffles the training part (seeded), splits every batch into one fixed
//! chunk per thread, sums the per-thread gradients in thread order (so the result depends
//! on the thread count but not on scheduling; only the first-layer rows the batch touched
//! are cleared and summed, [`grad`]), steps AdamW with a cosine learning rate, and clips
//! the weights to what quantization can hold. After each epoch the validation
//! loss decides which epoch is kept; the test part is touched once, at the end, through
//! the quantized network — the same integer code the engine runs.

pub mod data;
pub mod grad;
pub mod group;
pub mod kernels;
pub mod model;
pub mod optim;
pub mod params;

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use shakmaty::Color;

use crate::stats::kendall_tau_b;
use chessgraph_engine::nnue::{FeatureSet, Network};

use chessgraph_core::chess::rng::SplitMix;
use data::Sample;
use grad::Gradient;
use model::Scratch;
use optim::{AdamW, cosine_lr};
use params::Params;

/// Training settings (every one printed and stored in the network's provenance).
#[derive(Clone, Debug, Serialize)]
pub struct Options {
    /// The inputs (the samples must have been built with the same set).
    pub features: FeatureSet,
    /// Hidden units H.
    pub hidden: usize,
    /// Output buckets B: the output layer chosen by the number of pieces on the board.
    pub buckets: usize,
    /// Passes over the training part.
    pub epochs: usize,
    /// Positions per mini-batch.
    pub batch: usize,
    /// Initial learning rate.
    pub lr: f32,
    /// The learning rate decays (cosine) to `lr · final_lr` at the end.
    pub final_lr: f32,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// Weight of the game result in the target (0: label only).
    pub lambda: f32,
    /// K of σ(K·cp) (fitted on the training part's labels and results by the caller).
    pub k: f32,
    /// Seed of initialization and shuffling.
    pub seed: u64,
    /// Mirror each training position left-right (a↔h) with probability ½ every epoch:
    /// the network sees no castling rights, so the mirrored board is an equally valid
    /// example with the same label — twice the data for a net that overfits.
    pub mirror: bool,
    /// Output weights' quantization scale (1.0 ↦ `qb`, one of
    /// [`QB_CHOICES`](chessgraph_engine::nnue::QB_CHOICES)); they are clipped to ±127 / `qb`.
    pub qb: i32,
    /// Start from this network's weights instead of random ones (fine-tuning); its
    /// inputs and hidden size must be `features` and `hidden`.
    #[serde(skip)]
    pub init: Option<std::sync::Arc<Network>>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            features: FeatureSet::Threats,
            hidden: 256,
            buckets: 1,
            epochs: 40,
            batch: 1024,
            lr: 1e-3,
            final_lr: 0.05,
            weight_decay: 0.3,
            lambda: 0.0,
            k: 0.0079,
            seed: 1,
            mirror: true,
            qb: chessgraph_engine::nnue::QB,
            init: None,
        }
    }
}

/// One epoch's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Epoch {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training loss over the epoch (float model, as it was updated).
    pub train_loss: f64,
    /// Mean validation loss after the epoch (float model).
    pub valid_loss: f64,
    /// Learning rate at the epoch's end.
    pub lr: f32,
    /// Training positions per second (forward, backward and update).
    pub positions_per_s: f64,
}

/// Progress of a running training, for a progress bar.
#[derive(Clone, Debug)]
pub enum Progress {
    /// A batch finished: epoch (1-based), batches done in it, batches per epoch, mean loss so far.
    Batch(usize, usize, usize, f64),
    /// An epoch finished.
    Epoch(Epoch),
}

/// The result of [`train`].
#[derive(Clone, Debug)]
pub struct Trained {
    /// The quantized network of the best epoch on the validation part.
    pub network: Network,
    /// Every epoch.
    pub epochs: Vec<Epoch>,
    /// The epoch kept (1-based).
    pub best_epoch: usize,
    /// Measures of the quantized network on the validation part.
    pub valid: Measures,
    /// Measures of the quantized network on the test part.
    pub test: Measures,
}

/// How a quantized network agrees with a part's labels.
#[derive(Copy, Clone, Debug, Default, Serialize)]
pub struct Measures {
    /// Positions in the part.
    pub positions: usize,
    /// Mean loss (the training target, quantized network).
    pub loss: f64,
    /// Kendall τ-b against the centipawn labels (mates left out); NaN when undefined.
    pub tau: f64,
}

/// Why a network cannot be trained with these settings or data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrainError {
    /// The train part has no labelled position.
    #[error("no labelled positions in the train part")]
    NoTraining,

    /// A hidden layer size out of range.
    #[error("hidden size {0} is outside 1..={max}", max = chessgraph_engine::nnue::network::MAX_HIDDEN)]
    Hidden(usize),
    /// A number of output buckets out of range.
    #[error("{0} output buckets is outside 1..={max}", max = chessgraph_engine::nnue::network::MAX_BUCKETS)]
    Buckets(usize),
    /// A zero batch or epoch count.
    #[error("batch and epochs must be at least 1")]
    ZeroBatchOrEpochs,
    /// A starting network of another shape than the one asked for.
    #[error(
        "the starting network has {} inputs, {} hidden units and {} output bucket{}, \
         the training asks for {}, {} and {}",
        have.0, have.1, have.2, if have.2 == 1 { "" } else { "s" }, want.0, want.1, want.2
    )]
    InitShape {
        /// The starting network's shape.
        have: (usize, usize, usize),
        /// The shape asked for.
        want: (usize, usize, usize),
    },
}

/// What is wrong with training on these parts, short of an error: the network would learn
/// its few positions, not chess, or the epoch could not be chosen.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
    /// No position in the valid part: the last epoch is kept, no validation loss measured.
    #[error(
        "no labelled positions in the valid part (the split keeps a game's positions \
         together, and {train} train positions came from too few): the last epoch is kept \
         and no validation loss is measured; label or import more positions"
    )]
    NoValid {
        /// Positions in the train part.
        train: usize,
    },
    /// Fewer training positions than weights.
    #[error(
        "only {train} training positions for {weights} weights: the network will learn these \
         positions, not chess; label more positions or lower --hidden"
    )]
    FewPositions {
        /// Positions in the train part.
        train: usize,
        /// The network's weights and biases.
        weights: usize,
    },
}

/// The warnings training `opts`' network on `train`, choosing the epoch on `valid`, deserves.
pub fn warnings(train: &[Sample], valid: &[Sample], opts: &Options) -> Vec<Warning> {
    let mut found = Vec::new();
    if valid.is_empty() {
        found.push(Warning::NoValid { train: train.len() });
    }
    let (inputs, hidden, buckets) = (opts.features.inputs(), opts.hidden, opts.buckets);
    let weights = inputs * hidden + hidden + buckets * (2 * hidden + 1);
    if train.len() < weights {
        found.push(Warning::FewPositions {
            train: train.len(),
            weights,
        });
    }
    found
}

/// Trains a network on `train`, keeping the epoch with the lowest loss on `valid`, and
/// measures it on `test`.
pub fn train(
    train: &[Sample],
    valid: &[Sample],
    test: &[Sample],
    opts: &Options,
    progress: &mut dyn FnMut(Progress),
) -> std::result::Result<Trained, TrainError> {
    check_options(train, opts)?;
    let params = initial_params(opts)?;
    let mut trainer = Trainer::new(train, opts, params);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut epochs = Vec::new();
    let mut best: Option<(f64, usize, Params)> = None;
    for epoch in 1..=opts.epochs {
        let e = trainer.epoch(epoch, &mut order, valid, progress);
        progress(Progress::Epoch(e.clone()));
        let valid_loss = e.valid_loss;
        epochs.push(e);
        // Without a validation part the last epoch is kept.
        let score = if valid.is_empty() {
            -(epoch as f64)
        } else {
            valid_loss
        };
        if best.as_ref().is_none_or(|(l, ..)| score < *l) {
            best = Some((score, epoch, trainer.params.clone()));
        }
    }
    let (_, best_epoch, best_params) = best.expect("at least one epoch ran");
    let network = best_params.quantize(opts.qb, serde_json::Value::Null);
    Ok(Trained {
        valid: measure(&network, valid, opts),
        test: measure(&network, test, opts),
        network,
        epochs,
        best_epoch,
    })
}

/// Refuses an empty train part and settings out of range.
fn check_options(train: &[Sample], opts: &Options) -> std::result::Result<(), TrainError> {
    if train.is_empty() {
        return Err(TrainError::NoTraining);
    }
    if opts.hidden == 0 || opts.hidden > chessgraph_engine::nnue::network::MAX_HIDDEN {
        return Err(TrainError::Hidden(opts.hidden));
    }
    if !(1..=chessgraph_engine::nnue::network::MAX_BUCKETS).contains(&opts.buckets) {
        return Err(TrainError::Buckets(opts.buckets));
    }
    if opts.batch == 0 || opts.epochs == 0 {
        return Err(TrainError::ZeroBatchOrEpochs);
    }
    Ok(())
}

/// The starting weights: random ones (seeded), or the starting network's when it has the
/// shape asked for (an error when it has another).
fn initial_params(opts: &Options) -> std::result::Result<Params, TrainError> {
    let set = opts.features;
    match &opts.init {
        None => Ok(Params::init(set, opts.hidden, opts.buckets, opts.seed)),
        Some(net)
            if net.features() == set
                && net.hidden() == opts.hidden
                && net.buckets() == opts.buckets =>
        {
            Ok(Params::from_network(net))
        }
        Some(net) => Err(TrainError::InitShape {
            have: (net.features().inputs(), net.hidden(), net.buckets()),
            want: (set.inputs(), opts.hidden, opts.buckets),
        }),
    }
}

/// The state of a training run across batches: the weights, the optimizer, the
/// generator (shuffling and mirroring) and the per-thread buffers.
struct Trainer<'a> {
    train: &'a [Sample],
    opts: &'a Options,
    threads: usize,
    params: Params,
    adam: AdamW,
    rng: SplitMix,
    /// Mini-batches per epoch and over the whole run (for the learning rate).
    batches: usize,
    total_steps: usize,
    batch_buf: Vec<Sample>,
    // One gradient, scratch and loss per thread, kept across batches.
    grads: Vec<Gradient>,
    scratches: Vec<Scratch>,
    losses: Vec<f64>,
}

impl<'a> Trainer<'a> {
    /// A trainer of `params` on `train` with one buffer of each kind per rayon thread.
    fn new(train: &'a [Sample], opts: &'a Options, params: Params) -> Trainer<'a> {
        let threads = rayon::current_num_threads().max(1);
        let adam = AdamW::new(&params, opts.weight_decay);
        let batches = train.len().div_ceil(opts.batch);
        Trainer {
            train,
            opts,
            threads,
            adam,
            rng: SplitMix(opts.seed ^ 0x5eed),
            batches,
            total_steps: batches * opts.epochs,
            batch_buf: Vec::with_capacity(opts.batch),
            grads: (0..threads).map(|_| Gradient::new(&params)).collect(),
            scratches: (0..threads)
                .map(|_| Scratch::new(opts.features, opts.hidden))
                .collect(),
            losses: Vec::with_capacity(threads),
            params,
        }
    }

    /// One pass over the training part in a fresh shuffle of `order`, then the
    /// validation loss: the epoch's figures. `progress` receives each batch.
    fn epoch(
        &mut self,
        epoch: usize,
        order: &mut [u32],
        valid: &[Sample],
        progress: &mut dyn FnMut(Progress),
    ) -> Epoch {
        let opts = self.opts;
        shuffle(order, &mut self.rng);
        let started = Instant::now();
        let mut loss_sum = 0.0;
        let mut lr = opts.lr;
        for (b, idx) in order.chunks(opts.batch).enumerate() {
            lr = cosine_lr(
                opts.lr,
                opts.final_lr,
                (epoch - 1) * self.batches + b,
                self.total_steps,
            );
            loss_sum += self.step(idx, lr);
            progress(Progress::Batch(
                epoch,
                b + 1,
                self.batches,
                loss_sum / ((b * opts.batch + idx.len()) as f64),
            ));
        }
        let seconds = started.elapsed().as_secs_f64();
        Epoch {
            epoch,
            train_loss: loss_sum / self.train.len() as f64,
            valid_loss: float_loss(&self.params, valid, opts),
            lr,
            positions_per_s: self.train.len() as f64 / seconds.max(1e-9),
        }
    }

    /// One mini-batch of the samples at `idx` (each mirrored with probability ½ when
    /// asked): forward and backward on every thread, then an AdamW step at rate `lr`.
    /// Returns the batch's summed loss.
    fn step(&mut self, idx: &[u32], lr: f32) -> f64 {
        let opts = self.opts;
        let (train, rng) = (self.train, &mut self.rng);
        self.batch_buf.clear();
        self.batch_buf.extend(idx.iter().map(|&i| {
            let s = train[i as usize];
            if opts.mirror && rng.next_u64() & 1 == 1 {
                s.mirrored_files()
            } else {
                s
            }
        }));
        let chunk = self.batch_buf.len().div_ceil(self.threads);
        let used = self.batch_buf.len().div_ceil(chunk);
        let params = &self.params;
        self.batch_buf
            .par_chunks(chunk)
            .zip(self.grads.par_iter_mut().zip(self.scratches.par_iter_mut()))
            .map(|(c, (g, scratch))| {
                g.clear();
                params.backward(c, opts.k, opts.lambda, g, scratch)
            })
            .collect_into_vec(&mut self.losses);
        let loss = self.losses.iter().sum::<f64>();
        let scale = 1.0 / self.batch_buf.len() as f32;
        // The chunks' gradients are summed in chunk order (deterministic).
        self.adam.step(
            &mut self.params,
            &self.grads[..used],
            scale,
            lr,
            chessgraph_engine::nnue::WEIGHT_CLIP,
            chessgraph_engine::nnue::out_weight_clip(opts.qb),
        );
        loss
    }
}

/// Fisher–Yates with the trainer's generator.
fn shuffle(order: &mut [u32], rng: &mut SplitMix) {
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
}

/// Mean loss of the float model on `samples` (NaN when empty).
fn float_loss(params: &Params, samples: &[Sample], opts: &Options) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let sum: f64 = samples
        .par_chunks(4096)
        .map(|c| {
            let mut scratch = Scratch::new(params.features, params.hidden);
            c.iter()
                .map(|s| {
                    let cp = params.predict_stm(s, &mut scratch);
                    let cp = if s.white_to_move { cp } else { -cp };
                    loss_of(cp, s, opts)
                })
                .sum::<f64>()
        })
        .collect::<Vec<f64>>()
        .into_iter()
        .sum();
    sum / samples.len() as f64
}

fn loss_of(white_cp: f32, s: &Sample, opts: &Options) -> f64 {
    let p = model::sigmoid(opts.k * white_cp);
    let t = model::target(s, opts.k, opts.lambda);
    f64::from((p - t) * (p - t))
}

/// The quantized network's White-view evaluation of a sample (the integer code the
/// engine runs, fed from the sample's features).
pub fn quantized_eval(net: &Network, s: &Sample) -> i32 {
    let turn = if s.white_to_move {
        Color::White
    } else {
        Color::Black
    };
    let v = net.evaluate_features(s.white_features(), turn, u32::from(s.pieces));
    if s.white_to_move { v } else { -v }
}

/// Loss and τ of the quantized network on `samples`.
pub fn measure(net: &Network, samples: &[Sample], opts: &Options) -> Measures {
    let evals: Vec<i32> = samples.par_iter().map(|s| quantized_eval(net, s)).collect();
    let loss = if samples.is_empty() {
        f64::NAN
    } else {
        samples
            .iter()
            .zip(&evals)
            .map(|(s, &e)| loss_of(e as f32, s, opts))
            .sum::<f64>()
            / samples.len() as f64
    };
    let (x, y): (Vec<f64>, Vec<f64>) = samples
        .iter()
        .zip(&evals)
        .filter(|(s, _)| !s.mate)
        .map(|(s, &e)| (f64::from(e), f64::from(s.label_cp)))
        .unzip();
    Measures {
        positions: samples.len(),
        loss,
        tau: if x.len() >= 2 {
            kendall_tau_b(&x, &y)
        } else {
            f64::NAN
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;

    /// An empty valid part and fewer positions than weights are both said, with numbers.
    #[test]
    fn warnings_name_the_counts() {
        let sample = Sample::new(
            &parse_position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap(),
            FeatureSet::Pieces,
            100.0,
            f32::NAN,
        );
        let opts = Options {
            features: FeatureSet::Pieces,
            hidden: 8,
            buckets: 1,
            ..Options::default()
        };
        let train = vec![sample; 3];
        let found = warnings(&train, &[], &opts);
        assert_eq!(
            found,
            vec![
                Warning::NoValid { train: 3 },
                Warning::FewPositions {
                    train: 3,
                    weights: 768 * 8 + 8 + 17
                }
            ]
        );
        let many = vec![sample; 7000];
        assert!(warnings(&many, &many[..1], &opts).is_empty());
    }

    /// A tiny net overfits a handful of positions to a loss near zero.
    #[test]
    fn tiny_net_overfits_a_handful() {
        let fens = [
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                40.0,
            ),
            ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", 900.0),
            ("4k3/8/8/8/8/8/8/3qK3 w - - 0 1", -800.0),
            ("4k3/8/8/8/8/8/8/3RK3 b - - 0 1", 500.0),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
                -150.0,
            ),
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", 0.0),
        ];
        let set: Vec<Sample> = fens
            .iter()
            .map(|&(f, l)| {
                Sample::new(
                    &parse_position(f).unwrap(),
                    FeatureSet::Threats,
                    l,
                    f32::NAN,
                )
            })
            .collect();
        // One output layer, and 4 output buckets (the 3-piece positions and the others use
        // different ones).
        for buckets in [1, 4] {
            let opts = Options {
                hidden: 16,
                buckets,
                epochs: 300,
                batch: 6,
                lr: 0.01,
                final_lr: 0.1,
                weight_decay: 0.0,
                k: 0.004,
                ..Options::default()
            };
            let trained = train(&set, &set, &set, &opts, &mut |_| {}).unwrap();
            assert_eq!(trained.network.buckets(), buckets);
            let first = trained.epochs[0].valid_loss;
            assert!(
                trained.valid.loss < 1e-4,
                "{buckets} buckets: loss {} (first epoch {first})",
                trained.valid.loss
            );
            assert!(trained.test.tau > 0.99, "tau {}", trained.test.tau);
            for (s, &(fen, _)) in set.iter().zip(&fens) {
                let e = quantized_eval(&trained.network, s);
                let p = model::sigmoid(opts.k * e as f32);
                let t = model::sigmoid(opts.k * s.label_cp);
                assert!((p - t).abs() < 0.02, "{e} vs {}", s.label_cp);
                // The trainer's quantized forward pass is the engine's evaluation.
                let pos = parse_position(fen).unwrap();
                let stm = trained.network.evaluate(&pos);
                assert_eq!(e, if s.white_to_move { stm } else { -stm }, "{fen}");
            }
        }
    }

    #[test]
    fn same_seed_same_network() {
        let set: Vec<Sample> = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
            "4k3/8/8/8/8/8/8/3qK3 w - - 0 1",
        ]
        .iter()
        .zip([30.0, 900.0, -900.0])
        .map(|(f, l)| Sample::new(&parse_position(f).unwrap(), FeatureSet::Pieces, l, 0.5))
        .collect();
        let opts = Options {
            features: FeatureSet::Pieces,
            hidden: 8,
            epochs: 5,
            batch: 2,
            ..Options::default()
        };
        let a = train(&set, &set, &[], &opts, &mut |_| {}).unwrap();
        let b = train(&set, &set, &[], &opts, &mut |_| {}).unwrap();
        assert_eq!(a.network, b.network);
        assert!(a.test.tau.is_nan());
    }

    #[test]
    fn empty_train_part_is_an_error() {
        let err = train(&[], &[], &[], &Options::default(), &mut |_| {}).unwrap_err();
        assert!(err.to_string().contains("no labelled positions"));
    }
}
