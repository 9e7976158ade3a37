//! What is in a database: counts, distributions, feature summaries, sources and rejects.

use rusqlite::Connection;

use crate::Result;

/// A summary of a database, as `chessgraph stats` prints it.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Schema version.
    pub schema_version: i64,
    /// Rows in `positions`.
    pub positions: i64,
    /// Positions with a centipawn label.
    pub with_eval: i64,
    /// Positions with a mate label.
    pub with_mate: i64,
    /// Positions with a game result.
    pub with_result: i64,
    /// Rows in `games`.
    pub games: i64,
    /// Positions with features.
    pub analyzed: i64,
    /// Rows in `edges`.
    pub edges: i64,
    /// Deciles (10 %, 20 %, … 90 %) of `eval_cp`, with min and max.
    pub eval_deciles: Vec<i64>,
    /// Smallest and largest `eval_cp`.
    pub eval_range: Option<(i64, i64)>,
    /// Positions per phase value 0..=24.
    pub phase_histogram: Vec<(i64, i64)>,
    /// Mean, standard deviation, min and max of the main features.
    pub features: Vec<FeatureSummary>,
    /// Import runs.
    pub sources: Vec<SourceRow>,
    /// Most frequent reject reasons (reason prefix, count).
    pub reject_reasons: Vec<(String, i64)>,
    /// Labels per labeller (`chessgraph label`): name and positions labelled.
    pub labels: Vec<(String, i64)>,
    /// Evaluators stored by `tune`, with their measures.
    pub evaluators: Vec<super::evaluators::Stored>,
    /// Stored fits: id, kind, target, rows trained on.
    pub fits: Vec<(i64, String, String, i64)>,
    /// Recorded measurement runs per kind, and the newest one's time.
    pub runs: Vec<(String, i64, String)>,
}

/// Summary of one feature column.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FeatureSummary {
    /// Column name.
    pub name: &'static str,
    /// Mean.
    pub mean: f64,
    /// Standard deviation (population).
    pub sd: f64,
    /// Minimum.
    pub min: i64,
    /// Maximum.
    pub max: i64,
}

/// One row of `sources`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SourceRow {
    /// `sources.id`.
    pub id: i64,
    /// Path.
    pub path: String,
    /// Format.
    pub format: String,
    /// Rows read.
    pub rows_read: i64,
    /// Rows imported.
    pub rows_imported: i64,
    /// Duplicates.
    pub rows_duplicate: i64,
    /// Rejected rows.
    pub rows_rejected: i64,
    /// Whether the import finished.
    pub finished: bool,
}

/// Feature columns summarized by `stats`.
pub const SUMMARIZED: &[&str] = &[
    "material",
    "total_material",
    "mobility",
    "center_control",
    "king_safety",
    "connectivity",
    "phase",
    "hanging_white",
    "hanging_black",
    "passed_pawns_white",
    "passed_pawns_black",
];

/// Number of stored positions.
pub fn position_count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT count(*) FROM positions", [], |r| r.get(0))?)
}

/// Gathers the statistics of an open database (everything `chessgraph stats` shows).
pub fn gather(conn: &Connection) -> Result<Stats> {
    let int = |sql: &str| -> Result<i64> { Ok(conn.query_row(sql, [], |r| r.get(0))?) };
    let mut s = Stats {
        schema_version: super::schema_version(conn)?,
        positions: int("SELECT count(*) FROM positions")?,
        with_eval: int("SELECT count(*) FROM positions WHERE eval_cp IS NOT NULL")?,
        with_mate: int("SELECT count(*) FROM positions WHERE mate IS NOT NULL")?,
        with_result: int("SELECT count(*) FROM positions WHERE result IS NOT NULL")?,
        games: int("SELECT count(*) FROM games")?,
        analyzed: int("SELECT count(*) FROM features")?,
        edges: int("SELECT count(*) FROM edges")?,
        labels: super::labels::list(conn)?,
        evaluators: super::evaluators::list(conn)?,
        ..Stats::default()
    };
    s.fits = conn
        .prepare("SELECT id, kind, target, n_train FROM fits ORDER BY id")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    s.runs = conn
        .prepare("SELECT kind, count(*), max(created_at) FROM runs GROUP BY kind ORDER BY kind")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut evals: Vec<i64> = conn
        .prepare("SELECT eval_cp FROM positions WHERE eval_cp IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    evals.sort_unstable();
    if let (Some(&lo), Some(&hi)) = (evals.first(), evals.last()) {
        s.eval_range = Some((lo, hi));
        s.eval_deciles = (1..10)
            .map(|k| evals[(evals.len() * k / 10).min(evals.len() - 1)])
            .collect();
    }
    s.phase_histogram = conn
        .prepare("SELECT phase, count(*) FROM features GROUP BY phase ORDER BY phase")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if s.analyzed > 0 {
        for &name in SUMMARIZED {
            let sql = format!(
                "SELECT avg({name}), avg({name} * {name}) - avg({name}) * avg({name}), min({name}), max({name}) FROM features"
            );
            let (mean, var, min, max): (f64, f64, i64, i64) = conn.query_row(&sql, [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?;
            s.features.push(FeatureSummary {
                name,
                mean,
                sd: var.max(0.0).sqrt(),
                min,
                max,
            });
        }
    }
    s.sources = conn
        .prepare(
            "SELECT id, path, format, rows_read, rows_imported, rows_duplicate, rows_rejected, finished_at IS NOT NULL \
             FROM sources ORDER BY id",
        )?
        .query_map([], |r| {
            Ok(SourceRow {
                id: r.get(0)?,
                path: r.get(1)?,
                format: r.get(2)?,
                rows_read: r.get(3)?,
                rows_imported: r.get(4)?,
                rows_duplicate: r.get(5)?,
                rows_rejected: r.get(6)?,
                finished: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    // Reasons carry details (the bad value); group by their first words.
    s.reject_reasons = conn
        .prepare(
            "SELECT CASE WHEN instr(reason, ':') > 0 THEN substr(reason, 1, instr(reason, ':') - 1) ELSE reason END AS r, \
             count(*) FROM import_errors GROUP BY r ORDER BY count(*) DESC LIMIT 10",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_db_has_zero_counts() {
        let conn = crate::open_in_memory().unwrap();
        let s = gather(&conn).unwrap();
        assert_eq!((s.positions, s.analyzed, s.edges), (0, 0, 0));
        assert!(s.eval_deciles.is_empty() && s.features.is_empty());
    }

    #[test]
    fn deciles_of_known_values() {
        let conn = crate::open_in_memory().unwrap();
        conn.execute(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) VALUES (1, 't', 'csv', 'none', 'white', 'now')",
            [],
        )
        .unwrap();
        for i in 0..100 {
            conn.execute(
                "INSERT INTO positions (fen, fen_input, eval_cp, source_id, line) VALUES (?1, '', ?2, 1, ?2)",
                rusqlite::params![chessgraph_testkit::test_fen(i as usize), i],
            )
            .unwrap();
        }
        let s = gather(&conn).unwrap();
        assert_eq!(s.eval_deciles, [10, 20, 30, 40, 50, 60, 70, 80, 90]);
        assert_eq!(s.eval_range, Some((0, 99)));
    }
}
