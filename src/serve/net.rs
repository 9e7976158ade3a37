//! The connection side of the server: hyper's HTTP/1.1 on a small tokio runtime, with
//! every limit a request could otherwise push past.
//!
//! Why hyper: tiny_http (used before) reads the body a `Content-Length` announces when a
//! request is dropped — one header aborted the process — and has no read timeouts, so
//! four slow senders held every worker. hyper streams bodies (nothing is allocated from
//! a header), times out slow headers, bounds header size, and runs thousands of idle
//! connections on two threads. The limits, all here:
//!
//! - **Connections**: at most `max_connections` at once, one request per connection
//!   (`Connection: close`). The header is read here first ([`super::head`]); at the cap,
//!   the connection that has waited longest for its request to arrive whole (header or
//!   body) is closed to make room, so silent or slow connections never keep a new
//!   request waiting.
//! - **Time**: a connection must send its whole header within `read_timeout`, then its
//!   body within `read_timeout` (`408`); the whole connection is closed after
//!   [`CONNECTION_LIFETIME`] whatever it does.
//! - **Size**: headers over [`MAX_HEADER_BYTES`] get `431`; a body announced (any
//!   `Content-Length` over the limit, even past `u64`) or found over
//!   [`super::MAX_BODY`] gets `413`, read no further; both with a JSON error.
//! - **Who** ([`super::guard`]): the Host, every Origin and `Sec-Fetch-Site` header, and
//!   JSON for state changes, before the body is read.
//! - **Work**: the page's files are answered here at once; API requests go to worker
//!   threads (each with its own database connection) in two [`Lanes`]: the database's and
//!   evaluation's through a queue of `queue` places — a full queue is `503`, never a
//!   wait — and the rest (info, games) through their own, so costly SQL never delays the
//!   page, `/api/info` or a game.

use std::convert::Infallible;
use std::future::Future;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, TryAcquireError, oneshot};

use super::guard::{Guard, json_content_type};
use super::head::{HeadError, Rewind, Waiting, answer_and_close, read_head};
use super::http::{ApiError, Reply};
use super::{MAX_BODY, Worker, assets};

/// Largest request header block (bytes); hyper answers `431` beyond it.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The longest any connection stays open, whatever it does.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(120);

/// How long an API request may wait for a worker's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(90);

/// The limits of [`run`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Open connections at most.
    pub max_connections: usize,
    /// Time to send the header, and then the body.
    pub read_timeout: Duration,
    /// API requests waiting for a worker at most.
    pub queue: usize,
}

/// The worker threads of the two lanes API requests go through: `costly` for what reads
/// the database (`/api/db/...`) or evaluates (`/api/position`), through a queue of
/// `queue` places; `quick` for the rest (`/api`, `/api/info`, games), through a queue
/// as long as the connection cap, so that it is never full and a quick request never
/// waits behind a costly one.
pub struct Lanes {
    /// Threads for the database and evaluation requests.
    pub costly: Vec<Worker>,
    /// Threads for the rest.
    pub quick: Vec<Worker>,
}

/// Whether an API request goes to the costly lane (see [`Lanes`]).
pub fn is_costly(path: &str) -> bool {
    path.starts_with("/api/db/") || path == "/api/db" || path.starts_with("/api/position")
}

/// One API request for a worker thread.
pub struct Job {
    /// Upper-case method.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query string, without `?`.
    pub query: String,
    /// The body (at most [`MAX_BODY`] bytes).
    pub body: Bytes,
    /// The client's IP address.
    pub client: std::net::IpAddr,
    reply: oneshot::Sender<Reply>,
}

struct Shared {
    guard: Guard,
    jobs: SyncSender<Job>,
    quick: SyncSender<Job>,
    read_timeout: Duration,
}

/// Runs the workers and answers connections on `listener` until the process ends.
pub fn run(
    listener: std::net::TcpListener,
    guard: Guard,
    lanes: Lanes,
    limits: Limits,
    answer: fn(&mut Worker, &Job) -> Reply,
) -> std::io::Result<()> {
    let jobs = spawn_lane("chessgraph-http", lanes.costly, limits.queue, answer)?;
    let quick = spawn_lane(
        "chessgraph-quick",
        lanes.quick,
        limits.max_connections,
        answer,
    )?;
    let shared = Arc::new(Shared {
        guard,
        jobs,
        quick,
        read_timeout: limits.read_timeout,
    });
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("chessgraph-net")
        .enable_all()
        .build()?;
    runtime.block_on(accept_loop(listener, shared, limits.max_connections))
}

