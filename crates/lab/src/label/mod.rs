//! Labelling stored positions with a UCI engine, several engine processes in parallel.
//!
//! The main thread owns the database: it hands out the positions the labeller has not
//! done yet (by id, so a killed run resumes where it stopped) and stores answers in
//! batches. Each worker thread owns one engine process; an engine that crashes, hangs
//! past the timeout or answers garbage is restarted and the position tried once more with
//! the fresh engine, after which the position is recorded as failed (with the reason) and
//! skipped — by this run and by later ones, until `--retry-failed`.

pub mod uci;

use chessgraph_core::Error as CoreError;
use std::sync::mpsc::{Receiver, channel, sync_channel};
use std::sync::{Arc, Mutex};

use rusqlite::Connection;
use serde::Serialize;
use shakmaty::Color;

use chessgraph_core::chess::fen::parse_position;
use chessgraph_core::chess::fen::to_fen;
use chessgraph_store::Result;
use chessgraph_store::labels::{self, EngineLabel};

pub use chessgraph_engine::engines::info::Analysis;

/// Why an engine gave no label.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LabellingError {
    /// The process exited or its pipe broke.
    #[error("engine crashed: {0}")]
    Crashed(String),
    /// No answer within the time limit.
    #[error("engine timed out: {0}")]
    Timeout(String),
    /// An answer that is not UCI (no score, an unparsable score).
    #[error("engine answered garbage: {0}")]
    Garbage(String),
}

impl From<chessgraph_engine::engines::info::InfoError> for LabellingError {
    fn from(e: chessgraph_engine::engines::info::InfoError) -> LabellingError {
        LabellingError::Garbage(e.0)
    }
}

/// Something that labels positions given as FEN: a UCI engine, or a fake in tests.
pub trait Labeller: Send {
    /// Analyses one position.
    fn analyse(&mut self, fen: &str) -> std::result::Result<Labelled, LabellingError>;
}

/// What a labeller says of one position: the score of its search and its best move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// The score, side to move's view, with the search's depth and nodes.
    pub analysis: Analysis,
    /// The best move (UCI), when the labeller gives one.
    pub best_move: Option<String>,
}

/// Starts a labeller (a fresh engine process); called once per worker and after failures.
pub type Starter<'a> =
    dyn Fn() -> std::result::Result<Box<dyn Labeller>, LabellingError> + Sync + 'a;

/// What one run did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Positions labelled.
    pub labelled: u64,
    /// Positions given up after a crash.
    pub crashed: u64,
    /// Positions given up after a timeout.
    pub timed_out: u64,
    /// Positions given up after garbage answers.
    pub garbage: u64,
    /// Engine restarts.
    pub restarts: u64,
}

impl Counts {
    /// Positions given up.
    pub fn failed(&self) -> u64 {
        self.crashed + self.timed_out + self.garbage
    }
}

/// Positions fetched from the database per round trip.
const FETCH: usize = 512;

/// Answers stored per transaction.
const STORE: usize = 256;

/// Labels up to `limit` pending positions of `labeller` with `jobs` engines started by
/// `start`; `progress` sees the counts after every stored batch.
pub fn run(
    conn: &Connection,
    labeller: &str,
    source: Option<&str>,
    jobs: usize,
    limit: Option<u64>,
    start: &Starter<'_>,
    progress: &mut dyn FnMut(&Counts),
) -> Result<Counts> {
    // One engine on this thread first: a command that cannot start is an error for the
    // user, not thousands of failed positions.
    let first = start().map_err(|e| CoreError::Engine {
        what: "labeller: cannot start".into(),
        source: e.into(),
    })?;
    let jobs = jobs.max(1);
    let (work_tx, work_rx) = sync_channel::<(i64, String)>(FETCH * 2);
    let work_rx = Arc::new(Mutex::new(work_rx));
    let (done_tx, done_rx) = channel::<Answer>();
    let mut counts = Counts::default();
    std::thread::scope(|scope| -> Result<()> {
        let mut first = Some(first);
        for _ in 0..jobs {
            let (work_rx, done_tx) = (work_rx.clone(), done_tx.clone());
            let engine = first.take();
            scope.spawn(move || worker(engine, start, &work_rx, &done_tx));
        }
        drop(done_tx);
        let mut after = 0i64;
        let mut sent = 0u64;
        let mut received = 0u64;
        let limit = limit.unwrap_or(u64::MAX);
        let mut batch = Batch::default();
        let mut work_tx = Some(work_tx);
        loop {
            // Keep the workers fed: fetch more when fewer than a round trip is in flight.
            if let Some(tx) = &work_tx
                && sent - received < FETCH as u64
            {
                let want = FETCH.min((limit - sent) as usize);
                let rows = if want == 0 {
                    Vec::new()
                } else {
                    labels::pending(conn, labeller, source, after, want)?
                };
                if rows.is_empty() {
                    work_tx = None; // no more work: workers stop when the queue drains
                } else {
                    for row in rows {
                        after = row.0;
                        sent += 1;
                        if tx.send(row).is_err() {
                            break;
                        }
                    }
                }
                continue;
            }
            let Ok(answer) = done_rx.recv() else { break };
            if !matches!(answer, Answer::Restarted) {
                received += 1;
            }
            batch.add(answer, &mut counts);
            if batch.len() >= STORE {
                batch.store(conn, labeller)?;
                progress(&counts);
            }
            if work_tx.is_none() && received == sent {
                break;
            }
        }
        drop(work_tx);
        batch.store(conn, labeller)?;
        progress(&counts);
        Ok(())
    })?;
    Ok(counts)
}

