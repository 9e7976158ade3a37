//! PUCT: the tree search of AlphaZero as the neural-network study wrote it, over any
//! [`Oracle`] (a policy/value network).
//!
//! Each simulation walks from the root to a leaf, at every node taking the edge with the
//! highest `Q + E`, where `Q` is the edge's mean value from the mover's view (0 while
//! unvisited) and
//!
//! ```text
//! E = c · p · N_parent / (1 + N_edge)
//! ```
//!
//! exactly as the study wrote it: `p` the edge's prior, `N_parent` the visits of the
//! node, `N_edge` the edge's (AlphaZero puts √N_parent there; the study did not). The
//! leaf is expanded: one edge per legal move with the oracle's priors normalized over the
//! legal moves, and the oracle's value of the position backed up. A leaf where the game
//! is over backs up its result instead: −1 for the side to move when mated, 0 for a
//! stalemate, a fifty-move or insufficient-material draw, or a repetition of an earlier
//! position of the game or the line ([`chessgraph_core::chess::game::drawn_in_tree`]). The value
//! changes sign at every edge on the way up.
//!
//! The first simulation expands the root. After the last, the most visited root edge is
//! the move (ties: the higher prior, then the first in UCI order, the order the edges are
//! kept in). Self-play adds Dirichlet noise to the root's priors,
//! `(1 − f) · p + f · Dir(α)`, and samples its first moves with a temperature
//! ([`choose_with_temperature`]).

use std::time::Instant;

use shakmaty::{Chess, Move, Position};

use chessgraph_core::chess::hash;
use chessgraph_core::chess::moves::uci;
use chessgraph_core::chess::rng::SplitMix;

/// What PUCT asks a network: move priors and the position's value.
pub trait Oracle: Send + Sync {
    /// For `pos` (not over): a prior per move of `moves` (same order; need not sum to 1,
    /// PUCT normalizes) and the value in [−1, 1] for the side to move.
    fn evaluate(&self, pos: &Chess, moves: &[Move]) -> (Vec<f32>, f32);
}

/// Default simulations per move (the study's).
pub const DEFAULT_SIMULATIONS: u32 = 10;

/// Most simulations a spec may ask for.
pub const MAX_SIMULATIONS: u32 = 1_000_000;

/// How PUCT searches.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PuctSettings {
    /// Simulations per move.
    pub simulations: u32,
    /// The exploration constant c.
    pub c: f32,
    /// α of the root's Dirichlet noise.
    pub dirichlet_alpha: f32,
    /// Share f of noise in the root's priors (0: none; self-play uses 0.25).
    pub dirichlet_fraction: f32,
}

