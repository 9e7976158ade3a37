//! A UCI engine as a [`Labeller`]: `position fen …`, `go nodes N` (or depth), and the
//! score of the last `info` line before `bestmove`.

use std::time::Duration;

use super::{Analysis, Labelled, Labeller, LabellingError};
use chessgraph_engine::engines::client::{Engine, EngineFailure};
use chessgraph_engine::engines::info::parse_info;

/// How far the engine searches each position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Go {
    /// `go nodes N`.
    Nodes(u64),
    /// `go depth D`.
    Depth(u32),
}

impl Go {
    fn command(self) -> String {
        match self {
            Go::Nodes(n) => format!("go nodes {n}"),
            Go::Depth(d) => format!("go depth {d}"),
        }
    }
}

/// The UCI options a labeller is started with: `given`, and `Threads=1` and `Hash=16`
/// unless given (many engines labelling at once share the cores; names compare as UCI's,
/// without case).
pub fn options_with_defaults(given: &[(String, String)]) -> Vec<(String, String)> {
    let mut options = given.to_vec();
    for (k, v) in [("Threads", "1"), ("Hash", "16")] {
        if !options.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)) {
            options.push((k.to_owned(), v.to_owned()));
        }
    }
    options
}

/// A running UCI engine that labels positions.
pub struct UciLabeller {
    engine: Engine,
    go: Go,
    timeout: Duration,
}

impl UciLabeller {
    /// Starts `command` (program and arguments), sets `options` (name, value), and checks
    /// that it answers `isready`.
    pub fn start(
        command: &[String],
        options: &[(String, String)],
        go: Go,
        timeout: Duration,
    ) -> Result<UciLabeller, LabellingError> {
        let engine = Engine::start("labeller", command, options).map_err(failure)?;
        Ok(UciLabeller {
            engine,
            go,
            timeout,
        })
    }
}

fn failure(e: EngineFailure) -> LabellingError {
    match e {
        EngineFailure::Timeout(m) => LabellingError::Timeout(m),
        EngineFailure::Exited(m) => LabellingError::Crashed(m),
    }
}

impl Labeller for UciLabeller {
    fn analyse(&mut self, fen: &str) -> Result<Labelled, LabellingError> {
        // Each position is its own search: no hash carried over from the last one.
        self.engine.send("ucinewgame").map_err(failure)?;
        self.engine
            .send(&format!("position fen {fen}"))
            .map_err(failure)?;
        self.engine.send(&self.go.command()).map_err(failure)?;
        let mut exact: Option<Analysis> = None;
        let mut bound: Option<Analysis> = None;
        loop {
            let line = self.engine.read_line(self.timeout).map_err(failure)?;
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("info") => {
                    if let Some((a, is_bound)) = parse_info(&line)? {
                        if is_bound {
                            bound = Some(a);
                        } else {
                            exact = Some(a);
                        }
                    }
                }
                Some("bestmove") => {
                    // A bound is only a side of the score: the last exact one is preferred.
                    let analysis = exact.or(bound).ok_or_else(|| {
                        LabellingError::Garbage(format!("bestmove without a score for {fen}"))
                    })?;
                    // `0000` and `(none)` say there is no move.
                    let best_move = tokens
                        .next()
                        .filter(|m| m.len() >= 4 && *m != "0000" && *m != "(none)")
                        .map(str::to_owned);
                    return Ok(Labelled {
                        analysis,
                        best_move,
                    });
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_and_hash_default_unless_given() {
        let given = vec![("threads".to_owned(), "4".to_owned())];
        let options = options_with_defaults(&given);
        assert_eq!(
            options,
            vec![
                ("threads".to_owned(), "4".to_owned()),
                ("Hash".to_owned(), "16".to_owned())
            ]
        );
        assert_eq!(options_with_defaults(&[]).len(), 2);
    }
}
