//! Comparing evaluators with reference evaluations (`chessgraph eval`): the static
//! evaluation and the evaluation after a capture-only quiescence search, per position, and
//! optionally after a fixed-depth search, and their agreement with the labels — Kendall
//! τ-b (the Serbian study's measure), Pearson r, RMSE and Texel's loss.

use chessgraph_core::Error as CoreError;
use std::path::Path;

use rayon::prelude::*;
use rusqlite::Connection;
use serde::Serialize;
use shakmaty::Chess;

use chessgraph_core::chess::fen::{parse_position, to_fen};
use chessgraph_core::data::{self, Format, GameResult, Item, Label, ReadOptions, Reject};
use chessgraph_engine::eval::Evaluator;
use chessgraph_engine::search::{Quiescence, Searcher};
use chessgraph_learn::fit::split::{self, Part};
use chessgraph_learn::stats::{kendall_tau_b, pearson, rmse, texel_loss};
use chessgraph_store::Result;
use chessgraph_store::labels::LabelChoice;

/// A position to evaluate and its reference evaluation, if any.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position.
    pub pos: Chess,
    /// Reference evaluation, White's point of view.
    pub label: Label,
    /// The game's result, when known (for fitting K).
    pub result: Option<GameResult>,
}

/// K of σ(K·cp) for the Texel loss of `samples`: fitted once on their centipawn labels and
/// game results (so every evaluator measured on them gets the same K), or ln(10)/400 when
/// fewer than [`chessgraph_learn::stats::MIN_K_POSITIONS`] have both.
pub fn fit_k(samples: &[Sample]) -> f64 {
    let pairs: Vec<(f64, f64)> = samples
        .iter()
        .filter_map(|s| match (s.label, s.result) {
            (Label::Cp(cp), Some(r)) => Some((f64::from(cp), r.white_score())),
            _ => None,
        })
        .collect();
    chessgraph_learn::stats::k_or_default(&pairs).0
}

/// Reads positions and labels from a CSV, EPD or PGN file (`-`: standard input).
/// Rejected rows are returned alongside, with their lines.
pub fn read_file(
    path: &Path,
    format: Format,
    opts: ReadOptions,
) -> Result<(Vec<Sample>, Vec<Reject>)> {
    let input = data::open_input(path)?;
    let (mut samples, mut rejects) = (Vec::new(), Vec::new());
    data::read(format, input.reader, opts, &mut |item: Item| {
        match item {
            Item::Row(row) => {
                // Rows were validated by the reader; a failure here is a reader bug, kept
                // visible as a reject rather than a panic.
                match row.position() {
                    Ok(pos) => samples.push(Sample {
                        pos,
                        label: row.label,
                        result: row.result,
                    }),
                    Err(e) => rejects.push(Reject::new(row.line, "", e.to_string())),
                }
            }
            Item::Reject(r) => rejects.push(r),
            Item::Game(_) => {}
        }
        Ok(())
    })?;
    Ok((samples, rejects))
}

/// Reads the positions of one part of the database's split (all parts when `None`), or a
/// fixed sample of `limit` of its labelled ones, with the labels `labels` chooses.
///
/// The sample is the `limit` labelled positions whose normalized FEN hashes lowest: it
/// depends on neither row order nor ids, positions without a label (datagen's, another
/// labeller's) never enter it, and an import changes it only by the labelled positions it
/// adds that hash lower (each one displacing one).
pub fn read_db(
    conn: &Connection,
    part: Option<Part>,
    limit: Option<usize>,
    labels: &LabelChoice,
) -> Result<Vec<Sample>> {
    labels.check(conn)?;
    let sql = labels.sql();
    // The part is the last parameter, after the labellers' names.
    let n = labels.params().len() + 1;
    let mut stmt = conn.prepare(&format!(
        "SELECT p.fen, {}, {}, p.result FROM positions p \
         JOIN splits s ON s.position_id = p.id{} \
         WHERE ?{n} IS NULL OR s.part = ?{n} ORDER BY p.id",
        sql.eval_cp, sql.mate, sql.joins
    ))?;
    let mut params: Vec<Option<String>> = labels.params().into_iter().map(Some).collect();
    params.push(part.map(|p| p.as_str().to_owned()));
    let mut rows: Vec<(String, Label, Option<GameResult>)> = stmt
        .query_map(rusqlite::params_from_iter(params), |r| {
            let fen: String = r.get(0)?;
            let cp: Option<i32> = r.get(1)?;
            let mate: Option<i32> = r.get(2)?;
            let result: Option<String> = r.get(3)?;
            let label = match (cp, mate) {
                (Some(cp), _) => Label::Cp(cp),
                (None, Some(m)) => Label::Mate(m),
                _ => Label::None,
            };
            Ok((fen, label, result.as_deref().and_then(GameResult::parse)))
        })?
        .collect::<std::result::Result<_, _>>()?;
    if let Some(n) = limit {
        rows.retain(|(_, label, _)| *label != Label::None);
        rows.sort_by_cached_key(|(fen, ..)| split::bucket_u64(fen, 0x5eed));
        rows.truncate(n);
    }
    rows.into_iter()
        .map(|(fen, label, result)| {
            let pos = parse_position(&fen).map_err(|source| CoreError::StoredPosition {
                fen: fen.clone(),
                source: source.into(),
            })?;
            Ok(Sample { pos, label, result })
        })
        .collect()
}

