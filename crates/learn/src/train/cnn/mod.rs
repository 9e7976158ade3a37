//! The trainer of the studies' networks ([`chessgraph_cnn`]): mini-batch Adam on the
//! database's split, with early stopping on the valid part.
//!
//! Targets, per architecture:
//!
//! * value heads learn v = 2σ(k · label) − 1 (White's view) with the mean squared error,
//!   k being the label scale (the Texel tuner's map from centipawns to an expected score,
//!   fitted to the train part's results or given);
//! * policy heads learn the stored best move (the labeller's, the EPD `bm`, or the move
//!   played next in the game) with cross-entropy over the 4,672 move outputs;
//! * `policy-value` sums both losses, as the study did.
//!
//! The learning rate decays as lr / (1 + decay · step) (Keras's time-based decay, the
//! study's "learning-rate decay"). After each epoch the valid part is measured; the best
//! epoch's weights are kept (and handed to a checkpoint callback), and training stops
//! after `patience` epochs without improvement.

pub mod data;
pub mod metrics;

use std::time::Instant;

use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarMap};
use rayon::prelude::*;

use chessgraph_cnn::{Arch, Header, Model, Net, NetError, POLICY_LEN, Shape, seeded_vars};
use chessgraph_core::chess::rng::{SplitMix, mix64};
pub use data::{Needs, NetData, Sample};
pub use metrics::PartMetrics;

/// How to train.
#[derive(Clone, Debug)]
pub struct NetOptions {
    /// The architecture.
    pub arch: Arch,
    /// Its size.
    pub shape: Shape,
    /// Most passes over the train part.
    pub epochs: usize,
    /// Positions per mini-batch.
    pub batch: usize,
    /// Adam's learning rate.
    pub lr: f64,
    /// Time-based decay of the learning rate per step.
    pub decay: f64,
    /// Decoupled weight decay (0: plain Adam, as the study).
    pub weight_decay: f64,
    /// Epochs without a better valid loss before stopping.
    pub patience: usize,
    /// The label scale k of σ(k · cp).
    pub k: f64,
    /// Seed of the initial weights and the shuffling.
    pub seed: u64,
}

impl NetOptions {
    /// The studies' settings for `arch` at its default size: cnn-study 100 epochs of 2,048
    /// positions without decay; cnn-eval 15 of 512 with time-based decay 1e-4; the ResNets
    /// 20 of 512. Adam at 1e-3, patience 2, no weight decay; `k` is the caller's.
    pub fn for_arch(arch: Arch) -> NetOptions {
        let (epochs, batch, decay) = match arch {
            Arch::CnnStudy => (100, 2048, 0.0),
            Arch::CnnEval => (15, 512, 1e-4),
            Arch::ResnetPolicy | Arch::PolicyValue => (20, 512, 0.0),
        };
        NetOptions {
            arch,
            shape: arch.default_shape(),
            epochs,
            batch,
            lr: 1e-3,
            decay,
            weight_decay: 0.0,
            patience: 2,
            k: 0.0,
            seed: 1,
        }
    }
}

/// Training errors.
#[derive(Debug, thiserror::Error)]
pub enum NetTrainError {
    /// No sample to train on.
    #[error("no position in the train part has what {0} learns")]
    NoTraining(&'static str),
    /// The valid part is empty, so no epoch can be chosen.
    #[error("the valid part is empty: early stopping needs it")]
    NoValid,
    /// Zero epochs or batch.
    #[error("batch and epochs must be at least 1")]
    ZeroBatchOrEpochs,
    /// A starting network of another architecture or size.
    #[error("the starting network is {have}, the training asks for {want}")]
    InitShape {
        /// The starting network.
        have: String,
        /// What was asked.
        want: String,
    },
    /// A network operation failed.
    #[error(transparent)]
    Net(Box<NetError>),
}

impl From<NetError> for NetTrainError {
    fn from(e: NetError) -> Self {
        NetTrainError::Net(Box::new(e))
    }
}

impl From<candle_core::Error> for NetTrainError {
    fn from(e: candle_core::Error) -> Self {
        NetError::from(e).into()
    }
}

/// What the trainer reports as it goes.
pub enum NetProgress<'a> {
    /// A mini-batch done: epoch (1-based), batches done and in the epoch, its loss.
    Batch(usize, usize, usize, f32),
    /// An epoch done, with the valid part's figures and whether it is the best so far
    /// (then `net` is its snapshot, e.g. to write a checkpoint).
    Epoch {
        /// 1-based epoch.
        epoch: usize,
        /// Mean training loss of the epoch.
        train_loss: f64,
        /// Seconds the epoch's training steps took (measuring left out).
        seconds: f64,
        /// The valid part measured after it.
        valid: &'a PartMetrics,
        /// The snapshot, when the epoch is the best so far.
        best: Option<&'a Net>,
    },
}

