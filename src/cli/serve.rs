//! `chessgraph serve`: the database and the engine in a browser.

use std::path::Path;
use std::time::Duration;

use crate::serve::{Options, Server, WebCaps, play::PlayOptions};
use anyhow::Context;

/// Arguments of `chessgraph serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on, HOST:PORT with an IP or a name (localhost:8080); port 0 picks a free port (printed on startup).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// Allow listening on an address other than loopback, and any Host name (anyone who reaches it can use the server).
    #[arg(long)]
    public: bool,
    /// Default evaluator of new games: a built-in name or one stored by `tune` in --db.
    #[arg(long, default_value = chessgraph_engine::eval::DEFAULT_EVALUATOR)]
    evaluator: String,
    /// Threads answering API requests, each with its own read-only database connection.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    workers: u16,
    /// Time limit of one SQL condition from the page, in milliseconds.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(10..=600_000))]
    sql_timeout_ms: u64,
    /// Most rows one search answers with.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_rows: u64,
    /// Open connections at most; more wait until one closes.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(4..=10_000))]
    max_connections: u64,
    /// Time a client has to send a request's header, and then its body, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    read_timeout_ms: u64,
    /// API requests that may wait for a worker; one more is answered 503.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    request_queue: u64,
    /// Engine searches that may wait in the queue; one more is answered 503.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1000))]
    queue: u64,
    /// Games kept in memory (the least recently used idle one makes way for a new one).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    max_games: u64,
    /// Longest time per move a game may ask for, in milliseconds.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    max_movetime_ms: u64,
    /// Engine time one client (IP address) may have queued or running at once, over all
    /// its games, in milliseconds.
    #[arg(long, default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    client_budget_ms: u64,
    /// Largest engine hash table a game may ask for (engine:hash=N), in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=16_384))]
    max_hash: u64,
    /// A folder of network files (`train cnn` models) the page may play by bare file name (cnn:model=NAME, policy:model=NAME, mcts:net=NAME); without it the page plays no network.
    #[arg(long, value_name = "DIR")]
    nets: Option<std::path::PathBuf>,
}

/// Runs `chessgraph serve` until the process is ended.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    // SAFETY: the first thing `serve` does: `main` has only parsed the arguments, so no
    // SQLite connection is open and no other thread runs.
    if !unsafe { crate::serve::sql::count_sqlite_memory() } {
        warn!(
            "chessgraph serve: SQLite's memory accounting could not be turned on; SQL conditions run without a heap limit"
        );
    }
    if db_path.exists() {
        // Settles an interrupted bulk import first (the server only reads).
        drop(super::open_reading(db_path, "`chessgraph import FILE`")?);
    }
    let options = Options {
        db: db_path.to_owned(),
        addr: args.addr,
        public: args.public,
        evaluator: args.evaluator,
        workers: usize::from(args.workers),
        sql_timeout: Duration::from_millis(args.sql_timeout_ms),
        max_rows: args.max_rows as usize,
        max_connections: args.max_connections as usize,
        read_timeout: Duration::from_millis(args.read_timeout_ms),
        queue: args.request_queue as usize,
        play: PlayOptions {
            queue: args.queue as usize,
            max_games: args.max_games as usize,
            max_movetime: Duration::from_millis(args.max_movetime_ms),
            client_budget: Duration::from_millis(args.client_budget_ms),
            // One engine of the largest hash a game may ask for.
            cache_bytes: args.max_hash << 20,
        },
        caps: WebCaps {
            max_hash_mib: args.max_hash as usize,
            ..WebCaps::default()
        },
        nets: args.nets,
    };
    let server = Server::bind(options).context("chessgraph serve")?;
    if !server.has_db() {
        warn!(
            "chessgraph serve: no database at {}: Play and pasted FENs work, the database views do not",
            db_path.display()
        );
    }
    say!("chessgraph serve: listening on http://{}/", server.addr())?;
    server.run().context("chessgraph serve")?;
    Ok(())
}
