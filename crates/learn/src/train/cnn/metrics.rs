//! The figures of a network on a part of the split: its loss, and what each head is good
//! for — Kendall's τ of the value against the labels, top-1 and top-3 agreement of the
//! policy with the stored best move.

use shakmaty::Position;

use super::data::Sample;
use super::{NetTrainError, value_target};
use crate::stats::kendall_tau_b;
use chessgraph_cnn::{Arch, Model, policy_index};

/// Positions per forward pass when measuring.
const CHUNK: usize = 1024;

/// A network's figures on some samples.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PartMetrics {
    /// Samples measured.
    pub positions: usize,
    /// The training loss (value MSE + policy cross-entropy).
    pub loss: f64,
    /// The value head's mean squared error on 2σ(k · label) − 1.
    pub value_mse: Option<f64>,
    /// Kendall's τ-b of the value against the label (mates left out).
    pub tau: Option<f64>,
    /// The policy head's cross-entropy.
    pub policy_ce: Option<f64>,
    /// Share of positions whose best move is the policy's most probable legal move.
    pub top1: Option<f64>,
    /// Share of positions whose best move is among the policy's three most probable
    /// legal moves.
    pub top3: Option<f64>,
}

/// Measures `model` on `samples`.
pub fn measure(
    model: &Model,
    arch: Arch,
    samples: &[Sample],
    k: f64,
) -> Result<PartMetrics, NetTrainError> {
    let mut m = PartMetrics {
        positions: samples.len(),
        ..PartMetrics::default()
    };
    if samples.is_empty() {
        return Ok(m);
    }
    let (mut mse, mut ce, mut top1, mut top3) = (0.0, 0.0, 0usize, 0usize);
    let (mut values, mut labels) = (Vec::new(), Vec::new());
    for chunk in samples.chunks(CHUNK) {
        let refs: Vec<&Sample> = chunk.iter().collect();
        let out = model.forward(&super::encode(arch, &refs)?)?;
        if let Some(v) = out.value {
            let v: Vec<f32> = v.to_vec1()?;
            for (s, &v) in chunk.iter().zip(&v) {
                let t = s.outcome.unwrap_or_else(|| value_target(s.label_cp, k));
                mse += f64::from((v - t) * (v - t));
                if !s.mate && s.outcome.is_none() {
                    values.push(f64::from(v));
                    labels.push(f64::from(s.label_cp));
                }
            }
        }
        if let Some(p) = out.policy {
            let mean = super::policy_loss(&p, &refs)?;
            ce += f64::from(mean.to_scalar::<f32>()?) * chunk.len() as f64;
            let logits: Vec<Vec<f32>> = p.to_vec2()?;
            for (s, row) in chunk.iter().zip(&logits) {
                let Some(best) = s.best else { continue };
                let mine = row[usize::from(best)];
                let above = s
                    .pos
                    .legal_moves()
                    .iter()
                    .filter(|mv| {
                        let i = policy_index(mv);
                        i != usize::from(best) && row[i] > mine
                    })
                    .count();
                top1 += usize::from(above == 0);
                top3 += usize::from(above < 3);
            }
        }
    }
    let n = samples.len() as f64;
    if arch.has_value() {
        m.value_mse = Some(mse / n);
        m.tau = (values.len() >= 2).then(|| kendall_tau_b(&values, &labels));
    }
    if arch.has_policy() {
        m.policy_ce = Some(ce / n);
        m.top1 = Some(top1 as f64 / n);
        m.top3 = Some(top3 as f64 / n);
    }
    m.loss = m.value_mse.unwrap_or(0.0) + m.policy_ce.unwrap_or(0.0);
    Ok(m)
}
