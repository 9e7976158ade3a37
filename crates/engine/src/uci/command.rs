//! UCI commands: parsing input lines into [`Command`]s (typed [`UciError`] for malformed
//! input), and turning `position` and `go` into a [`Game`] and search [`Limits`].

use std::time::Duration;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use crate::search::{Clock, Limits};
use chessgraph_core::chess::fen::{self, Leniency};
use chessgraph_core::chess::hash;

/// Why an input line was refused (the engine answers `info string error: …` and goes on).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    /// The first word is no UCI command.
    #[error("unknown command {0:?}")]
    UnknownCommand(String),
    /// `go` with a parameter UCI does not have.
    #[error("go: unknown parameter {0:?}")]
    UnknownGoParameter(String),
    /// A `go` parameter without its value.
    #[error("go {0}: missing value")]
    MissingValue(String),
    /// A `go` parameter whose value is not a number.
    #[error("go {key}: {value:?} is not a valid number")]
    BadNumber {
        /// The parameter.
        key: String,
        /// What was given.
        value: String,
    },
    /// A command whose words are out of order or missing.
    #[error("{0}")]
    Syntax(String),
    /// `position fen` with a FEN that is not a legal position.
    #[error("position fen {fen:?}: {reason}")]
    BadFen {
        /// The FEN given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `position … moves` with a move that is illegal where it is played (the moves
    /// before it are kept).
    #[error(
        "position: move {number} ({uci}) is illegal; the position after the moves before it is kept"
    )]
    IllegalMove {
        /// 1-based index in the move list.
        number: usize,
        /// The move as given.
        uci: String,
    },
    /// `go searchmoves` with a move that is illegal in the position.
    #[error("go searchmoves: {0} is illegal here")]
    IllegalSearchMove(String),
}

/// Parameters of `go`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Go {
    /// White's remaining time.
    pub wtime: Option<Duration>,
    /// Black's remaining time.
    pub btime: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Depth limit.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Fixed time per move.
    pub movetime: Option<Duration>,
    /// Look for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder (until `ponderhit` or `stop`).
    pub ponder: bool,
    /// Restrict the root moves.
    pub searchmoves: Vec<UciMove>,
}

/// One parsed UCI command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`
    Uci,
    /// `debug on|off`
    Debug(bool),
    /// `isready`
    IsReady,
    /// `setoption name <name> [value <value>]`
    SetOption {
        /// Option name as given.
        name: String,
        /// Value, if any.
        value: Option<String>,
    },
    /// `register ...` (accepted and ignored).
    Register,
    /// `ucinewgame`
    UciNewGame,
    /// `position startpos|fen <fen> [moves ...]`
    Position {
        /// FEN, or `None` for the start position.
        fen: Option<String>,
        /// Moves played from it.
        moves: Vec<UciMove>,
    },
    /// `go ...`
    Go(Go),
    /// `stop`
    Stop,
    /// `ponderhit`
    PonderHit,
    /// `quit`
    Quit,
}

fn number<T: std::str::FromStr>(key: &str, value: Option<&str>) -> Result<T, UciError> {
    let v = value.ok_or_else(|| UciError::MissingValue(key.to_owned()))?;
    v.parse().map_err(|_| UciError::BadNumber {
        key: key.to_owned(),
        value: v.to_owned(),
    })
}

fn millis(key: &str, value: Option<&str>) -> Result<Duration, UciError> {
    // GUIs may send negative remaining time when a clock has run out: clamp to 0.
    let v: i64 = number(key, value)?;
    Ok(Duration::from_millis(v.max(0) as u64))
}

/// Parses one input line. `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, UciError> {
    let mut tokens = line.split_whitespace();
    let Some(head) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let cmd = match head {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "register" => Command::Register,
        "debug" => match rest.first() {
            Some(&"on") => Command::Debug(true),
            Some(&"off") | None => Command::Debug(false),
            Some(other) => {
                return Err(UciError::Syntax(format!(
                    "debug: expected on or off, got {other:?}"
                )));
            }
        },
        "setoption" => parse_setoption(&rest)?,
        "position" => parse_position(&rest)?,
        "go" => Command::Go(parse_go(&rest)?),
        other => return Err(UciError::UnknownCommand(other.to_owned())),
    };
    Ok(Some(cmd))
}

fn parse_setoption(rest: &[&str]) -> Result<Command, UciError> {
    if rest.first() != Some(&"name") {
        return Err(UciError::Syntax("setoption: expected \"name\"".into()));
    }
    let value_at = rest.iter().position(|&t| t == "value");
    let name_tokens = &rest[1..value_at.unwrap_or(rest.len())];
    if name_tokens.is_empty() {
        return Err(UciError::Syntax("setoption: empty option name".into()));
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Command::SetOption {
        name: name_tokens.join(" "),
        value,
    })
}