/// A finished training.
pub struct Trained {
    /// The best epoch's network.
    pub net: Net,
    /// Its epoch.
    pub best_epoch: usize,
    /// Epochs run.
    pub epochs_run: usize,
    /// Its valid part figures.
    pub valid: PartMetrics,
    /// Its test part figures.
    pub test: PartMetrics,
    /// Positions trained on, all epochs together.
    pub positions_seen: usize,
    /// Training seconds (measuring included).
    pub seconds: f64,
    /// Seconds the test part's measuring took (batched inference).
    pub test_seconds: f64,
}

/// Variables to train: fresh seeded ones, or a copy of `init`'s.
fn start_vars(opts: &NetOptions, init: Option<&Net>) -> Result<(VarMap, Model), NetTrainError> {
    let (vars, model) = seeded_vars(opts.arch, opts.shape, opts.seed)?;
    if let Some(net) = init {
        let h = net.header();
        if h.arch != opts.arch || h.shape != opts.shape {
            let describe = |a: Arch, s: Shape| {
                format!(
                    "{} with {} channels × {} blocks",
                    a.as_str(),
                    s.channels,
                    s.blocks
                )
            };
            return Err(NetTrainError::InitShape {
                have: describe(h.arch, h.shape),
                want: describe(opts.arch, opts.shape),
            });
        }
        let data = vars.data().lock().expect("the var map is not poisoned");
        for (name, t) in net.tensors() {
            if let Some(var) = data.get(name) {
                var.set(t)?;
            }
        }
    }
    Ok((vars, model))
}

/// The loss of a batch's outputs against its samples (value MSE + policy cross-entropy,
/// as the architecture has heads).
fn batch_loss(
    model: &Model,
    arch: Arch,
    batch: &[&Sample],
    k: f64,
) -> Result<Tensor, NetTrainError> {
    let out = model.forward(&encode(arch, batch)?)?;
    let mut loss: Option<Tensor> = None;
    if let Some(v) = &out.value {
        let target: Vec<f32> = batch
            .iter()
            .map(|s| s.outcome.unwrap_or_else(|| value_target(s.label_cp, k)))
            .collect();
        let target = Tensor::from_vec(target, batch.len(), &Device::Cpu)?;
        loss = Some(candle_nn::loss::mse(v, &target)?);
    }
    if let Some(p) = &out.policy {
        let ce = policy_loss(p, batch)?;
        loss = Some(match loss {
            Some(l) => (l + ce)?,
            None => ce,
        });
    }
    Ok(loss.expect("every architecture has a head"))
}

