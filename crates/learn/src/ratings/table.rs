//! The cross table and the ranking of a tournament: counted from its stored games, rated
//! by [`super`] (the ratings fit), printed as text (the command) or Markdown (`report`), and
//! serialised for `--json`.

use chessgraph_core::Error as CoreError;
use std::fmt::Write as _;

use serde::Serialize;

use super::{self as ratings, Rating, Results};
use rusqlite::Connection;

use chessgraph_store::Result;
use chessgraph_store::tournaments::{self as store, GameRow};

/// Wins, draws and games lost by a fault between every two players.
#[derive(Clone, Debug, Default)]
pub struct CrossTable {
    names: Vec<String>,
    /// `wins[i][j]`: games `i` won against `j`.
    wins: Vec<Vec<u32>>,
    /// `draws[i][j]`: draws between `i` and `j`.
    draws: Vec<Vec<u32>>,
    /// Games each player lost by an illegal move, on time or by a failure.
    faults: Vec<u32>,
}

impl CrossTable {
    /// An empty table of `names` (in the order of the `#` column).
    pub fn new(names: Vec<String>) -> CrossTable {
        let n = names.len();
        CrossTable {
            names,
            wins: vec![vec![0; n]; n],
            draws: vec![vec![0; n]; n],
            faults: vec![0; n],
        }
    }

    /// The players, in the order of the `#` column.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    fn index(&mut self, name: &str) -> usize {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return i;
        }
        self.names.push(name.to_owned());
        for row in self.wins.iter_mut().chain(self.draws.iter_mut()) {
            row.push(0);
        }
        let n = self.names.len();
        self.wins.push(vec![0; n]);
        self.draws.push(vec![0; n]);
        self.faults.push(0);
        n - 1
    }

    /// Counts a game (a player not in the table yet is added).
    pub fn add(&mut self, g: &GameRow) {
        let (w, b) = (self.index(&g.white), self.index(&g.black));
        match g.result.as_str() {
            "1-0" => self.wins[w][b] += 1,
            "0-1" => self.wins[b][w] += 1,
            _ => {
                self.draws[w][b] += 1;
                self.draws[b][w] += 1;
            }
        }
        if let Some(f) = &g.fault {
            let i = self.index(f);
            self.faults[i] += 1;
        }
    }

    /// Wins, draws and losses of `i` against `j`.
    pub fn record(&self, i: usize, j: usize) -> (u32, u32, u32) {
        (self.wins[i][j], self.draws[i][j], self.wins[j][i])
    }

    /// Points and games of `i`.
    pub fn total(&self, i: usize) -> (f64, u32) {
        (0..self.names.len()).fold((0.0, 0), |(p, g), j| {
            let (w, d, l) = self.record(i, j);
            (p + f64::from(w) + 0.5 * f64::from(d), g + w + d + l)
        })
    }

    /// All games counted.
    pub fn games(&self) -> u32 {
        (0..self.names.len()).map(|i| self.total(i).1).sum::<u32>() / 2
    }

    /// The player with the most points (the fewer games on a tie), if any game was played.
    pub fn leader(&self) -> Option<(&str, f64, u32)> {
        (0..self.names.len())
            .map(|i| (i, self.total(i)))
            .filter(|(_, (_, g))| *g > 0)
            .max_by(|(_, (p1, g1)), (_, (p2, g2))| p1.total_cmp(p2).then(g2.cmp(g1)))
            .map(|(i, (p, g))| (self.names[i].as_str(), p, g))
    }

    /// The results as the rating fit takes them.
    pub fn results(&self) -> Results {
        let n = self.names.len();
        let mut res = Results::new(n);
        for i in 0..n {
            for j in i + 1..n {
                let (w, d, l) = self.record(i, j);
                res.add_record(i, j, w, d, l);
            }
        }
        res
    }
}

/// A player's line of the ranking.
#[derive(Clone, Debug, Serialize)]
pub struct Line {
    /// Place in the ranking, from 1.
    pub rank: usize,
    /// Number in the cross table, from 1.
    pub number: usize,
    /// Name.
    pub name: String,
    /// Group of players connected by games (see [`ratings::Fit::group`]).
    pub group: Option<usize>,
    /// Games played.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Points (a draw is ½).
    pub points: f64,
    /// Points per game (null without games).
    pub score: Option<f64>,
    /// Games lost by an illegal move, on time or by an engine failure.
    pub faults: u32,
    /// The fitted rating.
    #[serde(flatten)]
    pub rating: Rating,
}

