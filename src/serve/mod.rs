//! `chessgraph serve`: the database and the engine in a browser.
//!
//! An HTTP server ([`net`]: hyper, with every limit a request could push past) with a
//! page whose HTML, JavaScript, CSS and font are built into the binary ([`assets`]), and
//! JSON endpoints behind every view ([`api`]):
//!
//! - **Play**: games against any player ([`chessgraph_engine::players::build`] specs) kept in memory
//!   ([`play`]); the players run on one engine thread behind a bounded queue.
//! - **Position**: a FEN or a stored position with its graph edges, features, labels and
//!   each evaluator's term-by-term breakdown ([`chessgraph_engine::eval::breakdown`]).
//! - **Data**: the report, the heatmaps, stored fits and evaluators, import errors.
//!
//! Safety, for a server left running on a machine with a browser:
//!
//! - no request can crash it, starve it or make it allocate what a header announces
//!   ([`net`]: bounded connections, the oldest still sending its header closed for a new
//!   one, header and body timeouts, size limits, quick requests in their own lane);
//! - only this server's own page can use the API ([`guard`]: Host, Origin,
//!   `Sec-Fetch-Site`, JSON for state changes), on loopback unless `--public`;
//! - requests never name files: players and evaluators come by name, built-in or stored
//!   in the database, networks by bare file name from the `--nets` folder, each player
//!   with the options the page may give it and the web's caps on them ([`players`]); a
//!   failed allocation fails that game only;
//! - users' SQL conditions are one expression, prepared under an authorizer, run with
//!   SQLite's length limits lowered and a time limit checked every 100 steps
//!   ([`chessgraph_store::filter`], [`chessgraph_store::browse::Deadline`]); every refusal is a 4xx
//!   with `{"error": ...}`; their temporary storage is in memory and SQLite's heap is
//!   limited ([`sql`]); the database is opened read-only;
//! - engine time queued or running is bounded per client ([`play`]).

pub mod api;
pub mod assets;
mod game;
pub mod guard;
pub mod head;
pub mod http;
pub mod net;
pub mod play;
pub mod players;
pub mod sql;

use chessgraph_core::Error as CoreError;
use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::Connection;

use chessgraph_engine::eval::{BUILTIN_NAMES, Evaluator};
use chessgraph_store::browse::Deadline;
use http::{ApiError, Query, Reply};
use play::{Play, PlayOptions};
pub use players::{Nets, WebCaps};
use sql::{give_back_freed_memory, with_bounded_storage};

/// Largest request body accepted (bytes).
pub const MAX_BODY: usize = 64 * 1024;

/// Threads answering the quick API requests (games, `/api/info`; see [`net::Lanes`]).
pub const QUICK_WORKERS: usize = 2;

/// What `chessgraph serve` is asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The database (read-only); the server runs without one when the file is missing.
    pub db: PathBuf,
    /// Address to listen on, `HOST:PORT` with a name or an IP (port 0: any free port).
    pub addr: String,
    /// Allow a non-loopback address.
    pub public: bool,
    /// Default evaluator of new games (built-in or stored name).
    pub evaluator: String,
    /// Threads answering the database and evaluation requests (each with its own
    /// read-only connection); games and `/api/info` have their own ([`QUICK_WORKERS`]).
    pub workers: usize,
    /// Time limit of a user's SQL condition.
    pub sql_timeout: Duration,
    /// Most rows a search returns.
    pub max_rows: usize,
    /// Open connections at most.
    pub max_connections: usize,
    /// Time a client has to send its header, and then its body.
    pub read_timeout: Duration,
    /// Database and evaluation requests waiting for a worker at most (one more is
    /// answered 503).
    pub queue: usize,
    /// The games store.
    pub play: PlayOptions,
    /// Caps on what a player spec from the page may ask for.
    pub caps: WebCaps,
    /// The folder whose network files the page may play by bare file name (`--nets`).
    pub nets: Option<PathBuf>,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address does not parse or resolve.
    #[error("--addr {addr:?}: {why}")]
    Address {
        /// The address as given.
        addr: String,
        /// Why it cannot be used.
        why: String,
    },
    /// A non-loopback address without `--public`.
    #[error(
        "{0} is not a loopback address: pass --public to listen on it (anyone who can reach it can use the server)"
    )]
    NotLoopback(SocketAddr),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {why}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The system's reason.
        why: String,
    },
    /// The database could not be opened or read.
    #[error(transparent)]
    Db(#[from] chessgraph_store::Error),
}

