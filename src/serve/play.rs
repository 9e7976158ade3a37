//! Games against the engine (or any player) from the browser: kept in memory only, the
//! database is never written. The players run on one engine thread fed by a bounded
//! queue: a request never waits for a search, a full queue is refused (503), and each
//! game has at most one search queued or running.

use std::collections::HashMap;
use std::net::IpAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shakmaty::{Chess, Color, Position};

use super::game::{Game, GameId, Status, client_key, state, thought, white_view};
use super::http::ApiError;
use chessgraph_core::chess::fen::{Leniency, parse};
use chessgraph_core::chess::game::outcome;
use chessgraph_engine::players::Player;
use chessgraph_engine::search::{Control, Info, Limits};

/// Why a game's player cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The spec or evaluator is refused, in the API's words.
    #[error("{0}")]
    Refused(String),
    /// A `logistic` player needs the database's fits, and the server has no database.
    #[error("player logistic: the server has no database with fits")]
    NoDatabase,
    /// A `logistic` player names a fit the database does not hold.
    #[error("player logistic: no `train moves` fit {0} in the database")]
    NoFit(i64),
    /// The library could not make the player (a bad option, a failed allocation, the
    /// database).
    #[error("player {spec}")]
    Library {
        /// The spec.
        spec: String,
        /// Why.
        #[source]
        source: chessgraph_store::Error,
    },
    /// The spec's options do not make a player.
    #[error("player {spec}")]
    Spec {
        /// The spec.
        spec: String,
        /// What is wrong with it.
        #[source]
        source: chessgraph_engine::players::SpecError,
    },
    /// Making the player panicked.
    #[error("the player {0} could not be made")]
    Panicked(String),
}

/// Where games get their players: a spec and a default evaluator name.
pub trait Players: Send + Sync {
    /// Whether the spec can be built, without building it (no hash table is allocated).
    fn check(&self, spec: &str, evaluator: &str) -> Result<(), PlayerError>;
    /// The player, or why it cannot be made (an allocation that fails is an error here).
    fn build(&self, spec: &str, evaluator: &str) -> Result<Box<dyn Player>, PlayerError>;
    /// About how many bytes the player of `spec` holds once built (its hash table, its
    /// network), for the bound on the players kept between moves; 0 by default.
    fn footprint(&self, _spec: &str) -> u64 {
        0
    }
}

/// Settings of the games store.
#[derive(Debug, Clone, Copy)]
pub struct PlayOptions {
    /// Searches that may wait for the engine thread; one more is refused with 503.
    pub queue: usize,
    /// Games kept in memory; the least recently used idle one is dropped for a new one.
    pub max_games: usize,
    /// The longest time per move a game may ask for.
    pub max_movetime: Duration,
    /// Memory the players kept between moves may hold together, on each engine thread
    /// (bytes; one player over it is kept alone): see [`Players::footprint`].
    pub cache_bytes: u64,
    /// Engine time one client may have queued or running at once, over all its games:
    /// past it, its next search is refused (503) while others play. A client is an IP
    /// address, every loopback address one client (a local process cannot multiply its
    /// budget by binding more of 127.0.0.0/8) and an IPv6 client its /64.
    pub client_budget: Duration,
}

/// What a new game is asked for.
#[derive(Debug, Clone)]
pub struct NewGame {
    /// Start position (the standard one when `None`).
    pub fen: Option<String>,
    /// The opponent's player spec (`engine`, `random:seed=1`, ...).
    pub player: String,
    /// The evaluator for players that take one and whose spec names none.
    pub evaluator: String,
    /// Time per engine move.
    pub movetime: Duration,
    /// The side the person plays.
    pub human: Color,
    /// Who asks (the connection's IP address): engine time counts against its budget,
    /// and only it may see, move in or end the game.
    pub client: IpAddr,
}

