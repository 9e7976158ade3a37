//! Test harness in the spirit of ripgrep's `rgtest!`: every test gets a fresh temporary
//! directory (with `db` pointing at `test.db` inside it) and a way to run the binary.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary working directory with a database path inside it.
pub struct Dir {
    tmp: tempfile::TempDir,
}

impl Dir {
    /// A new empty directory.
    pub fn new() -> Dir {
        Dir {
            tmp: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// The database file every command uses.
    pub fn db(&self) -> PathBuf {
        self.path().join("test.db")
    }

    /// Writes `contents` to `name` inside the directory and returns its path.
    pub fn create(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, contents).expect("write fixture");
        path
    }

    /// A `chessgraph` command with `--db` set, run in this directory.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_chessgraph"));
        cmd.current_dir(self.path())
            .arg("--db")
            .arg(self.db())
            .args(args);
        cmd
    }

    /// Runs `chessgraph ARGS` and returns its output, whatever the exit code.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run chessgraph")
    }

    /// Runs `chessgraph ARGS` with `stdin` fed in.
    pub fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn chessgraph");
        // A child that refuses its arguments exits before reading: a broken pipe is its
        // answer, not the test's failure.
        if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        child.wait_with_output().expect("wait chessgraph")
    }

    /// Runs `chessgraph ARGS`, asserts success, returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "chessgraph {args:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    /// Starts `chessgraph ARGS` (an import) with the test hook
    /// `CHESSGRAPH_TEST_PAUSE_AFTER_BATCH` (see `src/db/import/mod.rs`) and returns it once it
    /// has committed its `batch`th batch and stopped there, waiting: the caller knows what
    /// is committed and can kill it with no race. Fails if the import ends or takes more
    /// than two minutes first.
    pub fn spawn_paused_after_batch(&self, args: &[&str], batch: u64) -> std::process::Child {
        let flag = self.path().join(format!("paused-after-batch-{batch}"));
        let mut child = self
            .command(args)
            .env(
                "CHESSGRAPH_TEST_PAUSE_AFTER_BATCH",
                format!("{batch}:{}", flag.display()),
            )
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn chessgraph");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !flag.exists() {
            if let Some(status) = child.try_wait().expect("wait chessgraph") {
                panic!("chessgraph {args:?} ended ({status}) before pausing after batch {batch}");
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("chessgraph {args:?} did not reach batch {batch} in two minutes");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child
    }

    /// Opens the test database for assertions, with chessgraph's SQL functions (the
    /// `positions` view computes its FENs with them).
    pub fn sql(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(self.db()).expect("open test db");
        chessgraph_store::functions::register(&conn).expect("register SQL functions");
        conn
    }

    /// Every row of an SQL query, as [`rows`] writes them.
    pub fn rows(&self, query: &str) -> Vec<String> {
        rows(&self.sql(), query)
    }

    /// One integer from an SQL query.
    pub fn int(&self, query: &str) -> i64 {
        self.sql()
            .query_row(query, [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{query}: {e}"))
    }
}

/// Every row of an SQL query on `conn`, each as its values' debug forms joined by `|`:
/// what "the same rows" means when two databases are compared.
pub fn rows(conn: &rusqlite::Connection, query: &str) -> Vec<String> {
    let mut stmt = conn
        .prepare(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let cols = stmt.column_count();
    stmt.query_map([], |r| {
        Ok((0..cols)
            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
            .collect::<Vec<_>>()
            .join("|"))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Path of a committed fixture under `tests/fixtures/`, as a string for command lines.
pub fn fixture(name: &str) -> String {
    chessgraph_testkit::repo_root()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

pub use chessgraph_testkit::shared;

/// Defines a test that gets a fresh [`Dir`]: `cgtest!(name, |dir| { ... });`, with
/// attributes before the name if needed (`cgtest!(#[cfg_attr(...)] name, |dir| ...)`).
/// A test that needs a tool or data set asks `chessgraph_testkit` for it first, and
/// returns where it is missing (failing instead under `CHESSGRAPH_TEST_TOOLS=required`).
#[macro_export]
macro_rules! cgtest {
    ($(#[$attr:meta])* $name:ident, |$dir:ident| $body:block) => {
        #[test]
        $(#[$attr])*
        fn $name() {
            let $dir = $crate::util::Dir::new();
            $body
        }
    };
}
