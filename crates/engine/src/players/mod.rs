//! The studies' players: simple move choosers that the PUC-Rio players study and the
//! graph-features study played against each other, beside the engine itself.
//!
//! Every player implements [`Player`]: given a position, the keys of the game's earlier
//! positions and the UCI limits, it chooses a move. The UCI loop (`chessgraph engine
//! --player SPEC`), `solve` and `tournament` drive any player the same way.
//!
//! A player is named by a spec, `NAME[:key=value,...]` ([`Spec`]):
//!
//! | spec | player |
//! | --- | --- |
//! | `engine[:evaluator=E]` | the engine's full search (the default) |
//! | `random[:seed=S]` | a uniformly random legal move, seeded |
//! | `greedy[:evaluator=E]` | the best move after one ply and a capture search |
//! | `minimax[:depth=D,order=O,evaluator=E]` | plain fixed-depth alpha-beta, depth 4 (the studies' bots); `order=eval` the players study's move order |
//! | `mcts[:iterations=N,c=C,rollout=P,seed=S,evaluator=E]` | UCT Monte Carlo tree search |
//! | `mcts:net=FILE[,simulations=N,c=C,seed=S]` | PUCT on a policy/value network (the neural-network study) |
//! | `logistic:model=FILE` | the most probable move of a `train moves` model (PUC-Rio) |
//! | `cnn:model=FILE` | one ply on a value network's evaluation (PUC-Rio's "CNN") |
//! | `policy:model=FILE` | the most probable legal move of a policy network |
//!
//! Players that take an `evaluator` use the one the command was given (`--evaluator`,
//! default `seed003`, the graph-features study's evaluator) when the spec names none.
//!
//! Keys a player does not know are errors, so a typo never silently plays the defaults.

pub mod greedy;
pub mod logistic;
pub mod mcts;
pub mod minimax;
#[cfg(feature = "cnn")]
pub mod nets;
pub mod puct;
pub mod random;
pub mod spec;
pub mod stopping;

use std::sync::Arc;

use shakmaty::{Chess, Position};

pub use spec::{Spec, SpecError};

use crate::eval::Evaluator;
use crate::search::{Control, Info, Limits, SearchResult, Searcher};

/// Something that chooses moves.
pub trait Player: Send {
    /// The player's spec as it would be written to recreate it (e.g. `random:seed=1`).
    fn name(&self) -> String;

    /// The flags the UCI loop sets to stop a running [`Player::choose`] (every player
    /// should return soon after `stop` is set, with the best move it has).
    fn control(&self) -> Control;

    /// Forgets everything about the current game (UCI `ucinewgame`).
    fn new_game(&mut self) {}

    /// Replaces the evaluator, for players that use one (UCI option `Evaluator`).
    fn set_evaluator(&mut self, _evaluator: Arc<Evaluator>) {}

    /// The engine's searcher, for the UCI options only it has (Hash, MultiPV, ...).
    fn searcher(&mut self) -> Option<&mut Searcher> {
        None
    }

    /// Chooses a move in `pos`; `history` holds the Zobrist keys of the game's earlier
    /// positions (oldest first) for repetition draws. Progress goes to `info`. The result's
    /// `best` is `None` only when `pos` has no legal move.
    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult;
}

/// The engine: iterative deepening alpha-beta with every refinement ([`crate::search`]).
impl Player for Searcher {
    fn name(&self) -> String {
        format!("engine:evaluator={}", self.evaluator().name())
    }

    fn control(&self) -> Control {
        Searcher::control(self)
    }

    fn new_game(&mut self) {
        self.clear();
    }

    fn set_evaluator(&mut self, evaluator: Arc<Evaluator>) {
        Searcher::set_evaluator(self, evaluator);
    }

    fn searcher(&mut self) -> Option<&mut Searcher> {
        Some(self)
    }

    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.search(pos, history, limits, info)
    }
}

/// The engine's hash table (MiB) when its spec names none.
pub const DEFAULT_HASH_MIB: usize = 16;

/// Names of the players [`build`] knows, for help texts and errors.
pub const PLAYER_NAMES: &[&str] = &[
    "engine", "random", "greedy", "minimax", "mcts", "logistic", "cnn", "policy",
];