fn parse_position(rest: &[&str]) -> Result<Command, UciError> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let spec = &rest[..moves_at.unwrap_or(rest.len())];
    let fen = match spec.first() {
        Some(&"startpos") if spec.len() == 1 => None,
        Some(&"startpos") => {
            return Err(UciError::Syntax(
                "position startpos: unexpected tokens".into(),
            ));
        }
        Some(&"fen") if spec.len() > 1 => Some(spec[1..].join(" ")),
        Some(&"fen") => return Err(UciError::Syntax("position fen: missing FEN".into())),
        Some(other) => {
            return Err(UciError::Syntax(format!(
                "position: expected startpos or fen, got {other:?}"
            )));
        }
        None => {
            return Err(UciError::Syntax(
                "position: expected startpos or fen".into(),
            ));
        }
    };
    let moves = match moves_at {
        Some(i) => rest[i + 1..]
            .iter()
            .map(|t| {
                t.parse::<UciMove>()
                    .map_err(|_| UciError::Syntax(format!("position: {t:?} is not a UCI move")))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(Command::Position { fen, moves })
}

fn parse_go(rest: &[&str]) -> Result<Go, UciError> {
    let mut go = Go::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let value = rest.get(i + 1).copied();
        let mut consumed = 2;
        match key {
            "wtime" => go.wtime = Some(millis(key, value)?),
            "btime" => go.btime = Some(millis(key, value)?),
            "winc" => go.winc = Some(millis(key, value)?),
            "binc" => go.binc = Some(millis(key, value)?),
            "movestogo" => go.movestogo = Some(number(key, value)?),
            "depth" => go.depth = Some(number(key, value)?),
            "nodes" => go.nodes = Some(number(key, value)?),
            "movetime" => go.movetime = Some(millis(key, value)?),
            "mate" => go.mate = Some(number(key, value)?),
            "infinite" => {
                go.infinite = true;
                consumed = 1;
            }
            "ponder" => {
                go.ponder = true;
                consumed = 1;
            }
            "searchmoves" => {
                // Every following token that parses as a move.
                let mut j = i + 1;
                while let Some(m) = rest.get(j).and_then(|t| t.parse::<UciMove>().ok()) {
                    go.searchmoves.push(m);
                    j += 1;
                }
                consumed = j - i;
            }
            other => return Err(UciError::UnknownGoParameter(other.to_owned())),
        }
        i += consumed;
    }
    Ok(go)
}

/// The current game: a start position and the moves played.
#[derive(Debug, Clone, Default)]
pub struct Game {
    /// Position to search.
    pub position: Chess,
    /// Keys of the earlier positions, oldest first.
    pub history: Vec<u64>,
}

impl Game {
    /// Builds the game of a `position` command. A FEN that is not a legal position is
    /// refused; a move list is checked move by move and, as Stockfish does, its legal
    /// prefix is kept: the game and the refused move's error come back together.
    pub fn from_command(
        fen: Option<&str>,
        moves: &[UciMove],
    ) -> Result<(Game, Option<UciError>), UciError> {
        let mut position: Chess = match fen {
            None => Chess::default(),
            // A GUI's FEN with castling rights or an en passant square that do not fit
            // the board: dropped (as most engines do) rather than refusing the position.
            Some(f) => {
                fen::parse(f, Leniency::DropCastlingAndEp).map_err(|e| UciError::BadFen {
                    fen: f.to_owned(),
                    reason: match e {
                        fen::FenError::Syntax(r) | fen::FenError::Illegal(r) => r,
                    },
                })?
            }
        };
        let mut history = Vec::with_capacity(moves.len());
        for (i, uci) in moves.iter().enumerate() {
            let Ok(m) = uci.to_move(&position) else {
                let refused = UciError::IllegalMove {
                    number: i + 1,
                    uci: uci.to_string(),
                };
                return Ok((Game { position, history }, Some(refused)));
            };
            history.push(hash::key(&position));
            position.play_unchecked(m);
        }
        Ok((Game { position, history }, None))
    }
}

/// Converts `go` parameters for the side to move of `pos`.
pub fn limits(go: &Go, pos: &Chess) -> Result<Limits, UciError> {
    let white = pos.turn().is_white();
    let (time, inc) = if white {
        (go.wtime, go.winc)
    } else {
        (go.btime, go.binc)
    };
    let mut searchmoves = Vec::new();
    for uci in &go.searchmoves {
        let m = uci
            .to_move(pos)
            .map_err(|_| UciError::IllegalSearchMove(uci.to_string()))?;
        searchmoves.push(m);
    }
    Ok(Limits {
        depth: go.depth,
        nodes: go.nodes,
        soft_nodes: None,
        movetime: go.movetime,
        mate: go.mate,
        infinite: go.infinite,
        ponder: go.ponder,
        clock: time.map(|time| Clock {
            time,
            inc: inc.unwrap_or_default(),
            movestogo: go.movestogo,
        }),
        searchmoves,
    })
}
