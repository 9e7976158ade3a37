//! The UCI protocol: command parsing ([`parse`]) and the engine loop ([`run`]).
//!
//! Architecture (after Rustic): the thread calling [`run`] reads standard input and keeps
//! the current position; a search thread owns the [`Searcher`] and receives jobs over a
//! channel. `stop`, `ponderhit` and `quit` act through atomic flags shared with the search,
//! so they work at any time, also during `go infinite`. `isready` is answered at once while
//! searching, otherwise after the jobs queued before it (such as a Hash resize). Both
//! threads write whole lines to the shared output and flush after each.
//!
//! A `go` sent while a bounded search runs is queued behind it; the reader never waits on
//! the search, so `stop` (which ends the running search and every queued one) and `quit`
//! are always read. `quit` stops the search at once; at the end of input a bounded search
//! (depth, nodes, time) is allowed to finish, so that scripts can pipe commands in.
//!
//! Malformed or unknown input is answered with `info string error: ...`; the engine keeps
//! running. The best move is always legal (`bestmove 0000` when there is none).

pub mod book;
pub mod client;

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};
use shakmaty_syzygy::Tablebase;

use crate::eval::Evaluator;
use crate::search::{Clock, Control, Info, Limits, Searcher, hash};
use book::Book;

/// Engine name reported to `uci`.
pub const ENGINE_NAME: &str = concat!("chessgraph ", env!("CARGO_PKG_VERSION"));

/// Parameters of `go`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Go {
    /// White's remaining time.
    pub wtime: Option<Duration>,
    /// Black's remaining time.
    pub btime: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Depth limit.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Fixed time per move.
    pub movetime: Option<Duration>,
    /// Look for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder (until `ponderhit` or `stop`).
    pub ponder: bool,
    /// Restrict the root moves.
    pub searchmoves: Vec<UciMove>,
}

/// One parsed UCI command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`
    Uci,
    /// `debug on|off`
    Debug(bool),
    /// `isready`
    IsReady,
    /// `setoption name <name> [value <value>]`
    SetOption {
        /// Option name as given.
        name: String,
        /// Value, if any.
        value: Option<String>,
    },
    /// `register ...` (accepted and ignored).
    Register,
    /// `ucinewgame`
    UciNewGame,
    /// `position startpos|fen <fen> [moves ...]`
    Position {
        /// FEN, or `None` for the start position.
        fen: Option<String>,
        /// Moves played from it.
        moves: Vec<UciMove>,
    },
    /// `go ...`
    Go(Go),
    /// `stop`
    Stop,
    /// `ponderhit`
    PonderHit,
    /// `quit`
    Quit,
}

fn number<T: std::str::FromStr>(key: &str, value: Option<&str>) -> Result<T, String> {
    let v = value.ok_or_else(|| format!("go {key}: missing value"))?;
    v.parse()
        .map_err(|_| format!("go {key}: {v:?} is not a valid number"))
}

fn millis(key: &str, value: Option<&str>) -> Result<Duration, String> {
    // GUIs may send negative remaining time when a clock has run out: clamp to 0.
    let v: i64 = number(key, value)?;
    Ok(Duration::from_millis(v.max(0) as u64))
}

/// Parses one input line. `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, String> {
    let mut tokens = line.split_whitespace();
    let Some(head) = tokens.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = tokens.collect();
    let cmd = match head {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "register" => Command::Register,
        "debug" => match rest.first() {
            Some(&"on") => Command::Debug(true),
            Some(&"off") | None => Command::Debug(false),
            Some(other) => return Err(format!("debug: expected on or off, got {other:?}")),
        },
        "setoption" => parse_setoption(&rest)?,
        "position" => parse_position(&rest)?,
        "go" => Command::Go(parse_go(&rest)?),
        other => return Err(format!("unknown command {other:?}")),
    };
    Ok(Some(cmd))
}

