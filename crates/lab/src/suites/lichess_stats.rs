//! Totals of a Lichess puzzle run ([`crate::suites::lichess`]), kept in constant memory
//! whatever the number of puzzles: the solve rate overall, by theme (a puzzle counts in
//! each of its themes) and by rating band, with the player's time; the first
//! [`MAX_LISTED`] puzzles and unreadable rows for the record.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde_json::json;

use super::lichess::LineReport;
use chessgraph_core::data::BadPuzzle;

/// Puzzles (and unreadable rows) kept one by one for the record and `--json`.
pub const MAX_LISTED: usize = 10_000;

/// Themes shown in the table: the most common ones (the record has them all).
pub const TOP_THEMES: usize = 20;

/// Mate themes shown whether common or not, when present.
pub const MATE_THEMES: [&str; 5] = ["mateIn1", "mateIn2", "mateIn3", "mateIn4", "mateIn5"];

/// Missed puzzles printed in the text report.
pub const SHOWN_MISSES: usize = 20;

/// Rating bands: name, lowest and highest rating.
pub const BANDS: [(&str, u32, u32); 5] = [
    ("<1000", 0, 999),
    ("1000-1399", 1000, 1399),
    ("1400-1799", 1400, 1799),
    ("1800-2199", 1800, 2199),
    ("2200+", 2200, u32::MAX),
];

/// The band of a rating (an index into [`BANDS`]).
pub fn band_of(rating: u32) -> usize {
    BANDS
        .iter()
        .position(|&(_, low, high)| (low..=high).contains(&rating))
        .unwrap_or(BANDS.len() - 1)
}

/// Solved/total of a group of puzzles, the player's moves found and time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Solved puzzles.
    pub solved: usize,
    /// Puzzles.
    pub total: usize,
    /// Player moves accepted.
    pub right: usize,
    /// Player moves in the puzzles' lines.
    pub moves: usize,
    /// The player's time.
    pub time: Duration,
    /// The player's nodes.
    pub nodes: u64,
}

impl Tally {
    fn add(&mut self, r: &LineReport) {
        self.total += 1;
        self.solved += usize::from(r.verdict.solved);
        self.right += r.verdict.right;
        self.moves += r.solution.len().div_ceil(2);
        self.time += r.time;
        self.nodes += r.nodes;
    }

    /// Solved puzzles in percent (NaN when there are none).
    pub fn rate(&self) -> f64 {
        100.0 * self.solved as f64 / self.total as f64
    }

    /// Milliseconds per puzzle.
    pub fn ms_per_puzzle(&self) -> f64 {
        self.time.as_secs_f64() * 1e3 / self.total.max(1) as f64
    }

    /// As JSON, with `key: name` first.
    pub fn to_json(&self, key: &str, name: &str) -> serde_json::Value {
        let mut v = json!({ key: name });
        v["solved"] = self.solved.into();
        v["total"] = self.total.into();
        v["rate"] = json!(if self.total > 0 {
            Some(self.rate())
        } else {
            None
        });
        v["right"] = self.right.into();
        v["moves"] = self.moves.into();
        v["time_ms"] = (self.time.as_secs_f64() * 1e3).into();
        v["nodes"] = self.nodes.into();
        v
    }

    fn row(&self, f: &mut fmt::Formatter<'_>, name: &str, width: usize) -> fmt::Result {
        let rate = if self.total > 0 {
            format!("{:.1}%", self.rate())
        } else {
            "-".to_owned()
        };
        writeln!(
            f,
            "{name:<width$}  {:>12}  {rate:>6}  {:>11}  {:>9.2}  {:>9.1}",
            format!("{}/{}", self.solved, self.total),
            format!("{}/{}", self.right, self.moves),
            self.time.as_secs_f64(),
            self.ms_per_puzzle()
        )
    }
}

/// A run's totals over one file.
#[derive(Clone, Debug, Default)]
pub struct LichessSummary {
    /// Every puzzle.
    pub all: Tally,
    /// By theme.
    pub themes: BTreeMap<String, Tally>,
    /// By rating band ([`BANDS`]).
    pub bands: [Tally; 5],
    /// The first [`MAX_LISTED`] puzzles, in input order.
    pub listed: Vec<LineReport>,
    /// The first [`MAX_LISTED`] unreadable rows.
    pub bad: Vec<BadPuzzle>,
    /// Unreadable rows.
    pub unreadable: usize,
}

