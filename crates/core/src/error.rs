//! Typed errors of the core and the engine: input, files, evaluators, other engines. The
//! store and the stages above it have their own error (`chessgraph_store::Error`), which
//! holds these; the binary wraps both with `anyhow` context.

use std::path::PathBuf;

/// What the core and the engine can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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
    /// CSV could not be written (the I/O error kept as the cause).
    #[error("writing CSV")]
    Csv(#[from] csv::Error),
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
    /// The consumer of a reader's rows (the import's writer thread) stopped: its own error
    /// is the one reported.
    #[error("import writer stopped")]
    WriterStopped,
    /// A bug in chessgraph: something it made or checked itself is not what it should be.
    #[error("internal error: {0} (a bug in chessgraph)")]
    Internal(String),
}

impl Error {
    /// Whether the error is the user's (a bad name, value, condition or input), not the
    /// program's or the system's: a server answers these `400`.
    pub fn is_users(&self) -> bool {
        matches!(
            self,
            Error::Invalid(_)
                | Error::NoData(_)
                | Error::UnknownEvaluator { .. }
                | Error::NoTerms { .. }
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

/// Result alias for the core and the engine.
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
