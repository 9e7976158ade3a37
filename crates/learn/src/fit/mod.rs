//! Fitting evaluation weights to the analyzed positions: ordinary least squares on the
//! centipawn evaluation ([`linear`]) and logistic regression on the game result or the sign
//! of the evaluation ([`logistic`]), on the shared train/held-out [`split`]. Every fit is
//! stored in the `fits` table.
//!
//! Rows are chosen by an SQL condition on the columns of `positions` and `features`; by
//! default the graph-features study's: `material = 0 AND total_material > 40` (material
//! level, not an endgame), so the positional features are not swamped by material.

mod error;
pub mod export;
pub mod linalg;
pub mod linear;
pub mod logistic;
pub mod moves;
pub mod split;

use ndarray::Array2;
use rusqlite::Connection;
use serde::Serialize;

use chessgraph_store::Result;
use chessgraph_store::filter::prepare_filtered;
use chessgraph_store::labels::LabelChoice;
pub use error::FitError;
use split::Part;

/// The study's features, in its order.
pub const DEFAULT_FEATURES: &[&str] =
    &["mobility", "center_control", "king_safety", "connectivity"];

/// The study's row filter: material level, and enough material that it is not an endgame.
pub const STUDY_FILTER: &str = "material = 0 AND total_material > 40";

/// The study's filter without the material-level condition, used when `material` is itself
/// a feature (it would be constant 0 otherwise).
pub const STUDY_FILTER_WITH_MATERIAL: &str = "total_material > 40";

/// `features` columns that hold bitboards, not quantities: never regressors.
const BITBOARD_COLUMNS: &[&str] = &["white_attacks", "black_attacks"];

/// What a model predicts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `positions.eval_cp` (White's point of view); mate scores left out.
    EvalCp,
    /// Whether White won the game (`positions.result = '1-0'`), rows with a result only.
    WhiteWon,
    /// Whether the evaluation favors White: `eval_cp > 0`, or a mate for White.
    Sign,
    /// Whether a legal move is the one the game's winner played ([`moves`]).
    WinnerMove,
}

impl Target {
    /// The name stored in `fits.target`.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::EvalCp => "eval_cp",
            Target::WhiteWon => "result",
            Target::Sign => "sign",
            Target::WinnerMove => "winner_move",
        }
    }

    /// A short explanation for printed output.
    pub fn describe(self) -> &'static str {
        match self {
            Target::EvalCp => "eval_cp (centipawns, White's point of view; mate scores left out)",
            Target::WhiteWon => "result (1 when White won the game, 0 for a draw or a loss)",
            Target::Sign => "sign (1 when the evaluation favors White: eval_cp > 0 or White mates)",
            Target::WinnerMove => {
                "winner_move (1 for the move the winner played, 0 for its other legal moves)"
            }
        }
    }

    /// The target value of a row, or `None` when the row has no such label.
    fn value(self, eval_cp: Option<i64>, mate: Option<i64>, result: Option<&str>) -> Option<f64> {
        match self {
            Target::EvalCp => eval_cp.map(|v| v as f64),
            Target::WhiteWon => match result {
                Some("1-0") => Some(1.0),
                Some("0-1" | "1/2-1/2") => Some(0.0),
                _ => None,
            },
            Target::Sign => match (eval_cp, mate) {
                (Some(cp), _) => Some(if cp > 0 { 1.0 } else { 0.0 }),
                (None, Some(m)) => Some(if m > 0 { 1.0 } else { 0.0 }),
                (None, None) => None,
            },
            Target::WinnerMove => None,
        }
    }
}

/// Which rows and columns a fit uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// `features` column names, in coefficient order.
    pub features: Vec<String>,
    /// SQL condition on `positions` and `features` columns.
    pub filter: String,
    /// Split seed; `None` uses the seed stored in the database.
    pub seed: Option<i64>,
    /// Which labels are the evaluation (`eval_cp` and mates) of a position.
    pub labels: LabelChoice,
}