impl LichessSummary {
    /// Counts one puzzle.
    pub fn add(&mut self, r: LineReport) {
        self.all.add(&r);
        self.bands[band_of(r.rating)].add(&r);
        for t in &r.themes {
            match self.themes.get_mut(t) {
                Some(tally) => tally.add(&r),
                None => {
                    let mut tally = Tally::default();
                    tally.add(&r);
                    self.themes.insert(t.clone(), tally);
                }
            }
        }
        if self.listed.len() < MAX_LISTED {
            self.listed.push(r);
        }
    }

    /// Counts one unreadable row.
    pub fn add_bad(&mut self, bad: BadPuzzle) {
        self.unreadable += 1;
        if self.bad.len() < MAX_LISTED {
            self.bad.push(bad);
        }
    }

    /// Every theme, most common first (ties by name).
    pub fn themes_by_count(&self) -> Vec<(&str, &Tally)> {
        let mut all: Vec<(&str, &Tally)> =
            self.themes.iter().map(|(k, t)| (k.as_str(), t)).collect();
        all.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
        all
    }

    /// The themes of the table: the [`TOP_THEMES`] most common, then the mate themes
    /// ([`MATE_THEMES`]) that are present and not among them.
    pub fn shown_themes(&self) -> Vec<(&str, &Tally)> {
        let mut shown = self.themes_by_count();
        shown.truncate(TOP_THEMES);
        for name in MATE_THEMES {
            if let Some((k, t)) = self.themes.get_key_value(name)
                && !shown.iter().any(|(s, _)| *s == name)
            {
                shown.push((k.as_str(), t));
            }
        }
        shown
    }

    /// The record: totals, every theme, the rating bands, the listed puzzles and bad rows.
    /// `run` (player, limits, file, filter) is copied in first.
    pub fn record(&self, run: &serde_json::Value) -> serde_json::Value {
        let mut v = run.clone();
        let a = &self.all;
        v["format"] = "lichess".into();
        v["solved"] = a.solved.into();
        v["attempted"] = a.total.into();
        v["unreadable"] = self.unreadable.into();
        v["rate"] = json!(if a.total > 0 { Some(a.rate()) } else { None });
        v["moves_right"] = a.right.into();
        v["moves"] = a.moves.into();
        v["time_ms"] = (a.time.as_secs_f64() * 1e3).into();
        v["ms_per_puzzle"] = a.ms_per_puzzle().into();
        v["themes"] = self
            .themes_by_count()
            .into_iter()
            .map(|(name, t)| t.to_json("theme", name))
            .collect();
        v["ratings"] = BANDS
            .iter()
            .zip(&self.bands)
            .map(|(&(name, low, high), t)| {
                let mut b = t.to_json("band", name);
                b["min"] = low.into();
                b["max"] = json!((high != u32::MAX).then_some(high));
                b
            })
            .collect();
        v["puzzles_listed"] = self.listed.len().into();
        v["puzzles"] = self.listed.iter().map(LineReport::to_json).collect();
        v["bad_lines"] = self
            .bad
            .iter()
            .map(|b| json!({"line": b.line, "reason": b.reason}))
            .collect();
        v
    }
}

