//! Search limits and time allocation.
//!
//! With a clock, the engine first sets aside twice `overhead` (UCI option `Move
//! Overhead`, process and GUI latency): `avail = time − 2 · overhead`. It aims at
//! `target = avail / movestogo + ¾ · inc` (`movestogo` 25 when not given, at most 50),
//! starts no new iteration after half the target (`soft`) and aborts the running
//! iteration at `hard = min(3 · target, share · avail)`, where `share` is ¾ when this is
//! the last move before the time control and ½ otherwise. So the clock never drops below
//! about `2 · overhead + 2 · inc` in a long game, and with `time ≤ 2 · overhead` the
//! engine answers at once (after at most about a thousand nodes) with a legal move.
//!
//! Between iterations the soft limit moves with the search's [`Progress`]: a best move
//! that has held for several iterations and takes most of the nodes ends the search
//! sooner, a new best move, nodes spread over several moves or a falling score let it run
//! longer (never past `hard`).

use std::time::Duration;

use shakmaty::Move;

/// Clock state of the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    /// Remaining time.
    pub time: Duration,
    /// Increment per move.
    pub inc: Duration,
    /// Moves until the next time control, if any.
    pub movestogo: Option<u32>,
}

/// What bounds a search (UCI `go` parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// No new iteration once this many nodes are searched (the iteration under way
    /// finishes, up to `nodes`): data generation's soft node limit.
    pub soft_nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    /// Search until told to stop.
    pub infinite: bool,
    /// Pondering: no time limit until `ponderhit`.
    pub ponder: bool,
    /// Clock of the side to move.
    pub clock: Option<Clock>,
    /// Restrict the root to these moves (empty: all legal moves).
    pub searchmoves: Vec<Move>,
}

/// Time budget of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    /// Do not start a new iteration after this (scaled by [`Progress`] on a clock).
    pub soft: Option<Duration>,
    /// Abort the search at this point.
    pub hard: Option<Duration>,
    /// The time comes from a clock, so the soft limit may move with the search's
    /// [`Progress`]; a fixed `movetime` is used whole.
    pub flexible: bool,
}

impl Budget {
    /// The soft limit scaled by `factor` (see [`Progress`]), never past the hard limit;
    /// unscaled unless the budget is [`flexible`](Budget::flexible).
    pub fn soft_scaled(&self, factor: f64) -> Option<Duration> {
        let soft = self.soft?;
        if !self.flexible {
            return Some(soft);
        }
        let scaled = soft.mul_f64(factor.max(0.0));
        Some(self.hard.map_or(scaled, |hard| scaled.min(hard)))
    }
}

/// Iterations from which [`Progress`] scales the soft limit (earlier ones are too quick
/// and too noisy to judge by).
const PROGRESS_MIN_DEPTH: u32 = 5;

/// How the search has gone, iteration by iteration, for time management: a search stops
/// early when its best move has stayed the same for several iterations and takes most of
/// the root's nodes, and goes on longer when the best move changes, the nodes spread over
/// several moves, or the score falls.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    best: Option<Move>,
    /// Iterations since the best move last changed.
    stable: u32,
    /// The previous iteration's score.
    score: Option<i32>,
}

impl Progress {
    /// Records finished iteration `depth`: its best move, its score (centipawns, side to
    /// move) and the share of the root's nodes spent below the best move (0–1). Returns
    /// the factor for the soft limit, 1 before depth 5, then the product of
    /// - stability: 1.5 just after a change, 0.08 less per iteration unchanged, at least
    ///   0.8;
    /// - node share: `(1.5 − share) · 1.35` (0.81 at 90 %, 1.35 at 50 %);
    /// - score trend: 1 + 1 % per centipawn lost since the previous iteration, within
    ///   0.85 (a gain) and 1.5.
    pub fn after_iteration(&mut self, depth: u32, best: Move, score: i32, best_share: f64) -> f64 {
        if self.best == Some(best) {
            self.stable += 1;
        } else {
            self.stable = 0;
            self.best = Some(best);
        }
        let stability = (1.5 - 0.08 * f64::from(self.stable)).max(0.8);
        let share = (1.5 - best_share.clamp(0.0, 1.0)) * 1.35;
        let fall = self.score.map_or(0, |prev| prev.saturating_sub(score));
        let trend = (1.0 + 0.01 * f64::from(fall)).clamp(0.85, 1.5);
        self.score = Some(score);
        if depth < PROGRESS_MIN_DEPTH {
            return 1.0;
        }
        stability * share * trend
    }
}

