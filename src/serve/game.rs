//! One game in play: its moves and status, how it ended, and how the API shows it
//! (SAN and UCI moves, legal moves, the engine's thinking, PGN).

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};

use crate::chess::fen::to_fen;
use crate::chess::game::outcome;
use crate::chess::hash;
use crate::chess::moves::uci;
use crate::chess::pgn::Record;
use crate::search::{Info, Score};

/// The engine's view of the position as it thinks (or as it last thought).
#[derive(Debug, Clone, Default)]
pub(super) struct Thought {
    pub(super) depth: u32,
    pub(super) seldepth: u32,
    /// Score from White's point of view.
    pub(super) score: Option<Score>,
    pub(super) nodes: u64,
    pub(super) nps: u64,
    pub(super) time_ms: u64,
    pub(super) pv: Vec<String>,
    pub(super) done: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Human,
    Queued,
    Thinking,
}

pub(super) struct Game {
    pub(super) start: Chess,
    pub(super) moves: Vec<Move>,
    pub(super) human: Color,
    pub(super) player: String,
    pub(super) evaluator: String,
    pub(super) movetime: Duration,
    pub(super) status: Status,
    /// Bumped by every change of the move list: a search for an older one is void.
    pub(super) generation: u64,
    pub(super) thought: Option<Thought>,
    pub(super) error: Option<String>,
    pub(super) touched: Instant,
    /// Who started the game: its engine time counts against this client's budget.
    pub(super) client: std::net::IpAddr,
}

impl Game {
    /// The current position and the keys of the positions before it, oldest first.
    pub(super) fn replay(&self) -> (Chess, Vec<u64>) {
        let mut pos = self.start.clone();
        let mut keys = Vec::with_capacity(self.moves.len());
        for &m in &self.moves {
            keys.push(hash::key(&pos));
            pos.play_unchecked(m);
        }
        (pos, keys)
    }
}

pub(super) fn white_view(score: Score, turn: Color) -> Score {
    match (score, turn) {
        (s, Color::White) => s,
        (Score::Cp(v), Color::Black) => Score::Cp(-v),
        (Score::Mate(n), Color::Black) => Score::Mate(-n),
    }
}

pub(super) fn thought(pos: &Chess, turn: Color, info: &Info) -> Thought {
    let mut p = pos.clone();
    let mut pv = Vec::new();
    for &m in &info.pv {
        if !p.is_legal(m) {
            break;
        }
        pv.push(SanPlus::from_move_and_play_unchecked(&mut p, m).to_string());
    }
    Thought {
        depth: info.depth,
        seldepth: info.seldepth,
        score: Some(white_view(info.score, turn)),
        nodes: info.nodes,
        nps: info.nps(),
        time_ms: info.time.as_millis() as u64,
        pv,
        done: false,
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn score_json(score: Score) -> Value {
    match score {
        Score::Cp(v) => json!({ "cp": v }),
        Score::Mate(n) => json!({ "mate": n }),
    }
}

/// A game as the API shows it.
pub(super) fn state(id: u64, game: &Game) -> Value {
    let (pos, keys) = game.replay();
    let over = outcome(&pos, &keys).map(|e| (e.result(), e.termination.words()));
    let mut sans = Vec::with_capacity(game.moves.len());
    let mut p = game.start.clone();
    for &m in &game.moves {
        let uci = uci(&m);
        let san = SanPlus::from_move_and_play_unchecked(&mut p, m).to_string();
        sans.push(json!({ "uci": uci, "san": san }));
    }
    let status = match (over, game.status) {
        (Some(_), _) => "over",
        (None, Status::Human) if pos.turn() == game.human => "your-move",
        (None, Status::Human) => "engine-idle",
        (None, Status::Queued) => "queued",
        (None, Status::Thinking) => "thinking",
    };
    let legal: Vec<String> = if status == "your-move" {
        pos.legal_moves().iter().map(uci).collect()
    } else {
        Vec::new()
    };
    let thought = game.thought.as_ref().map(|t| {
        json!({
            "depth": t.depth, "seldepth": t.seldepth, "score": t.score.map(score_json),
            "nodes": t.nodes, "nps": t.nps, "time_ms": t.time_ms, "pv": t.pv, "done": t.done,
        })
    });
    let check = pos
        .is_check()
        .then(|| pos.board().king_of(pos.turn()).map(|s| s.to_string()))
        .flatten();
    json!({
        "id": id,
        "start_fen": to_fen(&game.start),
        "fen": to_fen(&pos),
        "turn": color_name(pos.turn()),
        "human": color_name(game.human),
        "player": game.player,
        "evaluator": game.evaluator,
        "movetime_ms": game.movetime.as_millis() as u64,
        "moves": sans,
        "legal": legal,
        "status": status,
        "check": check,
        "result": over.map(|o| o.0),
        "termination": over.map(|o| o.1),
        "thinking": thought,
        "error": game.error,
        "pgn": pgn(game, over.map_or("*", |o| o.0)),
    })
}

/// The game as PGN ([`crate::chess::pgn`]).
fn pgn(game: &Game, result: &str) -> String {
    let engine = format!("chessgraph {} ({})", game.player, game.evaluator);
    let (white, black) = match game.human {
        Color::White => ("you", engine.as_str()),
        Color::Black => (engine.as_str(), "you"),
    };
    Record {
        roster: &[
            ("Event", "chessgraph serve"),
            ("White", white),
            ("Black", black),
        ],
        extra: &[],
        start: &game.start,
        moves: &game.moves,
        result,
    }
    .write()
}