/// The cross-entropy of the policy logits `p` against the batch's best moves, or, when
/// some samples carry visit shares (self-play), against those distributions.
fn policy_loss(p: &Tensor, batch: &[&Sample]) -> candle_core::Result<Tensor> {
    if batch.iter().all(|s| s.visits.is_empty()) {
        let target: Vec<u32> = batch
            .iter()
            .map(|s| u32::from(s.best.expect("policy samples have a best move")))
            .collect();
        let target = Tensor::from_vec(target, batch.len(), &Device::Cpu)?;
        return candle_nn::loss::cross_entropy(p, &target);
    }
    let mut dense = vec![0f32; batch.len() * POLICY_LEN];
    for (row, s) in dense.chunks_exact_mut(POLICY_LEN).zip(batch) {
        if s.visits.is_empty() {
            row[usize::from(s.best.expect("policy samples have a best move"))] = 1.0;
        }
        for &(i, share) in &s.visits {
            row[usize::from(i)] = share;
        }
    }
    let target = Tensor::from_vec(dense, (batch.len(), POLICY_LEN), &Device::Cpu)?;
    let log_p = candle_nn::ops::log_softmax(p, candle_core::D::Minus1)?;
    (target * log_p)?.sum(1)?.mean(0)?.neg()
}

/// The value target of a label: 2σ(k · cp) − 1.
pub fn value_target(label_cp: f32, k: f64) -> f32 {
    (2.0 / (1.0 + (-k * f64::from(label_cp)).exp()) - 1.0) as f32
}

/// The input planes of a batch, encoded in parallel.
pub(crate) fn encode(arch: Arch, batch: &[&Sample]) -> candle_core::Result<Tensor> {
    let enc = arch.encoding();
    let mut data = vec![0f32; batch.len() * enc.inputs()];
    data.par_chunks_mut(enc.inputs())
        .zip(batch.par_iter())
        .for_each(|(out, s)| enc.write(&s.pos, out));
    Tensor::from_vec(data, (batch.len(), enc.planes(), 8, 8), &Device::Cpu)
}

/// Trains a network on `data` (see the module docs).
pub fn train(
    data: &NetData,
    opts: &NetOptions,
    init: Option<&Net>,
    provenance: serde_json::Value,
    progress: &mut dyn FnMut(NetProgress),
) -> Result<Trained, NetTrainError> {
    if data.train.is_empty() {
        return Err(NetTrainError::NoTraining(opts.arch.as_str()));
    }
    if data.valid.is_empty() {
        return Err(NetTrainError::NoValid);
    }
    if opts.batch == 0 || opts.epochs == 0 {
        return Err(NetTrainError::ZeroBatchOrEpochs);
    }
    let started = Instant::now();
    let (vars, model) = start_vars(opts, init)?;
    let mut adam = AdamW::new(
        vars.all_vars(),
        ParamsAdamW {
            lr: opts.lr,
            weight_decay: opts.weight_decay,
            ..ParamsAdamW::default()
        },
    )?;
    let header = Header {
        arch: opts.arch,
        shape: opts.shape,
        k: opts.k,
        provenance,
    };
    let mut rng = SplitMix(mix64(opts.seed ^ 0x5eed));
    let mut order: Vec<usize> = (0..data.train.len()).collect();
    let batches = data.train.len().div_ceil(opts.batch);
    let mut best: Option<(Net, usize, PartMetrics)> = None;
    let (mut step, mut since_best, mut epochs_run) = (0u64, 0usize, 0usize);
    for epoch in 1..=opts.epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut sum = 0.0;
        let epoch_start = Instant::now();
        for (b, chunk) in order.chunks(opts.batch).enumerate() {
            let batch: Vec<&Sample> = chunk.iter().map(|&i| &data.train[i]).collect();
            let loss = batch_loss(&model, opts.arch, &batch, opts.k)?;
            adam.set_learning_rate(opts.lr / (1.0 + opts.decay * step as f64));
            adam.backward_step(&loss)?;
            step += 1;
            let l = loss.to_scalar::<f32>()?;
            sum += f64::from(l) * batch.len() as f64;
            progress(NetProgress::Batch(epoch, b + 1, batches, l));
        }
        epochs_run = epoch;
        let seconds = epoch_start.elapsed().as_secs_f64();
        let valid = metrics::measure(&model, opts.arch, &data.valid, opts.k)?;
        let better = best.as_ref().is_none_or(|(_, _, m)| valid.loss < m.loss);
        if better {
            let snapshot = Net::from_vars(header.clone(), &vars)?;
            best = Some((snapshot, epoch, valid.clone()));
            since_best = 0;
        } else {
            since_best += 1;
        }
        progress(NetProgress::Epoch {
            epoch,
            train_loss: sum / data.train.len() as f64,
            seconds,
            valid: &valid,
            best: best.as_ref().filter(|_| better).map(|b| &b.0),
        });
        if since_best >= opts.patience {
            break;
        }
    }
    let (net, best_epoch, valid) = best.expect("at least one epoch ran");
    let test_start = Instant::now();
    let test = net_metrics(&net, &data.test, opts)?;
    let test_seconds = test_start.elapsed().as_secs_f64();
    Ok(Trained {
        net,
        best_epoch,
        epochs_run,
        valid,
        test,
        positions_seen: data.train.len() * epochs_run,
        seconds: started.elapsed().as_secs_f64(),
        test_seconds,
    })
}

