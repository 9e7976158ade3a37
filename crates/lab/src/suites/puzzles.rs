//! Solving mate problems (read by [`chessgraph_core::data::puzzles`]) and the report.
//!
//! A `dm N` puzzle, or a PGN line ending in mate, is solved by the full-width
//! [`mate_search`](chessgraph_engine::search::mate): any key that mates in at most N counts (reported as
//! another key if it is not the expected one; `am` moves are not consulted, as a key that
//! mates is a solution). Any other [`Player`] plays one move under its limits instead
//! ([`play_mate`]), and the mate search referees it: solved when the move still forces
//! mate in at most N. Puzzles that are not mate problems are best-move puzzles
//! (`suites.rs`).

use std::fmt;
use std::time::{Duration, Instant};

use shakmaty::san::SanPlus;
use shakmaty::{Chess, Move};

pub use chessgraph_core::data::BadPuzzle;
pub use chessgraph_core::data::puzzles::{
    Puzzle, PuzzleFormat, PuzzleSet, load, read, read_epd, read_pgn,
};
use chessgraph_engine::players::Player;
use chessgraph_engine::search::Limits;
use chessgraph_engine::search::mate::{self, MateLimits, MateSearcher};

/// How a puzzle ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The key found is the expected one (or none was given) and mates in ≤ N.
    Solved,
    /// A different key than the expected one, verified to mate in ≤ N.
    SolvedOther,
    /// The time limit ran out first.
    Timeout,
    /// The search proved there is no mate in N (a wrong puzzle, or a bug).
    NoMate,
    /// The found key did not verify (`Some(false)`: it is refuted; `None`: the check ran
    /// out of time). Means a bug in the search.
    Unverified(Option<bool>),
    /// A player's move that does not force mate in N (the mate search refutes it), or no
    /// move at all.
    Missed,
    /// Not a mate problem: a best-move puzzle, not attempted by [`Solver`].
    Skipped,
}

impl Verdict {
    /// Whether the puzzle counts as solved.
    pub fn is_solved(&self) -> bool {
        matches!(self, Verdict::Solved | Verdict::SolvedOther)
    }

    /// Short name used in the report.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Solved => "solved",
            Verdict::SolvedOther => "solved-alt",
            Verdict::Timeout => "timeout",
            Verdict::NoMate => "no-mate",
            Verdict::Unverified(Some(false)) => "refuted",
            Verdict::Unverified(_) => "unverified",
            Verdict::Missed => "missed",
            Verdict::Skipped => "skipped",
        }
    }
}

/// The outcome of one puzzle: one line of the report.
#[derive(Clone, Debug)]
pub struct SolveReport {
    /// The puzzle's name.
    pub id: String,
    /// Its input line.
    pub line: u64,
    /// Mate in N asked for (`None` for non-mate puzzles).
    pub n: Option<u32>,
    /// What happened.
    pub verdict: Verdict,
    /// Expected key(s) in SAN with check marks, space-separated (`-` if none).
    pub expected: String,
    /// The key found, in SAN with check marks.
    pub found: Option<String>,
    /// Length of the mate found.
    pub mate_in: Option<u32>,
    /// Search time (verification not included).
    pub time: Duration,
    /// Search nodes.
    pub nodes: u64,
}

/// Column header matching [`SolveReport`]'s `Display`.
pub const REPORT_HEADER: &str =
    " line   N  result      expected  found     mate    time_ms       nodes  id";

impl fmt::Display for SolveReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.n.map_or("-".to_owned(), |n| n.to_string());
        let mate = self.mate_in.map_or("-".to_owned(), |k| format!("#{k}"));
        write!(
            f,
            "{:>5} {:>3}  {:<10}  {:<8}  {:<8}  {:>4}  {:>9.2}  {:>10}  {}",
            self.line,
            n,
            self.verdict.as_str(),
            self.expected,
            self.found.as_deref().unwrap_or("-"),
            mate,
            self.time.as_secs_f64() * 1000.0,
            self.nodes,
            self.id
        )
    }
}

/// Solves puzzles one after the other, reusing one mate searcher (its table holds facts
/// about positions, valid across puzzles).
pub struct Solver {
    searcher: MateSearcher,
    movetime: Option<Duration>,
}

