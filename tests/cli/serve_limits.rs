//! `chessgraph serve` past its caps: more connections than it holds, conditions that would
//! take gigabytes of memory or temporary disk or that SQLite cannot evaluate, a flood of
//! costly requests while games start, more engine time than a client may have, and
//! answers that must name files without their directory.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{MEMORY_BOUND_MIB, PROMPT, db_bytes, post_json, still_fine};
use crate::http::{enc, get};
use crate::serve::{error, fixture_db, ok_json, serve, serve_cmd};

crate::cgtest!(serve_bounds_the_memory_and_disk_of_a_condition, |dir| {
    fixture_db(&dir);
    let before = db_bytes(&dir);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A time limit of minutes: what stops these is the memory bound, not the clock.
    let mut cmd = dir.command(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--sql-timeout-ms",
        "120000",
    ]);
    cmd.env("SQLITE_TMPDIR", &tmp).env("TMPDIR", &tmp);
    let mut s = serve_cmd(cmd);
    let pair = "a.fen||b.fen||a.fen||b.fen||a.fen||b.fen";
    for condition in [
        // 3.3 million distinct 300-byte strings: about 1 GB to sort, in memory or on disk.
        format!("(SELECT count(DISTINCT {pair}) FROM positions a, positions b) > 0"),
        format!(
            "(SELECT x FROM (SELECT {pair} AS x FROM positions a, positions b ORDER BY x DESC LIMIT 1 OFFSET 3000000)) IS NOT NULL"
        ),
        format!("p.fen IN (SELECT {pair} FROM positions a, positions b)"),
    ] {
        for endpoint in ["/api/db/heatmap", "/api/db/positions"] {
            let r = get(s.addr, &format!("{endpoint}?where={}", enc(&condition)));
            let message = error(&r, 400);
            assert!(
                message.contains("memory"),
                "{endpoint} {condition}: {message}"
            );
            let rss = s.rss_mib();
            assert!(rss < MEMORY_BOUND_MIB, "resident memory {rss} MiB");
        }
    }
    // Four at once: each stops, and the server's own small queries still find memory.
    let addr = s.addr;
    let distinct = format!("(SELECT count(DISTINCT {pair}) FROM positions a, positions b) > 0");
    let heavy: Vec<_> = (0..4)
        .map(|_| {
            let path = format!("/api/db/heatmap?where={}", enc(&distinct));
            std::thread::spawn(move || (0..3).map(|_| get(addr, &path).status).collect::<Vec<_>>())
        })
        .collect();
    while !heavy.iter().all(|h| h.is_finished()) {
        let r = get(addr, "/api/info");
        assert_eq!(r.status, 200, "{}", r.text());
    }
    for h in heavy {
        assert!(h.join().unwrap().iter().all(|&st| st == 400 || st == 503));
    }
    // No temporary file was left, nor is one open.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    let fds = std::fs::read_dir(format!("/proc/{}/fd", s.pid())).unwrap();
    for fd in fds.flatten() {
        let target = std::fs::read_link(fd.path()).unwrap_or_default();
        assert!(!target.starts_with(&tmp), "{}", target.display());
    }
    still_fine(&mut s);
    assert_eq!(db_bytes(&dir), before);
});

crate::cgtest!(
    serve_answers_a_failing_condition_as_the_users_error,
    |dir| {
        fixture_db(&dir);
        let mut s = serve(&dir, &[]);
        for (condition, says) in [
            ("abs(-9223372036854775808) > 0", "integer overflow"),
            (
                &*format!("fen LIKE '{}'", "_".repeat(101)),
                "pattern too complex",
            ),
        ] {
            for endpoint in [
                "/api/db/positions",
                "/api/db/heatmap",
                "/api/db/positions/random",
            ] {
                let r = get(s.addr, &format!("{endpoint}?where={}", enc(condition)));
                let message = error(&r, 400);
                assert!(message.contains(says), "{endpoint}: {message}");
                for internal in ["database error", "Error code", "sqlite"] {
                    assert!(!message.contains(internal), "{endpoint}: {message}");
                }
            }
        }
        still_fine(&mut s);
    }
);

crate::cgtest!(serve_answers_name_files_without_their_directory, |dir| {
    fixture_db(&dir);
    let s = serve(&dir, &[]);
    let stats = ok_json(s.addr, "/api/db/stats");
    let sources = stats["sources"].as_array().unwrap();
    assert!(sources.len() >= 3, "{stats}");
    for source in sources {
        let path = source["path"].as_str().unwrap();
        assert!(!path.is_empty() && !path.contains('/'), "{path}");
    }
    let errors = ok_json(s.addr, "/api/db/import-errors");
    let rows = errors["rows"].as_array().unwrap();
    assert!(!rows.is_empty(), "{errors}");
    for row in rows {
        let source = row["source"].as_str().unwrap();
        assert_eq!(source, "bad.csv", "{row}");
    }
    let home = dir.path().to_str().unwrap();
    for path in ["/api/db/stats", "/api/db/import-errors", "/api/info"] {
        assert!(!get(s.addr, path).text().contains(home), "{path}");
    }
});