/// The time budget for `limits` with `overhead` reserved for latency.
pub fn budget(limits: &Limits, overhead: Duration) -> Budget {
    if limits.infinite {
        return Budget::default();
    }
    if let Some(movetime) = limits.movetime {
        // Use the whole move time minus latency, but not less than half of it.
        let hard = movetime.saturating_sub(overhead).max(movetime / 2);
        return Budget {
            soft: Some(hard),
            hard: Some(hard),
            flexible: false,
        };
    }
    let Some(clock) = limits.clock else {
        return Budget::default();
    };
    let avail = clock.time.saturating_sub(overhead * 2);
    let mtg = clock.movestogo.filter(|&m| m > 0).map_or(25, |m| m.min(50));
    let target = avail / mtg + clock.inc * 3 / 4;
    let share = if mtg == 1 { avail * 3 / 4 } else { avail / 2 };
    let hard = (target * 3).min(share);
    Budget {
        soft: Some((target / 2).min(hard)),
        hard: Some(hard),
        flexible: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn clock(time: u64, inc: u64, movestogo: Option<u32>) -> Limits {
        Limits {
            clock: Some(Clock {
                time: ms(time),
                inc: ms(inc),
                movestogo,
            }),
            ..Limits::default()
        }
    }

    #[test]
    fn sudden_death_and_increment() {
        // 60 s, no increment: target 59 960 / 25 = 2398.4 ms.
        let b = budget(&clock(60_000, 0, None), ms(20));
        assert_eq!(b.soft, Some(Duration::from_micros(1_199_200)));
        assert_eq!(b.hard, Some(Duration::from_micros(7_195_200)));
        // 1 s + 10 ms: target 960/25 + 7.5 = 45.9 ms; hard 137.7 ms < 480 ms.
        let b = budget(&clock(1000, 10, None), ms(20));
        assert_eq!(b.hard, Some(Duration::from_micros(137_700)));
        // 50 ms + 10 ms: avail 10 ms, hard 5 ms.
        let b = budget(&clock(50, 10, None), ms(20));
        assert_eq!(b.hard, Some(ms(5)));
    }

    #[test]
    fn never_more_than_the_clock_allows() {
        for time in [0, 1, 5, 19, 20, 21, 50, 100, 1000, 10_000] {
            for inc in [0, 10, 100, 1000, 5000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let b = budget(&clock(time, inc, mtg), ms(20));
                    let avail = ms(time).saturating_sub(ms(40));
                    let hard = b.hard.unwrap();
                    assert!(hard <= avail * 3 / 4, "{time} {inc} {mtg:?}: {hard:?}");
                    assert!(b.soft.unwrap() <= hard);
                }
            }
        }
        // 1 ms left: nothing to think with, the engine moves at once.
        assert_eq!(
            budget(&clock(1, 0, None), ms(20)).hard,
            Some(Duration::ZERO)
        );
    }

    #[test]
    fn movestogo_spreads_time() {
        let one = budget(&clock(10_000, 0, Some(1)), ms(0));
        assert_eq!(one.hard, Some(ms(7_500)));
        let ten = budget(&clock(10_000, 0, Some(10)), ms(0));
        assert_eq!(ten.hard, Some(ms(3_000)));
        assert_eq!(ten.soft, Some(ms(500)));
    }

    #[test]
    fn progress_scales_the_soft_limit() {
        let pos = shakmaty::Chess::default();
        let moves = shakmaty::Position::legal_moves(&pos);
        let (a, b) = (moves[0], moves[1]);
        let mut p = Progress::default();
        // Shallow iterations leave the limit alone, but count for the stability.
        assert_eq!(p.after_iteration(4, b, 20, 0.1), 1.0);
        // A new best move taking half the nodes: 1.5 · 1.35.
        let f = p.after_iteration(5, a, 20, 0.5);
        assert!((f - 2.025).abs() < 1e-9, "{f}");
        // Unchanged for nine iterations at 90 % of the nodes, score steady: 0.8 · 0.81.
        let mut f = 0.0;
        for _ in 0..9 {
            f = p.after_iteration(6, a, 20, 0.9);
        }
        assert!((f - 0.648).abs() < 1e-9, "{f}");
        // The score falls 30 cp: 1.3 times longer.
        let g = p.after_iteration(7, a, -10, 0.9);
        assert!((g - 0.648 * 1.3).abs() < 1e-9, "{g}");
        // A change of move resets the stability.
        let h = p.after_iteration(8, b, -10, 0.9);
        assert!((h - 1.5 * 0.81).abs() < 1e-9, "{h}");

        let clock = budget(&clock(10_000, 100, None), ms(0));
        let soft = clock.soft.unwrap();
        assert_eq!(clock.soft_scaled(0.5), Some(soft / 2));
        assert_eq!(clock.soft_scaled(100.0), clock.hard);
        // A fixed move time is used whole.
        let fixed = budget(
            &Limits {
                movetime: Some(ms(100)),
                ..Limits::default()
            },
            ms(20),
        );
        assert_eq!(fixed.soft_scaled(0.5), Some(ms(80)));
    }

    #[test]
    fn movetime_infinite_and_depth() {
        let l = Limits {
            movetime: Some(ms(100)),
            ..Limits::default()
        };
        assert_eq!(budget(&l, ms(20)).hard, Some(ms(80)));
        assert_eq!(budget(&l, ms(90)).hard, Some(ms(50)));
        let l = Limits {
            infinite: true,
            ..clock(1000, 0, None)
        };
        assert_eq!(budget(&l, ms(20)), Budget::default());
        let l = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        assert_eq!(budget(&l, ms(20)), Budget::default());
    }
}