impl Selection {
    /// Resolves the defaults: the study's features when `features` is `None`, `material`
    /// appended when `add_material`, and the study's filter when `filter` is `None`
    /// (without `material = 0` when material is a feature).
    pub fn new(
        features: Option<Vec<String>>,
        add_material: bool,
        filter: Option<String>,
        seed: Option<i64>,
    ) -> Selection {
        let mut features: Vec<String> =
            features.unwrap_or_else(|| DEFAULT_FEATURES.iter().map(|s| s.to_string()).collect());
        features.iter_mut().for_each(|f| *f = f.trim().to_string());
        if add_material && !features.iter().any(|f| f == "material") {
            features.push("material".to_string());
        }
        let filter = filter.unwrap_or_else(|| {
            if features.iter().any(|f| f == "material") {
                STUDY_FILTER_WITH_MATERIAL.to_string()
            } else {
                STUDY_FILTER.to_string()
            }
        });
        Selection {
            labels: LabelChoice::default(),
            features,
            filter,
            seed,
        }
    }
}

/// The `features` columns usable as regressors: numeric, not the key, not a bitboard.
pub fn feature_columns(conn: &Connection) -> Result<Vec<String>> {
    use chessgraph_store::export::ColumnType;
    // The view's columns with their types (computed ones included).
    Ok(chessgraph_store::export::columns(conn, "features")?
        .into_iter()
        .filter(|c| matches!(c.kind, ColumnType::Integer | ColumnType::Real))
        .map(|c| c.name)
        .filter(|name| name != "position_id" && !BITBOARD_COLUMNS.contains(&name.as_str()))
        .collect())
}

/// Checks that every name is a usable `features` column, and none is repeated.
pub fn check_features(conn: &Connection, features: &[String]) -> Result<()> {
    if features.is_empty() {
        return Err(FitError::NoFeatures.into());
    }
    let known = feature_columns(conn)?;
    for (i, f) in features.iter().enumerate() {
        if !known.contains(f) {
            let why = if BITBOARD_COLUMNS.contains(&f.as_str()) {
                "is a bitboard, not a quantity"
            } else if f == "position_id" {
                "is the row key"
            } else {
                "is not a features column"
            };
            return Err(FitError::UnknownFeature {
                name: f.clone(),
                why,
                known: known.join(", "),
            }
            .into());
        }
        if features[..i].contains(f) {
            return Err(FitError::Repeated(f.clone()).into());
        }
    }
    Ok(())
}

/// The rows of a fit, cut into train and held-out (valid + test) parts.
#[derive(Clone, Debug)]
pub struct Data {
    /// Feature values of the train rows (one column per feature).
    pub x_train: Array2<f64>,
    /// Targets of the train rows.
    pub y_train: Vec<f64>,
    /// Feature values of the held-out rows.
    pub x_test: Array2<f64>,
    /// Targets of the held-out rows.
    pub y_test: Vec<f64>,
    /// The split seed used.
    pub seed: i64,
    /// Rows matching the filter but without the target (mates for `eval_cp`, no result for
    /// `result`).
    pub without_target: usize,
}