/// Starts `workers` on one queue of `queue` places; returns its sending side.
fn spawn_lane(
    name: &str,
    workers: Vec<Worker>,
    queue: usize,
    answer: fn(&mut Worker, &Job) -> Reply,
) -> std::io::Result<SyncSender<Job>> {
    let (jobs, rx) = sync_channel::<Job>(queue.max(1));
    let rx = Arc::new(Mutex::new(rx));
    for (i, mut worker) in workers.into_iter().enumerate() {
        let rx = rx.clone();
        std::thread::Builder::new()
            .name(format!("{name}-{i}"))
            .spawn(move || work(&mut worker, &rx, answer))?;
    }
    Ok(jobs)
}

fn work(worker: &mut Worker, rx: &Mutex<Receiver<Job>>, answer: fn(&mut Worker, &Job) -> Reply) {
    loop {
        let job = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(job) => job,
            Err(_) => return,
        };
        let reply = answer(worker, &job);
        let _ = job.reply.send(reply);
    }
}

async fn accept_loop(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    max_connections: usize,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let slots = Arc::new(Semaphore::new(max_connections.max(1)));
    let waiting = Arc::new(Waiting::default());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin.
                eprintln!("chessgraph serve: accept: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let permit = match slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => return Ok(()),
            Err(TryAcquireError::NoPermits) => {
                // At the cap: the connection that has waited longest for its header makes
                // room; when every connection is busy with a request, wait for one.
                waiting.close_oldest();
                let Ok(permit) = slots.clone().acquire_owned().await else {
                    return Ok(());
                };
                permit
            }
        };
        // Counted as waiting from now, before its task first runs: the next connection
        // at the cap must find it.
        let entry = waiting.add();
        tokio::spawn(serve_connection(
            stream,
            peer.ip(),
            shared.clone(),
            (waiting.clone(), entry),
            permit,
        ));
    }
}