crate::cgtest!(serve_is_not_starved_by_idle_connections, |dir| {
    fixture_db(&dir);
    // A read timeout of a minute: before, a full house of silent connections held the
    // page that long.
    let mut s = serve(
        &dir,
        &["--max-connections", "16", "--read-timeout-ms", "60000"],
    );
    let addr = s.addr;
    let mut silent: Vec<TcpStream> = (0..40).map(|_| TcpStream::connect(addr).unwrap()).collect();
    // Slow senders too: half a header each.
    for _ in 0..8 {
        let mut c = TcpStream::connect(addr).unwrap();
        write!(c, "GET /api/info HTTP/1.1\r\nHost: ").unwrap();
        silent.push(c);
    }
    for round in 0..3 {
        let t = Instant::now();
        assert_eq!(get(addr, "/").status, 200);
        ok_json(addr, "/api/info");
        assert!(t.elapsed() < PROMPT, "round {round}: {:?}", t.elapsed());
        // The attacker opens as many again, as those closed for the page close.
        for _ in 0..40 {
            silent.push(TcpStream::connect(addr).unwrap());
        }
    }
    // The oldest were closed to make room: reading them ends at once.
    let mut first = silent.remove(0);
    first.set_read_timeout(Some(PROMPT)).unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(first.read(&mut buf).unwrap_or(0), 0);
    still_fine(&mut s);
});

crate::cgtest!(
    serve_answers_cheap_requests_while_costly_ones_queue,
    |dir| {
        fixture_db(&dir);
        let mut s = serve(
            &dir,
            &[
                "--workers",
                "2",
                "--request-queue",
                "4",
                "--sql-timeout-ms",
                "1000",
            ],
        );
        let addr = s.addr;
        // Sixteen clients keep the database lane's two workers and four places full.
        let costly = "(SELECT count(*) FROM positions a, positions b, positions c) > 0";
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let busy = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let flood: Vec<_> = (0..16)
            .map(|_| {
                let (stop, busy) = (stop.clone(), busy.clone());
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        // The flood's own failures (a reset under load) are not the test's.
                        let path = format!("/api/db/positions?where={}", enc(costly));
                        let r = crate::http::request(addr, "GET", &path, None);
                        if r.is_ok_and(|r| r.status == 503) {
                            busy.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        // Until the flood has been turned away at least once, the lane is not yet full.
        while busy.load(std::sync::atomic::Ordering::Relaxed) == 0 {
            std::thread::sleep(Duration::from_millis(10));
        }
        for _ in 0..10 {
            let t = Instant::now();
            let r = get(addr, "/api/info");
            assert_eq!(r.status, 200, "{}", r.text());
            let r = post_json(&s, "/api/play", &json!({ "player": "random" }));
            assert_eq!(r.status, 201, "{}", r.text());
            assert!(t.elapsed() < PROMPT, "{:?}", t.elapsed());
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for f in flood {
            f.join().unwrap();
        }
        still_fine(&mut s);
    }
);

/// A POST of JSON sent from the local address `from` (any of 127.0.0.0/8).
fn post_from(
    from: [u8; 4],
    addr: std::net::SocketAddr,
    path: &str,
    body: &serde_json::Value,
) -> crate::http::Response {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind((from, 0).into()).unwrap();
        socket.connect(addr).await.unwrap().into_std().unwrap()
    });
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = body.to_string();
    let mut w = &stream;
    write!(
        w,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    crate::http::read_response(stream).unwrap()
}

crate::cgtest!(serve_counts_engine_time_against_each_client, |dir| {
    fixture_db(&dir);
    let mut s = serve(&dir, &["--max-games", "32"]);
    // Nine games of 30 s a move: the client's minute of engine time holds two.
    let long = json!({ "player": "engine", "color": "black", "movetime_ms": 30000 });
    let statuses: Vec<u16> = (0..9)
        .map(|_| post_json(&s, "/api/play", &long).status)
        .collect();
    assert_eq!(statuses[..2], [201, 201], "{statuses:?}");
    let r = post_json(&s, "/api/play", &long);
    assert!(error(&r, 503).contains("engine time"));
    // Other addresses of 127.0.0.0/8 are the same client: binding them adds no budget.
    for last in 2..8 {
        let r = post_from([127, 0, 0, last], s.addr, "/api/play", &long);
        assert!(error(&r, 503).contains("engine time"), "127.0.0.{last}");
    }
    // A game against `random` starts and moves at once, whatever the engine holds.
    let r = post_json(
        &s,
        "/api/play",
        &json!({ "player": "random", "color": "black" }),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let g = crate::serve::wait_for_move(s.addr, &id);
    assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
    still_fine(&mut s);
});

crate::cgtest!(serve_is_not_starved_by_slow_bodies, |dir| {
    fixture_db(&dir);
    let mut s = serve(
        &dir,
        &["--max-connections", "16", "--read-timeout-ms", "60000"],
    );
    let addr = s.addr;
    // Twenty requests whose header is whole and whose body never comes: every place.
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut c = TcpStream::connect(addr).unwrap();
            write!(
                c,
                "POST /api/play HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{{"
            )
            .unwrap();
            c
        })
        .collect();
    for round in 0..3 {
        let t = Instant::now();
        assert_eq!(get(addr, "/").status, 200);
        ok_json(addr, "/api/info");
        assert!(t.elapsed() < PROMPT, "round {round}: {:?}", t.elapsed());
    }
    // The oldest was answered 408 (or closed) to make room, long before its 60 s.
    let mut first = slow.remove(0);
    first.set_read_timeout(Some(PROMPT)).unwrap();
    let mut buf = Vec::new();
    let _ = first.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    assert!(buf.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.is_empty() || text.contains("too slow"), "{text}");
    still_fine(&mut s);
});
