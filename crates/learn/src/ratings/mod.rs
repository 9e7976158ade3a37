//! Ratings from all of a tournament's games at once, by maximum likelihood, as Ordo and
//! BayesElo (without its prior) fit them: the Bradley–Terry model on the Elo scale,
//!
//! ```text
//! P(i beats j) = 1 / (1 + 10^((r_j − r_i) / 400))
//! ```
//!
//! with a draw counted as half a win and half a loss, so the log-likelihood is
//! `Σ s_ij ln P(i beats j)` over ordered pairs, `s_ij` the points `i` scored against `j`.
//! It is concave; Newton's method with step halving finds its maximum. Ratings are fixed
//! up to a constant: the mean of the rated players is 0, or an anchor's rating is given.
//! The 95 % interval is ±1.96 standard errors from the inverse Fisher information (each
//! game counted as one Bernoulli trial, so for drawish pairs it is a little wide),
//! relative to that mean or anchor.
//!
//! A finite maximum exists only where every player can be reached from every other along
//! "scored at least a draw against" links (Zermelo, Ford). Elsewhere the fit says what it
//! can: in each group of players connected by games, the largest strongly connected set
//! is rated; a player who scored 100 % against it (directly or through others who did) is
//! `+∞` and gets the 95 % likelihood-ratio lower bound from its own games against rated
//! players (their ratings held fixed), 0 % gives `−∞` and an upper bound; a player linked
//! to the rated set only through `±∞` players cannot be compared, and one without games
//! has no rating.

pub mod table;

pub use table::{CrossTable, Standings, load, standings};

use serde::Serialize;

use crate::fit::linalg::{cholesky, cholesky_solve};
use crate::stats::elo::{LN_ODDS_PER_ELO, expected_score};

/// Points and games between players: the input of [`fit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    n: usize,
    points: Vec<f64>,
    games: Vec<f64>,
}

impl Results {
    /// No games between `n` players.
    pub fn new(n: usize) -> Results {
        Results {
            n,
            points: vec![0.0; n * n],
            games: vec![0.0; n * n],
        }
    }

    /// Number of players.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no players.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Adds a game between `i` and `j` in which `i` scored `score_i` (1, ½ or 0).
    pub fn add(&mut self, i: usize, j: usize, score_i: f64) {
        let n = self.n;
        self.points[i * n + j] += score_i;
        self.points[j * n + i] += 1.0 - score_i;
        self.games[i * n + j] += 1.0;
        self.games[j * n + i] += 1.0;
    }

    /// Adds `wins` wins, `draws` draws and `losses` losses of `i` against `j`.
    pub fn add_record(&mut self, i: usize, j: usize, wins: u32, draws: u32, losses: u32) {
        for (count, score) in [(wins, 1.0), (draws, 0.5), (losses, 0.0)] {
            for _ in 0..count {
                self.add(i, j, score);
            }
        }
    }

    /// Points `i` scored against `j`.
    pub fn points(&self, i: usize, j: usize) -> f64 {
        self.points[i * self.n + j]
    }

    /// Games between `i` and `j`.
    pub fn games(&self, i: usize, j: usize) -> f64 {
        self.games[i * self.n + j]
    }

    /// All games of `i`.
    pub fn games_of(&self, i: usize) -> f64 {
        (0..self.n).map(|j| self.games(i, j)).sum()
    }
}

/// A player's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Rating {
    /// A finite maximum-likelihood rating with the half-width of its 95 % interval.
    Rated {
        /// Elo.
        elo: f64,
        /// Half-width of the 95 % interval.
        ci95: f64,
    },
    /// Infinitely above the rated players (scored 100 % against them).
    Above {
        /// 95 % likelihood-ratio lower bound, when it played rated players.
        lower: Option<f64>,
    },
    /// Infinitely below the rated players (scored 0 % against them).
    Below {
        /// 95 % likelihood-ratio upper bound, when it played rated players.
        upper: Option<f64>,
    },
    /// Linked to the rated players only through `±∞` players.
    NotComparable,
    /// No games.
    NoGames,
}

