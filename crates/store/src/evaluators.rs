//! The `evaluators` table: evaluators made by `chessgraph tune`, stored as their files.

use chessgraph_core::Error as CoreError;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::Error;
use crate::Result;
use chessgraph_engine::eval::{Evaluator, file};

/// A stored evaluator's summary.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Stored {
    /// Row id.
    pub id: i64,
    /// Unique name.
    pub name: String,
    /// The tuner's fit loss on the validation part.
    pub valid_loss: Option<f64>,
    /// Texel loss of the static evaluation on the test part, as `eval` measures it.
    pub test_loss: Option<f64>,
    /// Kendall τ-b of the static evaluation on the test part, as `eval` measures it.
    pub test_tau: Option<f64>,
    /// Kendall τ-b after quiescence on the test part, as `eval` measures it.
    pub test_tau_qsearch: Option<f64>,
    /// When it was stored (UTC).
    pub created_at: String,
}

/// A stored evaluator's measures: the tuner's fit loss on the validation part, and `eval`'s
/// measures on the test part (NaN when unknown).
#[derive(Clone, Copy, Debug)]
pub struct Measures {
    /// The tuner's fit loss on the validation part.
    pub valid_fit_loss: f64,
    /// Texel loss of the static evaluation on the test part.
    pub test_loss: f64,
    /// Kendall τ-b of the static evaluation on the test part.
    pub test_tau: f64,
    /// Kendall τ-b after quiescence on the test part.
    pub test_tau_qsearch: f64,
}

/// Whether an evaluator named `name` is stored.
pub fn exists(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn
        .query_row("SELECT 1 FROM evaluators WHERE name = ?1", [name], |_| {
            Ok(())
        })
        .optional()?
        .is_some())
}

/// Stores `evaluator` with its measures; returns its id. One of the same name is replaced
/// only with `replace`, else [`Error::EvaluatorExists`].
pub fn store(
    conn: &Connection,
    evaluator: &Evaluator,
    measures: &Measures,
    replace: bool,
) -> Result<i64> {
    if !replace && exists(conn, evaluator.name())? {
        return Err(Error::EvaluatorExists(evaluator.name().to_owned()));
    }
    let finite = |v: f64| v.is_finite().then_some(v);
    conn.execute(
        "INSERT INTO evaluators (name, json, valid_loss, test_loss, test_tau, test_tau_qsearch, \
           created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) \
         ON CONFLICT(name) DO UPDATE SET json = excluded.json, valid_loss = excluded.valid_loss, \
           test_loss = excluded.test_loss, test_tau = excluded.test_tau, \
           test_tau_qsearch = excluded.test_tau_qsearch, created_at = excluded.created_at",
        params![
            evaluator.name(),
            file::to_string(evaluator)?,
            finite(measures.valid_fit_loss),
            finite(measures.test_loss),
            finite(measures.test_tau),
            finite(measures.test_tau_qsearch)
        ],
    )?;
    Ok(conn.query_row(
        "SELECT id FROM evaluators WHERE name = ?1",
        [evaluator.name()],
        |r| r.get(0),
    )?)
}

/// A name not yet taken: `tuned-N` with N one more than the largest id.
pub fn next_name(conn: &Connection) -> Result<String> {
    let max: i64 = conn.query_row("SELECT coalesce(max(id), 0) FROM evaluators", [], |r| {
        r.get(0)
    })?;
    Ok(format!("tuned-{}", max + 1))
}

/// The stored evaluator named `name` (or with id `name` when it is a number).
pub fn load(conn: &Connection, name: &str) -> Result<Option<Evaluator>> {
    let json: Option<String> = conn
        .query_row(
            "SELECT json FROM evaluators WHERE name = ?1 OR (?2 IS NOT NULL AND id = ?2)",
            params![name, name.parse::<i64>().ok()],
            |r| r.get(0),
        )
        .optional()?;
    json.map(|text| file::parse(&text, Path::new(&format!("evaluators:{name}"))))
        .transpose()
        .map_err(Into::into)
}

/// Every stored evaluator, oldest first.
pub fn list(conn: &Connection) -> Result<Vec<Stored>> {
    let mut stmt = conn.prepare(
        "SELECT id, name, valid_loss, test_loss, test_tau, test_tau_qsearch, created_at \
         FROM evaluators ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Stored {
            id: r.get(0)?,
            name: r.get(1)?,
            valid_loss: r.get(2)?,
            test_loss: r.get(3)?,
            test_tau: r.get(4)?,
            test_tau_qsearch: r.get(5)?,
            created_at: r.get(6)?,
        })
    })?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(Error::from)
}

/// Resolves an evaluator argument: a built-in name, then an evaluator file, then (when the
/// database at `db` exists) an evaluator stored by `tune` under that name or id.
pub fn resolve(db: &Path, arg: &str) -> Result<Evaluator> {
    if Evaluator::builtin(arg).is_some() || Path::new(arg).exists() {
        return Ok(Evaluator::by_name_or_path(arg)?);
    }
    if db.exists() {
        // Looking a name up only reads: a read-only database works.
        let conn = crate::open_read_only(db)?;
        if let Some(e) = load(&conn, arg)? {
            return Ok(e);
        }
    }
    Err(CoreError::UnknownEvaluator {
        name: arg.to_owned(),
        builtins: chessgraph_engine::eval::BUILTIN_NAMES.join(", "),
        where_: format!("not a file, and not stored in {}", db.display()),
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_load_replace() {
        let conn = crate::open_in_memory().unwrap();
        assert_eq!(next_name(&conn).unwrap(), "tuned-1");
        let e = Evaluator::builtin("seed003").unwrap();
        let m = |v: f64| Measures {
            valid_fit_loss: v,
            test_loss: 0.2,
            test_tau: f64::NAN,
            test_tau_qsearch: 0.6,
        };
        let id = store(&conn, &e, &m(0.1), false).unwrap();
        assert_eq!(load(&conn, "seed003").unwrap().unwrap(), e);
        assert_eq!(load(&conn, &id.to_string()).unwrap().unwrap(), e);
        assert!(load(&conn, "nope").unwrap().is_none());
        // The same name is refused, unless replacing, which keeps one row.
        assert!(matches!(
            store(&conn, &e, &m(0.3), false),
            Err(Error::EvaluatorExists(n)) if n == "seed003"
        ));
        store(&conn, &e, &m(0.3), true).unwrap();
        let all = list(&conn).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].valid_loss, Some(0.3));
        assert_eq!(all[0].test_tau, None);
        assert_eq!(all[0].test_tau_qsearch, Some(0.6));
        assert_eq!(next_name(&conn).unwrap(), "tuned-2");
    }
}
