//! When a player must stop thinking: the UCI `stop` flag, a node (or iteration) limit and
//! the time budget of [`crate::search::time::budget`] (`movetime`, or the clock), with
//! pondering handled as the engine does (no time limit until `ponderhit`, then the clock
//! starts).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::search::time::budget;
use crate::search::{Control, Limits};

/// Time kept for process and GUI latency (the engine's default `Move Overhead`).
pub const OVERHEAD: Duration = Duration::from_millis(20);

/// The stopping rule of one `choose`.
pub struct Stopping {
    control: Control,
    start: Instant,
    hard: Option<Duration>,
    node_limit: u64,
    pondering: bool,
}

impl Stopping {
    /// Starts the clock of a choice under `limits`, stopped early by `control.stop`.
    pub fn new(control: &Control, limits: &Limits) -> Stopping {
        Stopping {
            control: control.clone(),
            start: Instant::now(),
            hard: budget(limits, OVERHEAD).hard,
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            pondering: limits.ponder && control.pondering.load(Ordering::Relaxed),
        }
    }

    /// Time since the choice started (since `ponderhit` when pondering).
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether `nodes` (or iterations) done so far reach the limit.
    pub fn out_of_nodes(&self, nodes: u64) -> bool {
        nodes >= self.node_limit
    }

    /// Whether to stop now: `stop` was set or the time is up.
    pub fn should_stop(&mut self) -> bool {
        if self.control.stop.load(Ordering::Relaxed) {
            return true;
        }
        if self.pondering {
            if self.control.pondering.load(Ordering::Relaxed) {
                return false;
            }
            // ponderhit: the clock starts now.
            self.pondering = false;
            self.start = Instant::now();
        }
        self.hard.is_some_and(|hard| self.start.elapsed() >= hard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_flag_nodes_and_time() {
        let control = Control::default();
        let mut s = Stopping::new(&control, &Limits::default());
        assert!(!s.should_stop());
        assert!(!s.out_of_nodes(u64::MAX - 1));
        control.stop.store(true, Ordering::Relaxed);
        assert!(s.should_stop());

        let control = Control::default();
        let limits = Limits {
            nodes: Some(10),
            movetime: Some(Duration::ZERO),
            ..Limits::default()
        };
        let mut s = Stopping::new(&control, &limits);
        assert!(!s.out_of_nodes(9));
        assert!(s.out_of_nodes(10));
        assert!(s.should_stop(), "a zero move time is used up at once");
    }
}
