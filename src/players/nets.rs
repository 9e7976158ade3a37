//! The players of the studies' networks ([`crate::nets`]):
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
//! Ties go to the move whose UCI text sorts first. Both ignore the clock: one forward
//! pass is their whole thinking.

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, Position};

use super::puct::{self, PuctSettings};
use super::stopping::Stopping;
use super::{Player, plain_result};
use crate::chess::hash;
use crate::chess::moves::uci;
use crate::chess::rng::SplitMix;
use crate::nets::Net;
use crate::search::{Control, Info, Limits, Score, SearchResult, root_moves};

/// A one-ply player on a value network.
pub struct CnnPlayer {
    net: Arc<Net>,
    model: String,
    control: Control,
}

impl CnnPlayer {
    /// The player of `net`, read from the file named `model`.
    pub fn new(net: Arc<Net>, model: String) -> CnnPlayer {
        CnnPlayer {
            net,
            model,
            control: Control::default(),
        }
    }
}

impl Player for CnnPlayer {
    fn name(&self) -> String {
        format!("cnn:model={}", self.model)
    }

    fn control(&self) -> Control {
        self.control.clone()
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
        let values = if open.is_empty() {
            Vec::new()
        } else {
            self.net
                .values(open.into_iter())
                .expect("a loaded value net evaluates any position")
        };
        let mut values = values.into_iter();
        let sign = if pos.turn() == Color::White { 1 } else { -1 };
        let mut best: Option<(i32, Move)> = None;
        for (&m, (_, settled)) in moves.iter().zip(&children) {
            let score = settled.unwrap_or_else(|| {
                sign * self
                    .net
                    .centipawns(values.next().expect("one value per open move"))
            });
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, m));
            }
        }
        let (score, m) = best.expect("at least one move is scored");
        super::one_ply_result(m, score, moves.len() as u64, started.elapsed(), info)
    }
}

/// The most probable legal move of a policy network.
pub struct PolicyPlayer {
    net: Arc<Net>,
    model: String,
    control: Control,
}

impl PolicyPlayer {
    /// The player of `net`, read from the file named `model`.
    pub fn new(net: Arc<Net>, model: String) -> PolicyPlayer {
        PolicyPlayer {
            net,
            model,
            control: Control::default(),
        }
    }
}

impl Player for PolicyPlayer {
    fn name(&self) -> String {
        format!("policy:model={}", self.model)
    }

    fn control(&self) -> Control {
        self.control.clone()
    }

    fn choose(
        &mut self,
        pos: &Chess,
        _history: &[u64],
        limits: &Limits,
        _info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let started = std::time::Instant::now();
        let mut moves = match root_moves(pos, limits) {
            Ok(moves) => moves,
            Err(none) => return none.result(started.elapsed()),
        };
        moves.sort_by_cached_key(uci);
        let (priors, _) = self
            .net
            .priors(pos, &moves)
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

impl super::puct::Oracle for Net {
    fn evaluate(&self, pos: &Chess, moves: &[Move]) -> (Vec<f32>, f32) {
        let (priors, value) = self
            .priors(pos, moves)
            .expect("a loaded policy/value net gives priors for any position");
        (priors, value.unwrap_or(0.0))
    }
}

/// `mcts:net=FILE`: PUCT over a policy/value network ([`super::puct`]).
pub struct PuctPlayer {
    net: Arc<Net>,
    model: String,
    settings: PuctSettings,
    seed: u64,
    rng: SplitMix,
    control: Control,
}

impl PuctPlayer {
    /// The player of `net` (read from `model`), searching with `settings`; `seed` draws
    /// the root noise when the settings ask for some.
    pub fn new(net: Arc<Net>, model: String, settings: PuctSettings, seed: u64) -> PuctPlayer {
        PuctPlayer {
            net,
            model,
            settings,
            seed,
            rng: SplitMix(seed),
            control: Control::default(),
        }
    }
}

impl Player for PuctPlayer {
    fn name(&self) -> String {
        format!(
            "mcts:net={},simulations={},c={}",
            self.model, self.settings.simulations, self.settings.c
        )
    }

    fn control(&self) -> Control {
        self.control.clone()
    }

    fn new_game(&mut self) {
        self.rng = SplitMix(self.seed);
    }

    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let mut stopping = Stopping::new(&self.control, limits);
        if let Err(none) = root_moves(pos, limits) {
            return none.result(stopping.elapsed());
        }
        let result = puct::search(
            pos,
            history,
            self.net.as_ref(),
            &self.settings,
            &mut self.rng,
            &mut |done| stopping.out_of_nodes(u64::from(done)) || stopping.should_stop(),
        );
        let best = result.best.or_else(|| pos.legal_moves().first().copied());
        let report = Info {
            depth: 1,
            seldepth: 1,
            multipv: 1,
            score: Score::from_internal(self.net.centipawns(result.value)),
            nodes: u64::from(result.simulations),
            time: stopping.elapsed(),
            hashfull: 0,
            tbhits: 0,
            pv: best.into_iter().collect(),
        };
        info(&report);
        SearchResult {
            best,
            ponder: None,
            score: report.score,
            depth: 1,
            nodes: report.nodes,
            time: report.time,
        }
    }
}
