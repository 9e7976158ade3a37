//! Best-move test suites (Win at Chess, ECM, STS, ...): a player chooses a move in each
//! position under fixed limits, and the move is scored against the EPD operations.
//!
//! - Solved when the move is one of the `bm` moves (if any are given) and none of the
//!   `am` moves. A puzzle with STS-style `c0` points and no `bm` is solved by a move with
//!   the most points.
//! - Points (STS): the chosen move's points from `c0` (0 when not listed), out of the
//!   largest value there; summed over the puzzles that have points.
//! - Puzzles are grouped by the part of their `id` before a final `.NNN`
//!   (`STS(v1.0) Undermine.001` is in `STS(v1.0) Undermine`).
//!
//! Mate problems (`dm N`) go to the mate search or to [`play_mate`]; [`Contestant`] picks.

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::json;
use shakmaty::Move;

use super::lichess::{LichessPuzzle, LineReport};
use super::puzzles::{Puzzle, SolveReport, Solver, play_mate};
use chessgraph_core::chess::fen::normalized_fen;
use chessgraph_core::chess::moves::uci;
use chessgraph_core::data::notation::san;
use chessgraph_engine::players::Player;
use chessgraph_engine::search::Limits;

/// How a move scores on a best-move puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveScore {
    /// In `bm` (when given) and not in `am`.
    pub solved: bool,
    /// The move's `c0` points and the most any move gets, when the puzzle has points.
    pub points: Option<(u32, u32)>,
}

/// Scores `played` (`None`: no move) on `puzzle`.
pub fn score(puzzle: &Puzzle, played: Option<Move>) -> MoveScore {
    let max = puzzle.points.iter().map(|&(_, p)| p).max();
    let points = max.map(|max| {
        let got = puzzle
            .points
            .iter()
            .find(|&&(m, _)| Some(m) == played)
            .map_or(0, |&(_, p)| p);
        (got, max)
    });
    let solved = played.is_some_and(|m| {
        let best = if !puzzle.best_moves.is_empty() {
            puzzle.best_moves.contains(&m)
        } else {
            // No bm: the top-scored moves are the best ones; with no points, any move.
            points.is_none_or(|(got, max)| got == max)
        };
        best && !puzzle.avoid_moves.contains(&m)
    });
    MoveScore { solved, points }
}

/// The outcome of one best-move puzzle.
#[derive(Clone, Debug)]
pub struct MoveReport {
    /// The puzzle's name.
    pub id: String,
    /// Its input line.
    pub line: u64,
    /// The position as EPD (four fields).
    pub epd: String,
    /// `bm` moves in SAN, then `am` moves as `not X`, space-separated.
    pub expected: String,
    /// `bm` moves in UCI.
    pub best_uci: Vec<String>,
    /// `am` moves in UCI.
    pub avoid_uci: Vec<String>,
    /// The move played (`None`: the player had none).
    pub played: Option<Move>,
    /// The move played in SAN (`-` if none).
    pub played_san: String,
    /// The move played in UCI (`-` if none).
    pub played_uci: String,
    /// Its score.
    pub score: MoveScore,
    /// Time the player took.
    pub time: Duration,
    /// Nodes the player searched (0 for players that do not search).
    pub nodes: u64,
    /// Depth the player reached (0 for players that do not search).
    pub depth: u32,
}