/// Turns an evaluator spec (built-in name, file, stored name) into an evaluator.
pub type Resolve<'a> = dyn Fn(&str) -> Result<Evaluator, ResolveError> + 'a;

/// What a [`Resolve`] fails with: the resolver's own error (a missing file, a database
/// that cannot be read), which the player's error quotes.
pub type ResolveError = Box<dyn std::error::Error + Send + Sync>;

/// A checked player spec: every key known and every value in range, evaluators
/// resolved — nothing allocated or read yet ([`Settings::build`] does that).
pub enum Settings {
    /// The engine with its evaluator and hash table size (MiB).
    Engine(Arc<Evaluator>, usize),
    /// A seeded random mover.
    Random(u64),
    /// One ply and a capture search.
    Greedy(Arc<Evaluator>),
    /// Fixed-depth alpha-beta and its move order.
    Minimax(u32, minimax::Order, Arc<Evaluator>),
    /// UCT Monte Carlo tree search.
    Mcts(mcts::MctsSettings, Arc<Evaluator>),
    /// A `train moves` model file.
    Logistic(std::path::PathBuf),
    /// A network model file and how it plays.
    Net(NetPlay, std::path::PathBuf),
}

/// How a network plays.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum NetPlay {
    /// One ply on the value head (`cnn:`).
    Cnn,
    /// The most probable move of the policy head (`policy:`).
    Policy,
    /// PUCT on both heads (`mcts:net=`), with its seed.
    Puct(puct::PuctSettings, u64),
}

impl NetPlay {
    /// The player's name in a spec.
    pub fn as_str(self) -> &'static str {
        match self {
            NetPlay::Cnn => "cnn",
            NetPlay::Policy => "policy",
            NetPlay::Puct(..) => "mcts",
        }
    }

    /// The seed of the player's random numbers (PUCT's root noise).
    #[cfg(feature = "cnn")]
    fn seed(self) -> u64 {
        match self {
            NetPlay::Puct(_, seed) => seed,
            _ => 1,
        }
    }

    /// The spec key that names the model file.
    fn key(self) -> &'static str {
        match self {
            NetPlay::Puct(..) => "net",
            _ => "model",
        }
    }
}

/// The `model=` value of `spec`, required.
fn model_path(spec: &Spec, what: &str) -> Result<std::path::PathBuf, SpecError> {
    let path = spec.get("model").unwrap_or_default();
    if path.is_empty() {
        return Err(SpecError::Value {
            player: spec.name.clone(),
            key: "model".into(),
            value: path.into(),
            why: format!("required: {what}"),
        });
    }
    Ok(path.into())
}