impl Default for PuctSettings {
    fn default() -> Self {
        PuctSettings {
            simulations: DEFAULT_SIMULATIONS,
            c: 1.0,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.0,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct PuctResult {
    /// The most visited root move (`None` when the root has no legal move).
    pub best: Option<Move>,
    /// Visits of every legal root move, in UCI order.
    pub visits: Vec<(Move, u32)>,
    /// The root's mean value over its edges, side to move's view.
    pub value: f32,
    /// Simulations run.
    pub simulations: u32,
    /// Seconds the search took.
    pub seconds: f64,
}

struct Edge {
    m: Move,
    prior: f32,
    visits: u32,
    /// Sum of the values backed up through the edge, from its mover's view.
    value_sum: f32,
    child: Option<usize>,
}

#[derive(Default)]
struct Node {
    visits: u32,
    edges: Vec<Edge>,
    expanded: bool,
    /// The game's result here, side to move's view, when it is over.
    terminal: Option<f32>,
}

/// The search tree of one move choice.
struct Tree {
    nodes: Vec<Node>,
    c: f32,
}

impl Tree {
    /// The edge of `node` with the highest `Q + E` (ties: the first).
    fn select(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let parent = n.visits as f32;
        let mut best = (f32::NEG_INFINITY, 0);
        for (i, e) in n.edges.iter().enumerate() {
            let q = if e.visits == 0 {
                0.0
            } else {
                e.value_sum / e.visits as f32
            };
            let score = q + self.c * e.prior * parent / (1.0 + e.visits as f32);
            if score > best.0 {
                best = (score, i);
            }
        }
        best.1
    }

    /// Expands `node` at `pos` (its key `key`, the line's earlier keys `keys`); returns
    /// the value to back up, side to move's view.
    fn expand(
        &mut self,
        node: usize,
        pos: &Chess,
        keys: &[u64],
        key: u64,
        root: bool,
        oracle: &dyn Oracle,
    ) -> f32 {
        let n = &mut self.nodes[node];
        n.expanded = true;
        let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let over = if moves.is_empty() {
            Some(if pos.is_check() { -1.0 } else { 0.0 })
        } else if !root && chessgraph_core::chess::game::drawn_in_tree(pos, keys, key) {
            Some(0.0)
        } else {
            None
        };
        if let Some(v) = over {
            n.terminal = Some(v);
            return v;
        }
        moves.sort_by_cached_key(uci);
        let (priors, value) = oracle.evaluate(pos, &moves);
        let priors = normalized(&priors);
        n.edges = moves
            .into_iter()
            .zip(priors)
            .map(|(m, prior)| Edge {
                m,
                prior,
                visits: 0,
                value_sum: 0.0,
                child: None,
            })
            .collect();
        value.clamp(-1.0, 1.0)
    }
}

/// `p` scaled to sum to 1 (uniform when it sums to nothing).
fn normalized(p: &[f32]) -> Vec<f32> {
    let sum: f32 = p.iter().map(|x| x.max(0.0)).sum();
    if sum > 0.0 && sum.is_finite() {
        p.iter().map(|x| x.max(0.0) / sum).collect()
    } else {
        vec![1.0 / p.len().max(1) as f32; p.len()]
    }
}

/// A uniform number in [0, 1).
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A Gamma(α, 1) sample (Marsaglia and Tsang; α < 1 through Gamma(α + 1) · U^(1/α)).
fn gamma(alpha: f64, rng: &mut SplitMix) -> f64 {
    if alpha < 1.0 {
        let u = unit(rng).max(f64::MIN_POSITIVE);
        return gamma(alpha + 1.0, rng) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        // A standard normal by Box–Muller.
        let (u1, u2) = (unit(rng).max(f64::MIN_POSITIVE), unit(rng));
        let x = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = unit(rng).max(f64::MIN_POSITIVE);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A Dirichlet(α, …, α) sample of `n` weights.
pub fn dirichlet(n: usize, alpha: f32, rng: &mut SplitMix) -> Vec<f32> {
    let g: Vec<f64> = (0..n).map(|_| gamma(f64::from(alpha), rng)).collect();
    let sum: f64 = g.iter().sum();
    g.iter().map(|x| (x / sum) as f32).collect()
}

/// Runs PUCT from `pos` (`history`: the game's earlier position keys, oldest first).
/// `stop` is asked between simulations; at least one simulation runs. `rng` draws the
/// root noise.
pub fn search(
    pos: &Chess,
    history: &[u64],
    oracle: &dyn Oracle,
    settings: &PuctSettings,
    rng: &mut SplitMix,
    stop: &mut dyn FnMut(u32) -> bool,
) -> PuctResult {
    let started = Instant::now();
    let mut tree = Tree {
        nodes: vec![Node::default()],
        c: settings.c,
    };
    let root_key = hash::key(pos);
    let mut done = 0;
    while done < settings.simulations.max(1) && (done == 0 || !stop(done)) {
        simulate(&mut tree, pos, history, root_key, oracle);
        if done == 0 && settings.dirichlet_fraction > 0.0 {
            let root = &mut tree.nodes[0];
            let noise = dirichlet(root.edges.len(), settings.dirichlet_alpha, rng);
            let f = settings.dirichlet_fraction;
            for (e, n) in root.edges.iter_mut().zip(noise) {
                e.prior = (1.0 - f) * e.prior + f * n;
            }
        }
        done += 1;
    }
    let root = &tree.nodes[0];
    let best = root
        .edges
        .iter()
        .enumerate()
        .max_by(|(i, a), (j, b)| {
            (a.visits, a.prior)
                .partial_cmp(&(b.visits, b.prior))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(j.cmp(i))
        })
        .map(|(_, e)| e.m);
    let (visits, sum): (u32, f32) = root
        .edges
        .iter()
        .fold((0, 0.0), |(n, s), e| (n + e.visits, s + e.value_sum));
    PuctResult {
        best,
        visits: root.edges.iter().map(|e| (e.m, e.visits)).collect(),
        value: if visits == 0 {
            0.0
        } else {
            sum / visits as f32
        },
        simulations: done,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// One simulation: select down to a leaf, expand it, back its value up.
fn simulate(tree: &mut Tree, root: &Chess, history: &[u64], root_key: u64, oracle: &dyn Oracle) {
    let mut pos = root.clone();
    let mut keys = history.to_vec();
    let mut key = root_key;
    let mut node = 0;
    let mut path: Vec<(usize, usize)> = Vec::new();
    let value = loop {
        if let Some(v) = tree.nodes[node].terminal {
            break v;
        }
        if !tree.nodes[node].expanded {
            break tree.expand(node, &pos, &keys, key, path.is_empty(), oracle);
        }
        let edge = tree.select(node);
        path.push((node, edge));
        let m = tree.nodes[node].edges[edge].m;
        let mut child = pos.clone();
        child.play_unchecked(m);
        keys.push(key);
        key = hash::key_after(&pos, key, m, &child);
        pos = child;
        node = match tree.nodes[node].edges[edge].child {
            Some(c) => c,
            None => {
                tree.nodes.push(Node::default());
                let c = tree.nodes.len() - 1;
                tree.nodes[node].edges[edge].child = Some(c);
                c
            }
        };
    };
    // `value` is the leaf's side to move's; each edge's mover is the other side.
    tree.nodes[node].visits += 1;
    let mut v = value;
    for &(n, e) in path.iter().rev() {
        v = -v;
        let edge = &mut tree.nodes[n].edges[e];
        edge.visits += 1;
        edge.value_sum += v;
        tree.nodes[n].visits += 1;
    }
}

/// Self-play's move choice: the most visited move at temperature 0, otherwise a move
/// drawn with probability ∝ N^(1/τ).
///
/// # Panics
///
/// If `visits` is empty.
pub fn choose_with_temperature(
    visits: &[(Move, u32)],
    temperature: f32,
    rng: &mut SplitMix,
) -> Move {
    assert!(!visits.is_empty(), "a move to choose");
    if temperature <= 0.0 {
        let mut best = 0;
        for (i, v) in visits.iter().enumerate() {
            if v.1 > visits[best].1 {
                best = i;
            }
        }
        return visits[best].0;
    }
    let weights: Vec<f64> = visits
        .iter()
        .map(|&(_, n)| f64::from(n).powf(1.0 / f64::from(temperature)))
        .collect();
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return visits[rng.below(visits.len())].0;
    }
    let mut x = unit(rng) * total;
    for (w, v) in weights.iter().zip(visits) {
        if x < *w {
            return v.0;
        }
        x -= w;
    }
    visits[visits.len() - 1].0
}

#[cfg(test)]
mod tests;