/// One cell of the cross table: the row player's points against the column player.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Points of the row player.
    pub points: f64,
    /// Games between the two.
    pub games: u32,
}

/// The cross table and the ranking with ratings.
#[derive(Clone, Debug, Serialize)]
pub struct Standings {
    /// Players in the order of the cross table.
    pub names: Vec<String>,
    /// `cross[i][j]`: player `i` against player `j` (null without games, and on the diagonal).
    pub cross: Vec<Vec<Option<Cell>>>,
    /// The ranking, best first.
    pub ranking: Vec<Line>,
    /// Number of groups of players connected by games.
    pub groups: usize,
    /// The player whose rating is fixed, and at what, if any.
    pub anchor: Option<(String, f64)>,
    /// What the degenerate cases mean, when present.
    pub notes: Vec<String>,
}

/// Ranks the players of `table` by a maximum-likelihood fit of all its games; `anchor`
/// (name, Elo) fixes one rating instead of the mean.
pub fn standings(table: &CrossTable, anchor: Option<(&str, f64)>) -> Result<Standings> {
    let names = table.names().to_vec();
    let anchor_index = match anchor {
        Some((name, elo)) => Some((
            names.iter().position(|n| n == name).ok_or_else(|| {
                CoreError::Invalid(format!(
                    "anchor {name:?} is not a player of this tournament (players: {})",
                    names.join(", ")
                ))
            })?,
            elo,
        )),
        None => None,
    };
    let fit = ratings::fit(&table.results(), anchor_index);
    let n = names.len();
    let cross = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let (w, d, l) = table.record(i, j);
                    (i != j && w + d + l > 0).then(|| Cell {
                        points: f64::from(w) + 0.5 * f64::from(d),
                        games: w + d + l,
                    })
                })
                .collect()
        })
        .collect();
    let mut ranking: Vec<Line> = (0..n)
        .map(|i| {
            let (mut wins, mut draws, mut losses) = (0, 0, 0);
            for j in 0..n {
                let (w, d, l) = table.record(i, j);
                (wins, draws, losses) = (wins + w, draws + d, losses + l);
            }
            let (points, games) = table.total(i);
            Line {
                rank: 0,
                number: i + 1,
                name: names[i].clone(),
                group: fit.group[i],
                games,
                wins,
                draws,
                losses,
                points,
                score: (games > 0).then(|| points / f64::from(games)),
                faults: table.faults[i],
                rating: fit.ratings[i].clone(),
            }
        })
        .collect();
    // Group, then +∞, rated, not comparable, −∞, no games; within a tier by rating.
    let key = |l: &Line| -> (usize, u8, f64) {
        let group = l.group.unwrap_or(usize::MAX);
        match l.rating {
            Rating::Above { lower } => (group, 0, -lower.unwrap_or(f64::NEG_INFINITY)),
            Rating::Rated { elo, .. } => (group, 1, -elo),
            Rating::NotComparable => (group, 2, 0.0),
            Rating::Below { upper } => (group, 3, -upper.unwrap_or(f64::NEG_INFINITY)),
            Rating::NoGames => (group, 4, 0.0),
        }
    };
    ranking.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        (ka.0, ka.1)
            .cmp(&(kb.0, kb.1))
            .then(ka.2.total_cmp(&kb.2))
            .then(b.points.total_cmp(&a.points))
            .then(a.number.cmp(&b.number))
    });
    for (r, line) in ranking.iter_mut().enumerate() {
        line.rank = r + 1;
    }
    Ok(Standings {
        names,
        cross,
        ranking,
        groups: fit.groups,
        anchor: anchor.map(|(n, e)| (n.to_owned(), e)),
        notes: fit.notes,
    })
}

/// 1.5 → "1.5", 2 → "2".
fn points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

