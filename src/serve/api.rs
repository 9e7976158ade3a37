//! The JSON endpoints (`/api/...`), one handler per view; [`ENDPOINTS`] lists them.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shakmaty::{Chess, Color, Position};

use super::Worker;
use super::http::{ApiError, ApiResult, Query, Reply};
use super::play::NewGame;
use chessgraph_core::chess::fen::{Leniency, parse, to_fen};
use chessgraph_engine::eval::breakdown::breakdown;
use chessgraph_store::browse;

/// Every endpoint: method, path, what it answers (served at `/api`, listed in README.md).
pub const ENDPOINTS: &[(&str, &str, &str)] = &[
    ("GET", "/api", "this list"),
    (
        "GET",
        "/api/info",
        "version, database, players, networks, evaluators and limits",
    ),
    (
        "GET",
        "/api/position?fen=FEN[&evaluators=a,b]",
        "a FEN: legal moves, features, graph edges, each evaluator's terms",
    ),
    (
        "GET",
        "/api/db/positions?where=SQL[&after=ID&limit=N]",
        "stored positions passing an SQL condition on positions/features columns",
    ),
    (
        "GET",
        "/api/db/positions/random[?where=SQL]",
        "a random analyzed position (or one passing the condition), as below",
    ),
    (
        "GET",
        "/api/db/positions/ID[?evaluators=a,b]",
        "a stored position: label, features, stored edges, labels, evaluators' terms",
    ),
    (
        "GET",
        "/api/db/games[?after=ID&limit=N]",
        "games read from PGN",
    ),
    ("GET", "/api/db/games/ID", "a game and its stored positions"),
    (
        "GET",
        "/api/db/stats",
        "what `chessgraph stats --json` prints",
    ),
    (
        "GET",
        "/api/db/report",
        "the `chessgraph report` page as Markdown",
    ),
    (
        "GET",
        "/api/db/heatmap[?where=SQL&min_samples=N]",
        "mean evaluation per piece and square",
    ),
    ("GET", "/api/db/fits", "stored fits with their coefficients"),
    (
        "GET",
        "/api/db/evaluators",
        "built-in and stored evaluators with their measures",
    ),
    (
        "GET",
        "/api/db/import-errors[?offset=N&limit=N]",
        "rows import refused, with the reason",
    ),
    (
        "POST",
        "/api/play",
        "new game: {fen, player, evaluator, movetime_ms, color}",
    ),
    (
        "GET",
        "/api/play/ID",
        "a game: moves, legal moves, the engine's thinking, PGN",
    ),
    ("POST", "/api/play/ID/move", "your move: {uci}"),
    (
        "POST",
        "/api/play/ID/undo",
        "take back to your previous move",
    ),
    ("DELETE", "/api/play/ID", "end the game"),
];

/// Evaluators shown by default for a position (built-ins first, then stored ones).
const DEFAULT_EVALUATORS: usize = 8;

/// Routes `/api` + `path`.
pub fn route(
    w: &mut Worker,
    method: &str,
    path: &str,
    q: &Query,
    body: &[u8],
    client: std::net::IpAddr,
) -> ApiResult {
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let get = method == "GET" || method == "HEAD";
    match (parts.as_slice(), get) {
        ([], true) => Ok(Reply::json(
            &ENDPOINTS
                .iter()
                .map(|(m, p, d)| json!({ "method": m, "path": p, "what": d }))
                .collect::<Vec<_>>(),
        )),
        (["info"], true) => info(w),
        (["position"], true) => position(w, q),
        (["db", "positions"], true) => search(w, q),
        (["db", "positions", "random"], true) => random_position(w, q),
        (["db", "positions", id], true) => stored_position(w, number(id)?, q),
        (["db", "games"], true) => games(w, q),
        (["db", "games", id], true) => game(w, number(id)?),
        (["db", "stats"], true) => stats(w),
        (["db", "report"], true) => report(w),
        (["db", "heatmap"], true) => heatmap(w, q),
        (["db", "fits"], true) => Ok(Reply::json(&browse::fits(w.db()?.0)?)),
        (["db", "evaluators"], true) => evaluators(w),
        (["db", "import-errors"], true) => import_errors(w, q),
        (["play"], false) if method == "POST" => new_game(w, body, client),
        (["play", id], true) => Ok(Reply::json(&w.app.play.get(id, client)?)),
        (["play", id], false) if method == "DELETE" => {
            Ok(Reply::json(&w.app.play.remove(id, client)?))
        }
        (["play", id, "move"], false) if method == "POST" => play_move(w, id, body, client),
        (["play", id, "undo"], false) if method == "POST" => {
            Ok(Reply::json(&w.app.play.undo(id, client)?))
        }
        _ if ENDPOINTS.iter().any(|(_, p, _)| same_route(p, &parts)) => Err(ApiError {
            status: 405,
            message: format!("{method} is not allowed on /api{path}"),
        }),
        _ => Err(ApiError::not_found(format!(
            "no endpoint /api{path} (GET /api lists them)"
        ))),
    }
}

