//! The engine loop: the reader thread parses commands, keeps the current game and the
//! options, and hands searches to the search thread ([`super::worker`]).

use std::io::{self, BufRead};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::search::tablebase::Tablebases;

use super::ENGINE_NAME;
use super::book::Book;
use super::command::{Command, Game, Go, UciError, limits, parse};
use super::output::{Output, error_chain};
use super::worker::{GoJob, Job, search_thread};
use crate::eval::Evaluator;
use crate::players::Player;
use crate::search::{Control, Limits, MAX_THREADS};
use chessgraph_core::chess::rng::SplitMix;

/// Why the engine refused a command (it answers `info string error: …` and goes on).
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The line itself is malformed, or names an impossible position or move.
    #[error(transparent)]
    Uci(#[from] UciError),
    /// A command that must wait until the search ends.
    #[error("{0}: not allowed while searching")]
    Busy(&'static str),
    /// `go` while an infinite or pondering search runs.
    #[error("go: already searching (send stop first)")]
    AlreadySearching,
    /// `go` after a `position` that was refused: no position to search.
    #[error("go: no position (the last position command was refused); bestmove 0000")]
    NoPosition,
    /// `setoption` with a name the engine does not have.
    #[error("unknown option {0:?}")]
    UnknownOption(String),
    /// A spin option's value that is no number.
    #[error("option {name}: {value:?} is not a number")]
    NotANumber {
        /// The option.
        name: String,
        /// The value given.
        value: String,
    },
    /// A spin option's value out of its range.
    #[error("option {name}: {value} is outside {min}..={max}")]
    OutOfRange {
        /// The option.
        name: String,
        /// The value given.
        value: u64,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// A check option's value that is neither true nor false.
    #[error("option {name}: expected true or false, got {value:?}")]
    NotABool {
        /// The option.
        name: String,
        /// The value given.
        value: String,
    },
    /// A search constant's value out of its range (a tuning build).
    #[error(transparent)]
    Tunable(#[from] crate::search::params::SetError),
    /// An option naming something that could not be loaded (evaluator, book, tables).
    #[error("option {name}")]
    Load {
        /// The option.
        name: &'static str,
        /// Why it could not be loaded.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl CommandError {
    /// An option whose value names something that could not be loaded.
    fn load(name: &'static str, e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        CommandError::Load {
            name,
            source: e.into(),
        }
    }
}

/// UCI option values kept by the reader thread.
struct Options {
    hash: usize,
    evaluator: String,
    own_book: bool,
    book: Option<Book>,
    multipv: usize,
    overhead: u64,
}

fn random_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // The first SplitMix64 output of the clock: well mixed even from close clock readings.
    SplitMix(nanos).next_u64()
}

struct Engine {
    /// The player's spec, shown in `id name` when it is not the engine itself.
    player: String,
    out: Output,
    resolve: Resolver,
    jobs: Sender<Job>,
    control: Control,
    /// `go` jobs queued or running on the search thread.
    searches: Arc<AtomicUsize>,
    /// Number of the last `go` sent.
    go_seq: u64,
    /// `stop` applies to every `go` up to this number.
    stopped_up_to: Arc<AtomicU64>,
    /// The position to search; `None` after a `position` command that was refused.
    game: Option<Game>,
    options: Options,
    /// The last `go` was infinite or ponder.
    unbounded: bool,
}

impl Engine {
    fn send(&self, job: Job) {
        // The search thread only ends on Quit, so sending cannot fail before that.
        let _ = self.jobs.send(job);
    }

    fn uci(&self) {
        let o = &self.options;
        let out = &self.out;
        if self.player.starts_with("engine") {
            out.line(&format!("id name {ENGINE_NAME}"));
        } else {
            out.line(&format!("id name {ENGINE_NAME} {}", self.player));
        }
        out.line("id author the chessgraph team");
        out.line(&format!(
            "option name Hash type spin default {} min 1 max 16384",
            o.hash
        ));
        out.line(&format!(
            "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
        ));
        out.line(&format!(
            "option name MultiPV type spin default {} min 1 max 256",
            o.multipv
        ));
        out.line(&format!(
            "option name Evaluator type string default {}",
            o.evaluator
        ));
        out.line("option name OwnBook type check default false");
        out.line("option name BookFile type string default <empty>");
        out.line("option name SyzygyPath type string default <empty>");
        out.line(&format!(
            "option name Move Overhead type spin default {} min 0 max 5000",
            o.overhead
        ));
        out.line("option name Ponder type check default false");
        // A tuning build: the search's constants, at their current values.
        #[cfg(feature = "tune")]
        for (p, v) in crate::search::params::PARAMS
            .iter()
            .zip(crate::search::params::values())
        {
            out.line(&format!(
                "option name {} type spin default {v} min {} max {}",
                p.name, p.min, p.max
            ));
        }
        out.line("uciok");
    }

    fn set_option(&mut self, name: &str, value: Option<String>) -> Result<(), CommandError> {
        let value = value.unwrap_or_default();
        let spin = |min: u64, max: u64| -> Result<u64, CommandError> {
            let v: u64 = value.trim().parse().map_err(|_| CommandError::NotANumber {
                name: name.to_owned(),
                value: value.clone(),
            })?;
            if !(min..=max).contains(&v) {
                return Err(CommandError::OutOfRange {
                    name: name.to_owned(),
                    value: v,
                    min,
                    max,
                });
            }
            Ok(v)
        };
        let check = || -> Result<bool, CommandError> {
            match value.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(CommandError::NotABool {
                    name: name.to_owned(),
                    value: other.to_owned(),
                }),
            }
        };
        let empty = |v: &str| v.trim().is_empty() || v.trim() == "<empty>";
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mib = spin(1, 16384)? as usize;
                self.options.hash = mib;
                self.send(Job::Hash(mib));
            }
            "threads" => {
                let n = spin(1, MAX_THREADS as u64)? as usize;
                self.send(Job::Threads(n));
            }
            "multipv" => {
                let n = spin(1, 256)? as usize;
                self.options.multipv = n;
                self.send(Job::MultiPv(n));
            }
            "move overhead" => {
                let ms = spin(0, 5000)?;
                self.options.overhead = ms;
                self.send(Job::Overhead(Duration::from_millis(ms)));
            }
            "evaluator" => {
                let e =
                    (self.resolve)(value.trim()).map_err(|e| CommandError::load("Evaluator", e))?;
                self.out
                    .line(&format!("info string evaluator {}", e.name()));
                self.options.evaluator = value.trim().to_owned();
                self.send(Job::Evaluator(Arc::new(e)));
            }
            "ownbook" => self.options.own_book = check()?,
            "bookfile" => {
                if empty(&value) {
                    self.options.book = None;
                } else {
                    let book = Book::load(Path::new(value.trim()))
                        .map_err(|e| CommandError::load("BookFile", e))?;
                    self.out.line(&format!(
                        "info string book {} with {} entries",
                        value.trim(),
                        book.len()
                    ));
                    self.options.book = Some(book);
                }
            }
            "syzygypath" => {
                if empty(&value) {
                    self.send(Job::Tablebase(None));
                } else {
                    let (tb, files) = Tablebases::load(value.trim())
                        .map_err(|e| CommandError::load("SyzygyPath", e))?;
                    self.out.line(&format!(
                        "info string syzygy: {files} tables, up to {} pieces",
                        tb.max_pieces()
                    ));
                    self.send(Job::Tablebase((files > 0).then(|| Arc::new(tb))));
                }
            }
            // Pondering needs no setting: `go ponder` is honoured either way.
            "ponder" => {
                check()?;
            }
            #[cfg(feature = "tune")]
            _ if crate::search::params::find(name).is_some() => {
                let v: i64 = value.trim().parse().map_err(|_| CommandError::NotANumber {
                    name: name.to_owned(),
                    value: value.clone(),
                })?;
                crate::search::params::set(name, v)?;
            }
            _ => return Err(CommandError::UnknownOption(name.to_owned())),
        }
        Ok(())
    }

    fn go(&mut self, go: Go) -> Result<(), CommandError> {
        // Behind a bounded search the new one is queued (scripts piping several `go`
        // commands get every answer); the reader never waits, so `stop` and `quit` keep
        // working.
        if self.searching() && self.unbounded {
            return Err(CommandError::AlreadySearching);
        }
        // After a refused position the answer is `bestmove 0000`, in its turn behind any
        // queued search: never a move for a position the GUI did not send.
        let (limits, book_move) = match &self.game {
            Some(game) => (
                limits(&go, &game.position)?,
                match &self.options.book {
                    Some(book) if self.options.own_book && !go.infinite && !go.ponder => {
                        book.pick(&game.position, random_seed())
                    }
                    _ => None,
                },
            ),
            None => {
                self.out.error(&CommandError::NoPosition.to_string());
                (Limits::default(), None)
            }
        };
        self.control.pondering.store(go.ponder, Ordering::SeqCst);
        self.unbounded = go.infinite || go.ponder;
        self.searches.fetch_add(1, Ordering::SeqCst);
        self.go_seq += 1;
        self.send(Job::Go(Box::new(GoJob {
            seq: self.go_seq,
            game: self.game.clone(),
            limits,
            book_move,
        })));
        Ok(())
    }

    /// Whether a search is running or queued.
    fn searching(&self) -> bool {
        self.searches.load(Ordering::SeqCst) > 0
    }

    /// Stops the running search and every queued one. All of them now end by themselves,
    /// so a `go` that follows at once is queued rather than refused.
    fn stop(&mut self) {
        self.stopped_up_to.store(self.go_seq, Ordering::SeqCst);
        self.control.stop.store(true, Ordering::SeqCst);
        self.control.notify();
        self.unbounded = false;
    }

    /// Handles one line; returns false on `quit`.
    fn handle(&mut self, line: &str) -> bool {
        let cmd = match parse(line) {
            Ok(Some(cmd)) => cmd,
            Ok(None) => return true,
            Err(e) => {
                self.out.error(&e.to_string());
                return true;
            }
        };
        self.command(cmd).unwrap_or_else(|e| {
            self.out.error(&error_chain(&e));
            true
        })
    }

    /// Carries out one command; `Ok(false)` on `quit`.
    fn command(&mut self, cmd: Command) -> Result<bool, CommandError> {
        match cmd {
            Command::Uci => self.uci(),
            Command::Debug(_) | Command::Register => {}
            Command::IsReady => {
                if self.searching() {
                    self.out.line("readyok");
                } else {
                    self.send(Job::Ready);
                }
            }
            Command::SetOption { name, value } => {
                if self.searching() {
                    return Err(CommandError::Busy("setoption"));
                }
                self.set_option(&name, value)?;
            }
            Command::UciNewGame => {
                if self.searching() {
                    return Err(CommandError::Busy("ucinewgame"));
                }
                self.game = Some(Game::default());
                self.send(Job::NewGame);
            }
            Command::Position { fen, moves } => {
                // A refused FEN leaves no position; a refused move keeps the ones before.
                self.game = None;
                let (game, refused) = Game::from_command(fen.as_deref(), &moves)?;
                self.game = Some(game);
                if let Some(e) = refused {
                    return Err(e.into());
                }
            }
            Command::Go(go) => self.go(go)?,
            Command::Stop => self.stop(),
            Command::PonderHit => {
                self.control.pondering.store(false, Ordering::SeqCst);
                self.control.notify();
            }
            Command::Quit => return Ok(false),
        }
        Ok(true)
    }
}