/// The rating and its interval as two cells.
fn rating_cells(r: &Rating) -> (String, String) {
    let signed = |x: f64| {
        if x.abs() < 0.5 {
            "0".to_owned()
        } else {
            format!("{x:+.0}")
        }
    };
    match *r {
        Rating::Rated { elo, ci95 } => (signed(elo), format!("± {ci95:.0}")),
        Rating::Above { lower } => (
            "+inf".into(),
            lower.map_or(String::new(), |b| format!(">= {}", signed(b))),
        ),
        Rating::Below { upper } => (
            "-inf".into(),
            upper.map_or(String::new(), |b| format!("<= {}", signed(b))),
        ),
        Rating::NotComparable => ("?".into(), String::new()),
        Rating::NoGames => ("-".into(), "no games".into()),
    }
}

impl Standings {
    /// The cross table's rows: `#`, name, a cell per opponent, points, games, score.
    fn cross_rows(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let n = self.names.len();
        let mut header = vec!["#".to_owned(), "player".to_owned()];
        header.extend((1..=n).map(|j| j.to_string()));
        header.extend(["points", "games", "score"].map(String::from));
        let rows = (0..n)
            .map(|i| {
                let line = self
                    .ranking
                    .iter()
                    .find(|l| l.number == i + 1)
                    .expect("every player ranked");
                let mut row = vec![(i + 1).to_string(), self.names[i].clone()];
                row.extend((0..n).map(|j| match self.cross[i][j] {
                    _ if i == j => "·".to_owned(),
                    Some(c) => format!("{}/{}", points(c.points), c.games),
                    None => "-".to_owned(),
                }));
                row.push(points(line.points));
                row.push(line.games.to_string());
                row.push(
                    line.score
                        .map_or("-".into(), |s| format!("{:.1} %", 100.0 * s)),
                );
                row
            })
            .collect();
        (header, rows)
    }

    /// The ranking's rows.
    fn rating_rows(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let mut header: Vec<String> = [
            "rank", "#", "player", "rating", "95 %", "games", "+", "=", "-", "score",
        ]
        .map(String::from)
        .to_vec();
        if self.groups > 1 {
            header.push("group".into());
        }
        let faults = self.ranking.iter().any(|l| l.faults > 0);
        if faults {
            header.push("faults".into());
        }
        let rows = self
            .ranking
            .iter()
            .map(|l| {
                let (rating, ci) = rating_cells(&l.rating);
                let mut row = vec![
                    l.rank.to_string(),
                    l.number.to_string(),
                    l.name.clone(),
                    rating,
                    ci,
                    l.games.to_string(),
                    l.wins.to_string(),
                    l.draws.to_string(),
                    l.losses.to_string(),
                    l.score
                        .map_or("-".into(), |s| format!("{:.1} %", 100.0 * s)),
                ];
                if self.groups > 1 {
                    row.push(l.group.map_or("-".into(), |g| (g + 1).to_string()));
                }
                if faults {
                    row.push(l.faults.to_string());
                }
                row
            })
            .collect();
        (header, rows)
    }

    /// What the ratings are relative to.
    fn scale(&self) -> String {
        match &self.anchor {
            Some((name, elo)) => format!("{name} fixed at {elo}"),
            None => "the rated players average 0".into(),
        }
    }

    /// Both tables as aligned text.
    pub fn text(&self) -> String {
        let mut out = String::from(
            "Cross table (points of the row player against the column player / games):\n\n",
        );
        let (h, rows) = self.cross_rows();
        aligned(&h, &rows, 2, &mut out);
        let _ = writeln!(
            out,
            "\nRatings (Elo, maximum likelihood over all games; {}; 95 % interval from the \
             Fisher information):\n",
            self.scale()
        );
        let (h, rows) = self.rating_rows();
        aligned(&h, &rows, 3, &mut out);
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }

    /// Both tables as Markdown.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let (h, rows) = self.cross_rows();
        markdown_table(&h, &rows, 2, &mut md);
        let _ = writeln!(
            md,
            "\nRatings: Elo by maximum likelihood over all games ({}; ± is the 95 % interval \
             from the Fisher information).\n",
            self.scale()
        );
        let (h, rows) = self.rating_rows();
        markdown_table(&h, &rows, 3, &mut md);
        if !self.notes.is_empty() {
            let _ = writeln!(md);
            for note in &self.notes {
                let _ = writeln!(md, "- {}", note.replace('|', "\\|"));
            }
        }
        md
    }
}