/// Static, quiescence and fixed-depth evaluations of one position, White's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Scores {
    /// The evaluator's static evaluation.
    pub static_cp: i32,
    /// After a capture-only quiescence search.
    pub qsearch_cp: i32,
    /// After a search of the requested depth (mates as ±[`chessgraph_engine::eval::EVAL_LIMIT`]).
    pub search_cp: Option<i32>,
}

/// Hash table per thread for the fixed-depth searches (MiB; cleared per position).
const DEPTH_HASH_MIB: usize = 1;

/// Evaluates every sample, in parallel; with `depth`, also searches each to that depth.
/// `progress` advances by one per position.
pub fn score(
    evaluator: &Evaluator,
    samples: &[Sample],
    depth: Option<u32>,
    progress: &indicatif::ProgressBar,
) -> Vec<Scores> {
    let shared = std::sync::Arc::new(evaluator.clone());
    samples
        .par_iter()
        .map_init(
            || {
                let searcher = depth.map(|_| Searcher::new(shared.clone(), DEPTH_HASH_MIB));
                (Quiescence::new(shared.clone()), searcher)
            },
            |(q, searcher), s| {
                let scores = Scores {
                    static_cp: evaluator.evaluate(&s.pos),
                    qsearch_cp: q.leaf(&s.pos).0,
                    search_cp: searcher
                        .as_mut()
                        .zip(depth)
                        .map(|(searcher, d)| searcher.depth_eval(&s.pos, d)),
                };
                progress.inc(1);
                scores
            },
        )
        .collect()
}

/// Agreement of one set of evaluations with the centipawn labels.
#[derive(Copy, Clone, Debug, Default, Serialize)]
pub struct Agreement {
    /// Kendall τ-b.
    pub tau: f64,
    /// Pearson r.
    pub pearson: f64,
    /// Root mean squared error, centipawns.
    pub rmse: f64,
    /// Texel loss, mean of (σ(K·eval) − σ(K·label))².
    pub texel_loss: f64,
}

/// An evaluator's agreement with the labels, statically and after quiescence.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Evaluator name.
    pub evaluator: String,
    /// Positions evaluated.
    pub positions: usize,
    /// Positions with a centipawn label (the measures are over these).
    pub labelled: usize,
    /// Positions with a mate label (left out of the measures).
    pub mate_labels: usize,
    /// K of the Texel loss.
    pub k: f64,
    /// Static evaluation.
    pub static_eval: Agreement,
    /// After quiescence.
    pub qsearch: Agreement,
    /// Depth of the fixed-depth search, when one was asked for.
    pub depth: Option<u32>,
    /// After the fixed-depth search.
    pub search: Option<Agreement>,
}

/// Measures `scores` of `evaluator` against the samples' centipawn labels.
pub fn measure(
    evaluator: &str,
    samples: &[Sample],
    scores: &[Scores],
    depth: Option<u32>,
    k: f64,
) -> Report {
    assert_eq!(samples.len(), scores.len());
    let mut label = Vec::new();
    let (mut st, mut qs, mut se) = (Vec::new(), Vec::new(), Vec::new());
    let mut mates = 0;
    for (s, sc) in samples.iter().zip(scores) {
        match s.label {
            Label::Cp(cp) => {
                label.push(f64::from(cp));
                st.push(f64::from(sc.static_cp));
                qs.push(f64::from(sc.qsearch_cp));
                se.extend(sc.search_cp.map(f64::from));
            }
            Label::Mate(_) => mates += 1,
            Label::None => {}
        }
    }
    let agreement = |x: &[f64]| Agreement {
        tau: kendall_tau_b(x, &label),
        pearson: pearson(x, &label),
        rmse: rmse(&label, x),
        texel_loss: texel_loss(k, x, &label),
    };
    Report {
        evaluator: evaluator.to_owned(),
        positions: samples.len(),
        labelled: label.len(),
        mate_labels: mates,
        k,
        static_eval: agreement(&st),
        qsearch: agreement(&qs),
        depth,
        search: depth.map(|_| agreement(&se)),
    }
}