impl MoveReport {
    /// The report of `played` on `puzzle`.
    pub fn new(puzzle: &Puzzle, played: Option<Move>) -> MoveReport {
        let pos = &puzzle.position;
        let sans = |moves: &[Move], prefix: &str| {
            moves
                .iter()
                .map(|&m| format!("{prefix}{}", san(pos, m)))
                .collect::<Vec<_>>()
        };
        let mut expected = sans(&puzzle.best_moves, "");
        expected.extend(sans(&puzzle.avoid_moves, "not "));
        if expected.is_empty() {
            let max = puzzle.points.iter().map(|&(_, p)| p).max();
            let top: Vec<Move> = puzzle
                .points
                .iter()
                .filter(|&&(_, p)| Some(p) == max)
                .map(|&(m, _)| m)
                .collect();
            expected = sans(&top, "");
        }
        let ucis = |moves: &[Move]| moves.iter().map(uci).collect::<Vec<_>>();
        MoveReport {
            id: puzzle.id.clone(),
            line: puzzle.line,
            epd: normalized_fen(pos),
            expected: expected.join(" "),
            best_uci: ucis(&puzzle.best_moves),
            avoid_uci: ucis(&puzzle.avoid_moves),
            played,
            played_san: played.map_or("-".to_owned(), |m| san(pos, m)),
            played_uci: played.map_or("-".to_owned(), |m| uci(&m)),
            score: score(puzzle, played),
            time: Duration::ZERO,
            nodes: 0,
            depth: 0,
        }
    }

    /// The report as JSON (moves in UCI and SAN, time in ms).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({
            "line": self.line,
            "id": self.id,
            "epd": self.epd,
            "bm": self.best_uci,
            "am": self.avoid_uci,
            "played": self.played_uci,
            "played_san": self.played_san,
            "solved": self.score.solved,
            "time_ms": ms(self.time),
            "nodes": self.nodes,
            "depth": self.depth,
        });
        if let Some((got, max)) = self.score.points {
            v["points"] = got.into();
            v["max_points"] = max.into();
        }
        v
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Lets `player` choose a move in `puzzle` under `limits`, from a fresh game (so the move
/// does not depend on the puzzles before it), and scores it.
pub fn play(player: &mut dyn Player, puzzle: &Puzzle, limits: &Limits) -> MoveReport {
    player.new_game();
    let start = Instant::now();
    let result = player.choose(&puzzle.position, &[], limits, &mut |_| {});
    let mut report = MoveReport::new(puzzle, result.best);
    report.time = start.elapsed();
    report.nodes = result.nodes;
    report.depth = result.depth;
    report
}

/// The group of an id like `STS(v1.0) Undermine.001`: the part before a final `.` and
/// digits; `None` for ids of another form.
pub fn group_of(id: &str) -> Option<&str> {
    let (name, number) = id.rsplit_once('.')?;
    let name = name.trim_end();
    (!name.is_empty() && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then_some(name)
}

/// What one puzzle gave: a mate problem's report or a best-move puzzle's.
#[derive(Clone, Debug)]
pub enum Attempt {
    /// A `dm N` puzzle (or PGN line ending in mate).
    Mate(SolveReport),
    /// Any other puzzle.
    BestMove(MoveReport),
}

/// Who answers the puzzles: a player, and for mate problems the engine's mate search
/// when the player is the engine.
pub struct Contestant {
    player: Box<dyn Player>,
    mate_search: Option<Solver>,
    limits: Limits,
}

impl Contestant {
    /// `player` chooses under `limits`; `mate_search` (the engine's) solves the mate
    /// problems when given, else the player plays them and the mate search referees.
    pub fn new(player: Box<dyn Player>, mate_search: Option<Solver>, limits: Limits) -> Self {
        Contestant {
            player,
            mate_search,
            limits,
        }
    }

    /// The player's spec.
    pub fn name(&self) -> String {
        self.player.name()
    }

    /// Plays one Lichess puzzle, every move of the line by the player (no mate search).
    pub fn attempt_line(&mut self, puzzle: &LichessPuzzle) -> LineReport {
        super::lichess::play(self.player.as_mut(), puzzle, &self.limits)
    }

    /// Answers one puzzle.
    pub fn attempt(&mut self, puzzle: &Puzzle) -> Attempt {
        match (puzzle.mate_in, &mut self.mate_search) {
            (Some(_), Some(solver)) => Attempt::Mate(solver.solve(puzzle)),
            (Some(_), None) => Attempt::Mate(play_mate(self.player.as_mut(), puzzle, &self.limits)),
            (None, _) => Attempt::BestMove(play(self.player.as_mut(), puzzle, &self.limits)),
        }
    }
}

/// Totals of a group of best-move puzzles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteStats {
    /// The group's name (`all` for the whole suite).
    pub name: String,
    /// Solved puzzles.
    pub solved: usize,
    /// Puzzles.
    pub total: usize,
    /// Points scored, over the puzzles that have points.
    pub points: u32,
    /// The most points possible.
    pub max_points: u32,
    /// Puzzles with points.
    pub with_points: usize,
    /// The players' time, summed.
    pub time: Duration,
}

impl SuiteStats {
    fn add(&mut self, r: &MoveReport) {
        self.total += 1;
        self.solved += usize::from(r.score.solved);
        if let Some((got, max)) = r.score.points {
            self.points += got;
            self.max_points += max;
            self.with_points += 1;
        }
        self.time += r.time;
    }

    /// As JSON (time in ms).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({
            "name": self.name,
            "solved": self.solved,
            "total": self.total,
            "time_ms": ms(self.time),
        });
        if self.with_points > 0 {
            v["points"] = self.points.into();
            v["max_points"] = self.max_points.into();
        }
        v
    }
}

