//! `chessgraph serve`: the database and the engine in a browser.
//!
//! A small HTTP server (tiny_http) with a page whose HTML, JavaScript, CSS and font are
//! built into the binary ([`assets`]), and JSON endpoints behind every view ([`api`]):
//!
//! - **Play**: games against any player ([`crate::players::build`] specs) kept in memory
//!   ([`play`]); the players run on one engine thread behind a bounded queue.
//! - **Position**: a FEN or a stored position with its graph edges, features, labels and
//!   each evaluator's term-by-term breakdown ([`crate::eval::breakdown`]).
//! - **Data**: the report, the heatmaps, stored fits and evaluators, import errors.
//!
//! Safety: the database is opened read-only, one connection per worker thread; users' SQL
//! conditions run under a time limit (a SQLite progress handler) and a row limit; bad
//! input gets a 4xx answer with `{"error": ...}`; only the embedded assets are served;
//! the server listens on loopback addresses unless told otherwise.

pub mod api;
pub mod assets;
mod game;
pub mod http;
pub mod play;

use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::Connection;

use crate::db::browse::Deadline;
use crate::eval::{BUILTIN_NAMES, Evaluator};
use http::{ApiError, Query, Reply};
use play::{Factory, Play, PlayOptions};

/// Largest request body accepted (bytes).
pub const MAX_BODY: usize = 64 * 1024;

/// What `chessgraph serve` is asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The database (read-only); the server runs without one when the file is missing.
    pub db: PathBuf,
    /// Address to listen on (port 0: any free port).
    pub addr: SocketAddr,
    /// Allow a non-loopback address.
    pub public: bool,
    /// Default evaluator of new games (built-in or stored name).
    pub evaluator: String,
    /// Threads answering requests (each with its own read-only connection).
    pub workers: usize,
    /// Time limit of a user's SQL condition.
    pub sql_timeout: Duration,
    /// Most rows a search returns.
    pub max_rows: usize,
    /// The games store.
    pub play: PlayOptions,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
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
    Db(#[from] crate::Error),
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
                    let conn = crate::db::open_read_only(db)?;
                    crate::db::evaluators::load(&conn, name)?
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
                crate::db::evaluators::list(conn)?
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
                    "no database at {} (start the server with --db FILE)",
                    self.app.options.db.display()
                ))
            })?;
            let conn = crate::db::open_read_only(path)?;
            let deadline = Deadline::install(&conn);
            self.conn = Some((conn, deadline));
        }
        let (c, d) = self.conn.as_ref().expect("connection just opened");
        Ok((c, d))
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
    http: Arc<tiny_http::Server>,
    app: Arc<App>,
    addr: SocketAddr,
}

impl Server {
    /// Checks the options and the database and binds the address.
    pub fn bind(options: Options) -> Result<Server, ServeError> {
        if !options.addr.ip().is_loopback() && !options.public {
            return Err(ServeError::NotLoopback(options.addr));
        }
        let db = options.db.exists().then(|| options.db.clone());
        if let Some(path) = &db {
            // Fail now on a file that is not a chessgraph database, not on every request.
            crate::db::open_read_only(path)?;
        }
        let evaluators = Arc::new(Evaluators {
            db: db.clone(),
            cache: Mutex::new(HashMap::new()),
        });
        evaluators
            .get(&options.evaluator)
            .map_err(|e| crate::Error::Invalid(format!("--evaluator: {}", e.message)))?;
        let factory = player_factory(evaluators.clone());
        let http = tiny_http::Server::http(options.addr).map_err(|e| ServeError::Bind {
            addr: options.addr,
            why: e.to_string(),
        })?;
        let addr = http.server_addr().to_ip().ok_or_else(|| ServeError::Bind {
            addr: options.addr,
            why: "not an IP socket".into(),
        })?;
        let app = Arc::new(App {
            db,
            play: Play::start(options.play, factory),
            options,
            evaluators,
            report: Mutex::new(None),
        });
        Ok(Server {
            http: Arc::new(http),
            app,
            addr,
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
    pub fn run(self) {
        let mut threads = Vec::new();
        for i in 0..self.app.options.workers.max(1) {
            let http = self.http.clone();
            let mut worker = Worker {
                app: self.app.clone(),
                conn: None,
            };
            let spawned = std::thread::Builder::new()
                .name(format!("chessgraph-http-{i}"))
                .spawn(move || {
                    while let Ok(request) = http.recv() {
                        answer(&mut worker, request);
                    }
                });
            if let Ok(t) = spawned {
                threads.push(t);
            }
        }
        for t in threads {
            let _ = t.join();
        }
    }
}

/// Players for games: a spec and a default evaluator, both resolved without files.
fn player_factory(evaluators: Arc<Evaluators>) -> Arc<Factory> {
    Arc::new(move |spec: &str, evaluator: &str| {
        let parsed = crate::players::Spec::parse(spec).map_err(|e| e.to_string())?;
        let default = evaluators.get(evaluator).map_err(|e| e.message)?;
        let resolve = |name: &str| -> crate::Result<Evaluator> {
            evaluators
                .get(name)
                .map(|e| (*e).clone())
                .map_err(|e| crate::Error::Invalid(e.message))
        };
        crate::players::build(&parsed, default, &resolve).map_err(|e| e.to_string())
    })
}

/// Reads, routes and answers one request; a panic in a handler becomes a 500 answer.
fn answer(worker: &mut Worker, mut request: tiny_http::Request) {
    let method = request.method().as_str().to_ascii_uppercase();
    let url = request.url().to_owned();
    let mut body = Vec::new();
    let too_long = request.body_length().is_some_and(|n| n > MAX_BODY) || {
        let read = request
            .as_reader()
            .take(MAX_BODY as u64 + 1)
            .read_to_end(&mut body);
        read.is_err() || body.len() > MAX_BODY
    };
    let reply = if too_long {
        ApiError {
            status: 413,
            message: format!("the request body is over {MAX_BODY} bytes"),
        }
        .reply()
    } else {
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        catch_unwind(AssertUnwindSafe(|| {
            let query = Query::parse(query)?;
            route(worker, &method, path, &query, &body)
        }))
        .unwrap_or_else(|_| {
            Err(ApiError {
                status: 500,
                message: "internal error (see the server's log)".into(),
            })
        })
        .unwrap_or_else(|e| e.reply())
    };
    if reply.status == 500 {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!(
                "chessgraph serve: {method} {url}: {} {}\n",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            )
            .as_bytes(),
        );
    }
    let mut response = tiny_http::Response::from_data(reply.body)
        .with_status_code(reply.status)
        .with_header(header("Content-Type", reply.content_type))
        .with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header("Cache-Control", "no-store"));
    if reply.content_type.starts_with("text/html") {
        response = response.with_header(header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
        ));
    }
    let _ = request.respond(response);
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

/// Static assets for GET outside `/api/`, the JSON API inside it.
fn route(
    worker: &mut Worker,
    method: &str,
    path: &str,
    query: &Query,
    body: &[u8],
) -> http::ApiResult {
    if let Some(rest) = path.strip_prefix("/api") {
        return api::route(worker, method, rest, query, body);
    }
    let Some((content_type, bytes)) = assets::get(path) else {
        return Err(ApiError::not_found(format!("no such page: {path}")));
    };
    if method != "GET" && method != "HEAD" {
        return Err(ApiError {
            status: 405,
            message: format!("{method} {path}: only GET"),
        });
    }
    Ok(Reply {
        status: 200,
        content_type,
        body: bytes.to_vec(),
    })
}
