//! Matches between two UCI engines (`chessgraph match`), refereed here: every move is
//! checked with shakmaty, clocks are measured around each `go` (so process latency counts
//! against the engine), and games end by the rules — checkmate, stalemate, insufficient
//! material, threefold repetition, the fifty-move rule — or by an illegal move, a time
//! forfeit, an engine failure, or adjudication ([`Adjudication`]: the endgame tables, a
//! draw rule, a ply limit — each only when asked for).
//!
//! Each opening is played twice with colours swapped, so an opening's bias cancels out.
//!
//! Files: this one (engines, clocks, the referee's game loop), `record` (game records,
//! PGN, summary, Elo), `adjudicate` (when a game may end early). Openings are read by
//! [`chessgraph_core::data::openings`].

mod adjudicate;
mod record;

pub use adjudicate::{Adjudication, DrawRule, DrawRuleError};
pub use chessgraph_core::data::openings::{default_openings, parse_openings, read_openings};
pub use record::{GameRecord, PgnGame, Summary, Termination, elo};

use chessgraph_core::Error as CoreError;
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color, Move, Position};

use chessgraph_core::chess::fen::to_fen;
use chessgraph_core::chess::moves::uci;
use chessgraph_core::chess::{game, hash};
use chessgraph_engine::engines::client::{Engine, EngineFailure};
use chessgraph_engine::engines::info::{Analysis, parse_info};
use chessgraph_store::Result;

/// How an engine is started and configured.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// Name in the output and the PGN.
    pub name: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// `setoption` name/value pairs sent after `uci`.
    pub options: Vec<(String, String)>,
}

/// How long engines may think.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// A clock: `base` per game (or per `moves` moves), plus `increment` per move.
    Clock {
        /// Time on the clock at the start (and added every `moves` moves).
        base: Duration,
        /// Added after every move.
        increment: Duration,
        /// Moves per period (`movestogo`), or sudden death.
        moves: Option<u32>,
    },
    /// A fixed time per move (`go movetime`).
    MoveTime(Duration),
    /// A fixed depth (`go depth`).
    Depth(u32),
    /// A fixed node count (`go nodes`).
    Nodes(u64),
}

/// A clock (`--tc`) that is not `moves/seconds+increment`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad time control {0:?} (expected like 1+0.01, 10, or 40/60+0.5)")]
pub struct ClockError(pub String);

impl TimeControl {
    /// Parses `40/60+0.5` (moves/seconds+increment), `1+0.01`, `10` (seconds).
    pub fn parse_clock(s: &str) -> std::result::Result<TimeControl, ClockError> {
        let bad = || ClockError(s.to_owned());
        let (moves, rest) = match s.split_once('/') {
            Some((m, r)) => (Some(m.trim().parse::<u32>().map_err(|_| bad())?), r),
            None => (None, s),
        };
        let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let secs = |v: &str| -> std::result::Result<Duration, ClockError> {
            let f: f64 = v.trim().parse().map_err(|_| bad())?;
            if !(0.0..=86_400.0).contains(&f) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(f))
        };
        let base = secs(base)?;
        if base.is_zero() || moves == Some(0) {
            return Err(bad());
        }
        Ok(TimeControl::Clock {
            base,
            increment: secs(inc)?,
            moves,
        })
    }

    /// A short description (`1+0.01`, `movetime 100 ms`, ...).
    pub fn describe(&self) -> String {
        match *self {
            TimeControl::Clock {
                base,
                increment,
                moves,
            } => format!(
                "{}{}+{}",
                moves.map_or(String::new(), |m| format!("{m}/")),
                base.as_secs_f64(),
                increment.as_secs_f64()
            ),
            TimeControl::MoveTime(t) => format!("movetime {} ms", t.as_millis()),
            TimeControl::Depth(d) => format!("depth {d}"),
            TimeControl::Nodes(n) => format!("nodes {n}"),
        }
    }
}

/// Match settings.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Number of games (openings are used in order, each twice with colours swapped).
    pub games: usize,
    /// Thinking time.
    pub tc: TimeControl,
    /// Start positions.
    pub openings: Vec<Chess>,
    /// When games may end before the rules end them.
    pub adjudication: Adjudication,
}

/// Starts engine `spec` (handshake, options, `isready`); failures name the engine and
/// quote the end of its standard error.
pub fn start(spec: &EngineSpec) -> Result<Engine> {
    Engine::start(&spec.name, &spec.command, &spec.options).map_err(|e| {
        CoreError::Engine {
            what: format!("{}: cannot start", spec.name),
            source: e.into(),
        }
        .into()
    })
}

