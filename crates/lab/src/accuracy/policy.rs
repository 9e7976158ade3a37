//! Policy networks measured on the split: how often their most probable legal move is the
//! stored best move (top-1) or among their three most probable (top-3), and the
//! neural-network study's own metric — a move is not an evaluation, so the study let
//! Stockfish evaluate the position after the network's move and took Kendall's τ of that
//! against Stockfish's evaluation of the position itself (the label). The same τ for the
//! stored best move is given beside it: what a perfect imitation of the labeller reaches.

use chessgraph_core::Error as CoreError;
use shakmaty::{Chess, Color, Move, Position};

use crate::label::Labeller;
use chessgraph_cnn::Net;
use chessgraph_core::chess::fen::{parse_position, to_fen};
use chessgraph_core::chess::game;
use chessgraph_core::chess::moves::parse_uci;
use chessgraph_learn::fit::split::{self, Part};
use chessgraph_learn::stats::{MATE_LABEL_CP, kendall_tau_b, label_cp};
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

/// A test position: its label (White's view, mates mapped, `None` for a mate or no label)
/// and its stored best move.
#[derive(Clone, Debug)]
pub struct PolicySample {
    /// The position.
    pub pos: Chess,
    /// The centipawn label, White's view (`None` for mate scores and unlabelled positions).
    pub label_cp: Option<f64>,
    /// The stored best move, when there is one and it is legal.
    pub best: Option<Move>,
}

/// The positions of `part` (all when `None`) with the label and best move `labels` picks;
/// at most `sample` of them, a fixed pseudo-random choice (as `eval --sample`).
pub fn read_samples(
    conn: &rusqlite::Connection,
    labels: &LabelChoice,
    part: Option<Part>,
    sample: Option<usize>,
) -> Result<Vec<PolicySample>> {
    let mut rows: Vec<_> = split::labelled_rows_from(conn, labels, &[])?
        .into_iter()
        .filter(|r| part.is_none_or(|p| r.part == p))
        .collect();
    if let Some(n) = sample {
        rows.sort_by_cached_key(|r| split::bucket_u64(&r.fen, 0x5eed));
        rows.truncate(n);
    }
    rows.into_iter()
        .map(|r| {
            let pos = parse_position(&r.fen).map_err(|source| CoreError::StoredPosition {
                fen: r.fen.clone(),
                source: source.into(),
            })?;
            let best = r.best_move.as_deref().and_then(|m| parse_uci(&pos, m));
            let label = if r.mate.is_some() && r.eval_cp.is_none() {
                None
            } else {
                label_cp(r.eval_cp, r.mate)
            };
            Ok(PolicySample {
                pos,
                label_cp: label,
                best,
            })
        })
        .collect()
}

/// What [`measure`] found for one network.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PolicyReport {
    /// The model's name.
    pub model: String,
    /// Positions measured.
    pub positions: usize,
    /// Positions with a stored best move (top-1 and top-3 are over these).
    pub with_best: usize,
    /// Share whose best move is the network's most probable legal move.
    pub top1: f64,
    /// Share whose best move is among its three most probable legal moves.
    pub top3: f64,
    /// The study's metric, when an engine evaluated the positions after the moves.
    pub after_move: Option<AfterMove>,
}

/// Kendall τ of an engine's evaluation after a move against the position's label.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AfterMove {
    /// Positions with a centipawn label and an engine evaluation after the move.
    pub positions: usize,
    /// τ after the network's move.
    pub tau: f64,
    /// τ after the stored best move, on the positions that have one.
    pub best_tau: Option<f64>,
}

/// The legal moves of `pos`, most probable first by `net`'s policy.
fn ranked(net: &Net, pos: &Chess) -> Result<Vec<Move>> {
    let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
    let (priors, _) = net
        .priors(pos, &moves)
        .map_err(|e| CoreError::Internal(format!("the network's policy: {e}")))?;
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_by(|&a, &b| priors[b].total_cmp(&priors[a]).then(a.cmp(&b)));
    Ok(order.into_iter().map(|i| moves[i]).collect())
}

/// The engine's evaluation of the position after `m`, White's view, mates mapped as the
/// labels are; a game that ends with the move needs no engine.
fn after(pos: &Chess, m: Move, engine: &mut dyn Labeller) -> Result<Option<f64>> {
    let mut next = pos.clone();
    next.play_unchecked(m);
    if let Some(end) = game::outcome(&next, &[]) {
        return Ok(Some(match end.winner {
            Some(Color::White) => MATE_LABEL_CP,
            Some(Color::Black) => -MATE_LABEL_CP,
            None => 0.0,
        }));
    }
    let labelled = engine
        .analyse(&to_fen(&next))
        .map_err(|e| CoreError::Engine {
            what: "labelling the position after the move".into(),
            source: e.into(),
        })?;
    let sign = if next.turn() == Color::White { 1 } else { -1 };
    let a = labelled.analysis;
    Ok(label_cp(
        a.cp.map(|v| i64::from(v * sign)),
        a.mate.map(|v| i64::from(v * sign)),
    ))
}

/// Measures `net` (named `model`) on `samples`; with `engine`, also the study's τ after
/// the move. `progress` is called once per position.
pub fn measure(
    net: &Net,
    model: &str,
    samples: &[PolicySample],
    mut engine: Option<&mut dyn Labeller>,
    progress: &dyn Fn(),
) -> Result<PolicyReport> {
    let mut report = PolicyReport {
        model: model.to_owned(),
        positions: samples.len(),
        ..PolicyReport::default()
    };
    let (mut top1, mut top3) = (0usize, 0usize);
    let (mut labels, mut evals) = (Vec::new(), Vec::new());
    let (mut best_labels, mut best_evals) = (Vec::new(), Vec::new());
    for s in samples {
        if s.pos.legal_moves().is_empty() {
            progress();
            continue;
        }
        let order = ranked(net, &s.pos)?;
        if let Some(best) = s.best {
            report.with_best += 1;
            let rank = order.iter().position(|&m| m == best);
            top1 += usize::from(rank == Some(0));
            top3 += usize::from(rank.is_some_and(|r| r < 3));
        }
        if let (Some(engine), Some(label)) = (engine.as_deref_mut(), s.label_cp) {
            if let Some(v) = after(&s.pos, order[0], engine)? {
                labels.push(label);
                evals.push(v);
            }
            if let Some(best) = s.best
                && let Some(v) = after(&s.pos, best, engine)?
            {
                best_labels.push(label);
                best_evals.push(v);
            }
        }
        progress();
    }
    if report.with_best > 0 {
        report.top1 = top1 as f64 / report.with_best as f64;
        report.top3 = top3 as f64 / report.with_best as f64;
    }
    if engine.is_some() {
        report.after_move = Some(AfterMove {
            positions: evals.len(),
            tau: kendall_tau_b(&evals, &labels),
            best_tau: (best_evals.len() >= 2).then(|| kendall_tau_b(&best_evals, &best_labels)),
        });
    }
    Ok(report)
}