/// The fit: a rating per player, the group (players connected by games) each belongs to,
/// and notes on what could not be rated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Per player.
    pub ratings: Vec<Rating>,
    /// Per player: its group (0, 1, ...), `None` without games.
    pub group: Vec<Option<usize>>,
    /// Number of groups.
    pub groups: usize,
    /// Explanations for the degenerate cases present, for people.
    pub notes: Vec<String>,
}

/// Natural-log odds per Elo: `P = σ(C · (r_i − r_j))`.
const C: f64 = LN_ODDS_PER_ELO;

/// Half the 95 % quantile of χ² with one degree of freedom (3.8415 / 2): the drop in
/// log-likelihood that bounds a likelihood-ratio interval.
const LR_95: f64 = 1.920_729_4;

/// ln σ(x), without overflow.
fn ln_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Log-likelihood of ratings `r` of `members` (games among them only).
fn log_likelihood(res: &Results, members: &[usize], r: &[f64]) -> f64 {
    let mut ll = 0.0;
    for (a, &i) in members.iter().enumerate() {
        for (b, &j) in members.iter().enumerate() {
            let s = res.points(i, j);
            if s > 0.0 {
                ll += s * ln_sigmoid(C * (r[a] - r[b]));
            }
        }
    }
    ll
}

/// The gradient of the log-likelihood (per Elo) at ratings `r` of `members`.
fn gradient(res: &Results, members: &[usize], r: &[f64]) -> Vec<f64> {
    members
        .iter()
        .enumerate()
        .map(|(a, &i)| {
            members
                .iter()
                .enumerate()
                .map(|(b, &j)| {
                    C * (res.points(i, j) - res.games(i, j) * expected_score(r[a] - r[b]))
                })
                .sum()
        })
        .collect()
}

/// Fisher information for members 1.. (member 0 fixed at 0), row-major.
fn information(res: &Results, members: &[usize], r: &[f64]) -> Vec<f64> {
    let m = members.len() - 1;
    let mut info = vec![0.0; m * m];
    for a in 1..members.len() {
        for b in 0..members.len() {
            if a == b {
                continue;
            }
            let p = expected_score(r[a] - r[b]);
            let w = C * C * res.games(members[a], members[b]) * p * (1.0 - p);
            info[(a - 1) * m + (a - 1)] += w;
            if b > 0 {
                info[(a - 1) * m + (b - 1)] -= w;
            }
        }
    }
    info
}

/// Maximum-likelihood ratings of a strongly connected set (member 0 at 0) and their
/// covariance (`m × m`, row and column 0 zero).
fn newton(res: &Results, members: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let m = members.len();
    let mut r = vec![0.0; m];
    if m == 1 {
        return (r, vec![0.0]);
    }
    let k = m - 1;
    for _ in 0..200 {
        let g = gradient(res, members, &r);
        let Some(l) = cholesky(&information(res, members, &r), k) else {
            break;
        };
        let step = cholesky_solve(&l, k, &g[1..]);
        let ll = log_likelihood(res, members, &r);
        let mut t = 1.0;
        let mut next = r.clone();
        while t > 1e-12 {
            for a in 1..m {
                next[a] = r[a] + t * step[a - 1];
            }
            if log_likelihood(res, members, &next) >= ll {
                break;
            }
            t /= 2.0;
        }
        let moved = step.iter().fold(0.0f64, |acc, s| acc.max((t * s).abs()));
        r = next;
        if moved < 1e-9 {
            break;
        }
    }
    let mut cov = vec![0.0; m * m];
    if let Some(l) = cholesky(&information(res, members, &r), k) {
        for a in 1..m {
            let mut unit = vec![0.0; k];
            unit[a - 1] = 1.0;
            let col = cholesky_solve(&l, k, &unit);
            for b in 1..m {
                cov[b * m + a] = col[b - 1];
            }
        }
    }
    (r, cov)
}

