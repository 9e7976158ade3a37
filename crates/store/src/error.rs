//! Typed errors of the store and the stages above it (learning, the lab): the SQLite
//! file, imports, labels, stored evaluators, conditions, fits and Parquet files, beside
//! the core's and the engine's errors ([`chessgraph_core::Error`], held as
//! [`Error::Core`]). The binary wraps them with `anyhow` context.

use std::path::PathBuf;

pub use chessgraph_core::error::{cut, error_chain};

/// What the store, the learning tools and the lab can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the core or the engine (input, files, evaluators, other engines,
    /// stored data, bugs).
    #[error(transparent)]
    Core(#[from] chessgraph_core::Error),
    /// The SQLite database failed.
    #[error("database error")]
    Sqlite(#[from] rusqlite::Error),
    /// The database path names a directory.
    #[error("the database {path} is a directory; --db takes a file name")]
    DatabaseIsDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The database was made by a newer chessgraph than this one.
    #[error("database schema version {found} is newer than this chessgraph knows ({known})")]
    SchemaTooNew {
        /// Version found in the file.
        found: i64,
        /// Newest version this binary can apply.
        known: i64,
    },
    /// Columnar data (an Arrow batch, Parquet settings) could not be built.
    #[error("{what}")]
    Arrow {
        /// What was being built.
        what: String,
        /// The arrow or parquet error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A columnar (Parquet) file could not be written or read.
    #[error("parquet file {path}")]
    Columnar {
        /// The file involved.
        path: PathBuf,
        /// What went wrong (the parquet or arrow error).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// `tune --name` names an evaluator the database already holds (and `--replace` was
    /// not given).
    #[error("the database already holds an evaluator named {0:?} (give --replace to replace it)")]
    EvaluatorExists(String),
    /// The database has an older schema and is opened read-only, so it cannot be updated.
    #[error(
        "{path} has schema version {found}, this chessgraph writes {known}: run a command that writes (e.g. `chessgraph analyze`) once to update it"
    )]
    SchemaTooOld {
        /// The database.
        path: PathBuf,
        /// Version found in the file.
        found: i64,
        /// The version this binary writes.
        known: i64,
    },
    /// A SQLite file that another program made.
    #[error(
        "{path} is a SQLite database, but not chessgraph's (its tables: {tables}); use another --db"
    )]
    NotOurs {
        /// The file.
        path: PathBuf,
        /// Its first tables, comma-separated.
        tables: String,
    },
    /// An input whose format the file name does not tell.
    #[error(
        "{0}: cannot tell the format from the file name; use --format csv|pgn|epd|lichess-evals"
    )]
    UnknownFormat(PathBuf),
    /// An input path that is a directory.
    #[error("{0}: is a directory")]
    InputIsDirectory(PathBuf),
    /// A bulk import stopped before its rows were checked for duplicates, and the command
    /// cannot settle it (it opened the database read-only).
    #[error(
        "the bulk import of {file} into {} stopped at line {line} before its rows were \
         checked for duplicates; run `chessgraph import {file}` to finish it (or any command \
         that writes the database, such as `chessgraph analyze`, to check them)",
        db.display()
    )]
    UnfinishedImport {
        /// The database.
        db: PathBuf,
        /// The file being imported, as stored.
        file: String,
        /// The last input line committed.
        line: u64,
    },
    /// A bulk import into the database is running in another process.
    #[error(
        "an import of {file} into {} is running; run this command when it has finished",
        db.display()
    )]
    ImportRunning {
        /// The database.
        db: PathBuf,
        /// The file being imported, as stored.
        file: String,
    },
    /// A name for a labeller's labels that could not be selected by `--labels`.
    #[error("--name {name:?}: {why}")]
    BadLabellerName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// SQLite refused a statement of the user's query (`chessgraph sql`).
    #[error("statement {statement} of the query: {message}")]
    Query {
        /// Its number in the script, from 1.
        statement: u64,
        /// SQLite's message.
        message: String,
    },
    /// A statement of the user's query writes, and the database was opened for reading.
    #[error("statement {statement} of the query writes to the database: give --write to allow it")]
    QueryWrites {
        /// Its number in the script, from 1.
        statement: u64,
    },
    /// `--labels` names no labeller.
    #[error("--labels {0:?}: no labeller named")]
    NoLabeller(String),
    /// `--labels` names a labeller the database has no labels of.
    #[error(
        "no labels by {name:?} in the database (it has: {known}); label positions with `chessgraph label --engine CMD --name {name}`"
    )]
    UnknownLabeller {
        /// The name given.
        name: String,
        /// The labellers the database has, with their counts.
        known: String,
    },
    /// A user's SQL condition (`--where`) is refused.
    #[error(transparent)]
    Condition(#[from] ConditionError),
    /// A model could not be fitted: the data or the features do not allow it, or the
    /// solver failed (the fitting module's typed error, `FitError` of the `fit` module, is the
    /// source).
    #[error("fit failed")]
    Fit {
        /// The fitting module's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
        /// Whether the data or features the user chose are what does not allow it (not
        /// the solver's failure).
        users: bool,
    },
}

