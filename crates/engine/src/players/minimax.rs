//! `minimax[:depth=D,evaluator=E]`: plain fixed-depth alpha-beta — the studies' bots.
//!
//! Negamax with alpha-beta to depth D (default 4) and the static evaluation at the leaves:
//! no quiescence search, no transposition table, no extensions, reductions or pruning
//! besides alpha-beta itself, so its value is exactly the depth-D minimax value. Moves are
//! tried captures first (most valuable victim, least valuable attacker; the rest in
//! generation order), and at the root the previous iteration's best move first: that only
//! changes how fast the value is found and, among equally good moves, which one is played
//! (the first searched; the same one every time).
//!
//! Every node looks for checkmate (mate in `n` plies scores `MATE - n`, so shorter mates
//! are preferred and longer defences chosen) and stalemate; the fifty-move rule,
//! insufficient material and a repetition of an earlier position of the game or of the
//! line ([`chessgraph_core::chess::game::drawn_in_tree`]) are draws. Depths 1..D are searched in turn: each completed
//! depth is reported as an `info`, and when `stop`, `nodes` or the time budget interrupt
//! the search the move of the last completed depth is played (the first move in capture
//! order if not even depth 1 finished). A `go depth` below D lowers the depth; a mate
//! score ends the iterations early (deeper searches cannot change it).
//!
//! Without an `evaluator` key it uses the evaluator the command was given (`--evaluator`,
//! whose default `seed003` is the graph-features study's evaluator). Beyond the studies' plain
//! fixed-depth search: the draw rules above and the iterations 1..D, which let a limit
//! cut the search short (a plain `go` always completes depth D).
//!
//! `order=eval` orders moves as the PUC-Rio players study did (its section 3.1): a node's
//! children evaluated statically, together ([`Evaluator::evaluate_batch`]: a network runs
//! them as one batch), and searched best first for the side to move (a stable sort, so
//! equal moves keep their generation order). Nodes one ply above the leaves keep the
//! captures-first order: evaluating every child there to sort them would evaluate every
//! leaf, which alpha-beta exists to avoid (that variant was five times slower on the
//! players study's CNN). With the CNN at depth 4 in a middlegame this order visited 14,000
//! nodes where captures first visit 55,000. The value is the same depth-D minimax value;
//! only the nodes visited, and the move among equals, change.

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, MoveList, Position};

use super::Player;
use super::stopping::Stopping;
use crate::eval::Evaluator;
use crate::search::{
    Control, INF, Info, Limits, MATE, MATE_BOUND, Score, SearchResult, root_moves,
};
use chessgraph_core::chess::hash;
use chessgraph_core::chess::moves::is_quiet;
use chessgraph_core::chess::values::mvv_lva;

/// The default depth (plies).
pub const DEFAULT_DEPTH: u32 = 4;
/// The deepest depth a spec may ask for.
pub const MAX_DEPTH: u32 = 32;

/// How the tree orders moves.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Captures first by MVV-LVA, the rest in generation order.
    #[default]
    Captures,
    /// By the children's static evaluations, best for the side to move first (the
    /// players study's section 3.1).
    Eval,
}

impl Order {
    /// The spec names, `captures` and `eval`.
    pub const NAMES: [&'static str; 2] = ["captures", "eval"];

    /// The order a spec names.
    pub fn from_name(name: &str) -> Option<Order> {
        match name {
            "captures" => Some(Order::Captures),
            "eval" => Some(Order::Eval),
            _ => None,
        }
    }
}

/// Fixed-depth alpha-beta with static leaves.
pub struct MinimaxPlayer {
    depth: u32,
    order: Order,
    evaluator: Arc<Evaluator>,
    control: Control,
}

impl MinimaxPlayer {
    /// A minimax player searching `depth` plies (1..=[`MAX_DEPTH`]) with `evaluator`,
    /// captures first.
    pub fn new(depth: u32, evaluator: Arc<Evaluator>) -> MinimaxPlayer {
        MinimaxPlayer::with_order(depth, Order::Captures, evaluator)
    }