/// Writes `fen,static,qsearch,label` rows (centipawns, White's view; the label empty when
/// unknown, `#N` for a mate label), with a `search` column before the label when the
/// scores include a fixed-depth search.
pub fn write_csv(out: impl std::io::Write, samples: &[Sample], scores: &[Scores]) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let searched = scores.first().is_some_and(|s| s.search_cp.is_some());
    let header: &[&str] = if searched {
        &["fen", "static", "qsearch", "search", "label"]
    } else {
        &["fen", "static", "qsearch", "label"]
    };
    w.write_record(header).map_err(CoreError::from)?;
    for (s, sc) in samples.iter().zip(scores) {
        let label = match s.label {
            Label::Cp(cp) => cp.to_string(),
            Label::Mate(m) => format!("#{m}"),
            Label::None => String::new(),
        };
        let mut row = vec![
            to_fen(&s.pos),
            sc.static_cp.to_string(),
            sc.qsearch_cp.to_string(),
        ];
        row.extend(sc.search_cp.map(|v| v.to_string()));
        row.push(label);
        w.write_record(&row).map_err(CoreError::from)?;
    }
    w.flush()
        .map_err(|e| CoreError::from(csv::Error::from(e)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(fen: &str, label: Label) -> Sample {
        Sample {
            pos: parse_position(fen).unwrap(),
            label,
            result: None,
        }
    }

    #[test]
    fn qsearch_sees_the_hanging_queen() {
        // White to move can take the undefended black queen on d5 with the e4 pawn.
        let s = sample("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", Label::Cp(800));
        let e = Evaluator::builtin("material").unwrap();
        let sc = score(
            &e,
            std::slice::from_ref(&s),
            None,
            &indicatif::ProgressBar::hidden(),
        );
        assert_eq!(sc[0].static_cp, 100 - 900);
        assert_eq!(sc[0].qsearch_cp, 100);
        assert_eq!(sc[0].search_cp, None);
    }

    #[test]
    fn depth_search_sees_what_quiescence_cannot() {
        // Back-rank mate in one with a quiet move (Ra8#, the black king boxed in by its
        // own pawns): beyond a capture-only quiescence search, within a 2-ply search.
        let s = sample("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", Label::None);
        let e = Evaluator::builtin("material").unwrap();
        let sc = score(
            &e,
            std::slice::from_ref(&s),
            Some(2),
            &indicatif::ProgressBar::hidden(),
        );
        // Material: rook 500 against three pawns 300; quiescence sees no capture.
        assert_eq!((sc[0].static_cp, sc[0].qsearch_cp), (200, 200));
        assert_eq!(sc[0].search_cp, Some(chessgraph_engine::eval::EVAL_LIMIT));
        // Black to move: the score is still from White's point of view (+200 material).
        let b = sample("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1", Label::None);
        let sb = score(
            &e,
            std::slice::from_ref(&b),
            Some(1),
            &indicatif::ProgressBar::hidden(),
        );
        assert!(sb[0].search_cp.unwrap() > 0, "{sb:?}");
        // Already mated (Black, no legal move): White's point of view, no search needed.
        let mated = sample("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", Label::None);
        let sm = score(
            &e,
            std::slice::from_ref(&mated),
            Some(3),
            &indicatif::ProgressBar::hidden(),
        );
        assert_eq!(sm[0].search_cp, Some(chessgraph_engine::eval::EVAL_LIMIT));
        // Deterministic whatever the order: the same position twice gives the same score.
        let twice = score(
            &e,
            &[s.clone(), b.clone(), s.clone()],
            Some(3),
            &indicatif::ProgressBar::hidden(),
        );
        assert_eq!(twice[0].search_cp, twice[2].search_cp);
    }

    #[test]
    fn measures_leave_mates_out_and_write_csv() {
        let samples = vec![
            sample("4k3/8/8/8/8/8/8/4K2Q w - - 0 1", Label::Cp(900)),
            sample("4k3/8/8/8/8/8/8/4K2R w - - 0 1", Label::Cp(500)),
            sample("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", Label::Cp(100)),
            sample("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", Label::Mate(7)),
            sample("4k3/8/8/8/8/8/8/4K3 w - - 0 1", Label::None),
        ];
        let e = Evaluator::builtin("material").unwrap();
        let scores = score(&e, &samples, None, &indicatif::ProgressBar::hidden());
        let r = measure("material", &samples, &scores, None, 0.01);
        assert!(r.search.is_none());
        assert_eq!((r.positions, r.labelled, r.mate_labels), (5, 3, 1));
        assert!((r.static_eval.tau - 1.0).abs() < 1e-12);
        // Errors 0, 0, 200: RMSE sqrt(40000 / 3).
        assert!((r.static_eval.rmse - (40_000f64 / 3.0).sqrt()).abs() < 1e-9);
        let mut buf = Vec::new();
        write_csv(&mut buf, &samples, &scores).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "fen,static,qsearch,label");
        assert_eq!(lines[1], "4k3/8/8/8/8/8/8/4K2Q w - - 0 1,900,900,900");
        assert_eq!(lines[4], "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1,900,900,#7");
        assert!(lines[5].ends_with(",0,0,"), "{}", lines[5]);
    }
}
