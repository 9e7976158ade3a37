//! One game in play: its id, its moves and status, how it ended, and how the API shows
//! it (SAN and UCI moves, legal moves, the engine's thinking, PGN).

use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Move, Position};

use chessgraph_core::chess::fen::to_fen;
use chessgraph_core::chess::game::outcome;
use chessgraph_core::chess::hash;
use chessgraph_core::chess::moves::uci;
use chessgraph_core::chess::pgn::Record;
use chessgraph_engine::search::{Info, Score};

/// A game's id: 128 bits from the system's random source, shown as 32 hex digits, so
/// that no client can guess another's game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct GameId(u128);

impl GameId {
    /// A fresh id from the system's random source (`/dev/urandom`).
    pub(super) fn random() -> std::io::Result<GameId> {
        use std::io::Read;
        let mut bytes = [0u8; 16];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        Ok(GameId(u128::from_le_bytes(bytes)))
    }

    /// The id `text` shows (32 hex digits), if it is one.
    pub(super) fn parse(text: &str) -> Option<GameId> {
        if text.len() != 32 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(text, 16).ok().map(GameId)
    }
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// The client an address belongs to, for engine budgets and games' owners: every
/// loopback address is one client (binding more of 127.0.0.0/8 makes no new client), an
/// IPv4-mapped IPv6 address is its IPv4 address, and an IPv6 address its /64.
pub(super) fn client_key(ip: IpAddr) -> IpAddr {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    if ip.is_loopback() {
        return IpAddr::from([127, 0, 0, 1]);
    }
    match ip {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        v4 => v4,
    }
}

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
    /// Who started the game ([`client_key`]): its engine time counts against this
    /// client's budget, and only this client sees it.
    pub(super) client: IpAddr,
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
pub(super) fn state(id: GameId, game: &Game) -> Value {
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
        "id": id.to_string(),
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

/// The game as PGN ([`chessgraph_core::chess::pgn`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_are_random_and_read_back() {
        let a = GameId::random().unwrap();
        let b = GameId::random().unwrap();
        assert_ne!(a, b);
        let text = a.to_string();
        assert_eq!(text.len(), 32);
        assert_eq!(GameId::parse(&text), Some(a));
        for bad in ["", "1", "+0000000000000000000000000000001", &"g".repeat(32)] {
            assert_eq!(GameId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_loopback_address_is_one_client() {
        let one = client_key(IpAddr::from([127, 0, 0, 1]));
        for ip in ["127.0.0.2", "127.9.8.7", "::1", "::ffff:127.0.0.5"] {
            assert_eq!(client_key(ip.parse().unwrap()), one, "{ip}");
        }
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!(client_key(v4), v4);
        assert_ne!(client_key("10.0.0.2".parse().unwrap()), v4);
        assert_eq!(client_key("::ffff:10.0.0.1".parse().unwrap()), v4);
        assert_eq!(
            client_key("2001:db8::1".parse().unwrap()),
            client_key("2001:db8::ffff:2".parse().unwrap())
        );
    }
}