/// Evaluators by name: built-ins and those stored in the database (never a file path
/// from a request), loaded once.
pub struct Evaluators {
    db: Option<PathBuf>,
    cache: Mutex<HashMap<String, Arc<Evaluator>>>,
}

impl Evaluators {
    /// The evaluator called `name`.
    pub fn get(&self, name: &str) -> Result<Arc<Evaluator>, ApiError> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = cache.get(name) {
            return Ok(e.clone());
        }
        let found = match Evaluator::builtin(name) {
            Some(e) => Some(e),
            None => match &self.db {
                Some(db) => {
                    let conn = chessgraph_store::open_read_only(db)?;
                    chessgraph_store::evaluators::load(&conn, name)?
                }
                None => None,
            },
        };
        let e = Arc::new(found.ok_or_else(|| {
            ApiError::bad(format!(
                "unknown evaluator {name:?}: not a built-in ({}) nor stored in the database",
                BUILTIN_NAMES.join(", ")
            ))
        })?);
        if cache.len() < 64 {
            cache.insert(name.to_owned(), e.clone());
        }
        Ok(e)
    }

    /// Names of the built-ins, then of the evaluators stored in the database.
    pub fn names(&self, conn: Option<&Connection>) -> Result<Vec<String>, ApiError> {
        let mut names: Vec<String> = BUILTIN_NAMES.iter().map(|s| s.to_string()).collect();
        if let Some(conn) = conn {
            names.extend(
                chessgraph_store::evaluators::list(conn)?
                    .into_iter()
                    .map(|s| s.name),
            );
        }
        Ok(names)
    }
}

/// What every worker shares.
pub struct App {
    /// The database, when there is one.
    pub db: Option<PathBuf>,
    /// The options the server was started with.
    pub options: Options,
    /// Evaluators by name.
    pub evaluators: Arc<Evaluators>,
    /// Networks by name.
    pub nets: Nets,
    /// Games in play.
    pub play: Play,
    /// The last report rendered and when (it reads the whole database).
    pub report: Mutex<Option<(std::time::Instant, String)>>,
}

/// A worker thread's own state: its read-only connection with a deadline.
pub struct Worker {
    /// The shared state.
    pub app: Arc<App>,
    conn: Option<(Connection, Deadline)>,
}

impl Worker {
    /// The worker's read-only connection, opened on first use.
    pub fn db(&mut self) -> Result<(&Connection, &Deadline), ApiError> {
        if self.conn.is_none() {
            let path = self.app.db.as_ref().ok_or_else(|| {
                ApiError::not_found(format!(
                    "no database {} (start the server with --db FILE)",
                    api::file_name(&self.app.options.db.to_string_lossy())
                ))
            })?;
            let conn = chessgraph_store::open_read_only(path)?;
            let deadline = Deadline::install(&conn);
            self.conn = Some((conn, deadline));
        }
        let (c, d) = self.conn.as_ref().expect("connection just opened");
        Ok((c, d))
    }

    /// Runs `f` on the worker's connection as a user's SQL condition: under the sandbox's
    /// limits ([`chessgraph_store::filter::Sandbox`]) and a deadline `limit` from now.
    pub fn user_sql<T>(
        &mut self,
        limit: Duration,
        f: impl FnOnce(&Connection) -> chessgraph_store::Result<T>,
    ) -> Result<T, ApiError> {
        let (conn, deadline) = self.db()?;
        let result = deadline.run_within(limit, sql::CONDITION_HEAP_LIMIT, || {
            with_bounded_storage(conn, || {
                chessgraph_store::filter::Sandbox::run(conn, || f(conn))
            })
        });
        let over_memory = deadline.over_memory();
        result.map_err(|e| {
            let e = if over_memory && chessgraph_store::browse::is_interrupted(&e) {
                http::too_much_memory()
            } else {
                http::condition_error(e)
            };
            if e.message.contains("more memory") {
                give_back_freed_memory();
            }
            e
        })
    }

    /// The connection if there is a database, else `None`.
    pub fn db_if_any(&mut self) -> Result<Option<&Connection>, ApiError> {
        if self.app.db.is_none() {
            return Ok(None);
        }
        Ok(Some(self.db()?.0))
    }
}

/// A bound server, ready to [`Server::run`].
pub struct Server {
    listener: TcpListener,
    app: Arc<App>,
    addr: SocketAddr,
    guard: guard::Guard,
}

