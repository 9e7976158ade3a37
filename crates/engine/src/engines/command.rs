//! An engine's command line as the user writes it (`--engine`, `--engine1`, ...): split
//! like a POSIX shell does, so a quoted path may hold spaces, and with `chessgraph` as its
//! program word meaning this very program, given the caller's database.

use std::path::Path;

/// Why an engine command line cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The command names no program.
    #[error("{flag} is empty: give the engine's program, e.g. \"/usr/games/stockfish\"")]
    Empty {
        /// The flag the command came from, e.g. `--engine`.
        flag: String,
    },
    /// A quote is opened and never closed (or a backslash ends the text).
    #[error(
        "{flag} {text:?}: a quote is not closed (quote a path with spaces as \"my dir/engine\")"
    )]
    Unbalanced {
        /// The flag the command came from.
        flag: String,
        /// The command as given.
        text: String,
    },
    /// `chessgraph` was the program word but this program's own path is unknown.
    #[error("{flag}: cannot find this program's path to run `chessgraph`")]
    ThisProgram {
        /// The flag the command came from.
        flag: String,
        /// Why the path is unknown.
        #[source]
        source: std::io::Error,
    },
}

/// The program word that means this program.
const THIS_PROGRAM: &str = "chessgraph";

/// Splits `text`, the engine command given with `flag`, into program and arguments with
/// shell quoting (`"..."`, `'...'`, backslashes). A program word `chessgraph` becomes this
/// program's path and, unless the command gives `--db` itself, is followed by
/// `--db <db>`, so the engine reads the same database as the command that starts it.
pub fn parse(flag: &str, text: &str, db: &Path) -> Result<Vec<String>, CommandError> {
    parse_with(flag, text, db, || this_program(flag))
}

/// This program's path, the program word of a command that runs chessgraph itself (what
/// `chessgraph` in a command given with `flag` becomes).
pub fn this_program(flag: &str) -> Result<String, CommandError> {
    std::env::current_exe()
        .map(|exe| exe.display().to_string())
        .map_err(|source| CommandError::ThisProgram {
            flag: flag.to_owned(),
            source,
        })
}

/// [`parse`] with this program's path from `this_program` (called only when needed).
fn parse_with(
    flag: &str,
    text: &str,
    db: &Path,
    this_program: impl FnOnce() -> Result<String, CommandError>,
) -> Result<Vec<String>, CommandError> {
    let mut words = shlex::split(text).ok_or_else(|| CommandError::Unbalanced {
        flag: flag.to_owned(),
        text: text.to_owned(),
    })?;
    if words.first().is_none_or(|w| w.is_empty()) {
        return Err(CommandError::Empty {
            flag: flag.to_owned(),
        });
    }
    if words[0] == THIS_PROGRAM {
        words[0] = this_program()?;
        if !words.iter().any(|w| w == "--db" || w.starts_with("--db=")) {
            words.splice(1..1, ["--db".to_owned(), db.display().to_string()]);
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe() -> Result<String, CommandError> {
        Ok("/opt/cg/bin/chessgraph".to_owned())
    }

    fn split(text: &str) -> Result<Vec<String>, CommandError> {
        parse_with("--engine", text, Path::new("my games.db"), exe)
    }

    #[test]
    fn plain_words_split_at_spaces() {
        assert_eq!(
            split("/usr/games/stockfish  --flag x").unwrap(),
            ["/usr/games/stockfish", "--flag", "x"]
        );
    }

    #[test]
    fn quotes_keep_spaces_in_a_path() {
        assert_eq!(
            split("\"/home/me/my engines/sf\" 'a b' c\\ d").unwrap(),
            ["/home/me/my engines/sf", "a b", "c d"]
        );
    }

    #[test]
    fn an_empty_command_is_an_error_naming_the_flag() {
        for text in ["", "   ", "''"] {
            let e = split(text).unwrap_err();
            assert!(matches!(e, CommandError::Empty { .. }), "{text:?}: {e:?}");
            assert!(e.to_string().starts_with("--engine is empty"), "{e}");
        }
    }

    #[test]
    fn an_unbalanced_quote_is_an_error_naming_the_flag() {
        for text in ["\"/my dir/sf", "sf 'x", "sf \\"] {
            let e = parse_with("--engine2", text, Path::new("x.db"), exe).unwrap_err();
            assert!(
                matches!(e, CommandError::Unbalanced { .. }),
                "{text:?}: {e:?}"
            );
            assert!(e.to_string().starts_with("--engine2 "), "{e}");
            assert!(e.to_string().contains("quote is not closed"), "{e}");
        }
    }

    #[test]
    fn chessgraph_is_this_program_given_the_callers_db() {
        assert_eq!(
            split("chessgraph engine --evaluator mine").unwrap(),
            [
                "/opt/cg/bin/chessgraph",
                "--db",
                "my games.db",
                "engine",
                "--evaluator",
                "mine"
            ]
        );
    }

    #[test]
    fn a_db_in_the_command_is_kept() {
        for given in [["--db", "other.db"].as_slice(), &["--db=other.db"]] {
            let text = format!("chessgraph engine {}", given.join(" "));
            let mut want = vec!["/opt/cg/bin/chessgraph", "engine"];
            want.extend(given);
            assert_eq!(split(&text).unwrap(), want);
        }
    }

    #[test]
    fn other_programs_are_left_alone() {
        // Only the program word is rewritten, and only when it is exactly `chessgraph`.
        assert_eq!(
            split("./chessgraph engine").unwrap(),
            ["./chessgraph", "engine"]
        );
        assert_eq!(split("sf chessgraph").unwrap(), ["sf", "chessgraph"]);
    }

    #[test]
    fn an_unknown_own_path_fails_only_commands_that_need_it() {
        let unknown = || {
            Err(CommandError::ThisProgram {
                flag: "--engine1".to_owned(),
                source: std::io::Error::other("gone"),
            })
        };
        let db = Path::new("x.db");
        let e = parse_with("--engine1", "chessgraph engine", db, unknown).unwrap_err();
        assert!(matches!(e, CommandError::ThisProgram { .. }), "{e:?}");
        assert!(e.to_string().starts_with("--engine1:"), "{e}");
        assert_eq!(parse_with("--engine1", "sf", db, unknown).unwrap(), ["sf"]);
    }
}