/// What a worker reports for one position.
enum Answer {
    Label(EngineLabel),
    Failed(i64, LabellingError),
    Restarted,
}

#[derive(Default)]
struct Batch {
    labels: Vec<EngineLabel>,
    failures: Vec<(i64, String)>,
}

impl Batch {
    fn len(&self) -> usize {
        self.labels.len() + self.failures.len()
    }

    fn add(&mut self, answer: Answer, counts: &mut Counts) {
        match answer {
            Answer::Label(l) => {
                counts.labelled += 1;
                self.labels.push(l);
            }
            Answer::Failed(id, e) => {
                match e {
                    LabellingError::Crashed(_) => counts.crashed += 1,
                    LabellingError::Timeout(_) => counts.timed_out += 1,
                    LabellingError::Garbage(_) => counts.garbage += 1,
                }
                self.failures.push((id, e.to_string()));
            }
            Answer::Restarted => counts.restarts += 1,
        }
    }

    fn store(&mut self, conn: &Connection, labeller: &str) -> Result<()> {
        labels::store(conn, labeller, &self.labels, &self.failures)?;
        self.labels.clear();
        self.failures.clear();
        Ok(())
    }
}

fn worker(
    mut engine: Option<Box<dyn Labeller>>,
    start: &Starter<'_>,
    work: &Mutex<Receiver<(i64, String)>>,
    done: &std::sync::mpsc::Sender<Answer>,
) {
    loop {
        let next = work.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok((id, fen)) = next else { return };
        let answer = label_one(&mut engine, start, id, &fen, done);
        if done.send(answer).is_err() {
            return;
        }
    }
}

/// Labels one position, restarting the engine and trying once more after a failure.
fn label_one(
    engine: &mut Option<Box<dyn Labeller>>,
    start: &Starter<'_>,
    id: i64,
    fen: &str,
    done: &std::sync::mpsc::Sender<Answer>,
) -> Answer {
    // The engine gets a full six-field FEN whatever the input had (EPD, four fields).
    let (turn, fen) = match parse_position(fen) {
        Ok(pos) => (shakmaty::Position::turn(&pos), to_fen(&pos)),
        Err(e) => return Answer::Failed(id, LabellingError::Garbage(format!("stored FEN: {e}"))),
    };
    let fen = fen.as_str();
    let mut last_error = None;
    for _attempt in 0..2 {
        if engine.is_none() {
            match start() {
                Ok(e) => *engine = Some(e),
                Err(e) => {
                    last_error = Some(e);
                    continue;
                }
            }
        }
        let Some(e) = engine.as_mut() else { continue };
        match e.analyse(fen) {
            Ok(a) => return Answer::Label(to_white(id, a, turn)),
            Err(err) => {
                // A fresh engine for the retry (and for the next position).
                *engine = None;
                let _ = done.send(Answer::Restarted);
                last_error = Some(err);
            }
        }
    }
    Answer::Failed(
        id,
        last_error.unwrap_or_else(|| LabellingError::Crashed("no engine".into())),
    )
}