impl Settings {
    /// Checks a spec. `default_evaluator` is used by players that take an `evaluator`
    /// key when the spec gives none; `resolve` turns an `evaluator=` value into an
    /// evaluator.
    pub fn check(
        spec: &Spec,
        default_evaluator: Arc<Evaluator>,
        resolve: &Resolve<'_>,
    ) -> Result<Settings, SpecError> {
        let evaluator = |spec: &Spec| -> Result<Arc<Evaluator>, SpecError> {
            match spec.get("evaluator") {
                None => Ok(default_evaluator.clone()),
                Some(e) => resolve(e).map(Arc::new).map_err(|err| SpecError::Value {
                    player: spec.name.clone(),
                    key: "evaluator".into(),
                    value: e.into(),
                    why: chessgraph_core::error::error_chain(&*err),
                }),
            }
        };
        Ok(match spec.name.as_str() {
            "engine" => {
                spec.check_keys(&["evaluator", "hash"])?;
                let hash = spec.parse_or("hash", DEFAULT_HASH_MIB, 1..=16384)?;
                Settings::Engine(evaluator(spec)?, hash)
            }
            "random" => {
                spec.check_keys(&["seed"])?;
                Settings::Random(spec.parse_or("seed", 1u64, 0..=u64::MAX)?)
            }
            "greedy" => {
                spec.check_keys(&["evaluator"])?;
                Settings::Greedy(evaluator(spec)?)
            }
            "minimax" => {
                spec.check_keys(&["depth", "order", "evaluator"])?;
                let depth =
                    spec.parse_or("depth", minimax::DEFAULT_DEPTH, 1..=minimax::MAX_DEPTH)?;
                let order = match spec.get("order") {
                    None => minimax::Order::default(),
                    Some(name) => {
                        minimax::Order::from_name(name).ok_or_else(|| SpecError::Value {
                            player: spec.name.clone(),
                            key: "order".into(),
                            value: name.into(),
                            why: format!("expected {}", minimax::Order::NAMES.join(" or ")),
                        })?
                    }
                };
                Settings::Minimax(depth, order, evaluator(spec)?)
            }
            "mcts" if spec.get("net").is_some() => {
                spec.check_keys(&["net", "simulations", "c", "seed"])?;
                let settings = puct::PuctSettings {
                    simulations: spec.parse_or(
                        "simulations",
                        puct::DEFAULT_SIMULATIONS,
                        1..=puct::MAX_SIMULATIONS,
                    )?,
                    c: spec.parse_or("c", 1.0f32, 0.0..=100.0)?,
                    ..puct::PuctSettings::default()
                };
                let path = spec.get("net").unwrap_or_default();
                let seed = spec.parse_or("seed", 1u64, 0..=u64::MAX)?;
                Settings::Net(NetPlay::Puct(settings, seed), path.into())
            }
            "mcts" => {
                spec.check_keys(&["iterations", "c", "rollout", "seed", "evaluator"])?;
                let settings = mcts::MctsSettings {
                    iterations: spec.parse_or(
                        "iterations",
                        mcts::DEFAULT_ITERATIONS,
                        1..=mcts::MAX_ITERATIONS,
                    )?,
                    c: spec.parse_or("c", mcts::DEFAULT_C, 0.0..=100.0)?,
                    rollout: spec.parse_or("rollout", mcts::DEFAULT_ROLLOUT, 0..=1000)?,
                    seed: spec.parse_or("seed", 1u64, 0..=u64::MAX)?,
                };
                Settings::Mcts(settings, evaluator(spec)?)
            }
            "logistic" => {
                spec.check_keys(&["model"])?;
                Settings::Logistic(model_path(
                    spec,
                    "a model file of `chessgraph train moves --out`",
                )?)
            }
            "cnn" | "policy" => {
                spec.check_keys(&["model"])?;
                let play = if spec.name == "cnn" {
                    NetPlay::Cnn
                } else {
                    NetPlay::Policy
                };
                Settings::Net(
                    play,
                    model_path(spec, "a model file of `chessgraph train cnn`")?,
                )
            }
            other => return Err(SpecError::UnknownPlayer(other.to_owned())),
        })
    }

    /// Makes the player: allocates the engine's hash table, reads a model file.
    pub fn build(self) -> Result<Box<dyn Player>, SpecError> {
        Ok(match self {
            Settings::Engine(evaluator, hash) => {
                let searcher =
                    Searcher::try_new(evaluator, hash).map_err(|why| SpecError::Value {
                        player: "engine".into(),
                        key: "hash".into(),
                        value: hash.to_string(),
                        why: why.to_string(),
                    })?;
                Box::new(searcher)
            }
            Settings::Random(seed) => Box::new(random::RandomPlayer::new(seed)),
            Settings::Greedy(e) => Box::new(greedy::GreedyPlayer::new(e)),
            Settings::Minimax(depth, order, e) => {
                Box::new(minimax::MinimaxPlayer::with_order(depth, order, e))
            }
            Settings::Mcts(settings, e) => Box::new(mcts::MctsPlayer::new(settings, e)),
            Settings::Logistic(path) => {
                let p = logistic::LogisticPlayer::open(&path).map_err(|e| SpecError::Value {
                    player: "logistic".into(),
                    key: "model".into(),
                    value: path.display().to_string(),
                    why: e.to_string(),
                })?;
                Box::new(p)
            }
            Settings::Net(play, path) => net_player(play, &path)?,
        })
    }
}

/// Reads the network model file a network player plays with, checking it has the heads
/// that player needs.
#[cfg(feature = "cnn")]
fn net_player(play: NetPlay, path: &std::path::Path) -> Result<Box<dyn Player>, SpecError> {
    let net = chessgraph_cnn::Net::load(path).map_err(|e| SpecError::Value {
        player: play.as_str().into(),
        key: play.key().into(),
        value: path.display().to_string(),
        why: e.to_string(),
    })?;
    network_player(play, Arc::new(net), path.display().to_string())
}