impl Error {
    /// Whether the error is the user's (a bad name, value, condition or input), not the
    /// program's or the system's: a server answers these `400`.
    pub fn is_users(&self) -> bool {
        match self {
            Error::Core(e) => e.is_users(),
            Error::Fit { users, .. } => *users,
            _ => matches!(
                self,
                Error::Condition(_)
                    | Error::NoLabeller(_)
                    | Error::BadLabellerName { .. }
                    | Error::Query { .. }
                    | Error::QueryWrites { .. }
                    | Error::UnknownLabeller { .. }
                    | Error::EvaluatorExists(_)
                    | Error::UnknownFormat(_)
                    | Error::InputIsDirectory(_)
            ),
        }
    }

    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        chessgraph_core::Error::io(path, source).into()
    }
}

/// Result alias for the store and the stages above it.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a condition is refused.
/// (Checked by the `filter` module.)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConditionError {
    /// Nothing but spaces.
    #[error("empty --where condition (give an SQL expression such as `phase >= 12`)")]
    Empty,
    /// Longer than the longest condition accepted.
    #[error("--where condition of {len} bytes: at most {max}")]
    TooLong {
        /// Its length.
        len: usize,
        /// The most accepted.
        max: usize,
    },
    /// Not one expression: a `;`, a comment, a parameter, an unbalanced parenthesis or
    /// an unterminated string.
    #[error("--where {condition:?}: {why}; give one SQL condition on positions/features columns")]
    NotOneExpression {
        /// The condition.
        condition: String,
        /// What was found.
        why: String,
    },
    /// SQLite refused the query it is part of (unknown column, syntax error).
    #[error(
        "invalid --where condition {condition:?}: {why} (columns of positions and features can be used, e.g. \"phase >= 12 AND eval_cp BETWEEN -300 AND 300\")"
    )]
    Invalid {
        /// The condition.
        condition: String,
        /// SQLite's message.
        why: String,
    },
    /// The authorizer refused something the condition does.
    #[error("--where {condition:?}: {what} is not allowed in a condition ({allowed})")]
    NotAllowed {
        /// The condition.
        condition: String,
        /// What was refused (`function printf`, `reading table sqlite_schema`, ...).
        what: String,
        /// What is allowed instead.
        allowed: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::Error as CoreError;

    /// A failed import's writer, and the core's corruption and bugs, are not the user's.
    #[test]
    fn corruption_and_bugs_are_not_the_users() {
        let not_users: [Error; 3] = [
            CoreError::WriterStopped.into(),
            CoreError::Stored {
                what: "split_meta".into(),
                why: "bad percentage -3".into(),
            }
            .into(),
            CoreError::Internal("bench FEN x: bad FEN".into()).into(),
        ];
        for e in &not_users {
            assert!(!e.is_users(), "{e:?}");
        }
    }

    /// A bad option, name or condition given by the user is the user's, at either level.
    #[test]
    fn bad_values_are_the_users() {
        let users: [Error; 5] = [
            Error::NoLabeller("x".into()),
            Error::Condition(ConditionError::Empty),
            Error::UnknownFormat("x.bin".into()),
            CoreError::Invalid("--range must be positive".into()).into(),
            CoreError::NoData("no games in the database".into()).into(),
        ];
        for e in &users {
            assert!(e.is_users(), "{e:?}");
        }
    }
}