    /// A minimax player ordering its moves by `order`.
    pub fn with_order(depth: u32, order: Order, evaluator: Arc<Evaluator>) -> MinimaxPlayer {
        MinimaxPlayer {
            depth: depth.clamp(1, MAX_DEPTH),
            order,
            evaluator,
            control: Control::default(),
        }
    }
}

/// Sorts captures first by MVV-LVA; a stable sort, so equal moves keep their order.
fn order(moves: &mut MoveList) {
    moves.sort_by_key(|&m| std::cmp::Reverse(if is_quiet(m) { 0 } else { mvv_lva(m) }));
}

/// Sorts `moves` by the evaluations of the positions they lead to (computed in one
/// batch), best for the side to move first; a stable sort, so equal moves keep their order.
fn order_by_eval(evaluator: &Evaluator, pos: &Chess, moves: &mut MoveList) {
    let children: Vec<Chess> = moves
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            child
        })
        .collect();
    let sign = if pos.turn() == Color::White { 1 } else { -1 };
    let mut keyed: Vec<(i32, Move)> = evaluator
        .evaluate_batch(&children)
        .into_iter()
        .zip(moves.iter().copied())
        .map(|(v, m)| (sign * v, m))
        .collect();
    keyed.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
    moves.clear();
    moves.extend(keyed.into_iter().map(|(_, m)| m));
}

/// One search: the tree walk and its counters.
struct Tree<'a> {
    evaluator: &'a Evaluator,
    order: Order,
    /// Keys of the positions before the current node (the game's, then the line's).
    keys: Vec<u64>,
    /// Principal variation from each ply.
    pv: Vec<Vec<Move>>,
    nodes: u64,
    stopping: Stopping,
    stopped: bool,
}

impl Tree<'_> {
    /// The negamax value of `pos` (key `key`) searched `depth` plies, side to move's view.
    fn negamax(
        &mut self,
        pos: &Chess,
        key: u64,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        // The clock is read every 64 nodes: a network evaluator may take a millisecond a
        // node, and 1,024 of them overshot a 1 s budget by seconds.
        if self.stopping.out_of_nodes(self.nodes)
            || (self.nodes & 63 == 0 && self.stopping.should_stop())
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() {
                -MATE + ply as i32
            } else {
                0
            };
        }
        if chessgraph_core::chess::game::drawn_in_tree(pos, &self.keys, key) {
            return 0;
        }
        if depth == 0 {
            let v = self.evaluator.evaluate(pos);
            return if pos.turn() == Color::White { v } else { -v };
        }
        if self.order == Order::Eval && depth >= 2 {
            order_by_eval(self.evaluator, pos, &mut moves);
        } else {
            order(&mut moves);
        }
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let child_key = hash::key_after(pos, key, m, &child);
            self.keys.push(key);
            let score = -self.negamax(&child, child_key, depth - 1, -beta, -alpha, ply + 1);
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score > alpha {
                alpha = score;
                let (head, tail) = self.pv.split_at_mut(ply + 1);
                head[ply].clear();
                head[ply].push(m);
                head[ply].extend_from_slice(&tail[0]);
                if alpha >= beta {
                    break;
                }
            }
        }
        alpha
    }
}

impl Player for MinimaxPlayer {
    fn name(&self) -> String {
        let order = match self.order {
            Order::Captures => "",
            Order::Eval => ",order=eval",
        };
        format!(
            "minimax:depth={}{order},evaluator={}",
            self.depth,
            self.evaluator.name()
        )
    }

    fn control(&self) -> Control {
        self.control.clone()
    }

