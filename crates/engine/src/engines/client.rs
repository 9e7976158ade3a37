//! A client for other UCI engines (match opponents, labellers): start the process, talk line by line, read with a time limit, and keep the
//! tail of its standard error so a failure can say what the engine itself said.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineFailure {
    /// The process could not start, exited, or its pipe broke.
    #[error("{0}")]
    Exited(String),
    /// No expected answer within the time limit.
    #[error("{0}")]
    Timeout(String),
}

/// Lines of standard error kept for messages.
const STDERR_TAIL: usize = 5;

/// A running UCI engine.
pub struct Engine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected once the stderr reader has read to the end (the engine closed its
    /// standard error, by exiting): nothing is ever sent on it.
    stderr_done: Receiver<()>,
    /// The option names offered before `uciok`.
    options: Vec<String>,
}

/// How long a failure waits for a dead engine's standard error to be read to its end: a
/// bound only for an engine whose child process keeps the pipe open after it died.
const STDERR_DRAIN: Duration = Duration::from_secs(2);

impl Engine {
    /// Starts `command` (program, then arguments), does the `uci` handshake, sets
    /// `options` and waits for `readyok`. `name` is used in messages.
    pub fn start(
        name: &str,
        command: &[String],
        options: &[(String, String)],
    ) -> Result<Engine, EngineFailure> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| EngineFailure::Exited(format!("engine {name}: empty command")))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| EngineFailure::Exited(format!("cannot start engine {program:?}: {e}")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(EngineFailure::Exited(format!("engine {name}: no pipes")));
        };
        let (tx, rx) = channel();
        // Reader threads, so that waiting for an answer can time out.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let sink = tail.clone();
        let (done, stderr_done) = channel::<()>();
        std::thread::spawn(move || {
            // Dropped at the end of the thread: tells `describe` the tail is complete.
            let _done = done;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = sink.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        let mut engine = Engine {
            name: format!("{name} ({})", command.join(" ")),
            child,
            stdin,
            lines: rx,
            stderr: tail,
            stderr_done,
            options: Vec::new(),
        };
        engine.send("uci")?;
        let mut offered = Vec::new();
        engine.wait_for_with("uciok", Duration::from_secs(10), &mut |line| {
            if let Some(rest) = line.strip_prefix("option name ") {
                let name = rest.split(" type ").next().unwrap_or(rest);
                offered.push(name.trim().to_owned());
            }
        })?;
        engine.options = offered;
        for (option, value) in options {
            engine.send(&format!("setoption name {option} value {value}"))?;
        }
        engine.ready()?;
        Ok(engine)
    }

    /// `what` with the engine's name and the last lines it wrote to standard error. When
    /// the engine `exited`, the lines are those up to the end of its standard error (the
    /// reader thread is waited for), so its last words are in the message.
    fn describe(&self, what: &str, exited: bool) -> String {
        if exited {
            // Returns at once when the reader has finished (the sender is gone).
            let _ = self.stderr_done.recv_timeout(STDERR_DRAIN);
        }
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if tail.is_empty() {
            format!("engine {}: {what}", self.name)
        } else {
            let said: Vec<&str> = tail.iter().map(String::as_str).collect();
            format!(
                "engine {}: {what}; its standard error ends: {}",
                self.name,
                said.join(" / ")
            )
        }
    }

    /// The names of the options the engine offered in its answer to `uci`.
    pub fn option_names(&self) -> &[String] {
        &self.options
    }

    /// Whether the engine offered option `name` (UCI option names ignore case).
    pub fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| {
                EngineFailure::Exited(self.describe(&format!("cannot write to it: {e}"), true))
            })
    }

    /// The next line, within `timeout`.
    pub fn read_line(&mut self, timeout: Duration) -> Result<String, EngineFailure> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(EngineFailure::Timeout(
                self.describe(&format!("no answer within {timeout:?}"), false),
            )),
            Err(RecvTimeoutError::Disconnected) => {
                Err(EngineFailure::Exited(self.describe("exited", true)))
            }
        }
    }

    /// Sends `isready` and waits for `readyok`.
    pub fn ready(&mut self) -> Result<(), EngineFailure> {
        self.send("isready")?;
        self.wait_for("readyok", Duration::from_secs(30))
            .map(|_| ())
    }

    /// The first line whose first word is `word`, within `timeout`.
    pub fn wait_for(&mut self, word: &str, timeout: Duration) -> Result<String, EngineFailure> {
        self.wait_for_with(word, timeout, &mut |_| {})
    }

    /// As [`Engine::wait_for`], showing every line before it to `seen` (e.g. the `info`
    /// lines of a search).
    pub fn wait_for_with(
        &mut self,
        word: &str,
        timeout: Duration,
        seen: &mut dyn FnMut(&str),
    ) -> Result<String, EngineFailure> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.read_line(left).map_err(|e| match e {
                EngineFailure::Timeout(_) => EngineFailure::Timeout(
                    self.describe(&format!("no `{word}` within {timeout:?}"), false),
                ),
                EngineFailure::Exited(_) => EngineFailure::Exited(
                    self.describe(&format!("exited while `{word}` was awaited"), true),
                ),
            })?;
            if line.split_whitespace().next() == Some(word) {
                return Ok(line);
            }
            seen(&line);
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// An "engine" that answers the handshake, then, at `go`, closes its standard output
    /// and only afterwards, 300 ms later, says why it is dying on standard error (the
    /// line is computed, so that the command quoted in the message does not hold it).
    fn dying_engine() -> Vec<String> {
        let script = r#"
            while read -r line; do
                case "$line" in
                    uci) echo uciok ;;
                    isready) echo readyok ;;
                    go*) exec >&-; sleep 0.3; echo "out of memory at ply $((3 + 4))" >&2; exit 3 ;;
                esac
            done
        "#;
        vec!["sh".into(), "-c".into(), script.into()]
    }

    /// The failure of an engine that died quotes the last line it wrote to standard
    /// error, however late that line comes after its standard output closed: the
    /// message waits for the stderr reader to reach the end, not for a fixed time.
    #[test]
    fn a_dead_engines_last_words_are_in_the_failure() {
        let mut engine = Engine::start("dying", &dying_engine(), &[]).unwrap();
        engine.send("go depth 1").unwrap();
        let err = engine
            .wait_for("bestmove", Duration::from_secs(60))
            .unwrap_err();
        let EngineFailure::Exited(msg) = err else {
            panic!("not an exit: {err:?}");
        };
        assert!(msg.contains("exited while `bestmove` was awaited"), "{msg}");
        assert!(msg.contains("out of memory at ply 7"), "{msg}");
    }
}
