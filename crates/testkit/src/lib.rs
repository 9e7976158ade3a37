//! What chessgraph's tests need from the machine beyond Rust and the repository: the
//! shared data sets beside the clone (`../shared/data`), a browser (`chromium` and
//! `chromedriver`), a Parquet reader for Python (`duckdb` and `numpy`, or `pyarrow`), and
//! a way to drop root's privileges. Checked when a test runs, so that building the product
//! never probes the machine.
//!
//! A test that needs one asks for it first: where it is missing, the test prints why it
//! did not run (`skipped: needs …`) and returns; with `CHESSGRAPH_TEST_TOOLS=required`
//! (which `.ci/run` sets: CI installs everything before its first test) a missing need
//! fails the test instead, so nothing passes in CI by not running. The variable is the
//! project's own, not the generic `CI`, so that building or testing chessgraph in someone
//! else's CI never fails for want of a test's browser.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository's root: the nearest folder holding `Cargo.lock` above the tested
/// package's, which cargo names in `CARGO_MANIFEST_DIR` when it runs a test. Found when the
/// test runs, not where this crate was compiled: checkouts that share one
/// `CARGO_TARGET_DIR` share compiled crates too, and a testkit compiled in another checkout
/// would point its tests at that one's files (or at a folder since removed). A test binary
/// run by hand, without the variable, falls back to this crate's compile-time place.
pub fn repo_root() -> PathBuf {
    let compiled = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(package) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return compiled;
    };
    Path::new(&package)
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .map_or(compiled, Path::to_path_buf)
}

/// Whether every need must be met (`CHESSGRAPH_TEST_TOOLS=required`).
pub fn required() -> bool {
    std::env::var("CHESSGRAPH_TEST_TOOLS").is_ok_and(|v| v == "required")
}

/// Reports an unmet need: fails under `CHESSGRAPH_TEST_TOOLS=required`, otherwise says on
/// standard error that the test is skipped.
fn missing(what: &str) {
    assert!(
        !required(),
        "CHESSGRAPH_TEST_TOOLS=required and this test needs {what}"
    );
    eprintln!("skipped: needs {what}");
}

/// The shared data directory `../shared/data` beside the clone, or `None` (reporting the
/// need) where it is not there. A file missing from a directory that is there is
/// the test's failure, not a skip.
pub fn shared_data() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        missing("../shared/data beside the clone");
        None
    }
}

/// `name` under the shared data directory, which must exist where the directory does.
pub fn shared(name: &str) -> Option<PathBuf> {
    let p = shared_data()?.join(name);
    assert!(
        p.exists(),
        "../shared/data/{name} not found at {}",
        p.display()
    );
    Some(p)
}

/// The path of the program `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The `sqlite3` shell on `PATH` (the distribution's, without chessgraph's functions), or
/// `None` (after reporting the need).
pub fn sqlite3() -> Option<PathBuf> {
    let found = which("sqlite3");
    if found.is_none() {
        missing("the sqlite3 shell on PATH (apt-get install sqlite3)");
    }
    found
}

/// The SQLite loadable extension built from `crates/sqlite-ext` into the workspace's
/// release directory, or `None` (after reporting the need).
pub fn sqlite_extension() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| repo_root().join("target"), PathBuf::from);
    let lib = target.join("release").join(format!(
        "{}chessgraph_sqlite{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    if lib.is_file() {
        return Some(lib);
    }
    missing(&format!(
        "{} (cargo build --release --manifest-path crates/sqlite-ext/Cargo.toml --target-dir target)",
        lib.display()
    ));
    None
}

/// `chromium` and `chromedriver` on `PATH`, or `None` (after reporting the need).
pub fn chromium() -> Option<(PathBuf, PathBuf)> {
    match (which("chromium"), which("chromedriver")) {
        (Some(c), Some(d)) => Some((c, d)),
        _ => {
            missing("chromium and chromedriver on PATH (apt-get install chromium chromium-driver)");
            None
        }
    }
}

/// Whether `python3` runs `code` successfully.
pub fn python(code: &str) -> bool {
    Command::new("python3")
        .args(["-c", code])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether `python3` can read Parquet with `duckdb` and `numpy` (the full check) or
/// `pyarrow` (the tables only); reports the need where it can do neither.
pub fn parquet_reader() -> bool {
    if python("import duckdb, numpy") || python("import pyarrow") {
        true
    } else {
        missing("duckdb and numpy, or pyarrow, for python3 (pip install duckdb numpy)");
        false
    }
}

/// Whether the tests run as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().next())
            == Some("0")
    })
}

/// Whether a test can run a command as a user other than root: it is not root, or
/// `/usr/bin/setpriv` (util-linux) is there to drop root's privileges; reports the need
/// otherwise.
pub fn can_drop_root() -> bool {
    if !is_root() || Path::new("/usr/bin/setpriv").exists() {
        true
    } else {
        missing("/usr/bin/setpriv (util-linux) to drop root's privileges");
        false
    }
}

/// The `i`-th of a few thousand distinct legal positions (two bare kings), for tests
/// that need valid FENs to store.
pub fn test_fen(i: usize) -> String {
    use shakmaty::Square;
    let apart = |w: Square, b: Square| w.distance(b) > 1;
    let (w, b) = Square::ALL
        .into_iter()
        .flat_map(|w| Square::ALL.into_iter().map(move |b| (w, b)))
        .filter(|&(w, b)| apart(w, b))
        .nth(i)
        .expect("a test asks for fewer positions than there are two-king boards");
    let mut board = shakmaty::Board::empty();
    board.set_piece_at(w, shakmaty::Piece::from_char('K').unwrap());
    board.set_piece_at(b, shakmaty::Piece::from_char('k').unwrap());
    format!("{board} w - -")
}
