//! The PUC-Rio study's move classifier: a logistic regression that tells the move a game's
//! winner played from the other legal moves of the position.
//!
//! Examples ([`examples`]): every position of a decisive game where the winner is to move
//! gives one example per legal move, 1 for the move played and 0 for the others; the
//! loser's positions are not used. Columns ([`encoding`]): the board and the move's from
//! and to squares, 192 in all, seen from the side to move. The fit minimises the summed
//! log-loss plus `α/2 ‖w‖²` (the intercept not penalised) on the raw columns of the train
//! part's games — linfa-logistic's objective — by Newton's method on the examples'
//! structure ([`newton`]): linfa-logistic itself needs the dense examples × 192 matrix
//! (1.6 GB for the shared sample's 1.05 M training examples) and many L-BFGS iterations.
//!
//! Measures, on the train part and on the held-out games (valid + test parts): accuracy at
//! 0.5 and AUC of the examples, and top-1: how often the legal move with the highest
//! probability is the one the winner played ([`model::best_index`]'s tie rule), beside the
//! base rate of a uniformly random legal move (the mean of 1 / legal moves).

pub mod examples;
pub mod newton;

use chessgraph_core::Error as CoreError;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use serde::Serialize;

use super::split::{self, Part};
use super::{Coefficient, FitRecord, Target};
use crate::stats;
use chessgraph_engine::players::logistic::{encoding, model};
use chessgraph_store::Result;
pub use examples::{Collected, Sample};
pub use model::{ModelFileError, MoveModel};

/// How `fits.filter` describes the rows of a move fit.
pub const ROWS: &str = "positions of decisive games with the winner to move: \
                        1 for the move played, 0 for the other legal moves";

/// Settings of a move fit.
#[derive(Clone, Debug, PartialEq)]
pub struct MovesOptions {
    /// L2 penalty on the weights (not the intercept), against the summed log-loss.
    pub alpha: f64,
    /// Split seed; `None` uses the database's.
    pub seed: Option<i64>,
    /// Most Newton steps.
    pub max_iterations: usize,
}

impl Default for MovesOptions {
    fn default() -> Self {
        MovesOptions {
            alpha: 1.0,
            seed: None,
            max_iterations: 50,
        }
    }
}

/// Example-level and move-level measures of a model on some positions.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct MoveMetrics {
    /// Positions (one winner's move each).
    pub positions: usize,
    /// Examples (legal moves of those positions).
    pub examples: usize,
    /// Share of examples that are the move played: positions / examples.
    pub positive_rate: f64,
    /// Mean log-loss of the examples (nats).
    pub log_loss: f64,
    /// Share of examples classified right at 0.5.
    pub accuracy: f64,
    /// Accuracy of calling every example negative: 1 − positive rate.
    pub accuracy_all_negative: f64,
    /// Area under the ROC curve of the examples.
    pub auc: f64,
    /// Share of positions whose most probable legal move is the move played.
    pub top1: f64,
    /// Top-1 of a uniformly random legal move: the mean of 1 / legal moves.
    pub top1_random: f64,
}

impl MoveMetrics {
    /// Measures `model` on `samples`; NaN measures when there are none.
    pub fn of<'a>(model: &MoveModel, samples: impl Iterator<Item = &'a Sample>) -> MoveMetrics {
        let (mut y, mut p) = (Vec::new(), Vec::new());
        let (mut positions, mut hits, mut random) = (0usize, 0usize, 0.0);
        let mut logits = Vec::new();
        for s in samples {
            logits.clear();
            logits.extend(
                s.squares
                    .iter()
                    .map(|&(f, t)| model.logit(&s.board, f.into(), t.into())),
            );
            for (i, &z) in logits.iter().enumerate() {
                y.push(i == s.played);
                p.push(stats::sigmoid(z));
            }
            positions += 1;
            hits += usize::from(model::best_index(&logits, &s.moves) == Some(s.played));
            random += 1.0 / s.moves.len() as f64;
        }
        let n = positions as f64;
        let positive_rate = positions as f64 / y.len() as f64;
        MoveMetrics {
            positions,
            examples: y.len(),
            positive_rate,
            log_loss: stats::log_loss(&y, &p),
            accuracy: stats::accuracy(&y, &p),
            accuracy_all_negative: 1.0 - positive_rate,
            auc: stats::auc(&y, &p),
            top1: hits as f64 / n,
            top1_random: random / n,
        }
    }
}