/// `GET /api/position?fen=`: a position's board, features and attack/defense graph.
fn position(w: &mut Worker, q: &Query) -> ApiResult {
    let fen = q
        .get("fen")
        .ok_or_else(|| ApiError::bad("fen= is missing"))?;
    let pos = parse(fen, Leniency::DropCastlingAndEp)
        .map_err(|e| ApiError::bad(format!("fen {fen:?}: {e}")))?;
    let mut edges = Vec::new();
    let features = chessgraph_core::graph::analyze(&pos, &mut edges);
    let edges: Vec<Value> = edges.iter().map(edge_json).collect();
    let mut view = board_view(w, &pos, q)?;
    view["features"] = json!(features);
    view["edges"] = json!(edges);
    view["graph"] = json!("computed");
    Ok(Reply::json(&view))
}

/// `GET /api/db/positions/random[?where=]`: a stored position drawn at random.
fn random_position(w: &mut Worker, q: &Query) -> ApiResult {
    let timeout = w.app.options.sql_timeout;
    let id = w.user_sql(timeout, |conn| browse::random(conn, q.get("where")))?;
    let id = id.ok_or_else(|| ApiError::not_found("no position matches"))?;
    stored_position(w, id, q)
}

/// `GET /api/db/games?after=&limit=`: a page of games.
fn games(w: &mut Worker, q: &Query) -> ApiResult {
    let after = q.number("after", 0i64, 0, i64::MAX)?;
    let limit = q.number("limit", 50usize, 1, w.app.options.max_rows)?;
    Ok(Reply::json(&browse::games(w.db()?.0, after, limit)?))
}

/// `GET /api/db/games/ID`: a game with its positions.
fn game(w: &mut Worker, id: i64) -> ApiResult {
    let timeout = w.app.options.sql_timeout * 4;
    let (conn, deadline) = w.db()?;
    let (game, positions) = deadline
        .run(timeout, || browse::game(conn, id))?
        .ok_or_else(|| ApiError::not_found(format!("no game {id}")))?;
    Ok(Reply::json(
        &json!({ "game": game, "positions": positions }),
    ))
}

/// `GET /api/db/stats`: what `chessgraph stats` prints (sources by file name only).
fn stats(w: &mut Worker) -> ApiResult {
    let mut stats = chessgraph_store::stats::gather(w.db()?.0)?;
    for source in &mut stats.sources {
        source.path = file_name(&source.path);
    }
    Ok(Reply::json(&stats))
}

/// `GET /api/db/evaluators`: the built-in evaluators' names and the stored ones.
fn evaluators(w: &mut Worker) -> ApiResult {
    let stored = match w.db_if_any()? {
        Some(conn) => chessgraph_store::evaluators::list(conn)?,
        None => Vec::new(),
    };
    Ok(Reply::json(&json!({
        "builtin": chessgraph_engine::eval::BUILTIN_NAMES,
        "stored": stored,
    })))
}

/// `GET /api/db/import-errors?offset=&limit=`: a page of rejected rows.
fn import_errors(w: &mut Worker, q: &Query) -> ApiResult {
    let offset = q.number("offset", 0usize, 0, usize::MAX >> 1)?;
    let limit = q.number("limit", 100usize, 1, w.app.options.max_rows)?;
    let (mut rows, total) = browse::import_errors(w.db()?.0, offset, limit)?;
    for row in &mut rows {
        row.source = file_name(&row.source);
    }
    Ok(Reply::json(
        &json!({ "total": total, "offset": offset, "rows": rows }),
    ))
}

/// `POST /api/play/ID/move` with `{"uci": "e2e4"}`: the player's move.
fn play_move(w: &mut Worker, id: &str, body: &[u8], client: std::net::IpAddr) -> ApiResult {
    let body = json_body(body)?;
    let uci = body["uci"]
        .as_str()
        .ok_or_else(|| ApiError::bad("the body needs {\"uci\": \"e2e4\"}"))?;
    Ok(Reply::json(&w.app.play.play(id, client, uci)?))
}

/// Whether the documented path `pattern` (with `ID` placeholders: a number or a game's
/// hex id) names `parts`.
fn same_route(pattern: &str, parts: &[&str]) -> bool {
    let pattern = pattern.split(['?', '[']).next().unwrap_or("");
    let want: Vec<&str> = pattern
        .trim_start_matches("/api")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    want.len() == parts.len()
        && want.iter().zip(parts).all(|(w, p)| {
            *w == "ID" && !p.is_empty() && p.bytes().all(|b| b.is_ascii_hexdigit()) || w == p
        })
}

