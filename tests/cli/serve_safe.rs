//! `chessgraph serve` against the requests an attacker (or any web page) would send: each
//! test sends one kind quoted from the server's threat list and checks that the process
//! stays up, its memory stays bounded, the answer is a 4xx in time and the database file
//! is unchanged.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::http::{enc, get, request_with, send_raw};
use crate::serve::{Served, error, fixture_db, ok_json, serve, serve_cmd};
use crate::util::Dir;

#[path = "serve_limits.rs"]
mod limits;

/// Resident memory the server may reach in these tests (MiB): the engine's network and
/// a capped hash table, far below what the attacks asked for.
pub(crate) const MEMORY_BOUND_MIB: u64 = 400;

pub(crate) fn db_bytes(dir: &Dir) -> Vec<u8> {
    std::fs::read(dir.db()).unwrap()
}

/// A bound on answers that must come "at once": far above what a loaded CI machine takes
/// for a cheap request, far below what each attack would cost without its limit (the
/// attacks here hold the server for 20 s or more, or for ever).
pub(crate) const PROMPT: Duration = Duration::from_secs(5);

/// The server answers the page and the API promptly, and is within its memory.
pub(crate) fn still_fine(s: &mut Served) {
    assert!(s.alive(), "the server died");
    let t = Instant::now();
    assert_eq!(get(s.addr, "/").status, 200);
    ok_json(s.addr, "/api/info");
    assert!(t.elapsed() < PROMPT, "{:?}", t.elapsed());
    let rss = s.rss_mib();
    assert!(rss < MEMORY_BOUND_MIB, "resident memory {rss} MiB");
}

pub(crate) fn post_json(s: &Served, path: &str, body: &serde_json::Value) -> crate::http::Response {
    request_with(
        s.addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    )
    .unwrap()
}

crate::cgtest!(serve_survives_a_huge_content_length, |dir| {
    fixture_db(&dir);
    let before = db_bytes(&dir);
    let mut s = serve(&dir, &[]);
    let raw = format!(
        "POST /api/play HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 99999999999999\r\n\r\n{{}}",
        s.addr
    );
    let t = Instant::now();
    let r = send_raw(s.addr, raw.as_bytes()).unwrap();
    assert_eq!(r.status, 413, "{}", r.text());
    assert!(t.elapsed() < PROMPT);
    // Past what a number holds: 413 with the API's JSON error, not hyper's empty 431.
    for length in ["18446744073709551615", "99999999999999999999999999"] {
        let raw = format!(
            "POST /api/play HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{}}",
            s.addr
        );
        let r = send_raw(s.addr, raw.as_bytes()).unwrap();
        assert!(error(&r, 413).contains("body"), "{length}");
    }
    // A body that is longer than the limit without announcing it is cut off too.
    let body = vec![b' '; 200_000];
    let mut chunked = format!(
        "POST /api/play HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        s.addr,
        body.len()
    )
    .into_bytes();
    chunked.extend_from_slice(&body);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let r = send_raw(s.addr, &chunked);
    assert!(r.is_err() || r.unwrap().status == 413);
    std::thread::sleep(Duration::from_millis(200));
    still_fine(&mut s);
    assert_eq!(db_bytes(&dir), before);
});

// hyper's limit on header fields (100) is met with the API's JSON error, not hyper's
// empty 431; 100 fields still pass.
crate::cgtest!(serve_answers_too_many_header_fields_with_json, |dir| {
    let mut s = serve(&dir, &[]);
    let head = |n: usize| {
        let mut raw = format!("GET /api/info HTTP/1.1\r\nHost: {}\r\n", s.addr);
        for i in 1..n {
            raw.push_str(&format!("X-{i}: a\r\n"));
        }
        raw + "\r\n"
    };
    let r = send_raw(s.addr, head(101).as_bytes()).unwrap();
    assert!(error(&r, 431).contains("100 header fields"), "{}", r.text());
    let r = send_raw(s.addr, head(100).as_bytes()).unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    still_fine(&mut s);
});