    fn set_evaluator(&mut self, evaluator: Arc<Evaluator>) {
        self.evaluator = evaluator;
    }

    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let stopping = Stopping::new(&self.control, limits);
        let mut moves = match root_moves(pos, limits) {
            Ok(moves) => moves,
            Err(none) => return none.result(stopping.elapsed()),
        };
        match self.order {
            Order::Captures => order(&mut moves),
            Order::Eval => order_by_eval(&self.evaluator, pos, &mut moves),
        }
        let max_depth = limits.depth.map_or(self.depth, |d| d.clamp(1, self.depth));
        let root_key = hash::key(pos);
        let mut tree = Tree {
            evaluator: &self.evaluator,
            order: self.order,
            keys: history.to_vec(),
            pv: vec![Vec::new(); max_depth as usize + 2],
            nodes: 0,
            stopping,
            stopped: false,
        };
        let mut best: Option<(i32, Vec<Move>)> = None;
        let mut completed = 0;
        for depth in 1..=max_depth {
            if depth > 1 && tree.stopping.should_stop() {
                break;
            }
            let mut alpha = -INF;
            let mut line = Vec::new();
            for &m in &moves {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let key = hash::key_after(pos, root_key, m, &child);
                tree.keys.push(root_key);
                let score = -tree.negamax(&child, key, depth - 1, -INF, -alpha, 1);
                tree.keys.pop();
                if tree.stopped {
                    break;
                }
                if score > alpha {
                    alpha = score;
                    line = vec![m];
                    line.extend_from_slice(&tree.pv[1]);
                }
            }
            if tree.stopped {
                break;
            }
            completed = depth;
            // The best move leads the next iteration.
            let first = moves.iter().position(|&m| m == line[0]).unwrap_or(0);
            moves[..=first].rotate_right(1);
            info(&Info {
                depth,
                seldepth: depth,
                multipv: 1,
                score: Score::from_internal(alpha),
                nodes: tree.nodes,
                time: tree.stopping.elapsed(),
                hashfull: 0,
                tbhits: 0,
                pv: line.clone(),
            });
            best = Some((alpha, line));
            if alpha.abs() >= MATE_BOUND {
                break;
            }
        }
        let (score, line) = best.unwrap_or_else(|| {
            let v = self.evaluator.evaluate(pos);
            let v = if pos.turn() == Color::White { v } else { -v };
            (v, vec![moves[0]])
        });
        SearchResult {
            best: Some(line[0]),
            ponder: line.get(1).copied(),
            score: Score::from_internal(score),
            depth: completed,
            nodes: tree.nodes,
            time: tree.stopping.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::moves::uci;
    use std::sync::atomic::Ordering;

    /// python-chess negamax values and best-move sets (`scripts/golden/minimax.py`).
    const GOLDEN: &str = include_str!("../../../../tests/golden/minimax.csv");

    fn pos(fen: &str) -> Chess {
        chessgraph_core::chess::fen::parse(fen, chessgraph_core::chess::fen::Leniency::Strict)
            .unwrap()
    }

    fn player(depth: u32, evaluator: &str) -> MinimaxPlayer {
        MinimaxPlayer::new(depth, Arc::new(Evaluator::builtin(evaluator).unwrap()))
    }

    #[test]
    fn values_and_moves_match_python_chess_negamax() {
        let mut rows = 0;
        for line in GOLDEN.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let (p, depth, value) = (pos(f[0]), f[1].parse().unwrap(), f[2].parse().unwrap());
            let best: Vec<&str> = f[3].split(' ').collect();
            // The same value and a move among the best whatever the move order.
            for order in [Order::Captures, Order::Eval] {
                let mut infos = Vec::new();
                let material = Arc::new(Evaluator::builtin("material").unwrap());
                let r = MinimaxPlayer::with_order(depth, order, material).choose(
                    &p,
                    &[],
                    &Limits::default(),
                    &mut |i| infos.push(i.clone()),
                );
                let m = uci(&r.best.unwrap());
                assert_eq!(r.score, Score::from_internal(value), "{line} {order:?}");
                assert!(best.contains(&m.as_str()), "{line} {order:?}: played {m}");
                // One info per completed depth (mates end the iterations early), the last
                // with the result's score and move.
                let last = infos.last().unwrap();
                assert_eq!(infos.len() as u32, r.depth, "{line}");
                assert_eq!((last.score, last.pv[0]), (r.score, r.best.unwrap()));
                assert!(last.nodes > 0 && last.nodes == r.nodes);
            }
            rows += 1;
        }
        assert_eq!(rows, 21);
    }

    #[test]
    fn hand_worked_value() {
        // Rxd5 wins the queen at depth 1 (+400: R against P); at depth 2 cxd5 takes the
        // rook back (-100: K against P), still better than any other move (the queen then
        // takes the rook, or White keeps R against Q+P, -500 at best).
        let p = pos("k7/8/2p5/3q4/8/8/8/3RK3 w - - 0 1");
        let r1 = player(1, "material").choose(&p, &[], &Limits::default(), &mut |_| {});
        let r2 = player(2, "material").choose(&p, &[], &Limits::default(), &mut |_| {});
        assert_eq!(
            (uci(&r1.best.unwrap()), r1.score),
            ("d1d5".into(), Score::Cp(400))
        );
        assert_eq!(
            (uci(&r2.best.unwrap()), r2.score),
            ("d1d5".into(), Score::Cp(-100))
        );
        assert_eq!(r2.ponder.map(|m| uci(&m)), Some("c6d5".into()));
    }