/// Turns an `Evaluator` option value into an evaluator (built-in name, file, or whatever
/// else the caller knows of, such as evaluators stored in a database).
pub type Resolver = Box<dyn Fn(&str) -> Result<Evaluator, crate::players::ResolveError>>;

/// Runs the UCI engine until `quit` or end of input, choosing moves with `player` (the
/// engine's [`crate::search::Searcher`], or one of the studies' players).
pub fn run(
    input: impl BufRead,
    out: Output,
    player: Box<dyn Player>,
    evaluator_spec: &str,
    resolve: Resolver,
) -> io::Result<()> {
    let control = player.control();
    let player_name = player.name();
    let searches = Arc::new(AtomicUsize::new(0));
    let stopped_up_to = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel();
    let thread = {
        let out = out.clone();
        let searches = searches.clone();
        let stopped_up_to = stopped_up_to.clone();
        thread::Builder::new()
            .name("search".into())
            // Deep recursion (128 plies, qsearch on top) with move lists on the stack.
            .stack_size(64 * 1024 * 1024)
            .spawn(move || search_thread(player, rx, out, searches, stopped_up_to))?
    };
    let mut engine = Engine {
        player: player_name,
        out,
        resolve,
        jobs: tx,
        control,
        searches,
        go_seq: 0,
        stopped_up_to,
        game: Some(Game::default()),
        unbounded: false,
        options: Options {
            hash: 16,
            evaluator: evaluator_spec.to_owned(),
            own_book: false,
            book: None,
            multipv: 1,
            overhead: 20,
        },
    };
    let mut read_error = None;
    let mut quit = false;
    for line in input.lines() {
        match line {
            Ok(line) => {
                if !engine.handle(&line) {
                    quit = true;
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                engine.out.error("input line is not valid UTF-8");
            }
            Err(e) => {
                read_error = Some(e);
                break;
            }
        }
    }
    // `quit` stops the search at once. At the end of input (a script piped in) a bounded
    // search may finish; only an infinite or pondering search has to be stopped.
    if quit || engine.unbounded {
        engine.stop();
        engine.control.pondering.store(false, Ordering::SeqCst);
        engine.control.notify();
    }
    engine.send(Job::Quit);
    let _ = thread.join();
    match read_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
