//! Probes for what a few tests need beyond Rust and the repository, and tells the compiler
//! as `cfg`s, so that a test that cannot run here shows as *ignored*, with its reason, in
//! `cargo test`'s summary, instead of returning early and counting as passed:
//!
//! - `has_chromium`: `chromium` and `chromedriver` are on `PATH`;
//! - `has_parquet_reader`: `python3` imports `duckdb` and `numpy`, or `pyarrow`;
//! - `has_shared_data`: `../shared/data` (the shared data sets) is beside the clone;
//! - `can_drop_root`: the build runs as a user other than root, or `/usr/bin/setpriv` is
//!   there to drop root's privileges.
//!
//! A test uses them as `#[cfg_attr(not(has_chromium), ignore = "needs chromium …")]`: it
//! runs wherever its tool is found. Why at build time: libtest has no way for a running
//! test to mark itself skipped, and `ignore` is an attribute, decided when the test is
//! compiled.
//!
//! With `CHESSGRAPH_TEST_TOOLS=required` (which `.ci/run` sets: CI runs every test, and
//! installs everything before its first cargo command) a missing tool fails the build
//! instead. The variable is the project's own, not the generic `CI`, so that building or
//! installing chessgraph in someone else's CI never fails for want of a test's browser.
//!
//! The probes run again when `CHESSGRAPH_TEST_TOOLS` or `PATH` changes, when a directory on `PATH` changes (a
//! tool installed with apt), when `../shared/data` changes, or when this file does. Python
//! modules are not watched (a site-packages tree is too big to scan at every build): after
//! `pip install duckdb numpy`, `touch build.rs`.

use std::path::Path;
use std::process::{Command, Stdio};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CHESSGRAPH_TEST_TOOLS");
    println!("cargo::rerun-if-env-changed=PATH");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path_dirs: Vec<_> = std::env::split_paths(&path)
        .filter(|d| d.is_dir())
        .collect();
    for dir in &path_dirs {
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    let on_path = |name: &str| path_dirs.iter().any(|d| d.join(name).is_file());

    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let shared = Path::new(&manifest).join("../shared/data");
    // Watched only when there: a missing path would make cargo rerun this at every build.
    if shared.is_dir() {
        println!("cargo::rerun-if-changed={}", shared.display());
    }

    let python = |code: &str| {
        Command::new("python3")
            .args(["-c", code])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let probes = [
        (
            "has_chromium",
            on_path("chromium") && on_path("chromedriver"),
            "chromium and chromedriver on PATH (apt-get install chromium chromium-driver)",
        ),
        (
            "has_parquet_reader",
            python("import duckdb, numpy") || python("import pyarrow"),
            "duckdb and numpy, or pyarrow, for python3 (pip install duckdb numpy)",
        ),
        (
            "has_shared_data",
            shared.is_dir(),
            "../shared/data beside the clone",
        ),
        (
            "can_drop_root",
            !is_root() || Path::new("/usr/bin/setpriv").exists(),
            "/usr/bin/setpriv (util-linux) to drop root's privileges",
        ),
    ];

    let required = std::env::var("CHESSGRAPH_TEST_TOOLS").is_ok_and(|v| v == "required");
    let mut missing = Vec::new();
    for (cfg, found, what) in probes {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if found {
            println!("cargo::rustc-cfg={cfg}");
        } else {
            missing.push(what);
        }
    }
    if required && !missing.is_empty() {
        panic!(
            "CHESSGRAPH_TEST_TOOLS=required and tests need what is missing here: {} (see build.rs)",
            missing.join("; ")
        );
    }
}

/// Whether this runs as root (the tests run as the same user as their build).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().next())
            == Some("0")
    })
}