fn parse_setoption(rest: &[&str]) -> Result<Command, String> {
    if rest.first() != Some(&"name") {
        return Err("setoption: expected \"name\"".into());
    }
    let value_at = rest.iter().position(|&t| t == "value");
    let name_tokens = &rest[1..value_at.unwrap_or(rest.len())];
    if name_tokens.is_empty() {
        return Err("setoption: empty option name".into());
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Command::SetOption {
        name: name_tokens.join(" "),
        value,
    })
}

fn parse_position(rest: &[&str]) -> Result<Command, String> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let spec = &rest[..moves_at.unwrap_or(rest.len())];
    let fen = match spec.first() {
        Some(&"startpos") if spec.len() == 1 => None,
        Some(&"startpos") => return Err("position startpos: unexpected tokens".into()),
        Some(&"fen") if spec.len() > 1 => Some(spec[1..].join(" ")),
        Some(&"fen") => return Err("position fen: missing FEN".into()),
        Some(other) => {
            return Err(format!("position: expected startpos or fen, got {other:?}"));
        }
        None => return Err("position: expected startpos or fen".into()),
    };
    let moves = match moves_at {
        Some(i) => rest[i + 1..]
            .iter()
            .map(|t| {
                t.parse::<UciMove>()
                    .map_err(|_| format!("position: {t:?} is not a UCI move"))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(Command::Position { fen, moves })
}

fn parse_go(rest: &[&str]) -> Result<Go, String> {
    let mut go = Go::default();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let value = rest.get(i + 1).copied();
        let mut consumed = 2;
        match key {
            "wtime" => go.wtime = Some(millis(key, value)?),
            "btime" => go.btime = Some(millis(key, value)?),
            "winc" => go.winc = Some(millis(key, value)?),
            "binc" => go.binc = Some(millis(key, value)?),
            "movestogo" => go.movestogo = Some(number(key, value)?),
            "depth" => go.depth = Some(number(key, value)?),
            "nodes" => go.nodes = Some(number(key, value)?),
            "movetime" => go.movetime = Some(millis(key, value)?),
            "mate" => go.mate = Some(number(key, value)?),
            "infinite" => {
                go.infinite = true;
                consumed = 1;
            }
            "ponder" => {
                go.ponder = true;
                consumed = 1;
            }
            "searchmoves" => {
                // Every following token that parses as a move.
                let mut j = i + 1;
                while let Some(m) = rest.get(j).and_then(|t| t.parse::<UciMove>().ok()) {
                    go.searchmoves.push(m);
                    j += 1;
                }
                consumed = j - i;
            }
            other => return Err(format!("go: unknown parameter {other:?}")),
        }
        i += consumed;
    }
    Ok(go)
}

/// The current game: a start position and the moves played.
#[derive(Debug, Clone, Default)]
pub struct Game {
    /// Position to search.
    pub position: Chess,
    /// Keys of the earlier positions, oldest first.
    pub history: Vec<u64>,
}

impl Game {
    /// Builds the game of a `position` command, checking every move.
    pub fn from_command(fen: Option<&str>, moves: &[UciMove]) -> Result<Game, String> {
        let mut position: Chess = match fen {
            None => Chess::default(),
            Some(f) => {
                let fen = f
                    .parse::<Fen>()
                    .map_err(|e| format!("position fen {f:?}: {e}"))?;
                lenient_position(fen).map_err(|e| format!("position fen {f:?}: {e}"))?
            }
        };
        let mut history = Vec::with_capacity(moves.len());
        for (i, uci) in moves.iter().enumerate() {
            let m = uci
                .to_move(&position)
                .map_err(|_| format!("position: move {} ({uci}) is illegal", i + 1))?;
            history.push(hash::key(&position));
            position.play_unchecked(m);
        }
        Ok(Game { position, history })
    }
}

/// The position of `fen`; castling rights or an en passant square that do not fit the
/// board are dropped (as most engines do) rather than rejecting the position.
fn lenient_position(fen: Fen) -> Result<Chess, String> {
    match fen.into_position(CastlingMode::Standard) {
        Ok(pos) => Ok(pos),
        Err(e) => match e.ignore_invalid_castling_rights() {
            Ok(pos) => Ok(pos),
            Err(e) => e.ignore_invalid_ep_square().map_err(|e| e.to_string()),
        },
    }
}

/// Converts `go` parameters for the side to move of `pos`.
pub fn limits(go: &Go, pos: &Chess) -> Result<Limits, String> {
    let white = pos.turn().is_white();
    let (time, inc) = if white {
        (go.wtime, go.winc)
    } else {
        (go.btime, go.binc)
    };
    let mut searchmoves = Vec::new();
    for uci in &go.searchmoves {
        let m = uci
            .to_move(pos)
            .map_err(|_| format!("go searchmoves: {uci} is illegal here"))?;
        searchmoves.push(m);
    }
    Ok(Limits {
        depth: go.depth,
        nodes: go.nodes,
        movetime: go.movetime,
        mate: go.mate,
        infinite: go.infinite,
        ponder: go.ponder,
        clock: time.map(|time| Clock {
            time,
            inc: inc.unwrap_or_default(),
            movestogo: go.movestogo,
        }),
        searchmoves,
    })
}

/// Shared, line-flushed output.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Wraps a writer.
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line and flushes (errors such as a closed pipe are ignored: the GUI is
    /// gone and `quit` or end of input follows).
    pub fn line(&self, s: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{s}");
        let _ = w.flush();
    }

    /// `info string error: ...`
    pub fn error(&self, msg: &str) {
        self.line(&format!("info string error: {msg}"));
    }
}

fn uci_move(m: Move) -> String {
    UciMove::from_standard(m).to_string()
}

/// Formats an `info` line.
pub fn info_line(info: &Info) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} hashfull {} tbhits {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.score,
        info.nodes,
        info.nps(),
        info.time.as_millis(),
        info.hashfull,
        info.tbhits
    );
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for &m in &info.pv {
            s.push(' ');
            s.push_str(&uci_move(m));
        }
    }
    s
}