struct Store {
    games: HashMap<GameId, Game>,
    /// The game being searched and the flags that stop its search.
    running: Option<(GameId, Control)>,
    /// Searches queued for the engine thread whose game still wants them: a job left
    /// behind by a removed or taken-back game no longer counts against the queue.
    waiting: usize,
}

struct Job {
    id: GameId,
    generation: u64,
    pos: Chess,
    history: Vec<u64>,
    player: String,
    evaluator: String,
    movetime: Duration,
}

/// The games and the engine thread.
pub struct Play {
    store: Arc<Mutex<Store>>,
    jobs: Sender<Job>,
    /// Moves of players that need no search ([`is_instant`]), on their own thread: they
    /// never wait behind the engine's queue.
    instant: Sender<Job>,
    players: Arc<dyn Players>,
    options: PlayOptions,
}

fn lock(store: &Mutex<Store>) -> MutexGuard<'_, Store> {
    store.lock().unwrap_or_else(|e| e.into_inner())
}

impl Play {
    /// Starts the engine thread.
    pub fn start(options: PlayOptions, players: Arc<dyn Players>) -> Play {
        let store = Arc::new(Mutex::new(Store {
            games: HashMap::new(),
            running: None,
            waiting: 0,
        }));
        let budget = options.cache_bytes;
        let spawn = |name: &str, searches: bool| {
            let (jobs, rx) = channel();
            let thread_store = store.clone();
            let thread_players = players.clone();
            std::thread::Builder::new()
                .name(name.into())
                .spawn(move || engine_thread(rx, thread_store, thread_players, searches, budget))
                .expect("spawn the engine thread");
            jobs
        };
        let jobs = spawn("chessgraph-engine", true);
        let instant = spawn("chessgraph-instant", false);
        Play {
            store,
            jobs,
            instant,
            players,
            options,
        }
    }

    /// Starts a game; the engine is asked to move at once when it is its turn.
    pub fn create(&self, new: NewGame) -> Result<Value, ApiError> {
        let start = match &new.fen {
            None => Chess::default(),
            Some(fen) => parse(fen, Leniency::DropCastlingAndEp)
                .map_err(|e| ApiError::bad(format!("fen {fen:?}: {e}")))?,
        };
        if new.movetime.is_zero() || new.movetime > self.options.max_movetime {
            return Err(ApiError::bad(format!(
                "movetime_ms must be 1 to {}",
                self.options.max_movetime.as_millis()
            )));
        }
        // Check the spec and the evaluator now, not on the engine thread.
        self.players
            .check(&new.player, &new.evaluator)
            .map_err(|e| ApiError::bad(chessgraph_core::error::error_chain(&e)))?;
        let game = Game {
            start,
            moves: Vec::new(),
            human: new.human,
            player: new.player,
            evaluator: new.evaluator,
            movetime: new.movetime,
            status: Status::Human,
            generation: 0,
            thought: None,
            error: None,
            touched: Instant::now(),
            client: client_key(new.client),
        };
        let mut store = lock(&self.store);
        if store.games.len() >= self.options.max_games {
            let idle = store
                .games
                .iter()
                .filter(|(_, g)| g.status == Status::Human)
                .min_by_key(|(_, g)| g.touched)
                .map(|(&id, _)| id)
                .ok_or_else(|| ApiError::busy("every game is waiting for the engine"))?;
            store.games.remove(&idle);
        }
        let id = GameId::random().map_err(|e| ApiError {
            status: 500,
            message: format!("no random game id: {e}"),
        })?;
        store.games.insert(id, game);
        if let Err(e) = self.engine_turn(&mut store, id) {
            store.games.remove(&id);
            return Err(e);
        }
        Ok(state(id, &store.games[&id]))
    }

    /// The state of game `id`, for `client`.
    pub fn get(&self, id: &str, client: IpAddr) -> Result<Value, ApiError> {
        let mut store = lock(&self.store);
        let id = owned(&store, id, client)?;
        let game = game_mut(&mut store, id)?;
        game.touched = Instant::now();
        Ok(state(id, game))
    }

