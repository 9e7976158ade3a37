//! What a match produces: game records with their termination and PGN, the running
//! summary, and the Elo estimate.

use serde::Serialize;
use shakmaty::{Chess, Color, Move, Position};

use chessgraph_core::chess::game::Termination as RuleEnd;
use chessgraph_core::chess::pgn::Record;
use chessgraph_engine::engines::info::Analysis;
use chessgraph_learn::stats::elo::{half_width_95, score_to_elo};

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// By a rule of chess: checkmate, stalemate, insufficient material, fifty moves,
    /// threefold repetition.
    Rule(RuleEnd),
    /// Adjudicated a draw at the ply limit.
    MaxPlies,
    /// Adjudicated by the endgame tables.
    Tablebase,
    /// Adjudicated a draw by the draw rule (level scores).
    DrawRule,
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
            Termination::Rule(t) => t.words().into(),
            Termination::MaxPlies => "adjudicated draw (ply limit)".into(),
            Termination::Tablebase => "adjudicated by tablebase".into(),
            Termination::DrawRule => "adjudicated draw (draw rule)".into(),
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
    /// For each move, the score the engine that played it reported last (its side's
    /// view), when it reported one.
    pub evals: Vec<Option<Analysis>>,
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
        PgnGame {
            event: "chessgraph match",
            round: self.number,
            white: names[self.white],
            black: names[1 - self.white],
            start: &self.start,
            moves: &self.moves,
            evals: &self.evals,
            result: self.result(),
            termination: &self.termination.describe(),
            tc,
        }
        .to_pgn()
    }
}

/// What a PGN game record holds; [`PgnGame::to_pgn`] writes it.
#[derive(Clone, Copy, Debug)]
pub struct PgnGame<'a> {
    /// The `Event` tag.
    pub event: &'a str,
    /// The `Round` tag.
    pub round: usize,
    /// White's name.
    pub white: &'a str,
    /// Black's name.
    pub black: &'a str,
    /// Start position (the `SetUp` and `FEN` tags when it is not the standard one).
    pub start: &'a Chess,
    /// The moves, legal from `start`.
    pub moves: &'a [Move],
    /// The engines' scores per move (see [`GameRecord::evals`]); may be empty.
    pub evals: &'a [Option<Analysis>],
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'a str,
    /// Why the game ended (the `Termination` tag).
    pub termination: &'a str,
    /// The `TimeControl` tag.
    pub tc: &'a str,
}

impl PgnGame<'_> {
    /// The game as PGN ([`chessgraph_core::chess::pgn`]), followed by a blank line.
    pub fn to_pgn(&self) -> String {
        let (round, plies) = (self.round.to_string(), self.moves.len().to_string());
        let mut text = Record {
            roster: &[
                ("Event", self.event),
                ("Round", &round),
                ("White", self.white),
                ("Black", self.black),
            ],
            extra: &[
                ("TimeControl", self.tc),
                ("PlyCount", &plies),
                ("Termination", self.termination),
            ],
            start: self.start,
            moves: self.moves,
            result: self.result,
        }
        .write_with_comments(|i, after| {
            // The score of the search made in the position this move leads to: the
            // position after the move is labelled, as in Lichess's PGN.
            let eval = self.evals.get(i + 1).copied().flatten()?;
            Some(format!("[%eval {}]", eval_comment(eval, after.turn())))
        });
        text.push('\n');
        text
    }
}

/// An engine's score (the side to move's view, `turn`) as a Lichess `[%eval]` value:
/// pawns from White's view (`0.35`, `-1.20`), or `#N` / `#-N` for White / Black mating.
pub fn eval_comment(a: Analysis, turn: Color) -> String {
    let sign = if turn == Color::White { 1 } else { -1 };
    match (a.mate, a.cp) {
        (Some(m), _) => format!("#{}", m * sign),
        (None, Some(cp)) => format!("{:.2}", f64::from(cp * sign) / 100.0),
        (None, None) => "0.00".into(),
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
    /// Counts game `g`; `loser` is the engine that lost it by a fault, if one did.
    pub fn add(&mut self, g: &GameRecord, loser: Option<usize>) {
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
    let var = (wins as f64 * (1.0 - s).powi(2)
        + draws as f64 * (0.5 - s).powi(2)
        + losses as f64 * s.powi(2))
        / n;
    let se = (var / n).sqrt();
    (s, score_to_elo(s), half_width_95(s, se))
}