struct GoJob {
    /// Number of this `go` (1, 2, ...), to tell which searches a `stop` applies to.
    seq: u64,
    game: Game,
    limits: Limits,
    book_move: Option<Move>,
}

enum Job {
    Go(Box<GoJob>),
    Hash(usize),
    Evaluator(Arc<Evaluator>),
    MultiPv(usize),
    Overhead(Duration),
    Tablebase(Option<Arc<Tablebase<Chess>>>),
    NewGame,
    Ready,
    Quit,
}

/// UCI option values kept by the reader thread.
struct Options {
    hash: usize,
    evaluator: String,
    own_book: bool,
    book_file: String,
    book: Option<Book>,
    syzygy_path: String,
    multipv: usize,
    overhead: u64,
    ponder: bool,
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

fn search_thread(
    mut searcher: Searcher,
    jobs: Receiver<Job>,
    out: Output,
    searches: Arc<AtomicUsize>,
    stopped_up_to: Arc<AtomicU64>,
) {
    let control = searcher.control();
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
                let (best, ponder) = match book_move {
                    Some(m) => {
                        out.line(&format!("info string book move {}", uci_move(m)));
                        (Some(m), None)
                    }
                    None => {
                        let r = searcher.search(&game.position, &game.history, &limits, &mut |i| {
                            out.line(&info_line(i))
                        });
                        (r.best, r.ponder)
                    }
                };
                // In infinite and ponder mode the GUI waits for our bestmove only after
                // it said stop (or ponderhit).
                while (limits.infinite
                    || (limits.ponder && control.pondering.load(Ordering::SeqCst)))
                    && !control.stop.load(Ordering::SeqCst)
                {
                    thread::sleep(Duration::from_millis(1));
                }
                let line = match (best, ponder) {
                    (Some(b), Some(p)) => {
                        format!("bestmove {} ponder {}", uci_move(b), uci_move(p))
                    }
                    (Some(b), None) => format!("bestmove {}", uci_move(b)),
                    (None, _) => "bestmove 0000".to_owned(),
                };
                searches.fetch_sub(1, Ordering::SeqCst);
                out.line(&line);
            }
            Job::Hash(mib) => {
                if let Err(e) = searcher.set_hash(mib) {
                    out.error(&format!("option Hash: {e}; using 16 MiB"));
                }
            }
            Job::Evaluator(e) => searcher.set_evaluator(e),
            Job::MultiPv(n) => searcher.set_multipv(n),
            Job::Overhead(d) => searcher.set_overhead(d),
            Job::Tablebase(tb) => searcher.set_tablebase(tb),
            Job::NewGame => searcher.clear(),
            Job::Ready => out.line("readyok"),
            Job::Quit => break,
        }
    }
}

