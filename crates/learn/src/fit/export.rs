//! Turning a stored linear fit into an evaluator: the fit's centipawn weights replace the
//! matching terms of a base evaluator (by default `simplified`, as the graph-features study's
//! bot added its hand-rounded weights to the Simplified Evaluation Function).

use chessgraph_core::Error as CoreError;
use rusqlite::{Connection, OptionalExtension};
use shakmaty::Role;

use chessgraph_engine::eval::{Evaluator, Provenance, Term};
use chessgraph_store::Result;

/// Features a linear fit can have that map onto evaluator terms, and how.
const MAPPED: &[&str] = &["material", "mobility", "king_safety"];

/// What the conversion did.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The evaluator.
    pub evaluator: Evaluator,
    /// Features of the fit with no evaluator term, left out (only with `drop_unmapped`).
    pub dropped: Vec<String>,
    /// The fit's intercept, which an evaluator (antisymmetric in the colors) cannot hold.
    pub intercept: f64,
}

#[derive(serde::Deserialize)]
struct Coefficient {
    name: String,
    estimate: f64,
}

/// Converts linear fit `id` into an evaluator named `name` on top of `base`. Features with
/// no evaluator term are an error unless `drop_unmapped`.
pub fn fit_to_evaluator(
    conn: &Connection,
    id: i64,
    base: &Evaluator,
    name: &str,
    drop_unmapped: bool,
) -> Result<Converted> {
    let row: Option<(String, String, String, String)> = conn
        .query_row(
            "SELECT kind, target, coefficients, filter FROM fits WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((kind, target, coefficients, filter)) = row else {
        return Err(CoreError::Invalid(format!("no fit #{id} in the database")).into());
    };
    if kind != "linear" || target != "eval_cp" {
        return Err(CoreError::Invalid(format!(
            "fit #{id} is a {kind} fit of {target}: only linear fits of eval_cp have weights in \
             centipawns (a logistic fit's coefficients are log-odds)"
        ))
        .into());
    }
    let coefs: Vec<Coefficient> =
        serde_json::from_str(&coefficients).map_err(|source| CoreError::Decode {
            what: format!("fit #{id}'s coefficients"),
            source,
        })?;
    let unmapped: Vec<String> = coefs
        .iter()
        .filter(|c| c.name != "intercept" && !MAPPED.contains(&c.name.as_str()))
        .map(|c| c.name.clone())
        .collect();
    if !unmapped.is_empty() && !drop_unmapped {
        return Err(CoreError::Invalid(format!(
            "fit #{id} uses {}, which the evaluator has no term for (it has {}); \
             use --drop-unmapped to leave them out",
            unmapped.join(", "),
            MAPPED.join(", ")
        ))
        .into());
    }
    let mut weights = base
        .linear_weights("to put the fit's weights in (--base)")?
        .clone();
    let mut intercept = 0.0;
    for c in &coefs {
        let w = c.estimate.round() as i32;
        match c.name.as_str() {
            "intercept" => intercept = c.estimate,
            // The fit's material is in pawns (P 1, N 3, B 3, R 5, Q 9).
            "material" => {
                for (role, units) in [
                    (Role::Pawn, 1.0),
                    (Role::Knight, 3.0),
                    (Role::Bishop, 3.0),
                    (Role::Rook, 5.0),
                    (Role::Queen, 9.0),
                ] {
                    let v = (c.estimate * units).round() as i32;
                    weights.set(Term::Material(role), v, v);
                }
            }
            "mobility" => weights.set(Term::StudyMobility, w, w),
            "king_safety" => weights.set(Term::StudyKingSafety, w, w),
            _ => {}
        }
    }
    let provenance = Provenance {
        extra: [
            ("method", serde_json::json!("linear fit")),
            ("fit", serde_json::json!(id)),
            ("filter", serde_json::json!(filter)),
            ("base", serde_json::json!(base.name())),
            ("dropped", serde_json::json!(unmapped)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect(),
        ..Provenance::default()
    };
    Ok(Converted {
        evaluator: Evaluator::new(name, provenance, weights),
        dropped: unmapped,
        intercept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_fit(conn: &Connection, kind: &str, target: &str, coefs: &str) -> i64 {
        conn.execute(
            "INSERT INTO fits (kind, target, features, filter, seed, n_train, n_test, metrics, \
             coefficients, created_at) VALUES (?1, ?2, '[]', 'material = 0', 1, 10, 2, '{}', ?3, 'now')",
            [kind, target, coefs],
        )
        .unwrap();
        conn.last_insert_rowid()
    }

    #[test]
    fn maps_rounds_and_refuses() {
        let conn = chessgraph_store::open_in_memory().unwrap();
        let base = Evaluator::builtin("simplified").unwrap();
        let id = store_fit(
            &conn,
            "linear",
            "eval_cp",
            r#"[{"name":"intercept","estimate":4.2},{"name":"mobility","estimate":2.89},
                {"name":"king_safety","estimate":17.07},{"name":"center_control","estimate":-1.12}]"#,
        );
        let e = fit_to_evaluator(&conn, id, &base, "x", false).unwrap_err();
        assert!(e.to_string().contains("center_control"), "{e}");
        let c = fit_to_evaluator(&conn, id, &base, "study-fit", true).unwrap();
        assert_eq!(c.dropped, vec!["center_control".to_string()]);
        assert_eq!(c.intercept, 4.2);
        let w = c.evaluator.weights().unwrap();
        assert_eq!(w.get(Term::StudyMobility), (3, 3));
        assert_eq!(w.get(Term::StudyKingSafety), (17, 17));
        // Everything else is the base's.
        assert_eq!(
            w.get(Term::Material(Role::Knight)),
            base.weights().unwrap().get(Term::Material(Role::Knight))
        );
        let id = store_fit(
            &conn,
            "linear",
            "eval_cp",
            r#"[{"name":"material","estimate":95.4}]"#,
        );
        let c = fit_to_evaluator(&conn, id, &base, "m", false).unwrap();
        assert_eq!(
            c.evaluator
                .weights()
                .unwrap()
                .get(Term::Material(Role::Queen)),
            (859, 859)
        );
        let id = store_fit(&conn, "logistic", "result", "[]");
        assert!(fit_to_evaluator(&conn, id, &base, "l", false).is_err());
        assert!(fit_to_evaluator(&conn, 999, &base, "n", false).is_err());
    }
}