fn number(s: &str) -> Result<i64, ApiError> {
    s.parse::<i64>()
        .ok()
        .filter(|&n| n >= 0)
        .ok_or_else(|| ApiError::not_found(format!("{s:?} is not an id")))
}

fn json_body(body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad(format!("the body is not JSON: {e}")))?;
    if !v.is_object() {
        return Err(ApiError::bad("the body must be a JSON object"));
    }
    Ok(v)
}

/// The last component of a stored file path: answers never show where files are on the
/// machine (a path with no file name, such as `/`, shows as empty).
pub fn file_name(path: &str) -> String {
    let last = path.rsplit(['/', '\\']).next().unwrap_or("");
    if last == ".." || last == "." {
        return String::new();
    }
    last.to_owned()
}

fn info(w: &mut Worker) -> ApiResult {
    let o = w.app.options.clone();
    let evaluators = w.app.evaluators.clone();
    let names = evaluators.names(w.db_if_any()?)?;
    let db_name = o.db.file_name().map(|n| n.to_string_lossy().into_owned());
    Ok(Reply::json(&json!({
        "version": env!("CARGO_PKG_VERSION"),
        "database": w.app.db.as_ref().and(db_name),
        "players": chessgraph_engine::players::PLAYER_NAMES,
        "networks": w.app.nets.names(),
        "evaluators": names,
        "default_evaluator": o.evaluator,
        "max_movetime_ms": o.play.max_movetime.as_millis() as u64,
        "sql_timeout_ms": o.sql_timeout.as_millis() as u64,
        "max_rows": o.max_rows,
    })))
}

fn edge_json(e: &chessgraph_core::graph::Edge) -> Value {
    json!({
        "from_sq": e.from_sq, "to_sq": e.to_sq,
        "attacker": chessgraph_core::graph::piece_letter(e.attacker),
        "target": chessgraph_core::graph::piece_letter(e.target),
        "kind": e.kind.as_str(),
    })
}

/// What every position view has: FEN, side to move, legal moves, evaluations.
fn board_view(w: &mut Worker, pos: &Chess, q: &Query) -> Result<Value, ApiError> {
    let names: Vec<String> = match q.get("evaluators") {
        Some(list) => list
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .take(16)
            .collect(),
        None => {
            let evaluators = w.app.evaluators.clone();
            let mut all = evaluators.names(w.db_if_any()?)?;
            all.truncate(DEFAULT_EVALUATORS);
            all
        }
    };
    let mut evaluations = Vec::new();
    for name in &names {
        let e = w.app.evaluators.get(name)?;
        let view = match breakdown(&e, pos) {
            Some(b) => json!({
                "name": name, "kind": "linear", "total": b.total, "phase": b.phase, "terms": b.terms,
            }),
            None => json!({
                "name": name, "kind": "network", "total": e.evaluate(pos), "terms": null,
            }),
        };
        evaluations.push(view);
    }
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(chessgraph_core::chess::moves::uci)
        .collect();
    Ok(json!({
        "fen": to_fen(pos),
        "turn": if pos.turn() == Color::White { "white" } else { "black" },
        "legal": legal,
        "evaluations": evaluations,
    }))
}

fn stored_position(w: &mut Worker, id: i64, q: &Query) -> ApiResult {
    let (row, features, edges, labels) = {
        let conn = w.db()?.0;
        let mut row = browse::position(conn, id)?
            .ok_or_else(|| ApiError::not_found(format!("no position {id}")))?;
        row.source = file_name(&row.source);
        (
            row,
            browse::features(conn, id)?,
            browse::edges(conn, id)?,
            browse::labels(conn, id)?,
        )
    };
    let pos = parse(&row.fen, Leniency::DropCastlingAndEp).map_err(|e| ApiError {
        status: 500,
        message: format!("position {id} has a bad stored FEN: {e}"),
    })?;
    let mut view = board_view(w, &pos, q)?;
    view["graph"] = json!(if features.is_some() {
        "stored"
    } else {
        "not analyzed"
    });
    view["position"] = json!(row);
    view["features"] = json!(features);
    view["edges"] = json!(edges);
    view["labels"] = json!(labels);
    Ok(Reply::json(&view))
}

fn search(w: &mut Worker, q: &Query) -> ApiResult {
    let filter = q.get("where").unwrap_or("1");
    let after = q.number("after", 0i64, 0, i64::MAX)?;
    let limit = q.number("limit", 50usize, 1, w.app.options.max_rows)?;
    let timeout = w.app.options.sql_timeout;
    let (rows, more) = w.user_sql(timeout, |conn| browse::search(conn, filter, after, limit))?;
    Ok(Reply::json(
        &json!({ "where": filter, "rows": rows, "more": more }),
    ))
}

