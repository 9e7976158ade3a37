//! `chessgraph serve` over HTTP on 127.0.0.1 (port 0): every endpoint, bad input, a game,
//! a full engine queue and a bounded burst of concurrent requests.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::{enc, get, post, request};
use crate::util::{Dir, fixture};

/// A running server, killed when dropped.
pub struct Served {
    child: Child,
    pub addr: SocketAddr,
}

impl Served {
    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The process's resident memory (MiB), from /proc.
    pub fn rss_mib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap();
        kib / 1024
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `chessgraph serve --addr 127.0.0.1:0 ARGS` and reads the address it prints.
pub fn serve(dir: &Dir, args: &[&str]) -> Served {
    let mut cmd = dir.command(&["serve", "--addr", "127.0.0.1:0"]);
    cmd.args(args);
    serve_cmd(cmd)
}

/// Starts a command that runs `chessgraph serve` and reads the address it prints.
pub fn serve_cmd(mut cmd: std::process::Command) -> Served {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn chessgraph serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("chessgraph serve: listening on http://")
        .and_then(|s| s.trim_end_matches('/').parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Served { child, addr }
}

/// A database with positions, three games, import errors, a fit and a stored evaluator.
pub fn fixture_db(dir: &Dir) {
    let bad = dir.create(
        "bad.csv",
        "fen,eval\nnot a fen,10\n8/8/8/8/8/8/8/8 w - - 0 1,5\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,zz\n4k3/8/8/8/8/8/8/4K2R w K - 0 1,300\n",
    );
    dir.ok(&[
        "import",
        &fixture("positions-2000.csv"),
        &fixture("three-games.pgn"),
        bad.to_str().unwrap(),
    ]);
    dir.ok(&["analyze"]);
    dir.ok(&["fit", "linear", "--where", "1", "--material"]);
    let file = dir.path().join("e.json");
    dir.ok(&[
        "export",
        "evaluator",
        "material",
        "--out",
        file.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    dir.sql()
        .execute(
            "INSERT INTO evaluators (name, json, created_at) VALUES ('stored-e', ?1, 'now')",
            [text],
        )
        .unwrap();
}

pub fn ok_json(addr: SocketAddr, path: &str) -> Value {
    let r = get(addr, path);
    assert_eq!(r.status, 200, "GET {path}: {}", r.text());
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    r.json()
}

pub fn error(r: &crate::http::Response, status: u16) -> String {
    assert_eq!(r.status, status, "{}", r.text());
    r.json()["error"].as_str().unwrap().to_owned()
}

/// Polls game `id` until the engine has answered.
pub fn wait_for_move(addr: SocketAddr, id: impl std::fmt::Display) -> Value {
    let start = Instant::now();
    loop {
        let g = ok_json(addr, &format!("/api/play/{id}"));
        if g["status"] != "queued" && g["status"] != "thinking" {
            return g;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no move: {g}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_answers_every_endpoint_with_the_databases_numbers() {
    let dir = Dir::new();
    fixture_db(&dir);
    let s = serve(&dir, &[]);
    let a = s.addr;
    // The page and its files, all embedded.
    let page = get(a, "/");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("/app.js"));
    assert!(page.header("content-security-policy").is_some());
    for path in [
        "/app.js",
        "/board.js",
        "/data.js",
        "/style.css",
        "/pieces.ttf",
    ] {
        let r = get(a, path);
        assert_eq!(r.status, 200, "{path}");
        assert!(r.body.len() > 1000, "{path}");
    }
    let list = ok_json(a, "/api");
    assert!(list.as_array().unwrap().len() >= 19);
    let info = ok_json(a, "/api/info");
    assert_eq!(info["database"], "test.db");
    assert!(
        info["evaluators"]
            .as_array()
            .unwrap()
            .contains(&json!("stored-e"))
    );

    // A pasted FEN: legal moves, computed edges, breakdowns that add up.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let v = ok_json(a, &format!("/api/position?fen={}", enc(start)));
    assert_eq!(v["legal"].as_array().unwrap().len(), 20);
    assert_eq!(v["graph"], "computed");
    assert_eq!(v["features"]["mobility_white"], 20);
    let evals = v["evaluations"].as_array().unwrap();
    let names: Vec<&str> = evals.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["material", "simplified", "seed003", "nnue", "stored-e"]
    );
    let nnue = &evals[3];
    assert_eq!(nnue["kind"], "network");
    assert!(nnue["terms"].is_null());
    let sicilian = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    let v = ok_json(
        a,
        &format!("/api/position?fen={}&evaluators=seed003", enc(sicilian)),
    );
    let e = &v["evaluations"][0];
    let sum: f64 = e["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["cp"].as_f64().unwrap())
        .sum();
    assert!((sum - e["total"].as_f64().unwrap()).abs() < 1.0, "{e}");

    // Search: every row passes the condition, as SQLite says.
    let r = ok_json(
        a,
        &format!("/api/db/positions?where={}&limit=5", enc("phase > 20")),
    );
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(r["more"], true);
    for row in rows {
        let id = row["id"].as_i64().unwrap();
        assert!(
            dir.int(&format!(
                "SELECT phase FROM features WHERE position_id = {id}"
            )) > 20
        );
    }
    let total = dir.int("SELECT count(*) FROM features WHERE phase > 20") as usize;
    let r = ok_json(
        a,
        &format!("/api/db/positions?where={}&limit=500", enc("phase > 20")),
    );
    assert_eq!(r["rows"].as_array().unwrap().len(), total.min(500));

    // One stored position: its stored edges, features and label.
    let id = dir
        .int("SELECT position_id FROM edges GROUP BY position_id ORDER BY count(*) DESC LIMIT 1");
    let v = ok_json(a, &format!("/api/db/positions/{id}"));
    assert_eq!(v["graph"], "stored");
    assert_eq!(
        v["edges"].as_array().unwrap().len() as i64,
        dir.int(&format!(
            "SELECT count(*) FROM edges WHERE position_id = {id}"
        ))
    );
    assert_eq!(
        v["features"]["mobility"].as_i64().unwrap(),
        dir.int(&format!(
            "SELECT mobility FROM features WHERE position_id = {id}"
        ))
    );
    assert_eq!(
        v["position"]["fen"].as_str().unwrap(),
        dir.sql()
            .query_row("SELECT fen FROM positions WHERE id = ?1", [id], |r| r
                .get::<_, String>(0))
            .unwrap()
    );
    let v = ok_json(a, "/api/db/positions/random");
    assert!(v["position"]["id"].as_i64().unwrap() > 0);
    let v = ok_json(
        a,
        &format!("/api/db/positions/random?where={}", enc("phase = 24")),
    );
    let rid = v["position"]["id"].as_i64().unwrap();
    assert_eq!(
        dir.int(&format!(
            "SELECT phase FROM features WHERE position_id = {rid}"
        )),
        24
    );

    // Games.
    let games = ok_json(a, "/api/db/games");
    assert_eq!(games.as_array().unwrap().len(), 3);
    let g = ok_json(a, "/api/db/games/1");
    let plies: Vec<i64> = g["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ply"].as_i64().unwrap())
        .collect();
    assert_eq!(
        plies.len() as i64,
        dir.int("SELECT count(*) FROM positions WHERE game_id = 1")
    );
    assert!(plies.windows(2).all(|w| w[0] <= w[1]));

    // Data.
    let stats = ok_json(a, "/api/db/stats");
    assert_eq!(
        stats["positions"].as_i64().unwrap(),
        dir.int("SELECT count(*) FROM positions")
    );
    let report = ok_json(a, "/api/db/report");
    assert!(report["markdown"].as_str().unwrap().contains("## Fits"));
    let heat = ok_json(
        a,
        &format!("/api/db/heatmap?where={}&min_samples=1", enc("phase >= 12")),
    );
    assert_eq!(heat["pieces"].as_array().unwrap().len(), 12);
    assert_eq!(
        heat["positions"].as_i64().unwrap(),
        dir.int("SELECT count(*) FROM positions p JOIN features f ON f.position_id = p.id WHERE phase >= 12 AND eval_cp IS NOT NULL")
    );
    let white_king = &heat["pieces"][0];
    assert_eq!(white_king["piece"], "K");
    let n: u64 = white_king["n"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(
        n,
        heat["positions"].as_u64().unwrap(),
        "one white king per position"
    );
    let fits = ok_json(a, "/api/db/fits");
    assert_eq!(fits.as_array().unwrap().len(), 1);
    assert_eq!(fits[0]["coefficients"][0]["name"], "intercept");
    let ev = ok_json(a, "/api/db/evaluators");
    assert_eq!(ev["stored"][0]["name"], "stored-e");
    let errs = ok_json(a, "/api/db/import-errors?limit=2");
    assert_eq!(
        errs["total"].as_i64().unwrap(),
        dir.int("SELECT count(*) FROM import_errors")
    );
    assert!(errs["total"].as_i64().unwrap() >= 3);
    assert_eq!(errs["rows"].as_array().unwrap().len(), 2);
    assert!(
        errs["rows"][0]["source"]
            .as_str()
            .unwrap()
            .ends_with("bad.csv")
    );
}

#[test]
fn serve_refuses_bad_input_with_json_messages_and_keeps_answering() {
    let dir = Dir::new();
    fixture_db(&dir);
    let s = serve(&dir, &["--sql-timeout-ms", "200"]);
    let a = s.addr;
    assert!(error(&get(a, "/api/position?fen=nonsense"), 400).contains("nonsense"));
    assert!(error(&get(a, "/api/position"), 400).contains("fen"));
    let kings = "4k3/8/8/8/8/8/8/4K2K w - - 0 1";
    assert!(error(&get(a, &format!("/api/position?fen={}", enc(kings))), 400).contains("illegal"));
    assert!(error(&get(a, "/api/position?fen=%zz"), 400).contains("escape"));
    assert!(
        error(
            &get(
                a,
                &format!("/api/position?fen=x&evaluators={}", enc("/etc/passwd"))
            ),
            400
        )
        .contains("fen")
    );
    let start = enc("8/8/8/4k3/8/8/8/4K3 w - - 0 1");
    assert!(
        error(
            &get(
                a,
                &format!(
                    "/api/position?fen={start}&evaluators={}",
                    enc("/etc/passwd")
                )
            ),
            400
        )
        .contains("unknown evaluator")
    );
    for bad in ["1; DELETE FROM positions", "no_such_column > 1", "phase >"] {
        error(
            &get(a, &format!("/api/db/positions?where={}", enc(bad))),
            400,
        );
    }
    let endless = "(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c) > 0";
    assert!(
        error(
            &get(a, &format!("/api/db/positions?where={}", enc(endless))),
            400
        )
        .contains("not allowed in a condition")
    );
    // 2,000³ rows: stopped by the time limit.
    let costly = "(SELECT count(*) FROM positions a, positions b, positions c) > 0";
    assert!(
        error(
            &get(a, &format!("/api/db/positions?where={}", enc(costly))),
            400
        )
        .contains("time limit")
    );
    assert!(
        error(
            &get(a, &format!("/api/db/heatmap?where={}", enc(costly))),
            400
        )
        .contains("time limit")
    );
    error(&get(a, "/api/db/positions?limit=0"), 400);
    error(&get(a, "/api/db/positions?limit=100000"), 400);
    error(&get(a, "/api/db/positions?after=-5"), 400);
    error(&get(a, "/api/db/positions/99999999"), 404);
    error(&get(a, "/api/db/positions/abc"), 404);
    error(&get(a, "/api/db/games/424242"), 404);
    error(&get(a, "/api/nothing/here"), 404);
    error(&get(a, "/../Cargo.toml"), 404);
    error(&get(a, "/%2e%2e/Cargo.toml"), 404);
    error(&get(a, "/assets/serve/app.js"), 404);
    error(&request(a, "POST", "/api/info", None).unwrap(), 405);
    error(
        &request(a, "DELETE", "/api/db/positions/1", None).unwrap(),
        405,
    );
    error(
        &request(a, "POST", "/api/play", Some(b"{not json")).unwrap(),
        400,
    );
    error(&request(a, "POST", "/api/play", Some(b"[1]")).unwrap(), 400);
    let big = vec![b' '; 200_000];
    error(&request(a, "POST", "/api/play", Some(&big)).unwrap(), 413);
    assert!(
        error(&post(a, "/api/play", &json!({"player": "nobody"})), 400).contains("unknown player")
    );
    assert!(
        error(
            &post(a, "/api/play", &json!({"player": "random:sede=1"})),
            400
        )
        .contains("sede")
    );
    assert!(
        error(
            &post(a, "/api/play", &json!({"evaluator": "/etc/passwd"})),
            400
        )
        .contains("unknown evaluator")
    );
    error(&post(a, "/api/play", &json!({"movetime_ms": -1})), 400);
    error(
        &post(a, "/api/play", &json!({"movetime_ms": 999_999_999})),
        400,
    );
    error(&post(a, "/api/play", &json!({"color": "green"})), 400);
    error(&post(a, "/api/play", &json!({"fen": "8/8/8/8 w"})), 400);
    error(&get(a, "/api/play/12345"), 404);
    let g = post(a, "/api/play", &json!({"player": "random"}));
    assert_eq!(g.status, 201, "{}", g.text());
    let id = g.json()["id"].as_str().unwrap().to_owned();
    // Game ids are 128 random bits, not a counter another client could walk.
    assert!(
        id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    assert!(
        error(
            &post(a, &format!("/api/play/{id}/move"), &json!({"uci": "e2e5"})),
            400
        )
        .contains("not a legal move")
    );
    error(
        &post(a, &format!("/api/play/{id}/move"), &json!({"move": "e2e4"})),
        400,
    );
    error(&post(a, &format!("/api/play/{id}/undo"), &json!({})), 409);
    // Still answering, and the database untouched.
    assert_eq!(ok_json(a, "/api/info")["database"], "test.db");
    assert!(dir.int("SELECT count(*) FROM positions") > 1000);
}

#[test]
fn serve_plays_games_and_answers_503_when_the_engine_queue_is_full() {
    let dir = Dir::new();
    let s = serve(&dir, &["--queue", "1"]);
    let a = s.addr;
    // No database: the database views say so, Play works.
    assert!(error(&get(a, "/api/db/stats"), 404).contains("no database"));
    let g = post(
        a,
        "/api/play",
        &json!({"player": "random:seed=7", "movetime_ms": 50}),
    )
    .json();
    let id = g["id"].as_str().unwrap().to_owned();
    assert_eq!(g["status"], "your-move");
    let r = post(a, &format!("/api/play/{id}/move"), &json!({"uci": "e2e4"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let g = wait_for_move(a, &id);
    assert_eq!(g["moves"].as_array().unwrap().len(), 2);
    assert_eq!(g["moves"][0]["san"], "e4");
    assert!(g["pgn"].as_str().unwrap().contains("1. e4 "));
    let g = post(a, &format!("/api/play/{id}/undo"), &json!({})).json();
    assert_eq!(g["moves"].as_array().unwrap().len(), 0);
    assert_eq!(g["legal"].as_array().unwrap().len(), 20);

    // The engine mates in one from a FEN, playing White while the person plays Black.
    let fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let g = post(
        a,
        "/api/play",
        &json!({"fen": fen, "color": "black", "movetime_ms": 300}),
    )
    .json();
    let g = wait_for_move(a, g["id"].as_str().unwrap().to_owned());
    assert_eq!(g["moves"][0]["san"], "Ra8#", "{g}");
    assert_eq!(g["result"], "1-0");
    assert_eq!(g["status"], "over");
    assert_eq!(g["thinking"]["score"]["mate"], 1);

    // Queue of one: one search running, one waiting, the next refused with 503.
    let long = json!({"color": "black", "movetime_ms": 20_000});
    let first = post(a, "/api/play", &long).json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let start = Instant::now();
    while ok_json(a, &format!("/api/play/{first}"))["status"] != "thinking" {
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(10));
    }
    // A move while the engine thinks is refused.
    error(
        &post(
            a,
            &format!("/api/play/{first}/move"),
            &json!({"uci": "e7e5"}),
        ),
        409,
    );
    let second = post(a, "/api/play", &long);
    assert_eq!(second.status, 201);
    assert_eq!(second.json()["status"], "queued");
    assert!(error(&post(a, "/api/play", &long), 503).contains("queue"));
    // Ending both games frees the engine: a new game is answered at once.
    for id in [first, second.json()["id"].as_str().unwrap().to_owned()] {
        let r = request(a, "DELETE", &format!("/api/play/{id}"), None).unwrap();
        assert_eq!(r.status, 200);
    }
    let g = post(
        a,
        "/api/play",
        &json!({"color": "black", "movetime_ms": 50}),
    )
    .json();
    let g = wait_for_move(a, g["id"].as_str().unwrap().to_owned());
    assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
}

#[test]
fn serve_survives_a_burst_of_concurrent_requests() {
    let dir = Dir::new();
    fixture_db(&dir);
    let s = serve(&dir, &["--queue", "2", "--max-games", "8"]);
    let a = s.addr;
    let paths = [
        "/api/info".to_owned(),
        format!(
            "/api/position?fen={}",
            enc("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        ),
        format!(
            "/api/db/positions?where={}&limit=20",
            enc("hanging_white > 0")
        ),
        "/api/db/positions/random".to_owned(),
        "/api/db/stats".to_owned(),
        "/api/position?fen=bad".to_owned(),
        "/nowhere".to_owned(),
    ];
    // 8 threads × 25 requests, to 127.0.0.1 only; each thread also starts games.
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let paths = paths.clone();
            std::thread::spawn(move || {
                let mut statuses = Vec::new();
                for i in 0..25 {
                    let r = if i % 5 == 4 {
                        let body = json!({"color": "black", "movetime_ms": 30}).to_string();
                        request(a, "POST", "/api/play", Some(body.as_bytes()))
                    } else {
                        request(a, "GET", &paths[(t + i) % paths.len()], None)
                    };
                    let r = r.expect("an answer");
                    assert!(r.json().is_object() || r.json().is_array());
                    statuses.push(r.status);
                }
                statuses
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in threads {
        all.extend(t.join().expect("no client thread failed"));
    }
    assert_eq!(all.len(), 200);
    assert!(
        all.iter().all(|s| [200, 201, 400, 404, 503].contains(s)),
        "{all:?}"
    );
    assert!(all.contains(&200) && all.contains(&400) && all.contains(&404));
    // Still answering, engine included.
    assert_eq!(ok_json(a, "/api/info")["database"], "test.db");
    let start = Instant::now();
    let id = loop {
        let r = post(
            a,
            "/api/play",
            &json!({"color": "black", "movetime_ms": 30}),
        );
        if r.status == 201 {
            break r.json()["id"].as_str().unwrap().to_owned();
        }
        assert_eq!(r.status, 503);
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the engine never freed up"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(wait_for_move(a, &id)["moves"].as_array().unwrap().len(), 1);
}

#[test]
fn serve_listens_on_loopback_only_unless_public() {
    let dir = Dir::new();
    let out = dir.run(&["serve", "--addr", "0.0.0.0:0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a loopback address") && err.contains("--public"),
        "{err}"
    );
    let out = dir.run(&["serve", "--addr", "127.0.0.1:0", "--evaluator", "nope"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown evaluator"));
}
