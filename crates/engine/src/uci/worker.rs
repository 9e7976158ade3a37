//! The search thread: it owns the [`Player`] (the engine's searcher by default) and takes jobs (`go`, option changes,
//! `isready`) from a channel in order. After a search ends under `go infinite` or `go
//! ponder` it blocks until `stop` or `ponderhit` (a condition variable, not polling).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use crate::search::tablebase::Tablebases;
use shakmaty::Move;

use super::command::Game;
use super::output::{Output, info_line};
use crate::eval::Evaluator;
use crate::players::Player;
use crate::search::Limits;
use chessgraph_core::chess::moves::uci;

/// A `go` for the search thread.
pub(super) struct GoJob {
    /// Number of this `go` (1, 2, ...), to tell which searches a `stop` applies to.
    pub(super) seq: u64,
    /// The position to search; `None` answers `bestmove 0000` (no valid position).
    pub(super) game: Option<Game>,
    pub(super) limits: Limits,
    pub(super) book_move: Option<Move>,
}

/// Work for the search thread, in order.
pub(super) enum Job {
    Go(Box<GoJob>),
    Hash(usize),
    Threads(usize),
    Evaluator(Arc<Evaluator>),
    MultiPv(usize),
    Overhead(Duration),
    Tablebase(Option<Arc<Tablebases>>),
    NewGame,
    Ready,
    Quit,
}

/// The search thread: owns the player and runs jobs until `Quit`.
pub(super) fn search_thread(
    mut player: Box<dyn Player>,
    jobs: Receiver<Job>,
    out: Output,
    searches: Arc<AtomicUsize>,
    stopped_up_to: Arc<AtomicU64>,
) {
    let control = player.control();
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Go(job) => {
                // Clear the flag, then honour a `stop` given after this `go` was queued
                // (the reader sets `stopped_up_to` before the flag, so none is lost).
                control.stop.store(false, Ordering::SeqCst);
                if stopped_up_to.load(Ordering::SeqCst) >= job.seq {
                    control.stop.store(true, Ordering::SeqCst);
                }
                let GoJob {
                    seq: _,
                    game,
                    limits,
                    book_move,
                } = *job;
                let (best, ponder) = match (book_move, game) {
                    (_, None) => (None, None),
                    (Some(m), _) => {
                        out.line(&format!("info string book move {}", uci(&m)));
                        (Some(m), None)
                    }
                    (None, Some(game)) => {
                        let r = player.choose(&game.position, &game.history, &limits, &mut |i| {
                            out.line(&info_line(i))
                        });
                        (r.best, r.ponder)
                    }
                };
                // In infinite and ponder mode the GUI waits for our bestmove only after
                // it said stop (or ponderhit).
                // A blocking wait: the reader wakes us on `stop` and `ponderhit`.
                control.wait_while(|c| {
                    (limits.infinite || (limits.ponder && c.pondering.load(Ordering::SeqCst)))
                        && !c.stop.load(Ordering::SeqCst)
                });
                let line = match (best, ponder) {
                    (Some(b), Some(p)) => {
                        format!("bestmove {} ponder {}", uci(&b), uci(&p))
                    }
                    (Some(b), None) => format!("bestmove {}", uci(&b)),
                    (None, _) => "bestmove 0000".to_owned(),
                };
                searches.fetch_sub(1, Ordering::SeqCst);
                out.line(&line);
            }
            // Options of the engine's search; other players have no use for them.
            Job::Hash(mib) => {
                if let Some(Err(e)) = player.searcher().map(|s| s.set_hash(mib)) {
                    out.error(&format!("option Hash: {e}; using 16 MiB"));
                }
            }
            Job::Threads(n) => player.searcher().into_iter().for_each(|s| s.set_threads(n)),
            Job::Evaluator(e) => player.set_evaluator(e),
            Job::MultiPv(n) => player.searcher().into_iter().for_each(|s| s.set_multipv(n)),
            Job::Overhead(d) => player
                .searcher()
                .into_iter()
                .for_each(|s| s.set_overhead(d)),
            Job::Tablebase(tb) => {
                if let Some(s) = player.searcher() {
                    s.set_tablebase(tb);
                }
            }
            Job::NewGame => player.new_game(),
            Job::Ready => out.line("readyok"),
            Job::Quit => break,
        }
    }
}
