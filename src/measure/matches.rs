//! Matches between two UCI engines (`chessgraph match`), refereed here: every move is
//! checked with shakmaty, clocks are measured around each `go` (so process latency counts
//! against the engine), and games end by the rules — checkmate, stalemate, insufficient
//! material, threefold repetition, the fifty-move rule — or by an illegal move, a time
//! forfeit, an engine failure, or adjudication as a draw after `max_plies`.
//!
//! Each opening is played twice with colours swapped, so an opening's bias cancels out.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Outcome, Position};

use crate::search::hash;
use crate::uci::client::Engine;
use crate::{Error, Result};

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

impl TimeControl {
    /// Parses `40/60+0.5` (moves/seconds+increment), `1+0.01`, `10` (seconds).
    pub fn parse_clock(s: &str) -> std::result::Result<TimeControl, String> {
        let bad = || format!("bad time control {s:?} (expected like 1+0.01, 10, or 40/60+0.5)");
        let (moves, rest) = match s.split_once('/') {
            Some((m, r)) => (Some(m.trim().parse::<u32>().map_err(|_| bad())?), r),
            None => (None, s),
        };
        let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let secs = |v: &str| -> std::result::Result<Duration, String> {
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
    /// Adjudicate a draw after this many plies.
    pub max_plies: u32,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Checkmate.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The same position a third time.
    Repetition,
    /// Fifty moves without a capture or a pawn move.
    FiftyMoves,
    /// Adjudicated a draw at the ply limit.
    MaxPlies,
    /// An engine played an illegal or unreadable move (the text).
    IllegalMove(String),
    /// An engine exceeded its clock.
    TimeForfeit,
    /// An engine crashed, hung or broke the protocol (what happened).
    EngineFailure(String),
}

impl Termination {
    /// Short name for output and the PGN `Termination` tag.
    pub fn describe(&self) -> String {
        match self {
            Termination::Checkmate => "checkmate".into(),
            Termination::Stalemate => "stalemate".into(),
            Termination::InsufficientMaterial => "insufficient material".into(),
            Termination::Repetition => "threefold repetition".into(),
            Termination::FiftyMoves => "fifty-move rule".into(),
            Termination::MaxPlies => "adjudicated draw (ply limit)".into(),
            Termination::IllegalMove(m) => format!("illegal move {m:?}"),
            Termination::TimeForfeit => "time forfeit".into(),
            Termination::EngineFailure(why) => format!("engine failure: {why}"),
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 1-based game number.
    pub number: usize,
    /// Index (0 or 1) of the engine that had White.
    pub white: usize,
    /// Start position.
    pub start: Chess,
    /// The moves played.
    pub moves: Vec<Move>,
    /// Score of White: 1, 0.5 or 0.
    pub white_score: f64,
    /// Why it ended.
    pub termination: Termination,
}

impl GameRecord {
    /// Score of engine `i` in this game.
    pub fn score_of(&self, i: usize) -> f64 {
        if i == self.white {
            self.white_score
        } else {
            1.0 - self.white_score
        }
    }

    /// The PGN result string.
    pub fn result(&self) -> &'static str {
        match self.white_score {
            s if s > 0.75 => "1-0",
            s if s < 0.25 => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The game as PGN (SAN moves, the start position in a `FEN` tag).
    pub fn pgn(&self, names: [&str; 2], tc: &str) -> String {
        let fen = Fen::from_position(&self.start, EnPassantMode::Legal);
        let mut out = format!(
            "[Event \"chessgraph match\"]\n[Round \"{}\"]\n[White \"{}\"]\n[Black \"{}\"]\n\
             [Result \"{}\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[TimeControl \"{tc}\"]\n\
             [PlyCount \"{}\"]\n[Termination \"{}\"]\n\n",
            self.number,
            names[self.white],
            names[1 - self.white],
            self.result(),
            self.moves.len(),
            self.termination.describe().replace('"', "'"),
        );
        let mut pos = self.start.clone();
        let mut line = String::new();
        for (i, &m) in self.moves.iter().enumerate() {
            let number = if pos.turn() == Color::White {
                format!("{}. ", pos.fullmoves())
            } else if i == 0 {
                format!("{}... ", pos.fullmoves())
            } else {
                String::new()
            };
            let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
            let token = format!("{number}{san} ");
            if line.len() + token.len() > 80 {
                out.push_str(line.trim_end());
                out.push('\n');
                line.clear();
            }
            line.push_str(&token);
        }
        line.push_str(self.result());
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }
}

/// The match so far, from the first engine's side.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Games played.
    pub games: usize,
    /// Wins of the first engine.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Losses of the first engine.
    pub losses: usize,
    /// The first engine's score, 0..1.
    pub score: f64,
    /// Elo difference of the first engine over the second (NaN at 0 % or 100 %).
    pub elo: f64,
    /// Half-width of the 95 % confidence interval of `elo` (NaN when undefined).
    pub elo_95: f64,
    /// Games lost by an illegal move, by each engine.
    pub illegal_moves: [usize; 2],
    /// Games lost on time, by each engine.
    pub time_losses: [usize; 2],
    /// Games lost by an engine failure, by each engine.
    pub failures: [usize; 2],
    /// Mean game length in plies.
    pub mean_plies: f64,
}

impl Summary {
    fn add(&mut self, g: &GameRecord, loser: Option<usize>) {
        let plies_total = self.mean_plies * self.games as f64 + g.moves.len() as f64;
        self.games += 1;
        self.mean_plies = plies_total / self.games as f64;
        match g.score_of(0) {
            s if s > 0.75 => self.wins += 1,
            s if s < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
        if let Some(l) = loser {
            match g.termination {
                Termination::IllegalMove(_) => self.illegal_moves[l] += 1,
                Termination::TimeForfeit => self.time_losses[l] += 1,
                Termination::EngineFailure(_) => self.failures[l] += 1,
                _ => {}
            }
        }
        (self.score, self.elo, self.elo_95) = elo(self.wins, self.draws, self.losses);
    }
}

/// Score, Elo difference and the half-width of its 95 % interval from a win/draw/loss
/// record (normal approximation of the mean game score).
pub fn elo(wins: usize, draws: usize, losses: usize) -> (f64, f64, f64) {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let s = (wins as f64 + 0.5 * draws as f64) / n;
    let to_elo = |p: f64| {
        if p <= 0.0 || p >= 1.0 {
            f64::NAN
        } else {
            -400.0 * (1.0 / p - 1.0).log10()
        }
    };
    let var = (wins as f64 * (1.0 - s).powi(2)
        + draws as f64 * (0.5 - s).powi(2)
        + losses as f64 * s.powi(2))
        / n;
    let se = (var / n).sqrt();
    let (lo, hi) = (to_elo(s - 1.96 * se), to_elo(s + 1.96 * se));
    (s, to_elo(s), (hi - lo) / 2.0)
}

/// Starts engine `spec` (handshake, options, `isready`); failures name the engine and
/// quote the end of its standard error.
fn start(spec: &EngineSpec) -> Result<Engine> {
    Engine::start(&spec.name, &spec.command, &spec.options)
        .map_err(|e| Error::Invalid(e.to_string()))
}

/// Plays the match; `on_game` sees every finished game with the summary so far. An engine
/// that fails loses that game and is restarted for the next.
pub fn run(
    specs: &[EngineSpec; 2],
    opts: &MatchOptions,
    on_game: &mut dyn FnMut(&GameRecord, &Summary),
) -> Result<Summary> {
    if opts.openings.is_empty() {
        return Err(Error::Invalid("match: no opening positions".into()));
    }
    let mut engines: [Option<Engine>; 2] = [None, None];
    let mut summary = Summary::default();
    for number in 1..=opts.games {
        let opening = &opts.openings[((number - 1) / 2) % opts.openings.len()];
        // The first engine has White in odd games.
        let white = usize::from(number % 2 == 0);
        let mut failed_start = None;
        for (i, slot) in engines.iter_mut().enumerate() {
            if slot.is_none() {
                match start(&specs[i]) {
                    Ok(e) => *slot = Some(e),
                    Err(e) if number == 1 => return Err(e),
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
                    white_score: if i == white { 0.0 } else { 1.0 },
                    termination: Termination::EngineFailure(why),
                },
                Some(i),
            ),
            None => play(&mut engines, white, number, opening, opts),
        };
        if let Some(l) = loser
            && matches!(record.termination, Termination::EngineFailure(_))
        {
            engines[l] = None; // restarted before the next game
        }
        summary.add(&record, loser);
        on_game(&record, &summary);
    }
    Ok(summary)
}

/// Plays one game; returns it and the engine that lost by a fault, if any.
fn play(
    engines: &mut [Option<Engine>; 2],
    white: usize,
    number: usize,
    start: &Chess,
    opts: &MatchOptions,
) -> (GameRecord, Option<usize>) {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut keys = vec![hash::key(&pos)];
    let start_fen = Fen::from_position(start, EnPassantMode::Legal).to_string();
    let (mut clock, increment, period) = match opts.tc {
        TimeControl::Clock {
            base,
            increment,
            moves,
        } => ([base; 2], increment, moves),
        _ => ([Duration::ZERO; 2], Duration::ZERO, None),
    };
    let record = |moves: Vec<Move>, white_score: f64, termination: Termination| GameRecord {
        number,
        white,
        start: start.clone(),
        moves,
        white_score,
        termination,
    };
    for e in engines.iter_mut().flatten() {
        // A failure here shows when that engine is asked for its first move.
        let _ = e.send("ucinewgame").and_then(|()| e.ready());
    }
    loop {
        // Rules first: the position on the board may already be over.
        if let Outcome::Known(outcome) = pos.outcome() {
            let (score, why) = match outcome {
                KnownOutcome::Decisive { winner } => (
                    if winner == Color::White { 1.0 } else { 0.0 },
                    Termination::Checkmate,
                ),
                KnownOutcome::Draw if pos.is_stalemate() => (0.5, Termination::Stalemate),
                KnownOutcome::Draw => (0.5, Termination::InsufficientMaterial),
            };
            return (record(moves, score, why), None);
        }
        let last = *keys.last().expect("start key");
        if keys.iter().filter(|&&k| k == last).count() >= 3 {
            return (record(moves, 0.5, Termination::Repetition), None);
        }
        if pos.halfmoves() >= 100 {
            return (record(moves, 0.5, Termination::FiftyMoves), None);
        }
        if moves.len() >= opts.max_plies as usize {
            return (record(moves, 0.5, Termination::MaxPlies), None);
        }

        let side = pos.turn();
        let mover = if side == Color::White {
            white
        } else {
            1 - white
        };
        let loss = if side == Color::White { 0.0 } else { 1.0 };
        let engine = engines[mover].as_mut().expect("engines started");
        let mut position = format!("position fen {start_fen}");
        if !moves.is_empty() {
            position.push_str(" moves");
            for &m in &moves {
                position.push(' ');
                position.push_str(&UciMove::from_move(m, CastlingMode::Standard).to_string());
            }
        }
        let (go, timeout) = go_command(opts.tc, &clock, increment, period, moves.len(), side);
        let sent = Instant::now();
        let answer = engine
            .send(&position)
            .and_then(|()| engine.send(&go))
            .and_then(|()| engine.wait_for("bestmove", timeout))
            .map_err(|e| Error::Invalid(e.to_string()));
        let elapsed = sent.elapsed();
        let line = match answer {
            Ok(line) => line,
            Err(e) => {
                let why = if matches!(opts.tc, TimeControl::Clock { .. })
                    && elapsed >= clock[mover_index(side)]
                {
                    Termination::TimeForfeit
                } else {
                    Termination::EngineFailure(e.to_string())
                };
                return (record(moves, loss, why), Some(mover));
            }
        };
        if let TimeControl::Clock { .. } = opts.tc {
            let c = &mut clock[mover_index(side)];
            if elapsed > *c {
                return (record(moves, loss, Termination::TimeForfeit), Some(mover));
            }
            *c = *c - elapsed + increment;
            // A new period adds the base time again.
            if let (Some(n), TimeControl::Clock { base, .. }) = (period, opts.tc) {
                let own_moves = moves.len() / 2 + 1;
                if own_moves % n as usize == 0 {
                    *c += base;
                }
            }
        }
        let text = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok());
        let Some(m) = m else {
            return (
                record(moves, loss, Termination::IllegalMove(text)),
                Some(mover),
            );
        };
        pos.play_unchecked(m);
        moves.push(m);
        keys.push(hash::key(&pos));
    }
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

/// Start positions from a file of FENs or EPD lines (one per line, `#` comments, blank
/// lines skipped; the first four or six FEN fields are used). Errors name the line.
pub fn read_openings(path: &Path) -> Result<Vec<Chess>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse_openings(&text)
        .map_err(|(line, why)| Error::Invalid(format!("{}:{line}: {why}", path.display())))
}

/// [`read_openings`] on a text.
pub fn parse_openings(text: &str) -> std::result::Result<Vec<Chess>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A CSV row (`fen,eval`) or an EPD line: the FEN fields come first.
        let fields: Vec<&str> = line
            .split(',')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.len() < 4 || fields[0].eq_ignore_ascii_case("fen") {
            if i == 0
                && fields
                    .first()
                    .is_some_and(|f| f.eq_ignore_ascii_case("fen"))
            {
                continue; // a CSV header
            }
            return Err((i + 1, format!("not a FEN: {line:?}")));
        }
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields[..6].join(" ")
        } else {
            fields[..4].join(" ")
        };
        let pos = crate::data::parse_position(&fen).map_err(|e| (i + 1, e.to_string()))?;
        if pos.is_game_over() {
            return Err((i + 1, "the game is already over in this position".into()));
        }
        out.push(pos);
    }
    if out.is_empty() {
        return Err((0, "no positions".into()));
    }
    Ok(out)
}

/// The built-in openings: the positions of `tests/fixtures/eval-positions-2k.csv` (from
/// the shared sample's games) that Stockfish scored within ±80 cp, in file order.
pub fn default_openings() -> Vec<Chess> {
    include_str!("../../tests/fixtures/eval-positions-2k.csv")
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (fen, eval) = line.rsplit_once(',')?;
            let cp: i32 = eval.trim_start_matches('+').parse().ok()?;
            (cp.abs() <= 80).then(|| crate::data::parse_position(fen).ok())?
        })
        .filter(|p| !p.is_game_over())
        .collect()
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
    fn openings_parse_with_line_numbers() {
        let text = "FEN,Evaluation\n\
                    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,+20\n\
                    # a comment\n\
                    \n\
                    4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"x\";\n";
        let p = parse_openings(text).unwrap();
        assert_eq!(p.len(), 2);
        let err =
            parse_openings("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnonsense\n")
                .unwrap_err();
        assert_eq!(err.0, 2);
        // Checkmate already on the board.
        let err = parse_openings("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
            .unwrap_err();
        assert!(err.1.contains("over"), "{err:?}");
        assert!(default_openings().len() > 100);
    }

    #[test]
    fn pgn_of_a_short_game() {
        let start = Chess::default();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        let g = GameRecord {
            number: 1,
            white: 1,
            start,
            moves,
            white_score: 0.0,
            termination: Termination::Checkmate,
        };
        assert_eq!(g.score_of(0), 1.0);
        let pgn = g.pgn(["A", "B"], "1+0");
        assert!(
            pgn.contains("[White \"B\"]") && pgn.contains("[Black \"A\"]"),
            "{pgn}"
        );
        assert!(pgn.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");
    }
}
