//! The page in a real browser: headless Chromium driven by chromedriver over WebDriver
//! (plain HTTP requests from `http.rs`). It plays three moves against the engine, opens a
//! database position and checks the arrows and the term breakdown, shows the Data view,
//! and saves screenshots under the target directory. Ignored (see `build.rs`) without
//! `chromium` and `chromedriver` (Debian's packages; `.ci/run` installs them).

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::request;
use crate::serve::{fixture_db, serve};
use crate::util::Dir;

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    child: Child,
    addr: SocketAddr,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(
                self.addr,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let body = body.map(|b| b.to_string());
        let r = request(self.addr, method, &path, body.as_deref().map(str::as_bytes))
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        let v = r.json();
        assert_eq!(r.status, 200, "WebDriver {method} {path}: {v}");
        v["value"].clone()
    }

    fn find_all(&self, css: &str) -> Vec<String> {
        let v = self.call(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                e[ELEMENT]
                    .as_str()
                    .unwrap_or_else(|| panic!("{css}: {v}"))
                    .to_owned()
            })
            .collect()
    }

    fn find(&self, css: &str) -> String {
        self.find_all(css)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no element {css}"))
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/clear"), Some(json!({})));
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    fn script(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits (at most 60 s) until `script` returns something truthy, and returns it.
    fn wait(&self, what: &str, script: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.script(script);
            if !(v.is_null() || v == json!(false) || v == json!(0) || v == json!("")) {
                return v;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, path: &Path) {
        let b64 = self.call("GET", "/screenshot", None);
        let png = base64(b64.as_str().unwrap());
        assert_eq!(&png[..4], b"\x89PNG");
        std::fs::write(path, png).unwrap();
        eprintln!("screenshot: {}", path.display());
    }
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(value(c)) << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn start_driver(chromium: &Path, chromedriver: &Path, profile: &Path) -> Driver {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let mut driver = Driver {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        session: String::new(),
    };
    let start = Instant::now();
    while !request(driver.addr, "GET", "/status", None)
        .is_ok_and(|r| r.status == 200 && r.json()["value"]["ready"] == true)
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "chromedriver never ready"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let caps = json!({"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium.display().to_string(), "args": args},
    }}});
    let r = request(
        driver.addr,
        "POST",
        "/session",
        Some(caps.to_string().as_bytes()),
    )
    .expect("new session");
    let v = r.json();
    assert_eq!(r.status, 200, "new session: {v}");
    driver.session = v["value"]["sessionId"].as_str().unwrap().to_owned();
    driver
}

#[test]
fn serve_in_chromium_plays_and_shows_arrows_and_terms() {
    let Some((chromium, chromedriver)) = chessgraph_testkit::chromium() else {
        return;
    };
    let dir = Dir::new();
    fixture_db(&dir);
    let server = serve(&dir, &[]);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-browser");
    std::fs::create_dir_all(&shots).unwrap();
    let d = start_driver(&chromium, &chromedriver, &dir.path().join("profile"));
    let url = format!("http://{}/", server.addr);
    d.call("POST", "/url", Some(json!({ "url": url })));
    d.wait("the page", "return document.body.dataset.ready === '1'");

    // Play: three moves against the engine, by clicks on the board's squares.
    d.type_into("#play-movetime", "300");
    d.click("#play-new");
    d.wait(
        "a new game",
        "return window.chessgraph.play.game && window.chessgraph.play.game.status === 'your-move'",
    );
    for (round, wanted) in [["e2e4", "d2d4"], ["g1f3", "b1c3"], ["f1c4", "f1e2"]]
        .iter()
        .enumerate()
    {
        let legal = d.script("return window.chessgraph.play.game.legal");
        let legal: Vec<&str> = legal
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let m = wanted
            .iter()
            .copied()
            .chain(legal.iter().copied())
            .find(|m| legal.contains(m))
            .expect("a legal move");
        d.click(&format!("rect[data-square='{}']", &m[..2]));
        d.click(&format!("rect[data-square='{}']", &m[2..4]));
        // The person's move and the engine's reply: two more moves than before.
        d.wait(
            "the engine's reply",
            &format!(
                "const g = window.chessgraph.play.game; return g && g.status === 'your-move' && g.moves.length === {}",
                2 * (round + 1)
            ),
        );
    }
    let moves = d.script("return document.querySelectorAll('#play-moves .san').length");
    assert_eq!(moves, json!(6), "three moves and three replies");
    let score = d.script("return document.getElementById('play-score').textContent");
    assert!(!score.as_str().unwrap().is_empty(), "the engine's score");
    let pgn = d.script("return document.getElementById('play-pgn').value");
    assert!(pgn.as_str().unwrap().contains("1. "), "{pgn}");
    d.screenshot(&shots.join("play.png"));

    // Position: a stored position with many edges; all four arrow sets on.
    let id = dir.int(
        "SELECT position_id FROM edges GROUP BY position_id ORDER BY count(*) DESC, position_id LIMIT 1",
    );
    d.click("#tab-position");
    d.type_into("#pos-id", &id.to_string());
    d.click("#pos-id-show");
    let want = dir.int(&format!(
        "SELECT count(*) FROM edges WHERE position_id = {id}"
    ));
    let arrows = d.wait(
        "the arrows",
        &format!("return document.getElementById('pos-facts').textContent.includes('#{id}') && document.querySelectorAll('line.arrow').length"),
    );
    assert_eq!(arrows, json!(want));
    // Hiding White's attacks leaves the other edges.
    let white_attacks = dir.int(&format!(
        "SELECT count(*) FROM edges WHERE position_id = {id} AND kind = 'attack' AND attacker = upper(attacker)"
    ));
    d.click("#arrows-w-attack");
    let shown = d.script("return document.querySelectorAll('line.arrow').length");
    assert_eq!(shown, json!(want - white_attacks));
    d.click("#arrows-w-attack");
    let terms = d.script(
        "return document.querySelectorAll(\".eval[data-evaluator='seed003'] .term\").length",
    );
    assert!(terms.as_i64().unwrap() >= 2, "term breakdown: {terms}");
    let network =
        d.script("return document.querySelector(\".eval[data-evaluator='nnue']\").textContent");
    assert!(network.as_str().unwrap().contains("total only"));
    d.screenshot(&shots.join("position.png"));

    // A refused FEN (long, with no spaces to break at): the message shows in a bar that
    // covers no control and does not overflow, raises no uncaught error, and goes with a
    // change of tab.
    d.script(
        "window.__errors = []; window.addEventListener('unhandledrejection', (e) => window.__errors.push(String(e.reason))); return 1",
    );
    d.type_into("#pos-fen", &"x".repeat(400));
    d.click("#pos-show");
    d.wait(
        "the message",
        "return !document.getElementById('toast').classList.contains('hidden')",
    );
    let covered = d.script(
        "const toast = document.getElementById('toast'); const t = toast.getBoundingClientRect(); \
         return [...document.querySelectorAll('button, input, select')].filter((b) => { \
           if (toast.contains(b)) return false; const r = b.getBoundingClientRect(); \
           return r.width > 0 && !(r.right <= t.left || r.left >= t.right || r.bottom <= t.top || r.top >= t.bottom); \
         }).map((b) => b.id)",
    );
    assert_eq!(covered, json!([]), "controls under the message");
    let overflow = d.script(
        "const t = document.getElementById('toast'); return t.scrollWidth <= t.clientWidth && t.getBoundingClientRect().right <= window.innerWidth",
    );
    assert_eq!(overflow, json!(true), "the message overflows");
    let errors = d.script("return window.__errors");
    assert_eq!(errors, json!([]), "uncaught errors");
    d.screenshot(&shots.join("message.png"));
    d.click("#tab-play");
    let hidden = d.script("return document.getElementById('toast').classList.contains('hidden')");
    assert_eq!(hidden, json!(true), "the message stays across tabs");
    d.click("#tab-position");

    // Data: the heatmaps and the report.
    d.click("#tab-data");
    d.wait(
        "the heatmaps",
        "return document.querySelectorAll('.heatcell').length === 12 && document.querySelectorAll('#data-report table').length > 0",
    );
    d.click(".heatcell[data-piece='n']");
    d.wait(
        "the black knight's board",
        "return document.querySelector('#heat-big').textContent.includes('black knight')",
    );
    d.screenshot(&shots.join("data.png"));
}
