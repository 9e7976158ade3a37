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

use serde::Serialize;

use crate::fit::linalg::{cholesky, cholesky_solve};

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

/// Elo per natural-log unit of odds: `P = σ(C · (r_i − r_j))`.
const C: f64 = std::f64::consts::LN_10 / 400.0;

/// Half the 95 % quantile of χ² with one degree of freedom (3.8415 / 2): the drop in
/// log-likelihood that bounds a likelihood-ratio interval.
const LR_95: f64 = 1.920_729_4;

/// P(i beats j) for a rating difference `d = r_i − r_j`.
pub fn expected(d: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-d / 400.0))
}

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
                .map(|(b, &j)| C * (res.points(i, j) - res.games(i, j) * expected(r[a] - r[b])))
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
            let p = expected(r[a] - r[b]);
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
    // Groups: players connected by games.
    let mut group: Vec<Option<usize>> = vec![None; n];
    let mut groups = 0;
    for s in 0..n {
        if group[s].is_some() || res.games_of(s) == 0.0 {
            continue;
        }
        group[s] = Some(groups);
        let mut stack = vec![s];
        while let Some(i) = stack.pop() {
            for j in 0..n {
                if res.games(i, j) > 0.0 && group[j].is_none() {
                    group[j] = Some(groups);
                    stack.push(j);
                }
            }
        }
        groups += 1;
    }
    // reach[i][j]: a chain of "scored against" links from i to j.
    let mut reach: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|j| i == j || res.points(i, j) > 0.0).collect())
        .collect();
    for k in 0..n {
        for i in 0..n {
            if reach[i][k] {
                for j in 0..n {
                    if reach[k][j] {
                        reach[i][j] = true;
                    }
                }
            }
        }
    }
    let mut ratings = vec![Rating::NoGames; n];
    let mut notes = Vec::new();
    let mut anchored = false;
    for g in 0..groups {
        let members: Vec<usize> = (0..n).filter(|&i| group[i] == Some(g)).collect();
        // Strongly connected sets; the rated one is the largest (then the one with the
        // most games inside, then the first).
        let mut best: Option<(Vec<usize>, f64)> = None;
        for &i in &members {
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
        let rated = best.expect("a group has players").0;
        let (mut r, cov) = newton(res, &rated);
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
            Some((k, elo)) => {
                anchored = true;
                elo - r[k]
            }
            None => -r.iter().sum::<f64>() / m as f64,
        };
        r.iter_mut().for_each(|x| *x += shift);
        for (a, &i) in rated.iter().enumerate() {
            ratings[i] = Rating::Rated {
                elo: r[a],
                ci95: 1.96 * var(a).max(0.0).sqrt(),
            };
        }
        let pivot = rated[0];
        for &x in &members {
            if rated.contains(&x) {
                continue;
            }
            let opponents: Vec<(f64, f64)> = rated
                .iter()
                .zip(&r)
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
                ratings[x] = Rating::Above { lower };
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
                ratings[x] = Rating::Below { upper };
            } else {
                ratings[x] = Rating::NotComparable;
            }
        }
    }
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
    Fit {
        ratings,
        group,
        groups,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elo(r: &Rating) -> f64 {
        match r {
            Rating::Rated { elo, .. } => *elo,
            other => panic!("not rated: {other:?}"),
        }
    }

    fn ci(r: &Rating) -> f64 {
        match r {
            Rating::Rated { ci95, .. } => *ci95,
            other => panic!("not rated: {other:?}"),
        }
    }

    #[test]
    fn two_players_three_wins_one_loss() {
        let mut res = Results::new(2);
        res.add_record(0, 1, 3, 0, 1);
        let f = fit(&res, None);
        let d = 400.0 * 3f64.log10(); // 190.85: P = 0.75
        assert!((d - 190.849).abs() < 1e-3);
        assert!((elo(&f.ratings[0]) - d / 2.0).abs() < 1e-6, "{f:?}");
        assert!((elo(&f.ratings[1]) + d / 2.0).abs() < 1e-6, "{f:?}");
        // Information of the difference: C² · 4 · 0.75 · 0.25; each rating is ± half of it.
        let sd = (1.0 / (C * C * 4.0 * 0.75 * 0.25)).sqrt();
        assert!((ci(&f.ratings[0]) - 1.96 * sd / 2.0).abs() < 1e-6, "{f:?}");
        assert!(f.notes.is_empty() && f.groups == 1);
    }

    #[test]
    fn three_players_in_a_consistent_chain() {
        // A−B and B−C 3:1 (P = 0.75, 190.85 Elo each); A−C 9:1 (P = 0.9 = the model's
        // value for 2 × 190.85): every pair scores exactly its expectation.
        let mut res = Results::new(3);
        res.add_record(0, 1, 3, 0, 1);
        res.add_record(1, 2, 3, 0, 1);
        res.add_record(0, 2, 9, 0, 1);
        let d = 400.0 * 3f64.log10();
        assert!((expected(2.0 * d) - 0.9).abs() < 1e-12);
        let f = fit(&res, None);
        let r: Vec<f64> = f.ratings.iter().map(elo).collect();
        for (got, want) in r.iter().zip([d, 0.0, -d]) {
            assert!((got - want).abs() < 1e-6, "{r:?}");
        }
        let g = gradient(&res, &[0, 1, 2], &[d, 0.0, -d]);
        assert!(g.iter().all(|x| x.abs() < 1e-12), "{g:?}");
        // Away from the answer the gradient is not zero (the check can fail).
        let g = gradient(&res, &[0, 1, 2], &[d + 10.0, 0.0, -d]);
        assert!(g[0] < -1e-4, "{g:?}");
        // A record that is not a consistent chain (B−C 2 wins, 2 draws, 1 loss) has no
        // hand-worked answer, but the gradient is zero at the fit as well.
        let mut res = Results::new(3);
        res.add_record(0, 1, 3, 0, 1);
        res.add_record(1, 2, 2, 2, 1);
        res.add_record(0, 2, 9, 0, 1);
        let f = fit(&res, None);
        let r: Vec<f64> = f.ratings.iter().map(elo).collect();
        assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
        let g = gradient(&res, &[0, 1, 2], &r);
        assert!(g.iter().all(|x| x.abs() < 1e-9), "{g:?}");
        assert!(r.iter().sum::<f64>().abs() < 1e-9);
    }

    #[test]
    fn all_wins_is_unbounded_with_a_likelihood_ratio_bound() {
        // A beats B and C twice each; B and C share a win and a draw: {B, C} is rated.
        let mut res = Results::new(3);
        res.add_record(0, 1, 2, 0, 0);
        res.add_record(0, 2, 2, 0, 0);
        res.add_record(1, 2, 1, 1, 1);
        let f = fit(&res, None);
        assert_eq!(elo(&f.ratings[1]), 0.0);
        assert_eq!(elo(&f.ratings[2]), 0.0);
        let Rating::Above { lower: Some(lower) } = f.ratings[0] else {
            panic!("{f:?}");
        };
        // 4 wins against players at 0: 4 ln P = −1.92 → P = e^−0.48, r = 400 log10(P/(1−P)).
        let p = (-LR_95 / 4.0).exp();
        let want = 400.0 * (p / (1.0 - p)).log10();
        assert!((lower - want).abs() < 1e-6, "{lower} vs {want}");
        assert!((80.0..90.0).contains(&lower), "{lower}");
        assert!(f.notes.iter().any(|n| n.contains("+inf")), "{:?}", f.notes);
        // The mirror image: all losses are −∞ with the opposite bound.
        let mut res = Results::new(3);
        res.add_record(0, 1, 0, 0, 2);
        res.add_record(0, 2, 0, 0, 2);
        res.add_record(1, 2, 1, 1, 1);
        let f = fit(&res, None);
        let Rating::Below { upper: Some(upper) } = f.ratings[0] else {
            panic!("{f:?}");
        };
        assert!((upper + lower).abs() < 1e-6, "{upper} vs {lower}");
    }

    #[test]
    fn draws_only_pair_is_level() {
        let mut res = Results::new(3);
        res.add_record(0, 1, 0, 4, 0);
        let f = fit(&res, None);
        assert!(elo(&f.ratings[0]).abs() < 1e-9 && elo(&f.ratings[1]).abs() < 1e-9);
        assert!(ci(&f.ratings[0]) > 0.0);
        assert_eq!(f.ratings[2], Rating::NoGames);
        assert_eq!(f.group, [Some(0), Some(0), None]);
        assert!(f.notes.iter().any(|n| n.contains("without games")));
    }

    #[test]
    fn anchor_shifts_every_rating() {
        let mut res = Results::new(3);
        res.add_record(0, 1, 3, 1, 1);
        res.add_record(1, 2, 2, 2, 1);
        res.add_record(0, 2, 4, 0, 1);
        let free = fit(&res, None);
        let anchored = fit(&res, Some((2, 1500.0)));
        assert_eq!(elo(&anchored.ratings[2]), 1500.0);
        assert_eq!(ci(&anchored.ratings[2]), 0.0);
        let shift = 1500.0 - elo(&free.ratings[2]);
        for i in 0..3 {
            assert!((elo(&anchored.ratings[i]) - elo(&free.ratings[i]) - shift).abs() < 1e-9);
        }
        // Relative to the anchor, the others are less certain than relative to the mean.
        assert!(ci(&anchored.ratings[0]) > ci(&free.ratings[0]));
        // An anchor without a finite rating falls back to the mean, with a note.
        let mut res = Results::new(3);
        res.add_record(0, 1, 1, 1, 0);
        let f = fit(&res, Some((2, 1500.0)));
        assert!(
            f.notes.iter().any(|n| n.contains("anchor")),
            "{:?}",
            f.notes
        );
    }

    #[test]
    fn disconnected_groups_and_incomparable_players() {
        let mut res = Results::new(4);
        res.add_record(0, 1, 1, 0, 1);
        res.add_record(2, 3, 2, 0, 0);
        let f = fit(&res, None);
        assert_eq!(f.groups, 2);
        assert_eq!(f.group, [Some(0), Some(0), Some(1), Some(1)]);
        assert!(f.notes.iter().any(|n| n.contains("2 groups")));
        assert_eq!(elo(&f.ratings[0]), 0.0);
        // 2 and 3: both alone; the first is rated at 0, the loser is −∞. Two losses prove
        // little: 2 ln P = −1.92 gives P = 0.38 < ½, so the bound is above 0 (+83).
        assert_eq!(elo(&f.ratings[2]), 0.0);
        let p = (-LR_95 / 2.0).exp();
        let want = -400.0 * (p / (1.0 - p)).log10();
        assert!(
            matches!(f.ratings[3], Rating::Below { upper: Some(u) } if (u - want).abs() < 1e-6 && u > 80.0),
            "{f:?}"
        );

        // X and Y draw (rated), A beats X (+∞), D lost to A only: D is not comparable.
        let mut res = Results::new(4);
        res.add_record(0, 1, 0, 2, 0);
        res.add_record(2, 0, 2, 0, 0);
        res.add_record(2, 3, 2, 0, 0);
        let f = fit(&res, None);
        assert!(matches!(f.ratings[2], Rating::Above { lower: Some(_) }));
        assert_eq!(f.ratings[3], Rating::NotComparable);
        assert!(f.notes.iter().any(|n| n.starts_with('?')));
    }

    #[test]
    fn lopsided_but_finite_records_converge() {
        let mut res = Results::new(3);
        res.add_record(0, 1, 99, 0, 1);
        res.add_record(1, 2, 1, 0, 99);
        res.add_record(0, 2, 50, 0, 50);
        let f = fit(&res, None);
        let r: Vec<f64> = f.ratings.iter().map(elo).collect();
        let g = gradient(&res, &[0, 1, 2], &r);
        assert!(g.iter().all(|x| x.abs() < 1e-9), "{r:?} {g:?}");
        assert!(r.iter().all(|x| x.is_finite()));
    }
}