/// The player `play` of a loaded network (called `model` in its name and errors), if the
/// network has the heads that player needs.
#[cfg(feature = "cnn")]
pub fn network_player(
    play: NetPlay,
    net: Arc<chessgraph_cnn::Net>,
    model: String,
) -> Result<Box<dyn Player>, SpecError> {
    let refuse = |why: String| SpecError::Value {
        player: play.as_str().into(),
        key: play.key().into(),
        value: model.clone(),
        why,
    };
    let arch = net.arch();
    let (value, policy) = (arch.has_value(), arch.has_policy());
    Ok(match play {
        NetPlay::Cnn if value => Box::new(nets::NetPlayer::new(net, play, model)),
        NetPlay::Policy if policy => Box::new(nets::NetPlayer::new(net, play, model)),
        NetPlay::Puct(..) if value && policy => Box::new(nets::NetPlayer::new(net, play, model)),
        NetPlay::Puct(..) => {
            return Err(refuse(format!(
                "PUCT needs a policy and a value head; a {} network has not both",
                arch.as_str()
            )));
        }
        _ => {
            let head = if play == NetPlay::Cnn {
                "value"
            } else {
                "policy"
            };
            return Err(refuse(format!(
                "a {} network has no {head} head",
                arch.as_str()
            )));
        }
    })
}

/// Without the `nets` feature there is no network to play.
#[cfg(not(feature = "cnn"))]
fn net_player(play: NetPlay, path: &std::path::Path) -> Result<Box<dyn Player>, SpecError> {
    Err(SpecError::Value {
        player: play.as_str().into(),
        key: play.key().into(),
        value: path.display().to_string(),
        why: "this chessgraph was built without the `nets` feature".into(),
    })
}

/// Builds the player a spec names ([`Settings::check`], then [`Settings::build`]).
pub fn build(
    spec: &Spec,
    default_evaluator: Arc<Evaluator>,
    resolve: &Resolve<'_>,
) -> Result<Box<dyn Player>, SpecError> {
    Settings::check(spec, default_evaluator, resolve)?.build()
}

/// The position after `m` in `pos` and, when the game is settled there, the move's score
/// for the mover (internal units): a mate in one, or 0 for a stalemate, a draw by rule or
/// a repetition of an earlier position (`keys`: the game's keys up to `pos`, its own last).
/// The one-ply players' rule.
pub fn after_move(pos: &Chess, keys: &[u64], m: shakmaty::Move) -> (Chess, Option<i32>) {
    let mut child = pos.clone();
    child.play_unchecked(m);
    if child.legal_moves().is_empty() {
        let score = if child.is_check() {
            crate::search::MATE - 1
        } else {
            0
        };
        return (child, Some(score));
    }
    let key = chessgraph_core::chess::hash::key_after(pos, keys[keys.len() - 1], m, &child);
    let drawn = chessgraph_core::chess::game::drawn_in_tree(&child, keys, key);
    (child, drawn.then_some(0))
}

/// The result of a one-ply choice: `m` with `score` (internal units, mover's view) after
/// `nodes` positions in `time`, reported to `info` as depth 1.
pub fn one_ply_result(
    m: shakmaty::Move,
    score: i32,
    nodes: u64,
    time: std::time::Duration,
    info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let report = Info {
        depth: 1,
        seldepth: 1,
        multipv: 1,
        score: crate::search::Score::from_internal(score),
        nodes,
        time,
        hashfull: 0,
        tbhits: 0,
        pv: vec![m],
    };
    info(&report);
    SearchResult {
        best: Some(m),
        ponder: None,
        score: report.score,
        depth: 1,
        nodes,
        time,
    }
}