fn random_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // SplitMix64 finaliser.
    let mut z = nanos.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

struct Engine {
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
    game: Game,
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
        out.line(&format!("id name {ENGINE_NAME}"));
        out.line("id author the chessgraph team");
        out.line(&format!(
            "option name Hash type spin default {} min 1 max 16384",
            o.hash
        ));
        out.line("option name Threads type spin default 1 min 1 max 1");
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
        out.line("uciok");
    }

    fn set_option(&mut self, name: &str, value: Option<String>) -> Result<(), String> {
        let value = value.unwrap_or_default();
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            let v: u64 = value
                .trim()
                .parse()
                .map_err(|_| format!("option {name}: {value:?} is not a number"))?;
            if !(min..=max).contains(&v) {
                return Err(format!("option {name}: {v} is outside {min}..={max}"));
            }
            Ok(v)
        };
        let check = || -> Result<bool, String> {
            match value.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(format!(
                    "option {name}: expected true or false, got {other:?}"
                )),
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
                spin(1, 1)?;
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
                let e = (self.resolve)(value.trim())
                    .map_err(|e| format!("option Evaluator: {}", error_chain(&e)))?;
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
                        .map_err(|e| format!("option BookFile: {}", error_chain(&e)))?;
                    self.out.line(&format!(
                        "info string book {} with {} entries",
                        value.trim(),
                        book.len()
                    ));
                    self.options.book = Some(book);
                }
                self.options.book_file = value.trim().to_owned();
            }
            "syzygypath" => {
                if empty(&value) {
                    self.send(Job::Tablebase(None));
                } else {
                    let mut tb = Tablebase::new();
                    let mut files = 0;
                    for dir in value.trim().split([':', ';']).filter(|d| !d.is_empty()) {
                        files += tb
                            .add_directory(dir)
                            .map_err(|e| format!("option SyzygyPath: directory {dir}: {e}"))?;
                    }
                    self.out.line(&format!(
                        "info string syzygy: {files} tables, up to {} pieces",
                        tb.max_pieces()
                    ));
                    self.send(Job::Tablebase((files > 0).then(|| Arc::new(tb))));
                }
                self.options.syzygy_path = value.trim().to_owned();
            }
            "ponder" => self.options.ponder = check()?,
            _ => return Err(format!("unknown option {name:?}")),
        }
        Ok(())
    }

    fn go(&mut self, go: Go) -> Result<(), String> {
        // Behind a bounded search the new one is queued (scripts piping several `go`
        // commands get every answer); the reader never waits, so `stop` and `quit` keep
        // working.
        if self.searching() && self.unbounded {
            return Err("go: already searching (send stop first)".into());
        }
        let limits = limits(&go, &self.game.position)?;
        let book_move = match &self.options.book {
            Some(book) if self.options.own_book && !go.infinite && !go.ponder => {
                book.pick(&self.game.position, random_seed())
            }
            _ => None,
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
        self.unbounded = false;
    }

    /// Handles one line; returns false on `quit`.
    fn handle(&mut self, line: &str) -> bool {
        let cmd = match parse(line) {
            Ok(Some(cmd)) => cmd,
            Ok(None) => return true,
            Err(e) => {
                self.out.error(&e);
                return true;
            }
        };
        let result = match cmd {
            Command::Uci => {
                self.uci();
                Ok(())
            }
            Command::Debug(_) | Command::Register => Ok(()),
            Command::IsReady => {
                if self.searching() {
                    self.out.line("readyok");
                } else {
                    self.send(Job::Ready);
                }
                Ok(())
            }
            Command::SetOption { name, value } => {
                if self.searching() {
                    Err("setoption: not allowed while searching".into())
                } else {
                    self.set_option(&name, value)
                }
            }
            Command::UciNewGame => {
                if self.searching() {
                    Err("ucinewgame: not allowed while searching".into())
                } else {
                    self.game = Game::default();
                    self.send(Job::NewGame);
                    Ok(())
                }
            }
            Command::Position { fen, moves } => {
                Game::from_command(fen.as_deref(), &moves).map(|g| self.game = g)
            }
            Command::Go(go) => self.go(go),
            Command::Stop => {
                self.stop();
                Ok(())
            }
            Command::PonderHit => {
                self.control.pondering.store(false, Ordering::SeqCst);
                Ok(())
            }
            Command::Quit => return false,
        };
        if let Err(e) = result {
            self.out.error(&e);
        }
        true
    }
}