/// `HOST:PORT` (a name or an IP; `[v6]:PORT`) resolved, loopback addresses first.
fn resolve(addr: &str) -> Result<(String, SocketAddr), ServeError> {
    let bad = |why: String| ServeError::Address {
        addr: addr.to_owned(),
        why,
    };
    let (host, _) = addr
        .rsplit_once(':')
        .ok_or_else(|| bad("expected HOST:PORT, e.g. 127.0.0.1:8080 or localhost:8080".into()))?;
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let mut found: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| bad(e.to_string()))?
        .collect();
    // IPv4 first: `localhost` then means 127.0.0.1, which every browser reaches.
    found.sort_by_key(|a| (!a.ip().is_loopback(), a.is_ipv6()));
    let first = *found
        .first()
        .ok_or_else(|| bad("resolves to no address".into()))?;
    if found
        .iter()
        .any(|a| a.ip().is_loopback() != first.ip().is_loopback())
    {
        // A name that resolves to loopback and other addresses: refuse to guess.
        return Err(bad(
            "resolves to loopback and other addresses; give an IP address".into(),
        ));
    }
    Ok((host, first))
}

impl Server {
    /// Checks the options and the database and binds the address. SQLite's heap limit
    /// holds only if [`sql::count_sqlite_memory`] ran first, before any connection was
    /// opened (the command line does it first thing).
    pub fn bind(options: Options) -> Result<Server, ServeError> {
        let (host, wanted) = resolve(&options.addr)?;
        if !wanted.ip().is_loopback() && !options.public {
            return Err(ServeError::NotLoopback(wanted));
        }
        let db = options.db.exists().then(|| options.db.clone());
        if let Some(path) = &db {
            // Fail now on a file that is not a chessgraph database, not on every request.
            chessgraph_store::open_read_only(path)?;
        }
        let evaluators = Arc::new(Evaluators {
            db: db.clone(),
            cache: Mutex::new(HashMap::new()),
        });
        evaluators.get(&options.evaluator).map_err(|e| {
            chessgraph_store::Error::from(CoreError::Invalid(format!("--evaluator: {}", e.message)))
        })?;
        let nets = Nets::new(options.nets.clone());
        let players = Arc::new(players::WebPlayers {
            evaluators: evaluators.clone(),
            caps: options.caps,
            nets: nets.clone(),
        });
        let listener = TcpListener::bind(wanted).map_err(|e| ServeError::Bind {
            addr: wanted,
            why: e.to_string(),
        })?;
        let addr = listener.local_addr().map_err(|e| ServeError::Bind {
            addr: wanted,
            why: e.to_string(),
        })?;
        let guard = guard::Guard::new(addr, &host, options.public);
        let app = Arc::new(App {
            db,
            play: Play::start(options.play, players),
            options,
            evaluators,
            nets,
            report: Mutex::new(None),
        });
        Ok(Server {
            listener,
            app,
            addr,
            guard,
        })
    }

    /// The address the server listens on (with the port chosen for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether the server has a database.
    pub fn has_db(&self) -> bool {
        self.app.db.is_some()
    }

    /// Answers requests until the process ends.
    pub fn run(self) -> std::io::Result<()> {
        let o = &self.app.options;
        let limits = net::Limits {
            max_connections: o.max_connections,
            read_timeout: o.read_timeout,
            queue: o.queue,
        };
        let workers = |n: usize| -> Vec<Worker> {
            (0..n)
                .map(|_| Worker {
                    app: self.app.clone(),
                    conn: None,
                })
                .collect()
        };
        let lanes = net::Lanes {
            costly: workers(o.workers.max(1)),
            quick: workers(QUICK_WORKERS),
        };
        net::run(self.listener, self.guard, lanes, limits, answer)
    }
}

/// Routes and answers one API request on a worker thread; a panic in a handler becomes a
/// 500 answer, logged.
fn answer(worker: &mut Worker, job: &net::Job) -> Reply {
    let reply = catch_unwind(AssertUnwindSafe(|| {
        let query = Query::parse(&job.query)?;
        let rest = job.path.strip_prefix("/api").unwrap_or(&job.path);
        api::route(worker, &job.method, rest, &query, &job.body, job.client)
    }))
    .unwrap_or_else(|_| {
        Err(ApiError {
            status: 500,
            message: "internal error (see the server's log)".into(),
        })
    })
    .unwrap_or_else(|e| e.reply());
    if reply.status == 500 {
        eprintln!(
            "chessgraph serve: {} {}: {} {}",
            job.method,
            job.path,
            reply.status,
            String::from_utf8_lossy(&reply.body)
        );
    }
    reply
}