/// Where `f` (increasing) crosses 0, by bisection from `x` outwards.
fn increasing_root(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let (mut lo, mut hi) = (x - 1000.0, x + 1000.0);
    while f(lo) > 0.0 && lo > x - 1e6 {
        lo -= 1000.0;
    }
    while f(hi) < 0.0 && hi < x + 1e6 {
        hi += 1000.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Fits the ratings of all players of `res`; `anchor` (player, Elo) fixes one player's
/// rating instead of the rated players' mean 0 (in its group; other groups keep mean 0).
pub fn fit(res: &Results, anchor: Option<(usize, f64)>) -> Fit {
    let n = res.len();
    let (group, groups) = connected_groups(res);
    let reach = reachability(res);
    let mut ratings = vec![Rating::NoGames; n];
    let mut anchored = false;
    for g in 0..groups {
        let members: Vec<usize> = (0..n).filter(|&i| group[i] == Some(g)).collect();
        let rated = rated_set(res, &members, &reach);
        let (r, anchored_here) = rate_set(res, &rated, anchor, &mut ratings);
        anchored |= anchored_here;
        let pivot = rated[0];
        for &x in &members {
            if rated.contains(&x) {
                continue;
            }
            ratings[x] = outsider_rating(res, x, &rated, &r, &reach, pivot);
        }
    }
    let notes = notes(&ratings, groups, anchor, anchored);
    Fit {
        ratings,
        group,
        groups,
        notes,
    }
}

/// Groups: players connected by games. Each player's group (`None` without games) and
/// the number of groups.
fn connected_groups(res: &Results) -> (Vec<Option<usize>>, usize) {
    let n = res.len();
    let mut group: Vec<Option<usize>> = vec![None; n];
    let mut groups = 0;
    for s in 0..n {
        if group[s].is_some() || res.games_of(s) == 0.0 {
            continue;
        }
        group[s] = Some(groups);
        let mut stack = vec![s];
        while let Some(i) = stack.pop() {
            for (j, g) in group.iter_mut().enumerate() {
                if res.games(i, j) > 0.0 && g.is_none() {
                    *g = Some(groups);
                    stack.push(j);
                }
            }
        }
        groups += 1;
    }
    (group, groups)
}

/// `reach[i][j]`: a chain of "scored against" links from i to j.
fn reachability(res: &Results) -> Vec<Vec<bool>> {
    let n = res.len();
    let mut reach: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|j| i == j || res.points(i, j) > 0.0).collect())
        .collect();
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (r, &v) in row.iter_mut().zip(&via) {
                    *r |= v;
                }
            }
        }
    }
    reach
}

/// The group's rated players: of its strongly connected sets, the largest (then the one
/// with the most games inside, then the first).
fn rated_set(res: &Results, members: &[usize], reach: &[Vec<bool>]) -> Vec<usize> {
    let mut best: Option<(Vec<usize>, f64)> = None;
    for &i in members {
        let set: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&j| reach[i][j] && reach[j][i])
            .collect();
        if set[0] != i {
            continue; // seen from its first member
        }
        let inside: f64 = set
            .iter()
            .flat_map(|&a| set.iter().map(move |&b| (a, b)))
            .map(|(a, b)| res.games(a, b))
            .sum();
        if best.as_ref().is_none_or(|(b, games)| {
            set.len() > b.len() || (set.len() == b.len() && inside > *games)
        }) {
            best = Some((set, inside));
        }
    }
    best.expect("a group has players").0
}