/// Turns an `Evaluator` option value into an evaluator (built-in name, file, or whatever
/// else the caller knows of, such as evaluators stored in a database).
pub type Resolver = Box<dyn Fn(&str) -> crate::Result<Evaluator>>;

/// Runs the UCI engine until `quit` or end of input.
pub fn run(
    input: impl BufRead,
    out: Output,
    evaluator: Evaluator,
    evaluator_spec: &str,
    resolve: Resolver,
) -> io::Result<()> {
    let searcher = Searcher::new(Arc::new(evaluator), 16);
    let control = searcher.control();
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
            .spawn(move || search_thread(searcher, rx, out, searches, stopped_up_to))?
    };
    let mut engine = Engine {
        out,
        resolve,
        jobs: tx,
        control,
        searches,
        go_seq: 0,
        stopped_up_to,
        game: Game::default(),
        unbounded: false,
        options: Options {
            hash: 16,
            evaluator: evaluator_spec.to_owned(),
            own_book: false,
            book_file: String::new(),
            book: None,
            syzygy_path: String::new(),
            multipv: 1,
            overhead: 20,
            ponder: false,
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
    }
    engine.send(Job::Quit);
    let _ = thread.join();
    match read_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_commands() {
        assert_eq!(parse("  ").unwrap(), None);
        assert_eq!(parse("uci").unwrap(), Some(Command::Uci));
        assert_eq!(parse("isready\r").unwrap(), Some(Command::IsReady));
        assert_eq!(
            parse("setoption name Move Overhead value 50").unwrap(),
            Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("50".into())
            })
        );
        assert_eq!(
            parse("setoption name BookFile value /tmp/my book.bin").unwrap(),
            Some(Command::SetOption {
                name: "BookFile".into(),
                value: Some("/tmp/my book.bin".into())
            })
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5").unwrap(),
            Some(Command::Position {
                fen: None,
                moves: vec!["e2e4".parse().unwrap(), "e7e5".parse().unwrap()]
            })
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K6k w - - 0 1").unwrap(),
            Some(Command::Position {
                fen: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()),
                moves: vec![]
            })
        );
        let Some(Command::Go(go)) = parse(
            "go wtime 1000 btime -5 winc 10 binc 10 movestogo 7 searchmoves e2e4 d2d4 depth 3",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(go.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(go.btime, Some(Duration::ZERO));
        assert_eq!(go.movestogo, Some(7));
        assert_eq!(go.searchmoves.len(), 2);
        assert_eq!(go.depth, Some(3));
        let Some(Command::Go(go)) = parse("go infinite ponder mate 3 nodes 10 movetime 5").unwrap()
        else {
            panic!()
        };
        assert!(go.infinite && go.ponder);
        assert_eq!((go.mate, go.nodes), (Some(3), Some(10)));
    }

    #[test]
    fn parse_errors() {
        for bad in [
            "frobnicate",
            "go depth",
            "go depth x",
            "go sideways 3",
            "position",
            "position fen",
            "position somewhere",
            "position startpos moves e2e4 zz",
            "setoption",
            "setoption name",
            "debug maybe",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn game_from_position_command() {
        let moves: Vec<UciMove> = ["e2e4", "e7e5", "g1f3"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let g = Game::from_command(None, &moves).unwrap();
        assert_eq!(g.history.len(), 3);
        assert_eq!(g.history[0], 0x463b_9618_1691_fc9c);
        assert_eq!(g.position.turn(), shakmaty::Color::Black);
        let bad: Vec<UciMove> = vec!["e2e5".parse().unwrap()];
        let e = Game::from_command(None, &bad).unwrap_err();
        assert!(e.contains("move 1 (e2e5) is illegal"), "{e}");
        assert!(Game::from_command(Some("not a fen"), &[]).is_err());
        // Kings missing: a FEN that parses but is no legal position.
        assert!(Game::from_command(Some("8/8/8/8/8/8/8/8 w - - 0 1"), &[]).is_err());
        // Castling rights without the rooks are dropped, not fatal.
        let g = Game::from_command(Some("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1"), &[]).unwrap();
        assert!(!g.position.castles().any());
    }

    #[test]
    fn limits_pick_the_side_to_move() {
        let go = Go {
            wtime: Some(Duration::from_millis(1000)),
            btime: Some(Duration::from_millis(2000)),
            binc: Some(Duration::from_millis(30)),
            ..Go::default()
        };
        let g = Game::from_command(None, &["e2e4".parse().unwrap()]).unwrap();
        let l = limits(&go, &g.position).unwrap();
        let c = l.clock.unwrap();
        assert_eq!(
            (c.time, c.inc),
            (Duration::from_millis(2000), Duration::from_millis(30))
        );
        let go = Go {
            searchmoves: vec!["e2e5".parse().unwrap()],
            ..Go::default()
        };
        assert!(limits(&go, &Chess::default()).is_err());
    }

    /// Runs a whole session in-process (end of input acts as quit).
    fn session(input: &str) -> String {
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let out = Output::new(Box::new(Shared(buf.clone())));
        let e = Evaluator::builtin("seed003").unwrap();
        run(
            io::Cursor::new(input.to_owned()),
            out,
            e,
            "seed003",
            Box::new(Evaluator::by_name_or_path),
        )
        .unwrap();
        String::from_utf8(buf.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn session_basics() {
        let text = session(
            "uci\nisready\nbogus\nsetoption name Hash value 0\nsetoption name Nope value 1\n\
             position startpos moves e2e4\ngo depth 3\nisready\n",
        );
        assert!(text.contains("id name chessgraph"));
        assert!(text.contains("option name Hash type spin"));
        assert!(text.contains("uciok"));
        assert!(text.matches("readyok").count() == 2, "{text}");
        assert!(text.contains("info depth 3 "));
        assert!(text.contains("info string error: unknown command \"bogus\""));
        assert!(text.contains("info string error: option Hash: 0 is outside 1..=16384"));
        assert!(text.contains("info string error: unknown option \"Nope\""));
        let best = text
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("bestmove");
        let m: UciMove = best.split_whitespace().next().unwrap().parse().unwrap();
        let g = Game::from_command(None, &["e2e4".parse().unwrap()]).unwrap();
        assert!(m.to_move(&g.position).is_ok(), "{best}");
    }

    #[test]
    fn session_book_move() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.bin");
        let start = Chess::default();
        let d4 = "d2d4".parse::<UciMove>().unwrap().to_move(&start).unwrap();
        std::fs::write(
            &path,
            book::to_bytes(&[book::BookEntry {
                key: hash::key(&start),
                mv: book::polyglot_move(d4),
                weight: 1,
            }]),
        )
        .unwrap();
        let text = session(&format!(
            "setoption name BookFile value {}\nsetoption name OwnBook value true\nposition startpos\ngo wtime 1000 btime 1000\n",
            path.display()
        ));
        assert!(text.contains("info string book move d2d4"), "{text}");
        assert!(text.contains("bestmove d2d4"), "{text}");
    }
}
