//! The players of the studies' networks ([`chessgraph_cnn`]):
//!
//! * `cnn:model=FILE` — the players study's "CNN": every legal move is played and the
//!   position after it evaluated by the value network (all of them in one batch); the
//!   best for the mover wins. A move that mates wins outright; one that stalemates or
//!   draws by rule or repetition scores 0 (an even position). No search beyond that ply.
//! * `policy:model=FILE` — the neural-network study's ResNet player: the legal move the
//!   policy head finds most probable (the study took the most probable move, and the
//!   next while it was illegal: the same move).
//!
//! * `mcts:net=FILE[,simulations=N,c=C,seed=S]` — the neural-network study's MCTS: PUCT
//!   ([`super::puct`]) on a policy/value network, 10 simulations by default; `go nodes`,
//!   the clock and `stop` end it sooner; `nodes` counts simulations.
//!
//! Ties go to the move whose UCI text sorts first. `cnn:` and `policy:` ignore the clock:
//! one forward pass is their whole thinking.

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, Position};

use super::puct::{self, PuctSettings};
use super::stopping::Stopping;
use super::{NetPlay, Player, plain_result};
use crate::search::{Control, Info, Limits, SearchResult, root_moves};
use chessgraph_cnn::Net;
use chessgraph_core::chess::hash;
use chessgraph_core::chess::moves::uci;
use chessgraph_core::chess::rng::SplitMix;

/// A network's player: `cnn:`, `policy:` or `mcts:net=`, as `play` says.
pub struct NetPlayer {
    net: Arc<Net>,
    play: NetPlay,
    model: String,
    /// PUCT's root noise (reset by `ucinewgame`).
    rng: SplitMix,
    control: Control,
}

impl NetPlayer {
    /// The player of `net` (read from the file named `model`), playing as `play` says.
    pub fn new(net: Arc<Net>, play: NetPlay, model: String) -> NetPlayer {
        NetPlayer {
            rng: SplitMix(play.seed()),
            net,
            play,
            model,
            control: Control::default(),
        }
    }

    /// `mcts:net=`: PUCT ([`super::puct`]) from `pos`.
    fn puct(
        &mut self,
        settings: PuctSettings,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let mut stopping = Stopping::new(&self.control, limits);
        let result = puct::search(
            pos,
            history,
            self.net.as_ref(),
            &settings,
            &mut self.rng,
            &mut |done| stopping.out_of_nodes(u64::from(done)) || stopping.should_stop(),
        );
        let best = result.best.expect("the root has a legal move");
        let score = self.net.centipawns(result.value);
        let nodes = u64::from(result.simulations);
        super::one_ply_result(best, score, nodes, stopping.elapsed(), info)
    }

    /// `cnn:`: every move played, the positions after them evaluated in one batch.
    fn one_ply(
        &self,
        pos: &Chess,
        history: &[u64],
        moves: &[Move],
        started: std::time::Instant,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let mut keys = history.to_vec();
        keys.push(hash::key(pos));
        let children: Vec<(Chess, Option<i32>)> = moves
            .iter()
            .map(|&m| super::after_move(pos, &keys, m))
            .collect();
        let open: Vec<&Chess> = children
            .iter()
            .filter(|(_, s)| s.is_none())
            .map(|(c, _)| c)
            .collect();
        let mut values = if open.is_empty() {
            Vec::new()
        } else {
            self.net
                .values(open.into_iter())
                .expect("a loaded value net evaluates any position")
        }
        .into_iter();
        let sign = if pos.turn() == Color::White { 1 } else { -1 };
        let mut best: Option<(i32, Move)> = None;
        for (&m, (_, settled)) in moves.iter().zip(&children) {
            let score = settled.unwrap_or_else(|| {
                let v = values.next().expect("one value per open move");
                sign * self.net.centipawns(v)
            });
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, m));
            }
        }
        let (score, m) = best.expect("at least one move is scored");
        super::one_ply_result(m, score, moves.len() as u64, started.elapsed(), info)
    }

    /// `policy:`: the most probable legal move.
    fn most_probable(
        &self,
        pos: &Chess,
        moves: &[Move],
        started: std::time::Instant,
    ) -> SearchResult {
        let (priors, _) = self
            .net
            .priors(pos, moves)
            .expect("a loaded policy net gives priors for any position");
        let mut best = 0;
        for (i, &p) in priors.iter().enumerate() {
            if p > priors[best] {
                best = i;
            }
        }
        plain_result(Some(moves[best]), started.elapsed())
    }
}

impl Player for NetPlayer {
    fn name(&self) -> String {
        match self.play {
            NetPlay::Puct(settings, _) => format!(
                "mcts:net={},simulations={},c={}",
                self.model, settings.simulations, settings.c
            ),
            play => format!("{}:model={}", play.as_str(), self.model),
        }
    }

    fn control(&self) -> Control {
        self.control.clone()
    }

    fn new_game(&mut self) {
        self.rng = SplitMix(self.play.seed());
    }

    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let started = std::time::Instant::now();
        let mut moves = match root_moves(pos, limits) {
            Ok(moves) => moves,
            Err(none) => return none.result(started.elapsed()),
        };
        moves.sort_by_cached_key(uci);
        match self.play {
            NetPlay::Cnn => self.one_ply(pos, history, &moves, started, info),
            NetPlay::Policy => self.most_probable(pos, &moves, started),
            NetPlay::Puct(settings, _) => self.puct(settings, pos, history, limits, info),
        }
    }
}

impl super::puct::Oracle for Net {
    fn evaluate(&self, pos: &Chess, moves: &[Move]) -> (Vec<f32>, f32) {
        let (priors, value) = self
            .priors(pos, moves)
            .expect("a loaded policy/value net gives priors for any position");
        (priors, value.unwrap_or(0.0))
    }
}
