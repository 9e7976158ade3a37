//! One puzzle file's results in a `chessgraph solve` run: the mate problems' reports, the
//! best-move puzzles' reports and the unreadable lines; the printed summary and the JSON
//! record (stored in `runs` and printed by `--json`).

use std::fmt;
use std::time::Duration;

use serde_json::json;

use super::bestmove::{Attempt, MoveReport, SuiteSummary};
use super::puzzles::{BadPuzzle, SolveReport, Summary};

/// What one file gave.
#[derive(Clone, Debug, Default)]
pub struct FileResult {
    /// The file as given on the command line.
    pub file: String,
    /// Mate problems, in input order.
    pub mates: Vec<SolveReport>,
    /// Best-move puzzles, in input order.
    pub moves: Vec<MoveReport>,
    /// Lines that could not be read.
    pub bad: Vec<BadPuzzle>,
}

impl FileResult {
    /// An empty result for `file` with its unreadable lines.
    pub fn new(file: String, bad: Vec<BadPuzzle>) -> FileResult {
        FileResult {
            file,
            bad,
            ..FileResult::default()
        }
    }

    /// Adds one puzzle's outcome.
    pub fn push(&mut self, attempt: Attempt) {
        match attempt {
            Attempt::Mate(r) => self.mates.push(r),
            Attempt::BestMove(r) => self.moves.push(r),
        }
    }

    /// Solved puzzles, of both kinds.
    pub fn solved(&self) -> usize {
        self.mates.iter().filter(|r| r.verdict.is_solved()).count()
            + self.moves.iter().filter(|r| r.score.solved).count()
    }

    /// Puzzles attempted, of both kinds.
    pub fn attempted(&self) -> usize {
        self.mates.len() + self.moves.len()
    }

    /// Time spent on the puzzles (mate searches and players; not the referee).
    pub fn time(&self) -> Duration {
        self.mates.iter().map(|r| r.time).sum::<Duration>()
            + self.moves.iter().map(|r| r.time).sum::<Duration>()
    }

    /// The mate problems' summary, if there are any.
    pub fn mate_summary(&self) -> Option<Summary> {
        (!self.mates.is_empty()).then(|| Summary::new(&self.mates, self.bad.len()))
    }

    /// The best-move puzzles' summary, if there are any.
    pub fn suite_summary(&self) -> Option<SuiteSummary> {
        (!self.moves.is_empty()).then(|| SuiteSummary::new(&self.moves))
    }

    /// The record: totals over both kinds (`solved`, `attempted`, `unreadable`), the mate
    /// problems' counts and times by N, the best-move puzzles' solved/total, points and
    /// groups, every best-move position (`positions`: moves in UCI) and the unreadable
    /// lines. `run` holds the player and limits, copied in.
    pub fn record(&self, run: &serde_json::Value) -> serde_json::Value {
        let mut v = json!({
            "file": self.file,
            "solved": self.solved(),
            "attempted": self.attempted(),
            "unreadable": self.bad.len(),
        });
        if let Some(o) = run.as_object() {
            for (k, x) in o {
                v[k] = x.clone();
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        if let Some(s) = self.mate_summary() {
            v["mate_solved"] = s.solved.into();
            v["mate_attempted"] = s.attempted.into();
            v["other_key"] = s.other_key.into();
            v["missed"] = s.missed.into();
            v["timeouts"] = s.timeouts.into();
            v["unverified"] = s.unverified.into();
            v["median_ms"] = ms(s.median).into();
            v["max_ms"] = ms(s.max).into();
            for g in &s.by_n {
                v[format!("mate{}_solved", g.n)] = format!("{}/{}", g.solved, g.total).into();
                v[format!("mate{}_median_ms", g.n)] = ms(g.median).into();
            }
        }
        if let Some(s) = self.suite_summary() {
            v["bm_solved"] = s.all.solved.into();
            v["bm_total"] = s.all.total.into();
            if s.all.with_points > 0 {
                v["points"] = s.all.points.into();
                v["max_points"] = s.all.max_points.into();
            }
            v["bm_ms_per_position"] = (ms(s.all.time) / s.all.total as f64).into();
            v["groups"] = s.groups.iter().map(|g| g.to_json()).collect();
            v["positions"] = self.moves.iter().map(|r| r.to_json()).collect();
        }
        v["bad_lines"] = self
            .bad
            .iter()
            .map(|b| json!({"line": b.line, "reason": b.reason}))
            .collect();
        v
    }
}

/// The summaries: the mate problems' (as `solve` always printed it) and the best-move
/// suite's, each when there are such puzzles.
impl fmt::Display for FileResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = self.mate_summary() {
            writeln!(f, "{s}")?;
        }
        if let Some(s) = self.suite_summary() {
            write!(f, "{s}")?;
        }
        Ok(())
    }
}