/// A best-move suite's result: the misses, per-group and overall totals.
#[derive(Clone, Debug)]
pub struct SuiteSummary {
    /// The groups by id prefix, in order of first appearance (empty unless there are two
    /// or more).
    pub groups: Vec<SuiteStats>,
    /// The whole suite.
    pub all: SuiteStats,
    /// The unsolved puzzles, in input order.
    pub misses: Vec<MoveReport>,
}

impl SuiteSummary {
    /// Totals of `reports`.
    pub fn new(reports: &[MoveReport]) -> SuiteSummary {
        let mut groups: Vec<SuiteStats> = Vec::new();
        let mut all = SuiteStats {
            name: "all".to_owned(),
            ..SuiteStats::default()
        };
        for r in reports {
            all.add(r);
            let name = group_of(&r.id).unwrap_or("other");
            let i = match groups.iter().position(|g| g.name == name) {
                Some(i) => i,
                None => {
                    groups.push(SuiteStats {
                        name: name.to_owned(),
                        ..SuiteStats::default()
                    });
                    groups.len() - 1
                }
            };
            groups[i].add(r);
        }
        if groups.len() < 2 {
            groups.clear();
        }
        let misses = reports
            .iter()
            .filter(|r| !r.score.solved)
            .cloned()
            .collect();
        SuiteSummary {
            groups,
            all,
            misses,
        }
    }
}

/// The misses (line, id, expected, played, points, position), then solved/total, points
/// and time per group and for the suite.
impl fmt::Display for SuiteSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id_width = self.misses.iter().map(|r| r.id.len()).max().unwrap_or(2);
        writeln!(f, "missed {} of {}:", self.misses.len(), self.all.total)?;
        if !self.misses.is_empty() {
            writeln!(
                f,
                " line  {:<id_width$}  {:<14}  {:<8}  {:>6}  position",
                "id", "expected", "played", "points"
            )?;
        }
        for r in &self.misses {
            let points = r
                .score
                .points
                .map_or("-".to_owned(), |(g, m)| format!("{g}/{m}"));
            writeln!(
                f,
                "{:>5}  {:<id_width$}  {:<14}  {:<8}  {:>6}  {}",
                r.line, r.id, r.expected, r.played_san, points, r.epd
            )?;
        }
        let name_width = self
            .groups
            .iter()
            .map(|g| g.name.len())
            .max()
            .unwrap_or(0)
            .max(5);
        writeln!(
            f,
            "{:<name_width$}  {:>12}  {:>12}  {:>9}  {:>11}",
            "suite", "solved/total", "points", "time_s", "ms/position"
        )?;
        for g in self.groups.iter().chain([&self.all]) {
            let points = if g.with_points > 0 {
                format!("{}/{}", g.points, g.max_points)
            } else {
                "-".to_owned()
            };
            writeln!(
                f,
                "{:<name_width$}  {:>12}  {:>12}  {:>9.2}  {:>11.1}",
                g.name,
                format!("{}/{}", g.solved, g.total),
                points,
                g.time.as_secs_f64(),
                ms(g.time) / g.total.max(1) as f64
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