/// Reads the rows `sel` chooses, with `target`, split by the seed.
///
/// Errors name what is missing: no analyzed positions at all, none matching the filter, or
/// none with the target.
pub fn load(conn: &Connection, sel: &Selection, target: Target) -> Result<Data> {
    check_features(conn, &sel.features)?;
    let meta = split::meta(conn)?;
    let seed = sel.seed.unwrap_or(meta.seed);
    let use_table = seed == meta.seed;
    sel.labels.check(conn)?;
    let labels = sel.labels.sql();
    let cols: Vec<String> = sel.features.iter().map(|f| format!("f.\"{f}\"")).collect();
    // The filter sits on its own lines so a trailing `--` comment cannot swallow the query.
    let sql = format!(
        "SELECT p.fen, {}, {}, p.result, \
                (SELECT s.part FROM splits s WHERE s.position_id = p.id), {} \
         FROM positions p JOIN features f ON f.position_id = p.id{} \
         WHERE (\n{}\n)",
        labels.eval_cp,
        labels.mate,
        cols.join(", "),
        labels.joins,
        sel.filter
    );
    let mut stmt = prepare_filtered(conn, &sql, &sel.filter)?;
    let k = sel.features.len();
    let (mut xtr, mut ytr, mut xte, mut yte) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut matched, mut without_target) = (0usize, 0usize);
    let mut rows = stmt.query(rusqlite::params_from_iter(sel.labels.params()))?;
    let mut values = Vec::with_capacity(k);
    while let Some(row) = rows.next()? {
        matched += 1;
        let result: Option<String> = row.get(3)?;
        let Some(y) = target.value(row.get(1)?, row.get(2)?, result.as_deref()) else {
            without_target += 1;
            continue;
        };
        values.clear();
        for j in 0..k {
            let v: Option<f64> = row.get(5 + j)?;
            values.push(v);
        }
        if values.iter().any(Option::is_none) {
            without_target += 1;
            continue;
        }
        let stored: Option<String> = row.get(4)?;
        let part = match stored.as_deref().and_then(Part::parse) {
            Some(p) if use_table => p,
            _ => meta.with_seed(seed).part_of(&row.get::<_, String>(0)?),
        };
        let (x, ys) = if part == Part::Train {
            (&mut xtr, &mut ytr)
        } else {
            (&mut xte, &mut yte)
        };
        x.extend(values.iter().map(|v| v.unwrap_or_default()));
        ys.push(y);
    }
    if matched == 0 {
        let analyzed: i64 = conn.query_row("SELECT count(*) FROM features", [], |r| r.get(0))?;
        return Err(if analyzed == 0 {
            FitError::NothingAnalyzed
        } else {
            FitError::NoMatch {
                filter: sel.filter.clone(),
                analyzed,
            }
        }
        .into());
    }
    if ytr.is_empty() && yte.is_empty() {
        let what = match target {
            Target::EvalCp => "a centipawn evaluation (only mate scores)",
            Target::WhiteWon => {
                "a game result (results come from PGN imports and EPD result opcodes); \
                 import games or use --target sign"
            }
            Target::Sign => "an evaluation",
            Target::WinnerMove => "a move example",
        };
        return Err(FitError::NoTarget { matched, what }.into());
    }
    let x_train = Array2::from_shape_vec((ytr.len(), k), xtr).expect("k values per row");
    let x_test = Array2::from_shape_vec((yte.len(), k), xte).expect("k values per row");
    Ok(Data {
        x_train,
        y_train: ytr,
        x_test,
        y_test: yte,
        seed,
        without_target,
    })
}

/// One fitted coefficient.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Coefficient {
    /// `intercept` or the feature name.
    pub name: String,
    /// The estimate (raw units of the feature).
    pub estimate: f64,
    /// Its standard error.
    pub std_error: f64,
    /// `estimate / std_error`: t for OLS, Wald z for logistic regression.
    pub statistic: f64,
}

impl Coefficient {
    /// An estimate whose standard error is not computed yet.
    pub fn estimate(name: String, estimate: f64) -> Coefficient {
        Coefficient {
            name,
            estimate,
            std_error: f64::NAN,
            statistic: f64::NAN,
        }
    }
}

/// The part of a fit every kind shares, as stored in `fits`.
#[derive(Clone, Debug, Serialize)]
pub struct FitRecord {
    /// `fits.id` once stored.
    pub id: i64,
    /// `linear` or `logistic`.
    pub kind: &'static str,
    /// What was predicted.
    pub target: Target,
    /// Feature names in coefficient order.
    pub features: Vec<String>,
    /// The row filter.
    pub filter: String,
    /// The split seed.
    pub seed: i64,
    /// Rows fitted on.
    pub n_train: usize,
    /// Held-out rows.
    pub n_test: usize,
    /// Matching rows without the target.
    pub without_target: usize,
    /// Intercept first, then one per feature.
    pub coefficients: Vec<Coefficient>,
    /// `{"train": {...}, "test": {...}}`.
    pub metrics: serde_json::Value,
}

impl Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Stores a fit in `fits` and returns its id.
pub fn store(conn: &Connection, fit: &FitRecord) -> Result<i64> {
    conn.execute(
        "INSERT INTO fits (kind, target, features, filter, seed, n_train, n_test, metrics, \
                           coefficients, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        rusqlite::params![
            fit.kind,
            fit.target.as_str(),
            serde_json::to_string(&fit.features).expect("strings serialize"),
            fit.filter,
            fit.seed,
            fit.n_train as i64,
            fit.n_test as i64,
            fit.metrics.to_string(),
            serde_json::to_string(&fit.coefficients).expect("numbers serialize"),
        ],
    )?;
    Ok(conn.last_insert_rowid())
}