    #[test]
    fn finds_the_mate_in_two_with_the_study_evaluator() {
        // Buckle - NN, London 1840: 1. Nf6+ gxf6 2. Bxf7#.
        let p = pos("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
        let seed003 = Arc::new(Evaluator::builtin("seed003").unwrap());
        for depth in [3, 4] {
            let mut nodes = Vec::new();
            for order in [Order::Captures, Order::Eval] {
                let mut m = MinimaxPlayer::with_order(depth, order, seed003.clone());
                let r = m.choose(&p, &[], &Limits::default(), &mut |_| {});
                assert_eq!(uci(&r.best.unwrap()), "d5f6");
                assert_eq!(r.score, Score::Mate(2));
                assert_eq!(r.depth, 3, "the mate ends the iterations");
                nodes.push(r.nodes);
            }
            // The study's order finds the sacrifice sooner.
            assert!(nodes[1] < nodes[0], "{nodes:?}");
        }
        // Depth 2 cannot see it.
        let r = player(2, "seed003").choose(&p, &[], &Limits::default(), &mut |_| {});
        assert!(matches!(r.score, Score::Cp(_)), "{:?}", r.score);
    }

    #[test]
    fn wins_a_hanging_queen_at_the_default_depth() {
        let p = pos("4k3/7p/8/8/2q5/8/3N3P/4K3 w - - 0 1");
        let r = player(DEFAULT_DEPTH, "seed003").choose(&p, &[], &Limits::default(), &mut |_| {});
        assert_eq!(uci(&r.best.unwrap()), "d2c4");
        assert_eq!(r.depth, DEFAULT_DEPTH);
    }

    #[test]
    fn repetition_of_a_game_position_is_a_draw() {
        // White is a queen down; the position after Kf1 occurred earlier in the game, so
        // Kf1 draws (the engine's test of the same rule).
        let p = pos("3qk3/8/8/8/8/8/8/4K3 w - - 10 40");
        let kf1 = chessgraph_core::chess::moves::parse_uci(&p, "e1f1").unwrap();
        let mut after = p.clone();
        after.play_unchecked(kf1);
        let history = [hash::key(&after), 0x1111, 0x2222];
        let mut m = player(3, "seed003");
        let r = m.choose(&p, &history, &Limits::default(), &mut |_| {});
        assert_eq!(
            (uci(&r.best.unwrap()), r.score),
            ("e1f1".into(), Score::Cp(0))
        );
        let r = m.choose(&p, &[], &Limits::default(), &mut |_| {});
        assert!(
            matches!(r.score, Score::Cp(cp) if cp < -700),
            "{:?}",
            r.score
        );
    }

    #[test]
    fn mated_and_stalemated_positions_have_no_move() {
        let mut m = player(2, "material");
        let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        let r = m.choose(&mated, &[], &Limits::default(), &mut |_| {});
        assert_eq!((r.best, r.score), (None, Score::Mate(0)));
        let stalemate = pos("k7/8/1Q6/8/8/8/8/7K b - - 0 1");
        let r = m.choose(&stalemate, &[], &Limits::default(), &mut |_| {});
        assert_eq!((r.best, r.score), (None, Score::Cp(0)));
    }

    #[test]
    fn stop_nodes_and_depth_limits() {
        let start = Chess::default();
        // Stopped before it starts: depth 1 is always completed (it is cheap), then the
        // flag ends the iterations.
        let mut m = player(MAX_DEPTH, "seed003");
        m.control().stop.store(true, Ordering::Relaxed);
        let r = m.choose(&start, &[], &Limits::default(), &mut |_| {});
        assert!(start.is_legal(r.best.unwrap()));
        assert_eq!(r.depth, 1);
        // A node limit: the last completed depth's move, never more nodes than allowed.
        let mut m = player(MAX_DEPTH, "seed003");
        let limits = Limits {
            nodes: Some(2_000),
            ..Limits::default()
        };
        let r = m.choose(&start, &[], &limits, &mut |_| {});
        assert!(start.is_legal(r.best.unwrap()));
        assert!(r.nodes <= 2_000 && (1..5).contains(&r.depth), "{r:?}");
        // `go depth 2` lowers the depth; searchmoves restrict the root.
        let limits = Limits {
            depth: Some(2),
            searchmoves: vec![chessgraph_core::chess::moves::parse_uci(&start, "g1f3").unwrap()],
            ..Limits::default()
        };
        let r = player(4, "seed003").choose(&start, &[], &limits, &mut |_| {});
        assert_eq!((uci(&r.best.unwrap()), r.depth), ("g1f3".into(), 2));
    }
}
