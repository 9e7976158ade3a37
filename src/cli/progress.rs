//! The progress display of every long command: an indicatif bar on a terminal, a plain
//! line every few seconds when standard error is a file or a pipe (a log shows the run is
//! alive), and one summary line with the rate at the end. `--quiet` shows nothing.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Seconds between plain lines when standard error is not a terminal; the environment
/// variable `CHESSGRAPH_PROGRESS_SECS` overrides it (the tests use a short interval).
const PLAIN_INTERVAL_SECS: f64 = 5.0;

/// What a command counts.
#[derive(Clone, Copy)]
pub enum Unit {
    /// Things with a plural noun: positions, games, puzzles, …
    Items(&'static str),
    /// Bytes of input, shown as KiB, MiB, …
    Bytes,
}

impl Unit {
    fn amount(self, n: u64) -> String {
        match self {
            Unit::Items(_) => thousands(n),
            Unit::Bytes => HumanBytes(n).to_string(),
        }
    }

    fn rate(self, per_sec: f64) -> String {
        let per_sec = if per_sec.is_finite() { per_sec } else { 0.0 };
        match self {
            Unit::Items(noun) => format!("{} {noun}/s", slow_rate(per_sec)),
            Unit::Bytes => format!("{}/s", HumanBytes(per_sec.round() as u64)),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Unit::Items(noun) => noun,
            Unit::Bytes => "",
        }
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate of things per second: whole numbers from 10 on, else two significant digits,
/// so a slow rate (a few training batches a second, or fewer) never shows as 0.
fn slow_rate(per_sec: f64) -> String {
    if per_sec >= 9.95 || per_sec <= 0.0 {
        return thousands(per_sec.max(0.0).round() as u64);
    }
    let decimals = (1.0 - per_sec.log10().floor()).max(1.0) as usize;
    format!("{per_sec:.decimals$}")
}

/// "done/total noun" (or "done noun" while the total is unknown).
fn counts(state: &ProgressState, unit: Unit) -> String {
    let done = unit.amount(state.pos());
    let noun = unit.noun();
    let sep = if noun.is_empty() { "" } else { " " };
    match state.len() {
        Some(len) => format!("{done}/{}{sep}{noun}", unit.amount(len)),
        None => format!("{done}{sep}{noun}"),
    }
}

fn eta(state: &ProgressState) -> String {
    match state.len() {
        Some(len) if state.pos() > 0 && state.pos() < len => {
            format!("eta {}", indicatif::HumanDuration(state.eta()))
        }
        _ => String::new(),
    }
}

/// A long command's progress; derefs to the [`ProgressBar`] the library updates.
pub struct Progress {
    bar: ProgressBar,
    label: String,
    unit: Unit,
    shown: bool,
    ticker: Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

impl Progress {
    /// Progress of `label` (the command, e.g. "analyze") counting `unit`, out of `len` when
    /// known (else set later with `set_length`); nothing at all when `quiet`.
    pub fn new(label: &str, unit: Unit, len: Option<u64>, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let target = if !quiet && terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        // No length yet draws an empty bar, not a full one.
        let bar = ProgressBar::with_draw_target(len, target);
        let style = ProgressStyle::with_template(&format!(
            "{} [{{bar:30}}] {{counts}} {{rate}} {{eta}} {{wide_msg}}",
            label.replace('{', "{{").replace('}', "}}")
        ))
        .expect("valid template")
        .progress_chars("=> ")
        .with_key(
            "counts",
            move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&counts(s, unit));
            },
        )
        .with_key(
            "rate",
            move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&unit.rate(s.per_sec()));
            },
        )
        .with_key("eta", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&eta(s));
        });
        bar.set_style(style);
        let ticker = (!quiet && !terminal).then(|| Self::plain_lines(&bar, label, unit));
        Progress {
            bar,
            label: label.to_owned(),
            unit,
            shown: !quiet,
            ticker,
        }
    }

    /// A thread writing the state as a plain line every few seconds until told to stop.
    fn plain_lines(
        bar: &ProgressBar,
        label: &str,
        unit: Unit,
    ) -> (mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        let secs = std::env::var("CHESSGRAPH_PROGRESS_SECS")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(PLAIN_INTERVAL_SECS);
        let (stop, stopped) = mpsc::channel::<()>();
        let bar = bar.clone();
        let label = label.to_owned();
        let handle = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(Duration::from_secs_f64(secs))
            {
                let mut line = format!(
                    "{label}: {}",
                    match bar.length() {
                        Some(len) =>
                            format!("{}/{}", unit.amount(bar.position()), unit.amount(len)),
                        None => unit.amount(bar.position()),
                    }
                );
                if !unit.noun().is_empty() {
                    let _ = write!(line, " {}", unit.noun());
                }
                let elapsed = bar.elapsed().as_secs_f64();
                let _ = write!(
                    line,
                    ", {:.0} s, {}",
                    elapsed,
                    unit.rate(bar.position() as f64 / elapsed.max(1e-9))
                );
                let msg = bar.message();
                if !msg.is_empty() {
                    let _ = write!(line, "; {msg}");
                }
                warn!("{line}");
            }
        });
        (stop, handle)
    }

    fn stop_ticker(&mut self) {
        if let Some((stop, handle)) = self.ticker.take() {
            let _ = stop.send(());
            let _ = handle.join();
        }
    }

    /// Ends the display with one line: what was done, in how long, at what rate.
    pub fn finish(mut self) {
        if let Some(line) = self.end() {
            warn!("{line}");
        }
    }

    /// Stops the display and returns the summary line (none when quiet).
    fn end(&mut self) -> Option<String> {
        self.stop_ticker();
        // Read before the bar is finished: finishing moves its position to its length, and
        // a run that stops early (an SPRT that decides) did not do all of it.
        let done = self.bar.position();
        let secs = self.bar.elapsed().as_secs_f64();
        self.bar.finish_and_clear();
        self.shown.then(|| {
            let noun = self.unit.noun();
            let sep = if noun.is_empty() { "" } else { " " };
            format!(
                "{}: {}{sep}{noun} in {secs:.1} s ({})",
                self.label,
                self.unit.amount(done),
                self.unit.rate(done as f64 / secs.max(1e-9))
            )
        })
    }
}