/// Plays the match; `on_game` sees every finished game with the summary so far. An engine
/// that fails loses that game and is restarted for the next. With an SPRT, games `2k − 1`
/// and `2k` (one opening, colours swapped) are a pair, and the match ends when the test
/// decides or at `games`.
pub fn run(
    specs: &[EngineSpec; 2],
    opts: &MatchOptions,
    on_game: &mut dyn FnMut(&GameRecord, &Summary),
) -> Result<Summary> {
    if opts.openings.is_empty() {
        return Err(CoreError::Invalid("match: no opening positions".into()).into());
    }
    let mut engines: [Option<Engine>; 2] = [None, None];
    let mut summary = Summary::default();
    for number in 1..=opts.games {
        let opening = &opts.openings[((number - 1) / 2) % opts.openings.len()];
        // The first engine has White in odd games.
        let white = usize::from(number % 2 == 0);
        if number == 1 {
            // An engine that cannot start at all is an error, not a lost game.
            for (slot, spec) in engines.iter_mut().zip(specs) {
                *slot = Some(start(spec)?);
            }
        }
        let (record, loser) = play_game(
            specs,
            &mut engines,
            number,
            white,
            opening,
            opts.tc,
            &opts.adjudication,
        );
        summary.add(&record, loser);
        on_game(&record, &summary);
    }
    Ok(summary)
}

/// Plays one game between `specs` (engine `white`, 0 or 1, has White) from `opening`,
/// with the running engines in `engines`: a missing one is started first; one that cannot
/// start, or fails during the game, loses it and is left stopped (so the next game
/// restarts it). Returns the game and the engine that lost by a fault, if any.
pub fn play_game(
    specs: &[EngineSpec; 2],
    engines: &mut [Option<Engine>; 2],
    number: usize,
    white: usize,
    opening: &Chess,
    tc: TimeControl,
    adjudication: &Adjudication,
) -> (GameRecord, Option<usize>) {
    let mut failed_start = None;
    for (i, slot) in engines.iter_mut().enumerate() {
        if slot.is_none() {
            match start(&specs[i]) {
                Ok(e) => *slot = Some(e),
                Err(e) => failed_start = Some((i, e.to_string())),
            }
        }
    }
    let (record, loser) = match failed_start {
        Some((i, why)) => (
            GameRecord {
                number,
                white,
                start: opening.clone(),
                moves: Vec::new(),
                evals: Vec::new(),
                white_score: if i == white { 0.0 } else { 1.0 },
                termination: Termination::EngineFailure(why),
            },
            Some(i),
        ),
        None => play(engines, white, number, opening, tc, adjudication),
    };
    if let Some(l) = loser
        && matches!(record.termination, Termination::EngineFailure(_))
    {
        engines[l] = None; // restarted before the next game
    }
    (record, loser)
}

/// Plays one game; returns it and the engine that lost by a fault, if any.
fn play(
    engines: &mut [Option<Engine>; 2],
    white: usize,
    number: usize,
    start: &Chess,
    tc: TimeControl,
    adjudication: &Adjudication,
) -> (GameRecord, Option<usize>) {
    let mut game = Game::new(start, number, white, tc);
    for e in engines.iter_mut().flatten() {
        // A failure here shows when that engine is asked for its first move.
        let _ = e.send("ucinewgame").and_then(|()| e.ready());
    }
    loop {
        if let Some(record) = game.over(adjudication) {
            return (record, None);
        }
        if let Some((record, mover)) = game.next_move(engines) {
            return (record, Some(mover));
        }
    }
}

/// A game in progress: the board, the moves and their evaluations, the position keys
/// (for repetitions) and the clocks.
struct Game<'a> {
    number: usize,
    /// The engine (0 or 1) that has White.
    white: usize,
    start: &'a Chess,
    start_fen: String,
    tc: TimeControl,
    pos: Chess,
    moves: Vec<Move>,
    evals: Vec<Option<Analysis>>,
    keys: Vec<u64>,
    /// Time left, White's then Black's (zero without a clock).
    clock: [Duration; 2],
    increment: Duration,
    /// Moves per period, if the clock has periods.
    period: Option<u32>,
}