/// The first misses, then solved/total, rate, moves found and time by theme and by rating
/// band, and over all puzzles.
impl fmt::Display for LichessSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let misses: Vec<&LineReport> = self
            .listed
            .iter()
            .filter(|r| !r.verdict.solved)
            .take(SHOWN_MISSES)
            .collect();
        let missed = self.all.total - self.all.solved;
        write!(f, "missed {missed} of {}", self.all.total)?;
        if missed > misses.len() {
            write!(f, " (the first {} shown)", misses.len())?;
        }
        writeln!(f, ":")?;
        if !misses.is_empty() {
            let id_width = misses.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
            writeln!(
                f,
                " line  {:<id_width$}  rating  {:<20}  solution",
                "id", "played"
            )?;
            for r in misses {
                let played = if r.played.is_empty() {
                    "-".to_owned()
                } else {
                    r.played.join(" ")
                };
                writeln!(
                    f,
                    "{:>5}  {:<id_width$}  {:>6}  {played:<20}  {}",
                    r.line,
                    r.id,
                    r.rating,
                    r.solution.join(" ")
                )?;
            }
        }
        let shown = self.shown_themes();
        let width = shown
            .iter()
            .map(|(name, _)| name.len())
            .chain([9])
            .max()
            .unwrap_or(9);
        let header = |f: &mut fmt::Formatter<'_>, first: &str| {
            writeln!(
                f,
                "{first:<width$}  {:>12}  {:>6}  {:>11}  {:>9}  {:>9}",
                "solved/total", "rate", "moves right", "time_s", "ms/puzzle"
            )
        };
        header(f, "theme")?;
        for (name, t) in &shown {
            t.row(f, name, width)?;
        }
        if self.themes.len() > shown.len() {
            writeln!(
                f,
                "({} more themes in --json)",
                self.themes.len() - shown.len()
            )?;
        }
        header(f, "rating")?;
        for ((name, _, _), t) in BANDS.iter().zip(&self.bands) {
            t.row(f, name, width)?;
        }
        self.all.row(f, "all", width)?;
        if self.unreadable > 0 {
            writeln!(f, "unreadable rows: {} (skipped)", self.unreadable)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::lichess::LineVerdict;

    fn report(rating: u32, themes: &[&str], solved: bool, moves: usize) -> LineReport {
        LineReport {
            id: format!("p{rating}"),
            line: 2,
            rating,
            themes: themes.iter().map(|t| t.to_string()).collect(),
            solution: vec!["e2e4".to_owned(); 2 * moves - 1],
            played: vec!["e2e4".to_owned()],
            verdict: LineVerdict {
                solved,
                right: if solved { moves } else { 0 },
            },
            time: Duration::from_millis(10),
            nodes: 5,
        }
    }

    #[test]
    fn bands_cover_every_rating() {
        let names: Vec<&str> = [0, 999, 1000, 1399, 1400, 2199, 2200, 3300]
            .map(|r| BANDS[band_of(r)].0)
            .to_vec();
        assert_eq!(
            names,
            [
                "<1000",
                "<1000",
                "1000-1399",
                "1000-1399",
                "1400-1799",
                "1800-2199",
                "2200+",
                "2200+"
            ]
        );
    }

    #[test]
    fn tallies_by_theme_and_band() {
        let mut s = LichessSummary::default();
        s.add(report(900, &["mate", "mateIn1", "oneMove"], true, 1));
        s.add(report(1500, &["mate", "mateIn2", "short"], false, 2));
        s.add(report(2500, &["crushing", "short"], true, 2));
        s.add_bad(BadPuzzle {
            line: 7,
            reason: "x".to_owned(),
        });
        assert_eq!(
            (s.all.solved, s.all.total, s.all.right, s.all.moves),
            (2, 3, 3, 5)
        );
        let mate = &s.themes["mate"];
        assert_eq!((mate.solved, mate.total), (1, 2));
        let counts: Vec<usize> = s.bands.iter().map(|t| t.total).collect();
        assert_eq!(counts, [1, 0, 1, 0, 1]);
        // Most common first, ties by name.
        let names: Vec<&str> = s.themes_by_count().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            ["mate", "short", "crushing", "mateIn1", "mateIn2", "oneMove"]
        );
        let text = s.to_string();
        assert!(text.starts_with("missed 1 of 3:\n"), "{text}");
        assert!(text.contains("\nmate                1/2   50.0%"), "{text}");
        assert!(text.contains("\n1000-1399           0/0       -"), "{text}");
        assert!(
            text.contains("\nall                 2/3   66.7%          3/5"),
            "{text}"
        );
        let v = s.record(&json!({"file": "x.csv"}));
        assert_eq!(
            (v["solved"].as_u64(), v["unreadable"].as_u64()),
            (Some(2), Some(1))
        );
        assert_eq!(v["themes"].as_array().unwrap().len(), 6);
        assert_eq!(v["ratings"][4]["max"], serde_json::Value::Null);
        assert_eq!(v["bad_lines"][0]["line"], 7);
    }

    #[test]
    fn mate_themes_are_shown_beyond_the_top() {
        let mut s = LichessSummary::default();
        for i in 0..TOP_THEMES + 3 {
            let name = format!("theme{i:02}");
            for _ in 0..3 {
                s.add(report(1500, &[name.as_str()], true, 1));
            }
        }
        s.add(report(1500, &["mateIn4"], true, 1));
        let shown: Vec<&str> = s.shown_themes().iter().map(|(n, _)| *n).collect();
        assert_eq!(shown.len(), TOP_THEMES + 1);
        assert_eq!(shown[TOP_THEMES], "mateIn4");
        assert!(s.to_string().contains("(3 more themes in --json)"));
    }
}