/// One connection: its header within the read timeout (or until a new connection needs
/// its place), then hyper for the request.
async fn serve_connection(
    mut stream: tokio::net::TcpStream,
    client: std::net::IpAddr,
    shared: Arc<Shared>,
    (waiting, (id, evict)): (Arc<Waiting>, (u64, Arc<tokio::sync::Notify>)),
    permit: tokio::sync::OwnedSemaphorePermit,
) {
    let read_timeout = shared.read_timeout;
    let head = unless_evicted(
        &evict,
        tokio::time::timeout(
            read_timeout,
            read_head(&mut stream, MAX_HEADER_BYTES, MAX_BODY),
        ),
    )
    .await;
    let pre = match head {
        // Silent or slow past the timeout, or closed for a newer connection.
        None | Some(Err(_)) | Some(Ok(Err(HeadError::Closed))) => {
            waiting.remove(id);
            return;
        }
        Some(Ok(Err(HeadError::TooLarge(reply) | HeadError::BodyTooLarge(reply)))) => {
            waiting.remove(id);
            answer_and_close(&mut stream, &reply).await;
            return;
        }
        Some(Ok(Ok(pre))) => pre,
    };
    // Still waiting, now for its body: a slow body can be closed for a newer connection
    // too, until the request is read whole.
    let arrival = Arc::new(Arrival {
        waiting: waiting.clone(),
        id,
        evict,
    });
    let service = hyper::service::service_fn(move |req| {
        let (shared, arrival) = (shared.clone(), arrival.clone());
        async move { Ok::<_, Infallible>(handle(req, &shared, client, &arrival).await) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(read_timeout)
        .max_buf_size(MAX_HEADER_BYTES.max(8192) * 2)
        .keep_alive(false)
        .serve_connection(TokioIo::new(Rewind::new(pre, stream)), service);
    let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
    waiting.remove(id);
    drop(permit);
}

/// A connection whose request has not arrived whole yet: listed in [`Waiting`] until it
/// has, and closed when told.
struct Arrival {
    waiting: Arc<Waiting>,
    id: u64,
    evict: Arc<tokio::sync::Notify>,
}

/// `f`'s output, or `None` when `evict` is notified first.
async fn unless_evicted<F: Future>(evict: &tokio::sync::Notify, f: F) -> Option<F::Output> {
    let mut evicted = std::pin::pin!(evict.notified());
    let mut f = std::pin::pin!(f);
    std::future::poll_fn(|cx| {
        if evicted.as_mut().poll(cx).is_ready() {
            return std::task::Poll::Ready(None);
        }
        f.as_mut().poll(cx).map(Some)
    })
    .await
}

fn header(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Checks, reads and answers one request.
async fn handle(
    req: Request<Incoming>,
    shared: &Shared,
    client: std::net::IpAddr,
    arrival: &Arrival,
) -> Response<Full<Bytes>> {
    let admitted = admit(req, shared, client, arrival).await;
    // Read whole (or refused): from here on it is served, never closed for another.
    arrival.waiting.remove(arrival.id);
    match admitted {
        Ok(Admitted::Asset(reply)) | Err(reply) => respond(reply),
        Ok(Admitted::Api(job, rx)) => {
            let lane = if is_costly(&job.path) {
                &shared.jobs
            } else {
                &shared.quick
            };
            let reply = match lane.try_send(job) {
                Ok(()) => match tokio::time::timeout(ANSWER_TIMEOUT, rx).await {
                    Ok(Ok(reply)) => reply,
                    _ => ApiError::busy("no answer in time; try again").reply(),
                },
                Err(TrySendError::Full(_)) => {
                    ApiError::busy("the server is busy; try again in a moment").reply()
                }
                Err(TrySendError::Disconnected(_)) => ApiError {
                    status: 500,
                    message: "the workers have stopped".into(),
                }
                .reply(),
            };
            respond(reply)
        }
    }
}

enum Admitted {
    Asset(Reply),
    Api(Job, oneshot::Receiver<Reply>),
}

/// The header checks, the page's files, then the body of an API request.
async fn admit(
    req: Request<Incoming>,
    shared: &Shared,
    client: std::net::IpAddr,
    arrival: &Arrival,
) -> Result<Admitted, Reply> {
    let refuse = |e: ApiError| e.reply();
    let headers = req.headers();
    // One Host, as HTTP/1.1 requires: with two, which one counts would be a guess.
    if headers.get_all(header::HOST).iter().count() > 1 {
        return Err(ApiError::bad("more than one Host header").reply());
    }
    let host = header(headers, header::HOST);
    shared.guard.host(host).map_err(refuse)?;
    let method = req.method().as_str().to_ascii_uppercase();
    let path = req.uri().path().to_owned();
    let query = req.uri().query().unwrap_or("").to_owned();
    if !path.starts_with("/api") {
        return Ok(Admitted::Asset(
            asset(&method, &path).unwrap_or_else(refuse),
        ));
    }
    let raw = |name: &str| -> Vec<&[u8]> {
        headers
            .get_all(name)
            .iter()
            .map(HeaderValue::as_bytes)
            .collect()
    };
    shared
        .guard
        .same_origin(host, &raw("origin"), &raw("sec-fetch-site"))
        .map_err(refuse)?;
    json_content_type(&method, header(headers, header::CONTENT_TYPE)).map_err(refuse)?;
    let too_long = || super::head::body_too_large(MAX_BODY);
    let announced = header(headers, header::CONTENT_LENGTH).map(|v| v.trim().parse::<u64>());
    if matches!(announced, Some(Ok(n)) if n > MAX_BODY as u64) {
        return Err(too_long());
    }
    let body = Limited::new(req.into_body(), MAX_BODY);
    let read = tokio::time::timeout(shared.read_timeout, body.collect());
    let Some(read) = unless_evicted(&arrival.evict, read).await else {
        return Err(ApiError {
            status: 408,
            message: "the body was too slow while the server was full".into(),
        }
        .reply());
    };
    let body = match read {
        Err(_) => {
            return Err(ApiError {
                status: 408,
                message: format!(
                    "the body did not arrive within {} ms",
                    shared.read_timeout.as_millis()
                ),
            }
            .reply());
        }
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return Err(too_long()),
        Ok(Err(_)) => return Err(ApiError::bad("the body could not be read").reply()),
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    let (tx, rx) = oneshot::channel();
    Ok(Admitted::Api(
        Job {
            method,
            path,
            query,
            body,
            client,
            reply: tx,
        },
        rx,
    ))
}

/// A page file (GET or HEAD only).
fn asset(method: &str, path: &str) -> Result<Reply, ApiError> {
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

fn respond(reply: Reply) -> Response<Full<Bytes>> {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let html = reply.content_type.starts_with("text/html");
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if html {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
            ),
        );
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    response
}