/// A stored move fit.
#[derive(Clone, Debug)]
pub struct MovesFit {
    /// The fitted model, its provenance filled in.
    pub model: MoveModel,
    /// What is stored in `fits`.
    pub record: FitRecord,
    /// What the games gave.
    pub collected: Collected,
    /// Measures on the train part.
    pub train: MoveMetrics,
    /// Measures on the held-out games, if any.
    pub test: Option<MoveMetrics>,
    /// Time spent reading the games and building the examples.
    pub build_time: Duration,
    /// Time spent fitting.
    pub fit_time: Duration,
    /// Newton steps taken.
    pub iterations: usize,
    /// Whether Newton's method converged within the step limit.
    pub converged: bool,
}

/// A fitted model with its standard errors.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The model (no provenance yet).
    pub model: MoveModel,
    /// Wald standard errors: the intercept's, then one per column.
    pub std_errors: Vec<f64>,
    /// Newton steps taken.
    pub iterations: usize,
    /// Whether Newton's method converged within the step limit.
    pub converged: bool,
}

/// Fits `P(move played)` on the train part's examples by penalised maximum likelihood
/// ([`newton`]).
pub fn fit(samples: &[&Sample], opts: &MovesOptions) -> Result<Fitted> {
    let n: usize = samples.iter().map(|s| s.moves.len()).sum();
    let positives = samples.len();
    if positives == 0 {
        return Err(CoreError::NoData(
            "no training examples: no winner's move of a train-part game was recovered".into(),
        )
        .into());
    }
    if n == positives {
        return Err(CoreError::NoData(format!(
            "the {positives} training positions have one legal move each: no move to tell apart"
        ))
        .into());
    }
    let sol = newton::fit(samples, opts.alpha, opts.max_iterations)?;
    Ok(Fitted {
        model: MoveModel::from_columns(sol.theta[0], &sol.theta[1..]),
        std_errors: sol.std_errors,
        iterations: sol.iterations,
        converged: sol.converged,
    })
}

/// The model of a `train moves` fit stored as `fits.id = id` (`None`: no such fit, or not
/// a `train moves` one), rebuilt from its stored coefficients.
pub fn stored(conn: &Connection, id: i64) -> Result<Option<MoveModel>> {
    use rusqlite::OptionalExtension;
    let row: Option<String> = conn
        .query_row(
            "SELECT coefficients FROM fits WHERE id = ?1 AND target = ?2",
            rusqlite::params![id, Target::WinnerMove.as_str()],
            |r| r.get(0),
        )
        .optional()?;
    let Some(text) = row else {
        return Ok(None);
    };
    let bad = |why: String| CoreError::Stored {
        what: format!("stored fit {id}"),
        why,
    };
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&text).map_err(|source| CoreError::Decode {
            what: format!("stored fit {id}: coefficients"),
            source,
        })?;
    let values: Vec<f64> = list
        .iter()
        .map(|c| c["estimate"].as_f64())
        .collect::<Option<_>>()
        .ok_or_else(|| bad("a coefficient without an estimate".into()))?;
    if values.len() != 1 + encoding::COLUMNS {
        return Err(bad(format!(
            "{} coefficients, a move model has {}",
            values.len(),
            1 + encoding::COLUMNS
        ))
        .into());
    }
    Ok(Some(MoveModel::from_columns(values[0], &values[1..])))
}

