//! What the engine writes: whole lines, flushed, shared by the reader and search threads;
//! `info` and `bestmove` formatting.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::search::Info;
use chessgraph_core::chess::moves::uci;

/// Shared, line-flushed output.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Wraps a writer.
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line and flushes (errors such as a closed pipe are ignored: the GUI is
    /// gone and `quit` or end of input follows).
    pub fn line(&self, s: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(w, "{s}");
        let _ = w.flush();
    }

    /// `info string error: ...`
    pub fn error(&self, msg: &str) {
        self.line(&format!("info string error: {msg}"));
    }
}

/// Formats an `info` line.
pub fn info_line(info: &Info) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} hashfull {} tbhits {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.score,
        info.nodes,
        info.nps(),
        info.time.as_millis(),
        info.hashfull,
        info.tbhits
    );
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for &m in &info.pv {
            s.push(' ');
            s.push_str(&uci(&m));
        }
    }
    s
}

pub use chessgraph_core::error::error_chain;
