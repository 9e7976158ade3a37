//! Lazy SMP: `Threads` − 1 helper threads search the same root at the same time as the
//! main thread, each with its own move-ordering heuristics and accumulators, and share
//! only the transposition table (lock-free, see [`super::tt`]). The helpers fill the
//! table with results the main thread then finds; the main thread alone keeps the clock,
//! reports `info` and chooses the move, and it stops the helpers when it ends. This is
//! the scheme of Stockfish 7–11, Ethereal and viridithas: no split points, no messages,
//! and with one thread exactly the single-threaded search (the bench signature holds).
//! Odd helpers start one iteration deeper (depth staggering).

use std::sync::atomic::Ordering;

use shakmaty::Chess;

use super::root::RootMove;
use super::{Info, Limits, MAX_DEPTH, Searcher};

/// Most search threads (`Threads` spin maximum).
pub const MAX_THREADS: usize = 256;

/// Stack of a helper thread: deep lines keep a position and a move list per ply.
const HELPER_STACK: usize = 64 * 1024 * 1024;

impl Searcher {
    /// Searches with `threads` threads from now on (1 to [`MAX_THREADS`]): the helpers
    /// are created or dropped here, not per search.
    pub fn set_threads(&mut self, threads: usize) {
        let helpers = threads.clamp(1, MAX_THREADS) - 1;
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let mut h = Searcher::with_table(
                self.evaluator.clone(),
                super::tt::TranspositionTable::tiny(),
            );
            h.tt = self.tt.clone();
            h.tablebase = self.tablebase.clone();
            h.control.stop = self.helper_stop.clone();
            h.shared_nodes = self.shared_nodes.clone();
            h.publishing = true;
            // Depth staggering: the odd helpers run one iteration ahead of the others, so
            // that the threads do not all finish the same iteration at once.
            h.first_depth = if self.helpers.len().is_multiple_of(2) {
                2
            } else {
                1
            };
            self.helpers.push(h);
        }
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Nodes of this search so far, every thread's (each thread's last partial batch of
    /// 1024 is counted when it ends).
    pub(super) fn total_nodes(&self) -> u64 {
        if self.publishing {
            self.shared_nodes.load(Ordering::Relaxed) + (self.nodes & 1023)
        } else {
            self.nodes
        }
    }

    /// Iterative deepening of the main thread (see `root`) while the helpers search the
    /// same root moves until it ends.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn deepen_with_helpers(
        &mut self,
        root: &Chess,
        history: &[u64],
        root_key: u64,
        root_moves: &mut [RootMove],
        max_depth: u32,
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> (u32, i32) {
        self.shared_nodes.store(0, Ordering::Relaxed);
        self.publishing = !self.helpers.is_empty();
        if self.helpers.is_empty() {
            return self.iterative_deepening(root, root_key, root_moves, max_depth, limits, info);
        }
        let mut helpers = std::mem::take(&mut self.helpers);
        self.helper_stop.store(false, Ordering::SeqCst);
        let shared: Vec<RootMove> = root_moves.to_vec();
        let result = std::thread::scope(|scope| {
            for h in helpers.iter_mut() {
                h.tt = self.tt.clone();
                h.tablebase = self.tablebase.clone();
                let moves = shared.clone();
                // A thread the system refuses is a helper less, not an error.
                let _ = std::thread::Builder::new()
                    .name("chessgraph-helper".to_owned())
                    .stack_size(HELPER_STACK)
                    .spawn_scoped(scope, move || {
                        h.helper_search(root, history, root_key, moves, limits.nodes)
                    });
            }
            let result =
                self.iterative_deepening(root, root_key, root_moves, max_depth, limits, info);
            self.helper_stop.store(true, Ordering::SeqCst);
            result
        });
        self.helpers = helpers;
        result
    }