    /// Plays the person's move (UCI notation) and queues the engine's answer.
    pub fn play(&self, id: &str, client: IpAddr, uci: &str) -> Result<Value, ApiError> {
        let mut store = lock(&self.store);
        let id = owned(&store, id, client)?;
        let game = game_mut(&mut store, id)?;
        game.touched = Instant::now();
        if game.status != Status::Human {
            return Err(ApiError::conflict(
                "the engine is thinking; wait for its move",
            ));
        }
        let (pos, keys) = game.replay();
        if outcome(&pos, &keys).is_some() {
            return Err(ApiError::conflict("the game is over"));
        }
        if pos.turn() != game.human {
            return Err(ApiError::conflict("it is not your turn"));
        }
        let m = chessgraph_core::chess::moves::parse_uci(&pos, uci)
            .ok_or_else(|| ApiError::bad(format!("{uci:?} is not a legal move here")))?;
        game.moves.push(m);
        game.generation += 1;
        game.error = None;
        if let Err(e) = self.engine_turn(&mut store, id) {
            let game = game_mut(&mut store, id)?;
            game.moves.pop();
            game.generation += 1;
            return Err(e);
        }
        Ok(state(id, &store.games[&id]))
    }

    /// Takes back the last moves up to the person's previous turn (stopping a search).
    pub fn undo(&self, id: &str, client: IpAddr) -> Result<Value, ApiError> {
        let mut store = lock(&self.store);
        let id = owned(&store, id, client)?;
        let running = store
            .running
            .as_ref()
            .filter(|r| r.0 == id)
            .map(|r| r.1.clone());
        let game = game_mut(&mut store, id)?;
        game.touched = Instant::now();
        // The person's moves are those made with the person to move.
        let mut pos = game.start.clone();
        let mut last_human = None;
        for (i, &m) in game.moves.iter().enumerate() {
            if pos.turn() == game.human {
                last_human = Some(i);
            }
            pos.play_unchecked(m);
        }
        let Some(cut) = last_human else {
            return Err(ApiError::conflict("nothing to take back"));
        };
        game.moves.truncate(cut);
        game.generation += 1;
        let was_queued = game.status == Status::Queued;
        game.status = Status::Human;
        game.thought = None;
        game.error = None;
        if let Some(control) = running {
            control.stop.store(true, Ordering::SeqCst);
            control.notify();
        }
        if was_queued {
            store.waiting = store.waiting.saturating_sub(1);
        }
        Ok(state(id, &store.games[&id]))
    }

    /// Ends game `id` (stopping its search).
    pub fn remove(&self, id: &str, client: IpAddr) -> Result<Value, ApiError> {
        let mut store = lock(&self.store);
        let id = owned(&store, id, client)?;
        if let Some((_, control)) = store.running.as_ref().filter(|r| r.0 == id) {
            control.stop.store(true, Ordering::SeqCst);
            control.notify();
        }
        let game = store
            .games
            .remove(&id)
            .ok_or_else(|| ApiError::not_found(format!("no game {id}")))?;
        if game.status == Status::Queued {
            store.waiting = store.waiting.saturating_sub(1);
        }
        Ok(json!({ "id": id.to_string(), "removed": true }))
    }