impl std::ops::Deref for Progress {
    type Target = ProgressBar;

    fn deref(&self) -> &ProgressBar {
        &self.bar
    }
}

impl Drop for Progress {
    /// An abandoned display (an error) stops its lines and clears the bar, without a summary.
    fn drop(&mut self) {
        self.stop_ticker();
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_with_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(31_408), "31,408");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(
            Unit::Items("positions").rate(31_408.551_6),
            "31,409 positions/s"
        );
    }

    #[test]
    fn the_summary_counts_what_was_done_when_a_run_stops_early() {
        // An SPRT that decides after 872 of 20,000 scheduled games.
        let mut bar = Progress::new("tournament", Unit::Items("games"), Some(20_000), false);
        bar.set_position(872);
        let line = bar.end().unwrap();
        assert!(line.starts_with("tournament: 872 games in "), "{line}");
        let mut quiet = Progress::new("tournament", Unit::Items("games"), Some(3), true);
        assert_eq!(quiet.end(), None);
    }

    #[test]
    fn slow_rates_are_not_zero() {
        let rate = |r| Unit::Items("batches").rate(r);
        assert_eq!(rate(0.0), "0 batches/s");
        assert_eq!(rate(0.4), "0.40 batches/s");
        assert_eq!(rate(0.0372), "0.037 batches/s");
        assert_eq!(rate(2.54), "2.5 batches/s");
        assert_eq!(rate(9.96), "10 batches/s");
        assert_eq!(rate(12.4), "12 batches/s");
    }
}