/// The figures of a finished network on `samples`.
pub fn net_metrics(
    net: &Net,
    samples: &[Sample],
    opts: &NetOptions,
) -> Result<PartMetrics, NetTrainError> {
    metrics::measure(net.model(), net.arch(), samples, opts.k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    fn sample(pos: &Chess, best: u16) -> Sample {
        Sample {
            pos: pos.clone(),
            label_cp: 120.0,
            mate: false,
            result: 1.0,
            best: Some(best),
            outcome: None,
            visits: Vec::new(),
        }
    }

    #[test]
    fn one_hot_visit_shares_give_the_best_move_loss() {
        let pos = Chess::default();
        let moves: Vec<u16> = pos
            .legal_moves()
            .iter()
            .map(|m| chessgraph_cnn::policy_index(m) as u16)
            .collect();
        let logits: Vec<f32> = (0..POLICY_LEN)
            .map(|i| ((i * 37) % 101) as f32 / 50.0)
            .collect();
        let p = Tensor::from_vec(
            [logits.clone(), logits].concat(),
            (2, POLICY_LEN),
            &Device::Cpu,
        )
        .unwrap();
        let hard = [sample(&pos, moves[3]), sample(&pos, moves[7])];
        let refs: Vec<&Sample> = hard.iter().collect();
        let want = policy_loss(&p, &refs).unwrap().to_scalar::<f32>().unwrap();
        let mut soft = hard.clone();
        soft[0].visits = vec![(moves[3], 1.0)];
        let refs: Vec<&Sample> = soft.iter().collect();
        let got = policy_loss(&p, &refs).unwrap().to_scalar::<f32>().unwrap();
        assert!((want - got).abs() < 1e-5, "{want} vs {got}");
        // Shares split between two moves: the mean of their losses.
        soft[1].visits = vec![(moves[3], 0.5), (moves[7], 0.5)];
        let refs: Vec<&Sample> = soft.iter().collect();
        let split = policy_loss(&p, &refs).unwrap().to_scalar::<f32>().unwrap();
        let each = |m: u16| {
            let s = [sample(&pos, m)];
            let r: Vec<&Sample> = s.iter().collect();
            let one = p.narrow(0, 0, 1).unwrap();
            policy_loss(&one, &r).unwrap().to_scalar::<f32>().unwrap()
        };
        let expected = (each(moves[3]) + (each(moves[3]) + each(moves[7])) / 2.0) / 2.0;
        assert!((split - expected).abs() < 1e-5, "{split} vs {expected}");
    }

    #[test]
    fn value_targets_follow_the_label_scale_or_the_outcome() {
        assert_eq!(value_target(0.0, 0.005), 0.0);
        let t = value_target(200.0, 0.005);
        let p = 1.0 / (1.0 + (-1.0f64).exp());
        assert!((f64::from(t) - (2.0 * p - 1.0)).abs() < 1e-6);
        assert_eq!(value_target(-200.0, 0.005), -t);
    }
}