impl Solver {
    /// A solver with a time limit per puzzle (`None`: until solved or disproven).
    pub fn new(movetime: Option<Duration>) -> Solver {
        Solver {
            searcher: MateSearcher::new(mate::DEFAULT_TT_MB),
            movetime,
        }
    }

    fn limits(&self) -> MateLimits {
        match self.movetime {
            Some(t) => MateLimits::movetime(t),
            None => MateLimits::none(),
        }
    }

    /// Solves one puzzle: a mate search to N, then a check of the key found with a
    /// fresh search.
    pub fn solve(&mut self, puzzle: &Puzzle) -> SolveReport {
        let pos = &puzzle.position;
        let mut report = SolveReport::unsolved(puzzle);
        let Some(n) = puzzle.mate_in else {
            return report;
        };
        let start = Instant::now();
        let result = self.searcher.search(pos, n, &self.limits());
        report.time = start.elapsed();
        report.nodes = result.nodes;
        report.mate_in = result.mate_in;
        report.found = result.best.map(|m| san(pos, m));
        report.verdict = match (result.best, result.mate_in) {
            (Some(key), Some(k)) => match mate::verify_mate(pos, key, k, &self.limits()) {
                Some(true) if puzzle.best_moves.is_empty() || puzzle.best_moves.contains(&key) => {
                    Verdict::Solved
                }
                Some(true) => Verdict::SolvedOther,
                other => Verdict::Unverified(other),
            },
            _ if result.stopped => Verdict::Timeout,
            _ => Verdict::NoMate,
        };
        report
    }
}

impl SolveReport {
    /// The report of `puzzle` before anything was tried: [`Verdict::Skipped`], no move.
    fn unsolved(puzzle: &Puzzle) -> SolveReport {
        SolveReport {
            id: puzzle.id.clone(),
            line: puzzle.line,
            n: puzzle.mate_in,
            verdict: Verdict::Skipped,
            expected: san_list(&puzzle.position, &puzzle.best_moves),
            found: None,
            mate_in: None,
            time: Duration::ZERO,
            nodes: 0,
        }
    }
}

/// Lets `player` choose a move in a mate problem under `limits` (from a fresh game), and
/// referees it with the mate search: [`Verdict::Solved`] (or `SolvedOther`, when it is not
/// the expected key) if the move forces mate in at most N against every defence,
/// [`Verdict::Missed`] if it does not. The referee has no time limit (it proves one move).
/// A puzzle without `dm` is [`Verdict::Skipped`].
pub fn play_mate(player: &mut dyn Player, puzzle: &Puzzle, limits: &Limits) -> SolveReport {
    let pos = &puzzle.position;
    let mut report = SolveReport::unsolved(puzzle);
    let Some(n) = puzzle.mate_in else {
        return report;
    };
    player.new_game();
    let start = Instant::now();
    let result = player.choose(pos, &[], limits, &mut |_| {});
    report.time = start.elapsed();
    report.nodes = result.nodes;
    let Some(key) = result.best else {
        report.verdict = Verdict::Missed;
        return report;
    };
    report.found = Some(san(pos, key));
    let referee = MateLimits::none();
    report.verdict = match mate::verify_mate(pos, key, n, &referee) {
        Some(true) => {
            // The shortest mate this key forces: the first k that verifies.
            report.mate_in = (1..n)
                .find(|&k| mate::verify_mate(pos, key, k, &referee) == Some(true))
                .or(Some(n));
            if puzzle.best_moves.is_empty() || puzzle.best_moves.contains(&key) {
                Verdict::Solved
            } else {
                Verdict::SolvedOther
            }
        }
        Some(false) => Verdict::Missed,
        None => Verdict::Unverified(None),
    };
    report
}

