//! What an engine says while it searches: the score, depth and nodes of its `info`
//! lines.

/// An engine's verdict on one position, from the side to move's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Centipawns, or `None` for a mate score.
    pub cp: Option<i32>,
    /// Signed moves to mate.
    pub mate: Option<i32>,
    /// Depth reached.
    pub depth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
}

/// An `info` line that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InfoError(pub String);

/// The score of an `info` line (None when it has none, e.g. `info string` or `currmove`),
/// and whether it is a bound.
pub fn parse_info(line: &str) -> Result<Option<(Analysis, bool)>, InfoError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let bad = || InfoError(format!("unreadable info line: {line}"));
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
                            return Err(InfoError(format!("mate 0 in: {line}")));
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