    /// A helper's search: iterative deepening until the main thread stops it or the
    /// threads together reach `go nodes`; only its table entries and node count are used.
    fn helper_search(
        &mut self,
        root: &Chess,
        history: &[u64],
        root_key: u64,
        mut moves: Vec<RootMove>,
        node_limit: Option<u64>,
    ) {
        let limits = Limits {
            infinite: true,
            nodes: node_limit,
            ..Limits::default()
        };
        self.new_search(root, history, &limits);
        self.iterative_deepening(root, root_key, &mut moves, MAX_DEPTH, &limits, &mut |_| {});
        self.shared_nodes
            .fetch_add(self.nodes & 1023, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use shakmaty::Position;

    use super::super::{Limits, MATE, Score, Searcher};
    use crate::eval::Evaluator;

    fn pos(fen: &str) -> shakmaty::Chess {
        chessgraph_core::chess::fen::parse_position(fen).unwrap()
    }

    fn searcher(threads: usize) -> Searcher {
        let mut s = Searcher::new(Arc::new(Evaluator::builtin("seed003").unwrap()), 4);
        s.set_threads(threads);
        s
    }

    #[test]
    fn helpers_are_created_and_dropped() {
        let mut s = searcher(4);
        assert_eq!(s.threads(), 4);
        s.set_threads(1);
        assert_eq!(s.threads(), 1);
        s.set_threads(100_000);
        assert_eq!(s.threads(), super::MAX_THREADS);
        s.set_threads(0);
        assert_eq!(s.threads(), 1);
    }

    /// The helpers search while the main thread does, and their nodes count. No clock:
    /// the main thread, at its first `info`, waits there (so it searches no node) until
    /// the shared node count has grown by a published batch, which only a helper can have
    /// added, and then stops the search.
    #[test]
    fn helpers_search_and_their_nodes_count() {
        let p = pos("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let infinite = Limits {
            infinite: true,
            ..Limits::default()
        };
        let mut three = searcher(3);
        let control = three.control();
        let shared = three.shared_nodes.clone();
        let mut reported = 0;
        let mut helped = false;
        let r = three.search(&p, &[], &infinite, &mut |i| {
            reported = i.nodes;
            if helped {
                return;
            }
            let before = shared.load(Ordering::Relaxed);
            // A bound for a broken build only (helpers that never search), not a timing.
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            while shared.load(Ordering::Relaxed) < before + 1024 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no helper searched a batch of nodes in two minutes"
                );
                std::thread::yield_now();
            }
            helped = true;
            control.stop.store(true, Ordering::SeqCst);
        });
        assert!(helped);
        assert!(p.legal_moves().contains(&r.best.unwrap()));
        // The helpers' nodes are in the total, which every thread publishes per 1024.
        assert!(r.nodes > three.nodes, "helpers searched no node");
        assert_eq!(
            r.nodes,
            three.shared_nodes.load(Ordering::Relaxed) + (three.nodes & 1023)
        );
        assert!(reported > 0 && reported <= r.nodes, "{reported}");
        // They were stopped with the main thread: a second search runs and ends.
        control.stop.store(false, Ordering::SeqCst);
        let depth = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let r2 = three.search(&p, &[], &depth, &mut |_| {});
        assert!(r2.best.is_some());
        assert_eq!(r2.depth, 3);
    }

    #[test]
    fn threads_find_the_same_mate_and_respect_depth_and_nodes() {
        // Scholar's mate in one (Qxf7#): every thread count finds it within depth 4.
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
        for threads in [1, 2, 4] {
            let mut s = searcher(threads);
            let r = s.search(
                &p,
                &[],
                &Limits {
                    depth: Some(4),
                    ..Limits::default()
                },
                &mut |_| {},
            );
            assert_eq!(r.score, Score::Mate(1), "{threads} threads");
            assert_eq!(chessgraph_core::chess::moves::uci(&r.best.unwrap()), "h5f7");
            assert!(r.depth <= 4);
        }
        let mut s = searcher(2);
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let r = s.search(
            &start,
            &[],
            &Limits {
                nodes: Some(50_000),
                ..Limits::default()
            },
            &mut |_| {},
        );
        // `go nodes` counts every thread's nodes (each may overrun by its last batch),
        // however the threads are scheduled.
        assert!(r.nodes < 50_000 + 2 * 2048, "{}", r.nodes);
        assert!(r.nodes >= 50_000 - 1024, "{}", r.nodes);
        assert!(r.best.is_some() && MATE > 0);
    }

    #[test]
    fn stop_ends_every_thread() {
        let mut s = searcher(2);
        let control = s.control();
        let p = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            control.stop.store(true, Ordering::SeqCst);
        });
        let started = std::time::Instant::now();
        let r = s.search(
            &p,
            &[],
            &Limits {
                infinite: true,
                ..Limits::default()
            },
            &mut |_| {},
        );
        stopper.join().unwrap();
        assert!(r.best.is_some());
        // The scope joined the helper, so returning at all shows it stopped.
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}
