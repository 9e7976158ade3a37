//! A UCI engine as a [`Labeller`]: `position fen …`, `go nodes N` (or depth), and the
//! score of the last `info` line before `bestmove`.

use std::time::Duration;

use super::{Analysis, LabelError, Labeller};
use crate::uci::client::{Engine, EngineFailure};

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
    ) -> Result<UciLabeller, LabelError> {
        let engine = Engine::start("labeller", command, options).map_err(failure)?;
        Ok(UciLabeller {
            engine,
            go,
            timeout,
        })
    }
}

fn failure(e: EngineFailure) -> LabelError {
    match e {
        EngineFailure::Timeout(m) => LabelError::Timeout(m),
        EngineFailure::Exited(m) => LabelError::Crashed(m),
    }
}

impl Labeller for UciLabeller {
    fn analyse(&mut self, fen: &str) -> Result<Analysis, LabelError> {
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
                    return exact.or(bound).ok_or_else(|| {
                        LabelError::Garbage(format!("bestmove without a score for {fen}"))
                    });
                }
                _ => {}
            }
        }
    }
}

/// The score of an `info` line (None when it has none, e.g. `info string` or `currmove`),
/// and whether it is a bound.
pub fn parse_info(line: &str) -> Result<Option<(Analysis, bool)>, LabelError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let bad = || LabelError::Garbage(format!("unreadable info line: {line}"));
    if tokens.get(1) == Some(&"string") {
        return Ok(None);
    }
    let mut a = Analysis {
        cp: None,
        mate: None,
        depth: None,
        nodes: None,
    };
    let mut is_bound = false;
    let mut has_score = false;
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => {
                a.depth = Some(
                    tokens
                        .get(i + 1)
                        .and_then(|t| t.parse().ok())
                        .ok_or_else(bad)?,
                );
                i += 2;
            }
            "nodes" => {
                a.nodes = Some(
                    tokens
                        .get(i + 1)
                        .and_then(|t| t.parse().ok())
                        .ok_or_else(bad)?,
                );
                i += 2;
            }
            "score" => {
                let kind = tokens.get(i + 1).copied();
                let value: i32 = tokens
                    .get(i + 2)
                    .and_then(|t| t.parse().ok())
                    .ok_or_else(bad)?;
                match kind {
                    Some("cp") => a.cp = Some(value),
                    Some("mate") => {
                        // `mate 0` is "mated now", a position with no move: not a label.
                        if value == 0 {
                            return Err(LabelError::Garbage(format!("mate 0 in: {line}")));
                        }
                        a.mate = Some(value);
                    }
                    _ => return Err(bad()),
                }
                has_score = true;
                i += 3;
                if matches!(tokens.get(i), Some(&"lowerbound" | &"upperbound")) {
                    is_bound = true;
                    i += 1;
                }
            }
            // The principal variation ends the fields we read.
            "pv" => break,
            _ => i += 1,
        }
    }
    Ok(has_score.then_some((a, is_bound)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        let (a, b) = parse_info(
            "info depth 8 seldepth 7 multipv 1 score cp 19 upperbound nodes 5002 nps 1 pv d2d4",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (a.cp, a.mate, a.depth, a.nodes, b),
            (Some(19), None, Some(8), Some(5002), true)
        );
        let (a, b) = parse_info("info depth 3 score mate -2 nodes 10 pv e2e4")
            .unwrap()
            .unwrap();
        assert_eq!((a.mate, b), (Some(-2), false));
        assert_eq!(parse_info("info string hello score").unwrap(), None);
        assert_eq!(parse_info("info depth 2 currmove e2e4").unwrap(), None);
        assert!(parse_info("info depth 3 score cp abc").is_err());
        assert!(parse_info("info score mate 0").is_err());
        assert!(parse_info("info score wdl 1 2 3").is_err());
    }
}