impl<'a> Game<'a> {
    /// The game `number` from `start`, engine `white` having White, no move played.
    fn new(start: &'a Chess, number: usize, white: usize, tc: TimeControl) -> Game<'a> {
        let pos = start.clone();
        let keys = vec![hash::key(&pos)];
        let (clock, increment, period) = match tc {
            TimeControl::Clock {
                base,
                increment,
                moves,
            } => ([base; 2], increment, moves),
            _ => ([Duration::ZERO; 2], Duration::ZERO, None),
        };
        Game {
            number,
            white,
            start,
            start_fen: to_fen(start),
            tc,
            pos,
            moves: Vec::new(),
            evals: Vec::new(),
            keys,
            clock,
            increment,
            period,
        }
    }

    /// The record of the game as it ended, its moves and evaluations taken.
    fn record(&mut self, white_score: f64, termination: Termination) -> GameRecord {
        GameRecord {
            number: self.number,
            white: self.white,
            start: self.start.clone(),
            moves: std::mem::take(&mut self.moves),
            evals: std::mem::take(&mut self.evals),
            white_score,
            termination,
        }
    }

    /// The game's record when the position on the board ends it, by the rules or by
    /// adjudication.
    fn over(&mut self, adjudication: &Adjudication) -> Option<GameRecord> {
        // Rules first: the position on the board may already be over.
        if let Some(end) = game::outcome(&self.pos, &self.keys[..self.keys.len() - 1]) {
            let why = Termination::Rule(end.termination);
            return Some(self.record(end.white_score(), why));
        }
        if let Some((white_score, why)) = adjudication.verdict(&self.pos, &self.evals) {
            return Some(self.record(white_score, why));
        }
        None
    }

    /// Asks the side to move's engine for its move and plays it; when the engine fails,
    /// runs out of time or answers an illegal move, the game's record and that engine.
    fn next_move(&mut self, engines: &mut [Option<Engine>; 2]) -> Option<(GameRecord, usize)> {
        let side = self.pos.turn();
        let mover = if side == Color::White {
            self.white
        } else {
            1 - self.white
        };
        let loss = if side == Color::White { 0.0 } else { 1.0 };
        let engine = engines[mover].as_mut().expect("engines started");
        let position = self.position_command();
        let (go, timeout) = go_command(
            self.tc,
            &self.clock,
            self.increment,
            self.period,
            self.moves.len(),
            side,
        );
        let (answer, eval, elapsed) = think(engine, &position, &go, timeout);
        let line = match answer {
            Ok(line) => line,
            Err(e) => {
                let why = if matches!(self.tc, TimeControl::Clock { .. })
                    && elapsed >= self.clock[mover_index(side)]
                {
                    Termination::TimeForfeit
                } else {
                    Termination::EngineFailure(e.to_string())
                };
                return Some((self.record(loss, why), mover));
            }
        };
        if !self.charge_clock(side, elapsed) {
            return Some((self.record(loss, Termination::TimeForfeit), mover));
        }
        let text = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let Some(m) = chessgraph_core::chess::moves::parse_uci(&self.pos, &text) else {
            return Some((self.record(loss, Termination::IllegalMove(text)), mover));
        };
        self.pos.play_unchecked(m);
        self.moves.push(m);
        self.evals.push(eval);
        self.keys.push(hash::key(&self.pos));
        None
    }

    /// The `position fen … moves …` command for the board as it stands.
    fn position_command(&self) -> String {
        let mut position = format!("position fen {}", self.start_fen);
        if !self.moves.is_empty() {
            position.push_str(" moves");
            for &m in &self.moves {
                position.push(' ');
                position.push_str(&uci(&m));
            }
        }
        position
    }

    /// Charges `elapsed` to `side`'s clock and adds the increment (and the base time at a
    /// new period); false when the time ran out. Without a clock, nothing is charged.
    fn charge_clock(&mut self, side: Color, elapsed: Duration) -> bool {
        if let TimeControl::Clock { .. } = self.tc {
            let c = &mut self.clock[mover_index(side)];
            if elapsed > *c {
                return false;
            }
            *c = *c - elapsed + self.increment;
            // A new period adds the base time again.
            if let (Some(n), TimeControl::Clock { base, .. }) = (self.period, self.tc) {
                let own_moves = self.moves.len() / 2 + 1;
                if own_moves.is_multiple_of(n as usize) {
                    *c += base;
                }
            }
        }
        true
    }
}

/// Sends `position` and `go` to `engine` and waits up to `timeout` for its `bestmove`:
/// returns the answer, the search's evaluation and the time the engine took.
fn think(
    engine: &mut Engine,
    position: &str,
    go: &str,
    timeout: Duration,
) -> (
    std::result::Result<String, EngineFailure>,
    Option<Analysis>,
    Duration,
) {
    let sent = Instant::now();
    // The last exact score of the search (a bound only when there is none), kept for
    // the PGN's `[%eval]` comments.
    let (mut exact, mut bound) = (None, None);
    let answer = engine
        .send(position)
        .and_then(|()| engine.send(go))
        .and_then(|()| {
            engine.wait_for_with("bestmove", timeout, &mut |line| {
                if let Ok(Some((a, is_bound))) = parse_info(line) {
                    *(if is_bound { &mut bound } else { &mut exact }) = Some(a);
                }
            })
        });
    let elapsed = sent.elapsed();
    (answer, exact.or(bound), elapsed)
}

fn mover_index(side: Color) -> usize {
    if side == Color::White { 0 } else { 1 }
}

/// The `go` command for the side to move and how long to wait for its answer.
fn go_command(
    tc: TimeControl,
    clock: &[Duration; 2],
    increment: Duration,
    period: Option<u32>,
    plies: usize,
    side: Color,
) -> (String, Duration) {
    let grace = Duration::from_secs(2);
    match tc {
        TimeControl::Clock { .. } => {
            let ms = |d: Duration| d.as_millis();
            let mut go = format!(
                "go wtime {} btime {} winc {} binc {}",
                ms(clock[0]),
                ms(clock[1]),
                ms(increment),
                ms(increment)
            );
            if let Some(n) = period {
                let own_moves = plies / 2;
                let to_go = n as usize - own_moves % n as usize;
                go.push_str(&format!(" movestogo {to_go}"));
            }
            (go, clock[mover_index(side)] + grace)
        }
        TimeControl::MoveTime(t) => (format!("go movetime {}", t.as_millis()), t * 3 + grace),
        TimeControl::Depth(d) => (format!("go depth {d}"), Duration::from_secs(300)),
        TimeControl::Nodes(n) => (format!("go nodes {n}"), Duration::from_secs(300)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        assert_eq!(
            TimeControl::parse_clock("1+0.01").unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(1),
                increment: Duration::from_millis(10),
                moves: None
            }
        );
        assert_eq!(
            TimeControl::parse_clock("40/60").unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(60),
                increment: Duration::ZERO,
                moves: Some(40)
            }
        );
        for bad in ["", "x", "0", "1+y", "0/10", "-1+0", "1+-2"] {
            assert!(TimeControl::parse_clock(bad).is_err(), "{bad}");
        }
        assert_eq!(
            TimeControl::parse_clock("1+0.01").unwrap().describe(),
            "1+0.01"
        );
    }