    /// Queues a search when it is the engine's turn in game `id` (the caller holds the
    /// store); a full queue is an error and nothing is queued.
    fn engine_turn(&self, store: &mut Store, id: GameId) -> Result<(), ApiError> {
        let full = store.waiting >= self.options.queue.max(1);
        let (client, movetime, instant) = {
            let game = game_mut(store, id)?;
            (game.client, game.movetime, is_instant(&game.player))
        };
        let used = engine_time(store, client);
        let game = game_mut(store, id)?;
        let (pos, history) = game.replay();
        if pos.turn() == game.human || outcome(&pos, &history).is_some() {
            game.status = Status::Human;
            return Ok(());
        }
        let job = Job {
            id,
            generation: game.generation,
            pos,
            history,
            player: game.player.clone(),
            evaluator: game.evaluator.clone(),
            movetime,
        };
        if !instant && used + movetime > self.options.client_budget {
            return Err(ApiError::busy(format!(
                "your games have {} ms of engine time queued or running, and each client may have {} ms: wait for a move, or end a game",
                used.as_millis(),
                self.options.client_budget.as_millis()
            )));
        }
        if !instant && full {
            return Err(ApiError::busy(
                "the engine's queue is full; try again in a moment",
            ));
        }
        let lane = if instant { &self.instant } else { &self.jobs };
        match lane.send(job) {
            Ok(()) => {
                game.status = Status::Queued;
                game.thought = None;
                store.waiting += 1;
                Ok(())
            }
            Err(_) => Err(ApiError {
                status: 500,
                message: "the engine thread has stopped".into(),
            }),
        }
    }
}

/// Whether a player spec names a player that moves without a search (`random`): its
/// moves take microseconds and go around the engine's queue and the clients' budgets.
pub fn is_instant(spec: &str) -> bool {
    spec.split(':').next().map(str::trim) == Some("random")
}

/// The engine time that `client`'s games have queued or running.
fn engine_time(store: &Store, client: IpAddr) -> Duration {
    store
        .games
        .values()
        .filter(|g| g.client == client && !is_instant(&g.player))
        .filter(|g| matches!(g.status, Status::Queued | Status::Thinking))
        .map(|g| g.movetime)
        .sum()
}

/// The id of `client`'s game `text`: another client's game, like a game that does not
/// exist, is not found (the same answer).
fn owned(store: &Store, text: &str, client: IpAddr) -> Result<GameId, ApiError> {
    GameId::parse(text)
        .filter(|id| {
            store
                .games
                .get(id)
                .is_some_and(|g| g.client == client_key(client))
        })
        .ok_or_else(|| not_found(text))
}

fn not_found(id: impl std::fmt::Display) -> ApiError {
    ApiError::not_found(format!("no game {id} (games live in memory only)"))
}

fn game_mut(store: &mut Store, id: GameId) -> Result<&mut Game, ApiError> {
    store.games.get_mut(&id).ok_or_else(|| not_found(id))
}

/// A player kept on an engine thread: its spec and evaluator, the game it last played,
/// the memory it holds ([`Players::footprint`]).
struct Cached {
    key: String,
    player: Box<dyn Player>,
    last_game: Option<GameId>,
    bytes: u64,
}

/// Players kept on an engine thread, most recent last: at most [`CACHED_PLAYERS`], whose
/// memory together stays within `budget` (one player over it alone is kept alone).
struct Cache {
    players: Vec<Cached>,
    budget: u64,
}

const CACHED_PLAYERS: usize = 4;

impl Cache {
    /// The player for `job`, cached or built; before one is built, the oldest are
    /// dropped until it fits beside the rest within the budget.
    fn take(&mut self, job: &Job, players: &dyn Players) -> Result<Cached, PlayerError> {
        let key = format!("{}\u{0}{}", job.player, job.evaluator);
        if let Some(i) = self.players.iter().position(|c| c.key == key) {
            return Ok(self.players.remove(i));
        }
        let bytes = players.footprint(&job.player);
        while !self.players.is_empty()
            && (self.players.len() >= CACHED_PLAYERS
                || self.players.iter().map(|c| c.bytes).sum::<u64>() + bytes > self.budget)
        {
            self.players.remove(0);
        }
        let player = catch_unwind(AssertUnwindSafe(|| {
            players.build(&job.player, &job.evaluator)
        }))
        .unwrap_or_else(|_| Err(PlayerError::Panicked(job.player.clone())))?;
        Ok(Cached {
            key,
            player,
            last_game: None,
            bytes,
        })
    }
}