crate::cgtest!(serve_never_opens_a_file_a_request_names, |dir| {
    fixture_db(&dir);
    let before = db_bytes(&dir);
    let mut s = serve(&dir, &[]);
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let secret = dir.create("secret.json", "{}");
    let mut messages = Vec::new();
    for path in [
        fifo.to_str().unwrap(),
        "/dev/zero",
        "/etc/shadow",
        secret.to_str().unwrap(),
        "/no/such/file",
    ] {
        for spec in [
            format!("logistic:model={path}"),
            format!("engine:evaluator={path}"),
            format!("greedy:evaluator={path}"),
            format!("cnn:model={path}"),
            format!("policy:model={path}"),
            format!("mcts:net={path}"),
        ] {
            let t = Instant::now();
            let r = post_json(&s, "/api/play", &json!({ "player": spec }));
            assert!(t.elapsed() < PROMPT, "{spec}");
            let message = error(&r, 400);
            assert!(!message.contains("JSON"), "{spec}: {message}");
            messages.push(message.replace(path, "PATH"));
        }
        let r = post_json(
            &s,
            "/api/play",
            &json!({ "player": "engine", "evaluator": path }),
        );
        messages.push(error(&r, 400).replace(path, "PATH"));
    }
    // The answer says nothing of whether the file exists: the same for every path.
    for group in messages.chunks(7).collect::<Vec<_>>().windows(2) {
        assert_eq!(group[0], group[1]);
    }
    assert_eq!(db_bytes(&dir), before);
    // A stored `train moves` fit is the way to play the logistic player from the page.
    dir.ok(&["train", "moves"]);
    let id: i64 = dir
        .sql()
        .query_row(
            "SELECT max(id) FROM fits WHERE target = 'winner_move'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let r = post_json(
        &s,
        "/api/play",
        &json!({ "player": format!("logistic:fit={id}"), "color": "black" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    // The engine thread was never given a file to open: it plays at once.
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let g = crate::serve::wait_for_move(s.addr, &id);
    assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
    still_fine(&mut s);
});

// Networks come from the folder given to `--nets`, by bare file name: a FIFO or a link
// to `/dev/zero` in that folder is refused as promptly as a path, and the engine thread
// plays the next game.
#[cfg(feature = "cnn")]
crate::cgtest!(serve_plays_networks_from_its_folder_by_name_only, |dir| {
    dir.ok(&["import", &crate::util::fixture("positions-2000.csv")]);
    let nets = dir.path().join("nets");
    std::fs::create_dir(&nets).unwrap();
    let out = nets.join("tiny.safetensors");
    dir.ok(&[
        "train",
        "cnn",
        "--arch",
        "cnn-study",
        "--channels",
        "4",
        "--blocks",
        "2",
        "--epochs",
        "1",
        "--batch",
        "128",
        "--out",
        out.to_str().unwrap(),
    ]);
    let fifo = nets.join("fifo.safetensors");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink("/dev/zero", nets.join("zero.safetensors")).unwrap();
    let mut s = serve(&dir, &["--nets", nets.to_str().unwrap()]);
    let info = ok_json(s.addr, "/api/info");
    assert_eq!(info["networks"], json!(["tiny.safetensors"]), "{info}");
    for spec in [
        "cnn:model=fifo.safetensors",
        "policy:model=zero.safetensors",
        "mcts:net=../nets/tiny.safetensors",
        "cnn:model=missing.safetensors",
        "mcts:net=tiny.safetensors,simulations=1000000",
    ] {
        let t = Instant::now();
        let r = post_json(&s, "/api/play", &json!({ "player": spec }));
        assert!(t.elapsed() < PROMPT, "{spec}");
        error(&r, 400);
    }
    let r = post_json(
        &s,
        "/api/play",
        &json!({ "player": "cnn:model=tiny.safetensors", "color": "black" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let g = crate::serve::wait_for_move(s.addr, &id);
    assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
    still_fine(&mut s);
});

crate::cgtest!(
    serve_caps_the_engine_hash_and_survives_a_failed_allocation,
    |dir| {
        let mut s = serve(&dir, &["--max-hash", "64"]);
        let t = Instant::now();
        let r = post_json(&s, "/api/play", &json!({ "player": "engine:hash=16384" }));
        assert!(error(&r, 400).contains("hash"));
        assert!(t.elapsed() < PROMPT);
        for spec in ["minimax:depth=30", "mcts:iterations=1000000"] {
            error(&post_json(&s, "/api/play", &json!({ "player": spec })), 400);
        }
        // Within the cap it plays, and the engine thread lives on for the next game.
        let r = post_json(
            &s,
            "/api/play",
            &json!({ "player": "engine:hash=64", "color": "black", "movetime_ms": 50 }),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        let id = r.json()["id"].as_str().unwrap().to_owned();
        let g = crate::serve::wait_for_move(s.addr, &id);
        assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
        still_fine(&mut s);
    }
);

// A server whose hash cap is above what it can allocate (its address space limited to
// 2 GiB): the failed allocation is that game's error, and the next game plays.
crate::cgtest!(
    serve_answers_a_failed_hash_allocation_as_that_games_error,
    |dir| {
        let mut cmd = std::process::Command::new("sh");
        cmd.current_dir(dir.path()).arg("-c").arg(format!(
            "ulimit -v 2097152 && exec '{}' --db '{}' serve --addr 127.0.0.1:0 --max-hash 16384",
            env!("CARGO_BIN_EXE_chessgraph"),
            dir.db().display()
        ));
        let mut s = serve_cmd(cmd);
        let r = post_json(
            &s,
            "/api/play",
            &json!({ "player": "engine:hash=8192", "color": "black", "movetime_ms": 30 }),
        );
        assert_eq!(r.status, 201, "{}", r.text());
        let id = r.json()["id"].as_str().unwrap().to_owned();
        let g = crate::serve::wait_for_move(s.addr, &id);
        assert!(
            g["error"].as_str().unwrap().contains("cannot allocate"),
            "{g}"
        );
        assert_eq!(g["moves"].as_array().unwrap().len(), 0);
        let r = post_json(
            &s,
            "/api/play",
            &json!({ "player": "engine:hash=16", "color": "black", "movetime_ms": 30 }),
        );
        let id = r.json()["id"].as_str().unwrap().to_owned();
        let g = crate::serve::wait_for_move(s.addr, &id);
        assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
        still_fine(&mut s);
    }
);

crate::cgtest!(serve_keeps_costly_sql_within_its_deadline, |dir| {
    fixture_db(&dir);
    let before = db_bytes(&dir);
    let mut s = serve(&dir, &["--sql-timeout-ms", "1000"]);
    // Refused when prepared: the answer says so, whatever the machine's load.
    let printf = "length(printf('%.*c', 20000000 + p.id, 'x')) > 0";
    let r = get(s.addr, &format!("/api/db/positions?where={}", enc(printf)));
    assert!(error(&r, 400).contains("function printf is not allowed"));
    // Allowed but costly: a three-way join of 2,000 rows (8·10⁹ rows, minutes of work)
    // stops at its deadline, four at once, while the page keeps answering. Never before
    // the deadline; and long before the join could end, however loaded the machine.
    let costly = "(SELECT count(*) FROM positions a, positions b, positions c) > 0";
    let addr = s.addr;
    let started = std::sync::Arc::new(std::sync::Barrier::new(5));
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let started = started.clone();
            std::thread::spawn(move || {
                started.wait();
                let t = Instant::now();
                let r = get(addr, &format!("/api/db/positions?where={}", enc(costly)));
                (r.status, r.text(), t.elapsed())
            })
        })
        .collect();
    started.wait();
    still_fine(&mut s);
    for run in runs {
        let (status, text, took) = run.join().unwrap();
        assert_eq!(status, 400, "{text}");
        assert!(text.contains("time limit"), "{text}");
        assert!(took >= Duration::from_millis(1000), "{took:?}");
        assert!(took < Duration::from_secs(30), "{took:?}");
    }
    // A string over the sandbox's length fails at once instead of growing.
    let long = format!("length({}) > 0", vec!["fen"; 500].join(" || "));
    let r = get(s.addr, &format!("/api/db/positions?where={}", enc(&long)));
    let message = error(&r, 400);
    assert!(message.contains("length limit"), "{message}");
    assert_eq!(db_bytes(&dir), before);
});

crate::cgtest!(serve_is_not_held_by_slow_senders, |dir| {
    fixture_db(&dir);
    let mut s = serve(&dir, &["--read-timeout-ms", "1000", "--workers", "2"]);
    // Eight connections (more than the workers) announce 60,000 bytes and send one.
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut c = TcpStream::connect(s.addr).unwrap();
            write!(
                c,
                "POST /api/play HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{{",
                s.addr
            )
            .unwrap();
            c
        })
        .collect();
    // Eight more that send half a header, and eight that send nothing.
    for _ in 0..8 {
        let mut c = TcpStream::connect(s.addr).unwrap();
        write!(c, "GET /api/info HTTP/1.1\r\nHost: ").unwrap();
        slow.push(c);
        slow.push(TcpStream::connect(s.addr).unwrap());
    }
    still_fine(&mut s);
    let r = post_json(&s, "/api/play", &json!({ "player": "random" }));
    assert_eq!(r.status, 201);
    // Each slow connection is answered 408 or closed: by its read timeout, not by the
    // connection's 120 s lifetime.
    let t = Instant::now();
    for c in slow.iter_mut() {
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut buf = Vec::new();
        let _ = c.read_to_end(&mut buf);
        let text = String::from_utf8_lossy(&buf);
        assert!(buf.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
    }
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    still_fine(&mut s);
});

crate::cgtest!(serve_refuses_other_sites_and_other_host_names, |dir| {
    fixture_db(&dir);
    let mut s = serve(&dir, &[]);
    let a = s.addr;
    let host = a.to_string();
    let body = json!({ "player": "random" }).to_string();
    // A page elsewhere posting text/plain (a "simple" request, no preflight).
    let r = request_with(
        a,
        "POST",
        "/api/play",
        &[
            ("Content-Type", "text/plain"),
            ("Origin", "http://evil.example"),
        ],
        Some(body.as_bytes()),
    )
    .unwrap();
    assert!(r.status == 403 || r.status == 415, "{}", r.status);
    let r = request_with(
        a,
        "POST",
        "/api/play",
        &[("Content-Type", "text/plain")],
        Some(body.as_bytes()),
    )
    .unwrap();
    assert_eq!(r.status, 415);
    let r = request_with(
        a,
        "POST",
        "/api/play",
        &[
            ("Content-Type", "application/json"),
            ("Origin", "http://evil.example"),
        ],
        Some(body.as_bytes()),
    )
    .unwrap();
    assert_eq!(r.status, 403);
    // A cross-site <img> firing a search.
    let r = request_with(
        a,
        "GET",
        "/api/db/positions?where=1",
        &[("Sec-Fetch-Site", "cross-site")],
        None,
    )
    .unwrap();
    assert_eq!(r.status, 403);
    // The page itself: same origin.
    let own = format!("http://{host}");
    let r = request_with(
        a,
        "POST",
        "/api/play",
        &[
            ("Content-Type", "application/json"),
            ("Origin", &own),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        Some(body.as_bytes()),
    )
    .unwrap();
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    // Moves, take-backs and deletions from elsewhere are refused.
    for (method, path) in [
        ("POST", format!("/api/play/{id}/undo")),
        ("DELETE", format!("/api/play/{id}")),
    ] {
        let r = request_with(
            a,
            method,
            &path,
            &[
                ("Content-Type", "application/json"),
                ("Origin", "http://evil.example"),
            ],
            None,
        )
        .unwrap();
        assert_eq!(r.status, 403);
        let r = request_with(a, method, &path, &[], None).unwrap();
        assert_eq!(r.status, 415);
    }
    ok_json(a, &format!("/api/play/{id}"));
    // Origin and Sec-Fetch-Site headers that are not text, and a second Origin: refused.
    for extra in [
        b"Origin: http://evil.example\xff\r\n".to_vec(),
        b"Sec-Fetch-Site: cross-site\xff\r\n".to_vec(),
        format!("Origin: {own}\r\nOrigin: http://evil.example\r\n").into_bytes(),
        b"Sec-Fetch-Site: same-origin\r\nSec-Fetch-Site: cross-site\r\n".to_vec(),
    ] {
        let mut raw = format!(
            "POST /api/play HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        )
        .into_bytes();
        raw.extend_from_slice(&extra);
        raw.extend_from_slice(b"\r\n");
        raw.extend_from_slice(body.as_bytes());
        let r = send_raw(a, &raw).unwrap();
        assert_eq!(
            r.status,
            403,
            "{}: {}",
            String::from_utf8_lossy(&extra),
            r.text()
        );
    }
    // DNS rebinding: another name for 127.0.0.1.
    for path in ["/", "/api/info", "/api/db/stats"] {
        let raw = format!(
            "GET {path} HTTP/1.1\r\nHost: rebind.example:{}\r\nConnection: close\r\n\r\n",
            a.port()
        );
        assert_eq!(send_raw(a, raw.as_bytes()).unwrap().status, 403, "{path}");
    }
    let raw = format!(
        "GET /api/info HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n\r\n",
        a.port()
    );
    assert_eq!(send_raw(a, raw.as_bytes()).unwrap().status, 200);
    // Two Host headers: which one counts would be a guess.
    let raw = format!(
        "GET /api/info HTTP/1.1\r\nHost: {host}\r\nHost: rebind.example\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(send_raw(a, raw.as_bytes()).unwrap().status, 400);
    // Oversize headers.
    let raw = format!(
        "GET / HTTP/1.1\r\nHost: {host}\r\nX-Big: {}\r\n\r\n",
        "x".repeat(64 * 1024)
    );
    let r = send_raw(a, raw.as_bytes());
    assert!(r.is_err() || r.unwrap().status == 431);
    still_fine(&mut s);
});

crate::cgtest!(serve_conditions_cannot_read_beyond_positions, |dir| {
    fixture_db(&dir);
    let before = db_bytes(&dir);
    let mut s = serve(&dir, &[]);
    let db_path = dir.db().canonicalize().unwrap();
    for bad in [
        "0) UNION ALL SELECT seq, file, NULL, NULL, NULL, NULL FROM pragma_database_list /*",
        "0) UNION ALL SELECT 1, sqlite_version(), NULL, NULL, NULL, NULL --",
        "p.id IN (SELECT seq FROM pragma_database_list)",
        "(SELECT count(*) FROM pragma_compile_options) > 0",
        "sqlite_compileoption_used('THREADSAFE')",
        "(SELECT count(*) FROM sources WHERE path LIKE '/%') > 0",
        "load_extension('/tmp/x.so') IS NULL",
        "(SELECT count(*) FROM sqlite_master) > 0",
    ] {
        for endpoint in [
            "/api/db/positions",
            "/api/db/positions/random",
            "/api/db/heatmap",
        ] {
            let r = get(s.addr, &format!("{endpoint}?where={}", enc(bad)));
            assert_eq!(r.status, 400, "{endpoint} {bad}: {}", r.text());
            let text = r.text();
            assert!(!text.contains(db_path.to_str().unwrap()), "{text}");
            assert!(!text.contains("3."), "a version in {text}");
        }
    }
    // Stored positions name their source file, not where it is.
    let p = ok_json(s.addr, "/api/db/positions/1");
    assert!(
        !p["position"]["source"].as_str().unwrap().contains('/'),
        "{p}"
    );
    still_fine(&mut s);
    assert_eq!(db_bytes(&dir), before);
});