/// Columns padded to their widest cell; the first `left` columns left-aligned.
fn aligned(header: &[String], rows: &[Vec<String>], left: usize, out: &mut String) {
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([header[c].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                let pad = widths[c].saturating_sub(cell.chars().count());
                if c < left {
                    format!("{cell}{}", " ".repeat(pad))
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
}

/// A Markdown table; the first `left` columns left-aligned, the rest right-aligned.
fn markdown_table(header: &[String], rows: &[Vec<String>], left: usize, md: &mut String) {
    let cell = |s: &String| s.replace('|', "\\|");
    let _ = writeln!(
        md,
        "| {} |",
        header.iter().map(cell).collect::<Vec<_>>().join(" | ")
    );
    let rule: Vec<&str> = (0..header.len())
        .map(|c| if c < left { "---" } else { "---:" })
        .collect();
    let _ = writeln!(md, "| {} |", rule.join(" | "));
    for row in rows {
        let _ = writeln!(
            md,
            "| {} |",
            row.iter().map(cell).collect::<Vec<_>>().join(" | ")
        );
    }
}

/// A stored tournament: its row, its players and games counted into a cross table, and
/// the games themselves.
pub fn load(
    conn: &Connection,
    name: &str,
) -> Result<Option<(store::Tournament, CrossTable, Vec<GameRow>)>> {
    let Some(t) = store::find(conn, name)? else {
        return Ok(None);
    };
    let games = store::games(conn, t.id)?;
    let mut table = CrossTable::new(store::players(conn, t.id)?);
    for g in &games {
        table.add(g);
    }
    Ok(Some((t, table, games)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(white: &str, black: &str, result: &str) -> GameRow {
        GameRow {
            player_a: white.min(black).into(),
            player_b: white.max(black).into(),
            game_index: 0,
            white: white.into(),
            black: black.into(),
            opening: 0,
            start_fen: String::new(),
            moves: String::new(),
            result: result.into(),
            termination: String::new(),
            fault: None,
            plies: 0,
        }
    }

    #[test]
    fn counts_ranks_and_prints() {
        let mut t = CrossTable::new(vec!["a".into(), "b".into(), "c".into(), "idle".into()]);
        for g in [
            game("a", "b", "1-0"),
            game("b", "a", "0-1"),
            game("a", "c", "1-0"),
            game("c", "a", "0-1"),
            game("b", "c", "1/2-1/2"),
            game("c", "b", "1-0"),
        ] {
            t.add(&g);
        }
        assert_eq!(t.games(), 6);
        assert_eq!(t.record(0, 1), (2, 0, 0));
        assert_eq!(t.total(2), (1.5, 4));
        assert_eq!(t.leader(), Some(("a", 4.0, 4)));
        let s = standings(&t, None).unwrap();
        let order: Vec<&str> = s.ranking.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(order, ["a", "c", "b", "idle"]);
        assert!(matches!(
            s.ranking[0].rating,
            Rating::Above { lower: Some(_) }
        ));
        assert!(matches!(s.ranking[3].rating, Rating::NoGames));
        assert_eq!(
            s.cross[2][1],
            Some(Cell {
                points: 1.5,
                games: 2
            })
        );
        assert_eq!(s.cross[0][3], None);
        let text = s.text();
        assert!(text.contains("+inf") && text.contains(">= +"), "{text}");
        assert!(text.contains("no games"), "{text}");
        assert!(text.contains("1.5/2"), "{text}");
        let md = s.markdown();
        assert!(
            md.contains("| # | player | 1 | 2 | 3 | 4 | points | games | score |"),
            "{md}"
        );
        assert!(
            md.contains("| 3 | c | 0/2 | 1.5/2 | · | - | 1.5 | 4 | 37.5 % |"),
            "{md}"
        );
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["ranking"][0]["status"], "above");
        assert_eq!(json["ranking"][1]["status"], "rated");
        assert!(json["ranking"][1]["elo"].as_f64().unwrap() > 0.0);
        assert!(standings(&t, Some(("nobody", 0.0))).is_err());
        let anchored = standings(&t, Some(("b", 1000.0))).unwrap();
        let b = anchored.ranking.iter().find(|l| l.name == "b").unwrap();
        assert_eq!(
            b.rating,
            Rating::Rated {
                elo: 1000.0,
                ci95: 0.0
            }
        );
    }
}