fn san(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

fn san_list(pos: &Chess, moves: &[Move]) -> String {
    if moves.is_empty() {
        return "-".to_owned();
    }
    moves
        .iter()
        .map(|&m| san(pos, m))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Solved/total and times of the puzzles of one N.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupStats {
    /// Mate in N.
    pub n: u32,
    /// Solved puzzles.
    pub solved: usize,
    /// Attempted puzzles.
    pub total: usize,
    /// Median search time.
    pub median: Duration,
    /// Longest search time.
    pub max: Duration,
}

/// Totals of a run: solved/total, and median and max time by N.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Per N, ascending.
    pub by_n: Vec<GroupStats>,
    /// Solved puzzles.
    pub solved: usize,
    /// Mate puzzles attempted.
    pub attempted: usize,
    /// Solved with another key than the expected one.
    pub other_key: usize,
    /// A player's moves that do not mate in N.
    pub missed: usize,
    /// Verdict counts of the unsolved ones.
    pub timeouts: usize,
    /// Puzzles where the search proved no mate in N.
    pub no_mate: usize,
    /// Keys that failed verification.
    pub unverified: usize,
    /// Non-mate puzzles not attempted.
    pub skipped: usize,
    /// Unreadable puzzles.
    pub unreadable: usize,
    /// Median and max time over all attempted puzzles.
    pub median: Duration,
    /// Longest time.
    pub max: Duration,
}

impl Summary {
    /// Totals of `reports`, with `unreadable` puzzles that were skipped when reading.
    pub fn new(reports: &[SolveReport], unreadable: usize) -> Summary {
        let attempted: Vec<&SolveReport> = reports.iter().filter(|r| r.n.is_some()).collect();
        let mut ns: Vec<u32> = attempted.iter().filter_map(|r| r.n).collect();
        ns.sort_unstable();
        ns.dedup();
        let stats = |group: &[&SolveReport]| {
            let mut times: Vec<Duration> = group.iter().map(|r| r.time).collect();
            times.sort_unstable();
            (
                group.iter().filter(|r| r.verdict.is_solved()).count(),
                group.len(),
                median(&times),
                times.last().copied().unwrap_or_default(),
            )
        };
        let by_n = ns
            .iter()
            .map(|&n| {
                let group: Vec<&SolveReport> = attempted
                    .iter()
                    .copied()
                    .filter(|r| r.n == Some(n))
                    .collect();
                let (solved, total, median, max) = stats(&group);
                GroupStats {
                    n,
                    solved,
                    total,
                    median,
                    max,
                }
            })
            .collect();
        let (solved, total, med, max) = stats(&attempted);
        let count = |v: fn(&Verdict) -> bool| reports.iter().filter(|r| v(&r.verdict)).count();
        Summary {
            by_n,
            solved,
            attempted: total,
            other_key: count(|v| *v == Verdict::SolvedOther),
            missed: count(|v| *v == Verdict::Missed),
            timeouts: count(|v| *v == Verdict::Timeout),
            no_mate: count(|v| *v == Verdict::NoMate),
            unverified: count(|v| matches!(v, Verdict::Unverified(_))),
            skipped: count(|v| *v == Verdict::Skipped),
            unreadable,
            median: med,
            max,
        }
    }
}

/// The median of sorted `times` (mean of the two middle ones for an even count).
fn median(times: &[Duration]) -> Duration {
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "solved {}/{} ({} with another key); missed {}, timeout {}, no mate {}, \
             unverified {}; unreadable {}",
            self.solved,
            self.attempted,
            self.other_key,
            self.missed,
            self.timeouts,
            self.no_mate,
            self.unverified,
            self.unreadable
        )?;
        writeln!(f, "    N  solved/total  median_ms     max_ms")?;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        for g in &self.by_n {
            writeln!(
                f,
                "{:>5}  {:>12}  {:>9.2}  {:>9.2}",
                g.n,
                format!("{}/{}", g.solved, g.total),
                ms(g.median),
                ms(g.max)
            )?;
        }
        write!(
            f,
            "  all  {:>12}  {:>9.2}  {:>9.2}",
            format!("{}/{}", self.solved, self.attempted),
            ms(self.median),
            ms(self.max)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epd(text: &str) -> PuzzleSet {
        read_epd(text.as_bytes()).unwrap()
    }

    #[test]
    fn solver_verdicts() {
        let set = epd(
            // Expected key: solved.
            "3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Nd6; id \"key\";\n\
             # A wrong expected key: the mate found is another one.\n\
             3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Qb2; id \"other\";\n\
             # No mate in 1 here.\n\
             3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 1; id \"none\";\n\
             4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; id \"bm\";\n",
        );
        let mut solver = Solver::new(None);
        let reports: Vec<SolveReport> = set.puzzles.iter().map(|p| solver.solve(p)).collect();
        let verdicts: Vec<&str> = reports.iter().map(|r| r.verdict.as_str()).collect();
        assert_eq!(verdicts, ["solved", "solved-alt", "no-mate", "skipped"]);
        assert_eq!(reports[0].found.as_deref(), Some("Nd6"));
        assert_eq!(reports[1].expected, "Qb2+");
        assert_eq!(reports[0].mate_in, Some(2));
        assert!(reports[0].nodes > 0);
        let line = reports[0].to_string();
        assert!(
            line.contains("solved") && line.contains("Nd6") && line.ends_with("key"),
            "{line}"
        );
        let summary = Summary::new(&reports, 3);
        assert_eq!(
            (summary.solved, summary.attempted, summary.other_key),
            (2, 3, 1)
        );
        assert_eq!(
            (summary.no_mate, summary.skipped, summary.unreadable),
            (1, 1, 3)
        );
        assert_eq!(
            summary
                .by_n
                .iter()
                .map(|g| (g.n, g.solved, g.total))
                .collect::<Vec<_>>(),
            [(1, 0, 1), (2, 2, 2)]
        );
    }

    #[test]
    fn a_players_move_is_refereed_by_the_mate_search() {
        use chessgraph_engine::players::{Spec, build};
        let set = epd(
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - dm 1; bm Ra8; id \"back rank\";\n\
             3N1K2/B7/4P3/1Nrpk1P1/1Qn1P3/6P1/2P2P2/8 w - - dm 2; bm Qb2; id \"baird\";\n",
        );
        let seed003 =
            std::sync::Arc::new(chessgraph_engine::eval::Evaluator::builtin("seed003").unwrap());
        let resolve = |s: &str| Ok(chessgraph_engine::eval::Evaluator::by_name_or_path(s)?);
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let mut engine = build(&Spec::parse("engine").unwrap(), seed003.clone(), &resolve).unwrap();
        let r = play_mate(engine.as_mut(), &set.puzzles[0], &limits);
        assert_eq!(
            (r.verdict.as_str(), r.found.as_deref()),
            ("solved", Some("Ra8#"))
        );
        assert_eq!(r.mate_in, Some(1));
        // Random moves: solved exactly when the move is the mate, for many seeds.
        let (mut solved, mut missed) = (0, 0);
        for seed in 0..40 {
            let spec = Spec::parse(&format!("random:seed={seed}")).unwrap();
            let mut random = build(&spec, seed003.clone(), &resolve).unwrap();
            let r = play_mate(random.as_mut(), &set.puzzles[0], &limits);
            let mated = r.found.as_deref() == Some("Ra8#");
            assert_eq!(
                r.verdict,
                if mated {
                    Verdict::Solved
                } else {
                    Verdict::Missed
                }
            );
            if mated {
                solved += 1
            } else {
                missed += 1
            }
            // Baird's keys: Nd6 (the composer's is given wrong here) mates in 2.
            let r = play_mate(random.as_mut(), &set.puzzles[1], &limits);
            let key = r.found.as_deref() == Some("Nd6");
            assert_eq!(
                r.verdict.as_str(),
                if key { "solved-alt" } else { "missed" },
                "{r}"
            );
        }
        assert!(solved > 0 && missed > 0, "{solved} {missed}");
    }

    #[test]
    fn summary_medians_and_maxima_by_n() {
        let report = |n: u32, ms: u64, verdict: Verdict| SolveReport {
            id: String::new(),
            line: 1,
            n: Some(n),
            verdict,
            expected: "-".to_owned(),
            found: None,
            mate_in: None,
            time: Duration::from_millis(ms),
            nodes: 0,
        };
        let reports = [
            report(2, 4, Verdict::Solved),
            report(2, 1, Verdict::Solved),
            report(2, 9, Verdict::Timeout),
            report(3, 10, Verdict::Solved),
            report(3, 20, Verdict::SolvedOther),
        ];
        let s = Summary::new(&reports, 0);
        let ms = Duration::from_millis;
        let group = |n, solved, total, median, max| GroupStats {
            n,
            solved,
            total,
            median: ms(median),
            max: ms(max),
        };
        assert_eq!(s.by_n, [group(2, 2, 3, 4, 9), group(3, 2, 2, 15, 20)]);
        assert_eq!((s.solved, s.attempted, s.timeouts), (4, 5, 1));
        assert_eq!((s.median, s.max), (ms(9), ms(20)));
        let text = s.to_string();
        assert!(
            text.starts_with("solved 4/5 (1 with another key); missed 0, timeout 1"),
            "{text}"
        );
        assert!(
            text.contains("    3           2/2      15.00      20.00"),
            "{text}"
        );
    }
}