/// Rates the strongly connected set `rated` into `ratings`, shifted to the anchor's Elo
/// when the anchor is among them, else to mean 0; returns the shifted ratings (in the
/// order of `rated`) and whether the anchor was used.
fn rate_set(
    res: &Results,
    rated: &[usize],
    anchor: Option<(usize, f64)>,
    ratings: &mut [Rating],
) -> (Vec<f64>, bool) {
    let (mut r, cov) = newton(res, rated);
    let m = rated.len();
    let anchor_here =
        anchor.and_then(|(k, elo)| rated.iter().position(|&i| i == k).map(|a| (a, elo)));
    // Variance of r_a − (mean, or the anchor): A C Aᵀ on the diagonal.
    let var = |a: usize| -> f64 {
        match anchor_here {
            Some((k, _)) => cov[a * m + a] - 2.0 * cov[a * m + k] + cov[k * m + k],
            None => {
                let row: f64 = (0..m).map(|b| cov[a * m + b]).sum();
                let all: f64 = cov.iter().sum();
                cov[a * m + a] - 2.0 * row / m as f64 + all / (m * m) as f64
            }
        }
    };
    let shift = match anchor_here {
        Some((k, elo)) => elo - r[k],
        None => -r.iter().sum::<f64>() / m as f64,
    };
    r.iter_mut().for_each(|x| *x += shift);
    for (a, &i) in rated.iter().enumerate() {
        ratings[i] = Rating::Rated {
            elo: r[a],
            ci95: 1.96 * var(a).max(0.0).sqrt(),
        };
    }
    (r, anchor_here.is_some())
}

/// The rating of `x`, a group member outside the rated set (`rated` at ratings `r`,
/// `pivot` one of them): `+∞` with its likelihood-ratio lower bound when it reaches the
/// rated set by "scored against" links, `−∞` with its upper bound when reached from it,
/// else not comparable.
fn outsider_rating(
    res: &Results,
    x: usize,
    rated: &[usize],
    r: &[f64],
    reach: &[Vec<bool>],
    pivot: usize,
) -> Rating {
    let m = rated.len();
    let opponents: Vec<(f64, f64)> = rated
        .iter()
        .zip(r)
        .filter(|&(&j, _)| res.games(x, j) > 0.0)
        .map(|(&j, &rj)| (res.games(x, j), rj))
        .collect();
    let around = r.iter().sum::<f64>() / m as f64;
    if reach[x][pivot] {
        let lower = (!opponents.is_empty()).then(|| {
            increasing_root(
                |v| {
                    opponents
                        .iter()
                        .map(|&(k, rj)| k * ln_sigmoid(C * (v - rj)))
                        .sum::<f64>()
                        + LR_95
                },
                around,
            )
        });
        Rating::Above { lower }
    } else if reach[pivot][x] {
        let upper = (!opponents.is_empty()).then(|| {
            increasing_root(
                |v| {
                    -opponents
                        .iter()
                        .map(|&(k, rj)| k * ln_sigmoid(C * (rj - v)))
                        .sum::<f64>()
                        - LR_95
                },
                around,
            )
        });
        Rating::Below { upper }
    } else {
        Rating::NotComparable
    }
}

/// Explanations, for people, of the degenerate cases present in the fit: several groups,
/// an anchor without a finite rating, infinite, incomparable and unrated players.
fn notes(
    ratings: &[Rating],
    groups: usize,
    anchor: Option<(usize, f64)>,
    anchored: bool,
) -> Vec<String> {
    let mut notes = Vec::new();
    if groups > 1 {
        notes.push(format!(
            "the games split the players into {groups} groups with no games between them: \
             ratings compare only within a group{}",
            if anchored {
                " (the anchor's group is anchored, the others average 0)"
            } else {
                " (each group's rated players average 0)"
            }
        ));
    }
    if let Some((k, _)) = anchor
        && !anchored
    {
        notes.push(format!(
            "the anchor (#{}) has no finite rating: the rated players average 0 instead",
            k + 1
        ));
    }
    let has = |f: fn(&Rating) -> bool| ratings.iter().any(f);
    if has(|r| matches!(r, Rating::Above { .. } | Rating::Below { .. })) {
        notes.push(
            "+inf / -inf: the player scored 100 % / 0 % against the rated players (directly or \
             through players who did), so its maximum-likelihood rating is infinite; the bound \
             (>= or <=) is the 95 % likelihood-ratio bound from its own games against rated \
             players, their ratings held fixed"
                .into(),
        );
    }
    if has(|r| matches!(r, Rating::NotComparable)) {
        notes.push("?: linked to the rated players only through players rated +inf or -inf".into());
    }
    if has(|r| matches!(r, Rating::NoGames)) {
        notes.push("players without games have no rating".into());
    }
    notes
}

#[cfg(test)]
mod tests;