    #[test]
    fn elo_by_hand() {
        // 75 %: 400·log10(3) = 190.85 Elo.
        let (s, e, _) = elo(50, 0, 0);
        assert_eq!(s, 1.0);
        assert!(e.is_nan());
        let (s, e, err) = elo(60, 30, 10);
        assert!((s - 0.75).abs() < 1e-12);
        assert!((e - 400.0 * 3f64.log10()).abs() < 1e-9, "{e}");
        // Per-game variance: (60·.0625 + 30·.0625 + 10·.5625) / 100 = .1125; se = .03354.
        let se = (0.1125f64 / 100.0).sqrt();
        let want = (-400.0 * (1.0 / (0.75 + 1.96 * se) - 1.0).log10()
            + 400.0 * (1.0 / (0.75 - 1.96 * se) - 1.0).log10())
            / 2.0;
        assert!((err - want).abs() < 1e-9, "{err} vs {want}");
        let (s, e, _) = elo(0, 10, 0);
        assert_eq!((s, e), (0.5, 0.0));
    }

    #[test]
    fn pgn_of_a_short_game() {
        let start = Chess::default();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] {
            let m = chessgraph_core::chess::moves::parse_uci(&pos, uci).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        let g = GameRecord {
            number: 1,
            white: 1,
            start,
            moves,
            evals: Vec::new(),
            white_score: 0.0,
            termination: Termination::Rule(game::Termination::Checkmate),
        };
        assert_eq!(g.score_of(0), 1.0);
        let pgn = g.pgn(["A", "B"], "1+0");
        assert!(
            pgn.contains("[White \"B\"]") && pgn.contains("[Black \"A\"]"),
            "{pgn}"
        );
        assert!(pgn.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");

        // With scores: the score of the search after each move labels the position after
        // it, from White's view (Black's +35 after 1. f3 is -0.35; Black mating is #-1).
        let a = |cp: Option<i32>, mate: Option<i32>| {
            Some(Analysis {
                cp,
                mate,
                depth: Some(3),
                nodes: None,
            })
        };
        let scored = GameRecord {
            evals: vec![a(Some(10), None), a(Some(35), None), None, a(None, Some(1))],
            ..g
        };
        let pgn = scored.pgn(["A", "B"], "1+0");
        assert!(
            pgn.contains("1. f3 { [%eval -0.35] } 1... e5 2. g4 { [%eval #-1] } 2... Qh4# 0-1"),
            "{pgn}"
        );
    }
}
