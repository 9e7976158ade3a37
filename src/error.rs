//! Typed errors of the library. The binary wraps them with `anyhow` context.

use std::path::PathBuf;

/// Everything the library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The SQLite database failed.
    #[error("database error")]
    Sqlite(#[from] rusqlite::Error),
    /// Reading or writing a file failed.
    #[error("i/o error on {path}")]
    Io {
        /// The file involved (`-` for standard input).
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// A JSON document (e.g. an evaluator file) could not be read or written.
    #[error("invalid JSON in {path}")]
    Json {
        /// The file involved.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: serde_json::Error,
    },
    /// An evaluator file is well-formed JSON but not a valid evaluator.
    #[error("evaluator file {path}: {reason}")]
    EvaluatorFile {
        /// The file involved.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
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
    /// An input ended or broke part-way (a truncated or corrupt compressed file, an I/O
    /// error): the file as a whole is bad, not one of its rows.
    #[error("the input breaks at line {line} (a truncated or corrupt file?)")]
    BrokenInput {
        /// The line where it broke (1-based, of the decompressed text).
        line: u64,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// A position stored in the database no longer parses: the file was changed outside
    /// chessgraph.
    #[error(
        "stored position {fen:?} no longer parses (the database was changed outside chessgraph)"
    )]
    StoredPosition {
        /// The stored FEN.
        fen: String,
        /// Why it does not parse (the FEN parser's error).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A value could not be encoded as JSON for storage.
    #[error("cannot encode {what} as JSON")]
    Encode {
        /// What was being encoded.
        what: String,
        /// The encoder's error.
        #[source]
        source: serde_json::Error,
    },
    /// A value stored as JSON could not be read back.
    #[error("{what}: unreadable stored JSON")]
    Decode {
        /// What was being read.
        what: String,
        /// The decoder's error.
        #[source]
        source: serde_json::Error,
    },
    /// A UCI engine (match side, labeller) failed to start or to answer.
    #[error("engine {what}")]
    Engine {
        /// Which engine, and what it was doing.
        what: String,
        /// The engine's failure.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
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
    /// CSV could not be written (the I/O error kept as the cause).
    #[error("writing CSV")]
    Csv(#[from] csv::Error),
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
    /// The import's writer thread stopped (its own error is the one reported).
    #[error("import writer stopped")]
    WriterStopped,
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
    /// An evaluator name that is no built-in, no file and (with a database) no stored one.
    #[error("unknown evaluator {name:?}: not a built-in ({builtins}), {where_}")]
    UnknownEvaluator {
        /// The name given.
        name: String,
        /// The built-in names.
        builtins: String,
        /// Where else it was looked for, in words.
        where_: String,
    },
    /// A network evaluator where terms are needed.
    #[error("{name}: a network evaluator has no terms {why}")]
    NoTerms {
        /// The evaluator.
        name: String,
        /// What the terms were wanted for.
        why: String,
    },
    /// A file that is not a Polyglot opening book.
    #[error("book file {path}: {why} (not a Polyglot book)")]
    NotABook {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A user-supplied value (option, name, condition) is invalid.
    #[error("{0}")]
    Invalid(String),
    /// The database, or the part of it the user selected, holds nothing the command can
    /// work on (no games, no positions that match, no examples to fit).
    #[error("{0}")]
    NoData(String),
    /// Data stored in the database that is not a position (a fit's coefficients, a split,
    /// a game's moves) is not what chessgraph wrote: the file was changed outside
    /// chessgraph or is damaged.
    #[error("{what}: {why} (the database was changed outside chessgraph?)")]
    Stored {
        /// What was being read, e.g. `stored fit 3`.
        what: String,
        /// What is wrong with it.
        why: String,
    },
    /// A bug in chessgraph: something it made or checked itself is not what it should be.
    #[error("internal error: {0} (a bug in chessgraph)")]
    Internal(String),
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
        if let Error::Fit { users, .. } = self {
            return *users;
        }
        matches!(
            self,
            Error::Invalid(_)
                | Error::NoData(_)
                | Error::Condition(_)
                | Error::UnknownEvaluator { .. }
                | Error::NoTerms { .. }
                | Error::NoLabeller(_)
                | Error::UnknownLabeller { .. }
                | Error::EvaluatorExists(_)
                | Error::UnknownFormat(_)
                | Error::InputIsDirectory(_)
                | Error::NotABook { .. }
        )
    }

    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result alias for the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error and its causes on one line.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

/// Cuts `s` to at most `max` characters (on a char boundary), marking a cut with `…`: the
/// one rule for quoting input of any length in a message.
pub fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// Why a condition is refused.
/// (Checked by `db::filter`.)
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

    fn engine_failure() -> Error {
        Error::Engine {
            what: "of player x: cannot start".into(),
            source: "no such file".into(),
        }
    }

    /// Corruption of the database, an engine's failure and a bug are not the user's: a
    /// server answers them 500, not 400.
    #[test]
    fn corruption_engines_and_bugs_are_not_the_users() {
        let not_users = [
            Error::Stored {
                what: "split_meta".into(),
                why: "bad percentage -3".into(),
            },
            Error::StoredPosition {
                fen: "x".into(),
                source: "bad FEN".into(),
            },
            engine_failure(),
            Error::Internal("bench FEN x: bad FEN".into()),
            Error::WriterStopped,
        ];
        for e in &not_users {
            assert!(!e.is_users(), "{e:?}");
        }
    }

    /// A bad option or value given by the user is the user's.
    #[test]
    fn bad_values_are_the_users() {
        let users = [
            Error::Invalid("--range must be a positive number of centipawns".into()),
            Error::NoLabeller("x".into()),
            Error::Condition(ConditionError::Empty),
            Error::UnknownFormat("x.bin".into()),
            Error::NoData("no games in the database: import a PGN file first".into()),
        ];
        for e in &users {
            assert!(e.is_users(), "{e:?}");
        }
    }

    /// The new variants say what is wrong once, and whose fault it is.
    #[test]
    fn messages_of_stored_data_and_bugs() {
        let stored = Error::Stored {
            what: "stored fit 3".into(),
            why: "a coefficient without an estimate".into(),
        };
        assert_eq!(
            stored.to_string(),
            "stored fit 3: a coefficient without an estimate (the database was changed \
             outside chessgraph?)"
        );
        assert_eq!(
            Error::Internal("bench FEN x: bad".into()).to_string(),
            "internal error: bench FEN x: bad (a bug in chessgraph)"
        );
        assert_eq!(
            error_chain(&engine_failure()),
            "engine of player x: cannot start: no such file"
        );
    }
}