fn to_white(id: i64, labelled: Labelled, turn: Color) -> EngineLabel {
    let sign = if turn == Color::White { 1 } else { -1 };
    let a = labelled.analysis;
    EngineLabel {
        best_move: labelled.best_move,
        position_id: id,
        eval_cp: a.cp.map(|v| v * sign),
        mate: a.mate.map(|v| v * sign),
        depth: a.depth,
        nodes: a.nodes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_store as db;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Scores a position by its FEN's length; crashes on every FEN containing `crash_on`
    /// (so the retry fails too) and once, on its first call, when `flaky`.
    struct Fake {
        crash_on: &'static str,
        calls: u32,
        flaky: bool,
    }

    impl Labeller for Fake {
        fn analyse(&mut self, fen: &str) -> std::result::Result<Labelled, LabellingError> {
            self.calls += 1;
            if fen.contains(self.crash_on) || (self.flaky && self.calls == 1) {
                return Err(LabellingError::Crashed("boom".into()));
            }
            Ok(Labelled {
                analysis: Analysis {
                    cp: Some(fen.len() as i32),
                    mate: None,
                    depth: Some(1),
                    nodes: Some(1),
                },
                best_move: None,
            })
        }
    }

    fn db_with(fens: &[&str]) -> Connection {
        let conn = db::open_in_memory().unwrap();
        conn.execute(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) \
             VALUES (1, 't', 'csv', 'none', 'white', 'now')",
            [],
        )
        .unwrap();
        for (i, f) in fens.iter().enumerate() {
            conn.execute(
                "INSERT INTO positions (fen, fen_input, source_id, line) VALUES (?1, ?1, 1, ?2)",
                rusqlite::params![f, i as i64 + 1],
            )
            .unwrap();
        }
        conn
    }

    #[test]
    fn labels_every_position_survives_crashes_and_resumes() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
            "4k3/8/8/8/8/8/8/4K2R w K -",
            "4k3/8/8/8/8/8/3Q4/4K3 b - -",
        ];
        let conn = db_with(&fens);
        let starts = AtomicU32::new(0);
        let start = |flaky| {
            move || -> std::result::Result<Box<dyn Labeller>, LabellingError> {
                Ok(Box::new(Fake {
                    crash_on: "3Q4",
                    calls: 0,
                    flaky,
                }))
            }
        };
        // Only the very first engine is flaky: its retry runs on a fresh, sound one.
        let starter = || -> std::result::Result<Box<dyn Labeller>, LabellingError> {
            let n = starts.fetch_add(1, Ordering::Relaxed);
            Ok(Box::new(Fake {
                crash_on: "3Q4",
                calls: 0,
                flaky: n == 0,
            }))
        };
        let counts = run(&conn, "fake", None, 1, Some(2), &starter, &mut |_| {}).unwrap();
        assert_eq!((counts.labelled, counts.restarts), (2, 1), "{counts:?}");
        let counts = run(&conn, "fake", None, 2, None, &start(false), &mut |_| {}).unwrap();
        // The third position crashes the engine twice and is given up.
        assert_eq!((counts.labelled, counts.crashed), (0, 1), "{counts:?}");
        assert_eq!(counts.restarts, 2);
        let stored: Vec<(i64, Option<i64>)> = conn
            .prepare("SELECT position_id, eval_cp FROM labels ORDER BY position_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        // White view: black to move flips the sign. The engine is sent six-field FENs.
        let sent = |f: &str| to_fen(&parse_position(f).unwrap()).len() as i64;
        assert_eq!(
            stored,
            [(1, Some(-sent(fens[0]))), (2, Some(sent(fens[1])))]
        );
        let failed: i64 = conn
            .query_row("SELECT count(*) FROM label_failures", [], |r| r.get(0))
            .unwrap();
        assert_eq!(failed, 1);
        // Nothing left: a third run does nothing.
        let counts = run(&conn, "fake", None, 1, None, &start(false), &mut |_| {}).unwrap();
        assert_eq!(counts, Counts::default());
    }

    #[test]
    fn an_engine_that_cannot_start_is_one_error() {
        let conn = db_with(&["4k3/8/8/8/8/8/8/4K2R w K -"]);
        let start = || -> std::result::Result<Box<dyn Labeller>, LabellingError> {
            Err(LabellingError::Crashed("No such file or directory".into()))
        };
        let err = run(&conn, "x", None, 2, None, &start, &mut |_| {}).unwrap_err();
        // The cause is kept, not flattened into the message.
        let chain = chessgraph_core::error::error_chain(&err);
        assert!(
            chain.contains("cannot start") && chain.contains("No such file"),
            "{chain}"
        );
    }
}