/// The result of a choice made without a search: `best` with a zero score and no nodes.
pub fn plain_result(best: Option<shakmaty::Move>, time: std::time::Duration) -> SearchResult {
    SearchResult {
        best,
        ponder: None,
        score: crate::search::Score::Cp(0),
        depth: 0,
        nodes: 0,
        time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(s: &str) -> Result<Evaluator, ResolveError> {
        Ok(Evaluator::by_name_or_path(s)?)
    }

    fn seed003() -> Arc<Evaluator> {
        Arc::new(Evaluator::builtin("seed003").unwrap())
    }

    #[test]
    fn builds_known_players_and_refuses_the_rest() {
        let p = build(&Spec::parse("random:seed=5").unwrap(), seed003(), &resolve).unwrap();
        assert_eq!(p.name(), "random:seed=5");
        let p = build(
            &Spec::parse("engine:evaluator=material").unwrap(),
            seed003(),
            &resolve,
        )
        .unwrap();
        assert_eq!(p.name(), "engine:evaluator=material");
        let e = build(&Spec::parse("nobody").unwrap(), seed003(), &resolve)
            .err()
            .unwrap();
        assert!(e.to_string().contains("unknown player \"nobody\""), "{e}");
        let e = build(&Spec::parse("random:sede=5").unwrap(), seed003(), &resolve)
            .err()
            .unwrap();
        assert!(e.to_string().contains("sede"), "{e}");
        let e = build(
            &Spec::parse("engine:evaluator=no-such-thing").unwrap(),
            seed003(),
            &resolve,
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("no-such-thing"), "{e}");
    }

    #[test]
    fn builds_the_studies_players_and_their_names_rebuild_them() {
        for (spec, name) in [
            ("greedy", "greedy:evaluator=seed003"),
            ("minimax", "minimax:depth=4,evaluator=seed003"),
            (
                "minimax:evaluator=material,depth=2",
                "minimax:depth=2,evaluator=material",
            ),
            (
                "minimax:order=eval",
                "minimax:depth=4,order=eval,evaluator=seed003",
            ),
            (
                "minimax:order=captures",
                "minimax:depth=4,evaluator=seed003",
            ),
            (
                "mcts",
                "mcts:iterations=3000,c=2,rollout=6,seed=1,evaluator=seed003",
            ),
            (
                "mcts:c=1.5,seed=9",
                "mcts:iterations=3000,c=1.5,rollout=6,seed=9,evaluator=seed003",
            ),
        ] {
            let p = build(&Spec::parse(spec).unwrap(), seed003(), &resolve).unwrap();
            assert_eq!(p.name(), name);
            let again = build(&Spec::parse(name).unwrap(), seed003(), &resolve).unwrap();
            assert_eq!(again.name(), name);
        }
        for bad in [
            "minimax:depth=0",
            "minimax:depth=33",
            "minimax:seed=1",
            "minimax:order=best",
            "mcts:iterations=0",
            "mcts:c=-1",
            "mcts:rollout=x",
            "greedy:depth=2",
        ] {
            let spec = Spec::parse(bad).unwrap();
            assert!(build(&spec, seed003(), &resolve).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_player_scores_a_mated_root_minus_mate_and_a_stalemate_zero() {
        use crate::search::{MATE, Score};
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model.json");
        crate::players::logistic::model::MoveModel::from_columns(0.0, &[0.0; 192])
            .write(&model)
            .unwrap();
        let logistic = format!("logistic:model={}", model.display());
        let mated: Chess = chessgraph_core::chess::fen::parse(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            chessgraph_core::chess::fen::Leniency::Strict,
        )
        .unwrap();
        let stalemate: Chess = chessgraph_core::chess::fen::parse(
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            chessgraph_core::chess::fen::Leniency::Strict,
        )
        .unwrap();
        for spec in ["engine", "random", "greedy", "minimax", "mcts", &logistic] {
            let mut p = build(&Spec::parse(spec).unwrap(), seed003(), &resolve).unwrap();
            for (pos, score) in [(&mated, -MATE), (&stalemate, 0)] {
                let r = p.choose(pos, &[], &Limits::default(), &mut |_| {});
                assert_eq!(r.best, None, "{spec}");
                assert_eq!(r.score, Score::from_internal(score), "{spec}");
            }
        }
    }

    #[test]
    fn engine_player_moves_legally() {
        let mut p = build(&Spec::parse("engine").unwrap(), seed003(), &resolve).unwrap();
        let pos = Chess::default();
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let r = p.choose(&pos, &[], &limits, &mut |_| {});
        assert!(pos.is_legal(r.best.unwrap()));
    }
}