/// The report reads the whole database: rendered at most every 30 s.
fn report(w: &mut Worker) -> ApiResult {
    let fresh = Duration::from_secs(30);
    let cached = w
        .app
        .report
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .filter(|(at, _)| at.elapsed() < fresh);
    let markdown = match cached {
        Some((_, md)) => md,
        None => {
            let path = w.app.options.db.clone();
            let timeout = w.app.options.sql_timeout * 10;
            let (conn, deadline) = w.db()?;
            let opts = chessgraph_lab::report::Options {
                max_fits: 6,
                ..Default::default()
            };
            let md = deadline.run(timeout, || {
                chessgraph_lab::report::render(conn, &path, &opts)
            })?;
            *w.app.report.lock().unwrap_or_else(|e| e.into_inner()) =
                Some((Instant::now(), md.clone()));
            md
        }
    };
    Ok(Reply::json(&json!({ "markdown": markdown })))
}

fn heatmap(w: &mut Worker, q: &Query) -> ApiResult {
    let filter = q
        .get("where")
        .unwrap_or(chessgraph_lab::heatmap::DEFAULT_FILTER)
        .to_owned();
    let min = q.number("min_samples", 20u64, 1, 1_000_000)?;
    let timeout = w.app.options.sql_timeout * 5;
    let map = w.user_sql(timeout, |conn| {
        chessgraph_lab::heatmap::aggregate(conn, &filter)
    })?;
    let pieces: Vec<Value> = chessgraph_lab::heatmap::PIECES
        .iter()
        .enumerate()
        .map(|(p, &piece)| {
            let mean: Vec<Option<f64>> = (0..64)
                .map(|s| map.mean(p, s, min).map(|m| (m * 10.0).round() / 10.0))
                .collect();
            json!({
                "piece": piece.to_string(),
                "name": chessgraph_lab::heatmap::piece_name(piece),
                "n": map.n[p].to_vec(),
                "mean": mean,
            })
        })
        .collect();
    Ok(Reply::json(&json!({
        "where": filter,
        "min_samples": min,
        "positions": map.positions,
        "overall_mean": map.overall_mean(),
        "pieces": pieces,
    })))
}

fn new_game(w: &mut Worker, body: &[u8], client: std::net::IpAddr) -> ApiResult {
    let b = json_body(body)?;
    let text = |key: &str| -> Result<Option<String>, ApiError> {
        match &b[key] {
            Value::Null => Ok(None),
            Value::String(s) if s.trim().is_empty() => Ok(None),
            Value::String(s) => Ok(Some(s.trim().to_owned())),
            _ => Err(ApiError::bad(format!("{key} must be a string"))),
        }
    };
    let o = &w.app.options;
    let movetime = match &b["movetime_ms"] {
        Value::Null => 1000,
        v => v
            .as_u64()
            .ok_or_else(|| ApiError::bad("movetime_ms must be a whole number of milliseconds"))?,
    };
    let human = match text("color")?.as_deref() {
        None | Some("white") => Color::White,
        Some("black") => Color::Black,
        Some(other) => {
            return Err(ApiError::bad(format!(
                "color {other:?}: expected white or black"
            )));
        }
    };
    let game = NewGame {
        fen: text("fen")?,
        player: text("player")?.unwrap_or_else(|| "engine".into()),
        evaluator: text("evaluator")?.unwrap_or_else(|| o.evaluator.clone()),
        movetime: Duration::from_millis(movetime),
        human,
        client,
    };
    let state = w.app.play.create(game)?;
    Ok(Reply::json_status(201, &state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_name_files_without_their_directory() {
        assert_eq!(
            file_name("/home/a/data/positions.csv.zst"),
            "positions.csv.zst"
        );
        assert_eq!(file_name("C:\\data\\x.pgn"), "x.pgn");
        assert_eq!(file_name("plain.csv"), "plain.csv");
        assert_eq!(file_name("/a/.."), "");
    }

    #[test]
    fn documented_routes_match_their_paths() {
        assert!(same_route("/api/play/ID/move", &["play", "7", "move"]));
        assert!(same_route("/api/play/ID/move", &["play", "0a1f", "move"]));
        assert!(!same_route("/api/play/ID/move", &["play", "x", "move"]));
        assert!(same_route(
            "/api/db/games[?after=ID&limit=N]",
            &["db", "games"]
        ));
        assert!(!same_route("/api/db/games", &["db", "games", "1", "x"]));
    }
}