/// Reads the decisive games, builds the examples (`progress(done, total)` per game), fits
/// on the train part, measures both parts and stores the fit. `db_name` goes into the
/// model's provenance.
pub fn run(
    conn: &Connection,
    opts: &MovesOptions,
    db_name: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<MovesFit> {
    let start = Instant::now();
    let meta = split::meta(conn)?;
    let seed = opts.seed.unwrap_or(meta.seed);
    let games = decisive_games(conn)?;
    let total = games.len();
    let (samples, collected) = examples::collect(&games, meta.with_seed(seed), &mut |done| {
        progress(done, total)
    });
    let build_time = start.elapsed();
    let train: Vec<&Sample> = samples.iter().filter(|s| s.part == Part::Train).collect();
    let held: Vec<&Sample> = samples.iter().filter(|s| s.part != Part::Train).collect();
    let fit_start = Instant::now();
    let fitted = fit(&train, opts)?;
    let fit_time = fit_start.elapsed();
    let train_m = MoveMetrics::of(&fitted.model, train.iter().copied());
    let test_m = (!held.is_empty()).then(|| MoveMetrics::of(&fitted.model, held.iter().copied()));
    let mut record = fit_record(&fitted, opts, seed, &collected, train_m, test_m);
    record.id = super::store(conn, &record)?;
    let mut moves = MovesFit {
        model: fitted.model,
        record,
        collected,
        train: train_m,
        test: test_m,
        build_time,
        fit_time,
        iterations: fitted.iterations,
        converged: fitted.converged,
    };
    stamp_provenance(conn, &mut moves, db_name, opts)?;
    Ok(moves)
}

/// The decisive games stored; an error saying why when there are none.
fn decisive_games(conn: &Connection) -> Result<Vec<chessgraph_store::games::StoredGame>> {
    let games = chessgraph_store::games::decisive_games(conn)?;
    if games.is_empty() {
        let all = chessgraph_store::games::count(conn)?;
        return Err(CoreError::NoData(if all == 0 {
            "no games in the database: import a PGN file first".into()
        } else {
            format!("none of the {all} stored games was won by one side")
        })
        .into());
    }
    Ok(games)
}

/// What `fits` stores of a move fit (its id still 0): the coefficients with their
/// standard errors, the part sizes and the measures.
fn fit_record(
    fitted: &Fitted,
    opts: &MovesOptions,
    seed: i64,
    collected: &Collected,
    train_m: MoveMetrics,
    test_m: Option<MoveMetrics>,
) -> FitRecord {
    let model = &fitted.model;
    let names = encoding::names();
    let estimates = std::iter::once(model.intercept).chain(model.columns());
    let coefficients = std::iter::once("intercept".to_string())
        .chain(names.iter().cloned())
        .zip(estimates.zip(&fitted.std_errors))
        .map(|(name, (estimate, &std_error))| Coefficient {
            name,
            estimate,
            std_error,
            statistic: estimate / std_error,
        })
        .collect();
    FitRecord {
        id: 0,
        kind: "logistic",
        target: Target::WinnerMove,
        features: names,
        filter: ROWS.into(),
        seed,
        n_train: train_m.examples,
        n_test: test_m.map_or(0, |m| m.examples),
        without_target: collected.missing,
        coefficients,
        metrics: serde_json::json!({
            "train": train_m,
            "test": test_m,
            "alpha": opts.alpha,
            "newton_steps": fitted.iterations,
            "converged": fitted.converged,
            "games": collected.decisive_games,
            "missing_moves": collected.missing,
        }),
    }
}

/// Fills the stored fit's model provenance: the database, the fit's id and date, the
/// method and its settings, what the games gave and the measures.
fn stamp_provenance(
    conn: &Connection,
    moves: &mut MovesFit,
    db_name: &str,
    opts: &MovesOptions,
) -> Result<()> {
    let p = &mut moves.model.provenance;
    p.insert("db".into(), db_name.into());
    p.insert("fit_id".into(), moves.record.id.into());
    p.insert(
        "date".into(),
        chessgraph_store::games::fit_created_at(conn, moves.record.id)?.into(),
    );
    p.insert(
        "method".into(),
        "logistic regression, L2 penalty alpha on the summed log-loss, Newton's method".into(),
    );
    p.insert("alpha".into(), opts.alpha.into());
    p.insert("split_seed".into(), moves.record.seed.into());
    p.insert(
        "collected".into(),
        serde_json::to_value(&moves.collected).expect("counts"),
    );
    p.insert(
        "train".into(),
        serde_json::to_value(moves.train).expect("numbers"),
    );
    p.insert(
        "held_out".into(),
        serde_json::to_value(moves.test).expect("numbers"),
    );
    Ok(())
}