/// Plays the jobs of `rx` in turn. `searches`: the engine's thread, whose running search
/// take-back and ending a game stop; the instant players' thread is not.
fn engine_thread(
    rx: Receiver<Job>,
    store: Arc<Mutex<Store>>,
    players: Arc<dyn Players>,
    searches: bool,
    budget: u64,
) {
    let mut cache = Cache {
        players: Vec::new(),
        budget,
    };
    for job in rx {
        let mut entry = match cache.take(&job, players.as_ref()) {
            Ok(entry) => entry,
            Err(e) => {
                fail(&store, &job, chessgraph_core::error::error_chain(&e));
                continue;
            }
        };
        if !claim(&store, &job, &entry, searches) {
            cache.players.push(entry);
            continue;
        }
        if entry.last_game != Some(job.id) {
            entry.player.new_game();
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| think(&mut entry, &job, &store)));
        let mut s = lock(&store);
        if searches {
            s.running = None;
        }
        let result = match outcome {
            Ok(r) => {
                entry.last_game = Some(job.id);
                cache.players.push(entry);
                r
            }
            Err(_) => {
                drop(s);
                fail(&store, &job, format!("the player {} failed", job.player));
                continue;
            }
        };
        if let Some(game) = s.games.get_mut(&job.id)
            && game.generation == job.generation
        {
            play_result(game, &job, &result);
        }
    }
}

/// Marks the job's game as thinking (and its search as the running one when `searches`);
/// false when the game is gone, or moved on since the job was queued.
fn claim(store: &Mutex<Store>, job: &Job, entry: &Cached, searches: bool) -> bool {
    let mut s = lock(store);
    let Some(game) = s.games.get_mut(&job.id) else {
        return false;
    };
    if game.generation != job.generation || game.status != Status::Queued {
        return false;
    }
    game.status = Status::Thinking;
    s.waiting = s.waiting.saturating_sub(1);
    let control = entry.player.control();
    control.stop.store(false, Ordering::SeqCst);
    if searches {
        s.running = Some((job.id, control));
    }
    true
}

/// The player's search, its principal lines shown in the game as they come.
fn think(
    entry: &mut Cached,
    job: &Job,
    store: &Mutex<Store>,
) -> chessgraph_engine::search::SearchResult {
    let limits = Limits {
        movetime: Some(job.movetime),
        ..Limits::default()
    };
    let turn = job.pos.turn();
    entry
        .player
        .choose(&job.pos, &job.history, &limits, &mut |info: &Info| {
            if info.multipv != 1 {
                return;
            }
            let thought = thought(&job.pos, turn, info);
            let mut s = lock(store);
            if let Some(g) = s.games.get_mut(&job.id)
                && g.generation == job.generation
            {
                g.thought = Some(thought);
            }
        })
}

/// The search's last figures in the game's thought, and its move played (an error in the
/// game when it gave no legal move).
fn play_result(game: &mut Game, job: &Job, result: &chessgraph_engine::search::SearchResult) {
    let turn = job.pos.turn();
    let mut t = game.thought.take().unwrap_or_default();
    t.done = true;
    t.depth = t.depth.max(result.depth);
    t.nodes = t.nodes.max(result.nodes);
    t.time_ms = result.time.as_millis() as u64;
    if t.score.is_none() && result.nodes > 0 {
        t.score = Some(white_view(result.score, turn));
    }
    game.thought = Some(t);
    game.status = Status::Human;
    match result.best.filter(|&m| job.pos.is_legal(m)) {
        Some(m) => {
            game.moves.push(m);
            game.generation += 1;
        }
        None => game.error = Some(format!("{} gave no legal move", job.player)),
    }
}

fn fail(store: &Mutex<Store>, job: &Job, message: String) {
    let mut s = lock(store);
    let mut was_queued = false;
    if let Some(g) = s.games.get_mut(&job.id)
        && g.generation == job.generation
    {
        was_queued = g.status == Status::Queued;
        g.status = Status::Human;
        g.error = Some(message);
    }
    if was_queued {
        s.waiting = s.waiting.saturating_sub(1);
    }
}

#[cfg(test)]
#[path = "play_tests.rs"]
mod tests;
