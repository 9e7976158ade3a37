//! Solving Lichess puzzles ([`chessgraph_core::data::lichess_puzzles`]) the way Lichess scores them:
//! the player must find every one of its moves in the line, the opponent's replies are
//! played from the line, and a move that checkmates wins at once (Lichess accepts any
//! mating move, so a puzzle whose line ends in mate is solved by any mate there).
//!
//! The player chooses each move under the run's limits, from a fresh game per puzzle, with
//! the puzzle's earlier positions as its history. Totals by theme and rating band are
//! in `lichess_stats.rs`.

use std::time::{Duration, Instant};

use serde_json::json;
use shakmaty::{Chess, Move, Position};

use chessgraph_core::chess::hash;
use chessgraph_core::chess::moves::uci;
pub use chessgraph_core::data::lichess_puzzles::LichessPuzzle;
use chessgraph_engine::players::Player;
use chessgraph_engine::search::Limits;

/// How one of the player's moves compares with the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The line's move.
    Right,
    /// Another move, but it checkmates: the puzzle is won.
    Mates,
    /// Any other move (or an illegal one): the puzzle is failed.
    Wrong,
}

/// Compares `played` with the line's `expected` move in `pos`.
pub fn check(pos: &Chess, played: Move, expected: Move) -> Step {
    if played == expected {
        return Step::Right;
    }
    if !pos.is_legal(played) {
        return Step::Wrong;
    }
    let mut after = pos.clone();
    after.play_unchecked(played);
    if after.is_checkmate() {
        Step::Mates
    } else {
        Step::Wrong
    }
}

/// A puzzle's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineVerdict {
    /// Every player move right, or a mate on the way.
    pub solved: bool,
    /// The player's moves accepted (right or mating).
    pub right: usize,
}

/// The verdict on the player's moves `played` (in order; the opponent's replies come from
/// the line). Moves after the first wrong or mating one are ignored; too few moves is a
/// failure.
pub fn judge(puzzle: &LichessPuzzle, played: &[Move]) -> LineVerdict {
    let mut pos = puzzle.position.clone();
    let mut right = 0;
    for (pair, &m) in puzzle.solution.chunks(2).zip(played) {
        match check(&pos, m, pair[0]) {
            Step::Right => right += 1,
            Step::Mates => {
                return LineVerdict {
                    solved: true,
                    right: right + 1,
                };
            }
            Step::Wrong => {
                return LineVerdict {
                    solved: false,
                    right,
                };
            }
        }
        for &m in pair {
            pos.play_unchecked(m);
        }
    }
    LineVerdict {
        solved: right == puzzle.player_moves(),
        right,
    }
}

/// The outcome of one puzzle.
#[derive(Clone, Debug)]
pub struct LineReport {
    /// `PuzzleId`.
    pub id: String,
    /// Its input line.
    pub line: u64,
    /// `Rating`.
    pub rating: u32,
    /// `Themes`.
    pub themes: Vec<String>,
    /// The solution in UCI (from the puzzle's position).
    pub solution: Vec<String>,
    /// The player's moves in UCI, up to the first wrong one.
    pub played: Vec<String>,
    /// The verdict.
    pub verdict: LineVerdict,
    /// Time the player took, over all its moves.
    pub time: Duration,
    /// Nodes the player searched (0 for players that do not search).
    pub nodes: u64,
}

impl LineReport {
    /// As JSON (moves in UCI, time in ms).
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "line": self.line,
            "id": self.id,
            "rating": self.rating,
            "themes": self.themes,
            "moves": self.solution,
            "played": self.played,
            "solved": self.verdict.solved,
            "right": self.verdict.right,
            "time_ms": self.time.as_secs_f64() * 1e3,
            "nodes": self.nodes,
        })
    }
}

/// Lets `player` solve `puzzle` under `limits` (each of its moves searched anew), stopping
/// at the first move that is not the line's, and judges it with [`judge`].
pub fn play(player: &mut dyn Player, puzzle: &LichessPuzzle, limits: &Limits) -> LineReport {
    player.new_game();
    let mut pos = puzzle.position.clone();
    let mut history = vec![hash::key(&puzzle.before)];
    let mut played = Vec::with_capacity(puzzle.player_moves());
    let (mut time, mut nodes) = (Duration::ZERO, 0);
    for pair in puzzle.solution.chunks(2) {
        let start = Instant::now();
        let result = player.choose(&pos, &history, limits, &mut |_| {});
        time += start.elapsed();
        nodes += result.nodes;
        let Some(m) = result.best else { break };
        played.push(m);
        if check(&pos, m, pair[0]) != Step::Right {
            break;
        }
        for &m in pair {
            history.push(hash::key(&pos));
            pos.play_unchecked(m);
        }
    }
    LineReport {
        id: puzzle.id.clone(),
        line: puzzle.line,
        rating: puzzle.rating,
        themes: puzzle.themes.clone(),
        solution: puzzle.solution.iter().map(uci).collect(),
        played: played.iter().map(uci).collect(),
        verdict: judge(puzzle, &played),
        time,
        nodes,
    }
}

/// Which puzzles a run takes: a rating range and themes (any of them).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Lowest rating taken.
    pub min_rating: Option<u32>,
    /// Highest rating taken.
    pub max_rating: Option<u32>,
    /// Themes; a puzzle with any of them is taken (none: every puzzle).
    pub themes: Vec<String>,
}

impl Filter {
    /// Whether `puzzle` is taken.
    pub fn accepts(&self, puzzle: &LichessPuzzle) -> bool {
        self.min_rating.is_none_or(|r| puzzle.rating >= r)
            && self.max_rating.is_none_or(|r| puzzle.rating <= r)
            && (self.themes.is_empty() || self.themes.iter().any(|t| puzzle.has_theme(t)))
    }

    /// Whether the filter takes every puzzle.
    pub fn is_empty(&self) -> bool {
        self.min_rating.is_none() && self.max_rating.is_none() && self.themes.is_empty()
    }

    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "min_rating": self.min_rating,
            "max_rating": self.max_rating,
            "themes": self.themes,
        })
    }
}

#[cfg(test)]
mod tests;
