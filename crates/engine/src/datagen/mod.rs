//! Self-play data generation: the engine plays itself at a fixed number of nodes per move,
//! and every position it searched becomes a training position labelled with the search's
//! score (White's view) and the game's result.
//!
//! As the field does it (Stockfish's and bullet's data pipelines): games start from
//! distinct openings ([`opening`]), are adjudicated (a win once the score stays beyond a
//! threshold for some plies, a draw by rule or by length), and positions whose label says
//! little about a static evaluation are filtered out and counted: in check, best move a
//! capture or promotion (the score is that of a tactic, not of the position), or a mate
//! score.

pub mod opening;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use shakmaty::{Chess, Color, Position};

use crate::eval::Evaluator;
use crate::search::{Limits, Score, Searcher};
use chessgraph_core::chess::fen::to_fen;
use chessgraph_core::chess::moves::is_quiet;
use chessgraph_core::chess::{game, hash};
use chessgraph_core::data::{GameInfo, GameResult, Label, Row};

use opening::OpeningBook;

/// A search of `nodes` soft nodes stops, whatever its iteration, at this many times as many.
pub const HARD_NODES_FACTOR: u64 = 8;

/// How games are played and positions kept.
#[derive(Clone, Debug, Serialize)]
pub struct Options {
    /// Nodes per move: a soft limit (no new iteration after it; see [`HARD_NODES_FACTOR`]).
    pub nodes: u64,
    /// Depth per move instead of nodes (when set).
    pub depth: Option<u32>,
    /// Hash table per worker, MiB.
    pub hash_mib: usize,
    /// Adjudicate a win once |score| ≥ this many centipawns …
    pub win_cp: i32,
    /// … for this many consecutive plies (the score of both sides' searches agreeing).
    pub win_plies: u32,
    /// Adjudicate a draw once |score| ≤ this many centipawns …
    pub draw_cp: i32,
    /// … for this many consecutive plies, after ply [`Options::draw_after`].
    pub draw_plies: u32,
    /// No draw adjudication before this ply.
    pub draw_after: u32,
    /// Games longer than this many plies are drawn.
    pub max_plies: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            nodes: 5000,
            depth: None,
            hash_mib: 16,
            win_cp: 1000,
            win_plies: 6,
            draw_cp: 10,
            draw_plies: 12,
            draw_after: 80,
            max_plies: 400,
        }
    }
}

/// Why positions were left out, and how many were kept.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Positions searched.
    pub searched: u64,
    /// Kept as training positions.
    pub kept: u64,
    /// Left out: side to move in check.
    pub in_check: u64,
    /// Left out: best move a capture or promotion.
    pub tactical: u64,
    /// Left out: mate score.
    pub mate_score: u64,
}

impl Counts {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &Counts) {
        self.searched += other.searched;
        self.kept += other.kept;
        self.in_check += other.in_check;
        self.tactical += other.tactical;
        self.mate_score += other.mate_score;
    }
}

/// How a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Ending {
    /// Checkmate on the board.
    Checkmate,
    /// Stalemate, insufficient material, 50-move rule or threefold repetition.
    DrawByRule,
    /// The win adjudication.
    WinAdjudicated,
    /// The draw adjudication.
    DrawAdjudicated,
    /// The ply cap.
    Length,
}

impl Ending {
    /// The ending in words, for people: "checkmate", "draw by rule", …
    pub fn describe(self) -> &'static str {
        match self {
            Ending::Checkmate => "checkmate",
            Ending::DrawByRule => "draw by rule",
            Ending::WinAdjudicated => "win adjudicated",
            Ending::DrawAdjudicated => "draw adjudicated",
            Ending::Length => "draw at the ply cap",
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1-based index of the game in its source.
    pub index: u64,
    /// FEN of the start position.
    pub start_fen: String,
    /// Result.
    pub result: GameResult,
    /// How it ended.
    pub ending: Ending,
    /// Plies played after the opening.
    pub plies: u32,
    /// Kept positions: the position, White-view score, ply.
    pub positions: Vec<(Chess, i32, u32)>,
    /// Filter counts.
    pub counts: Counts,
}

impl Game {
    /// The game as the import writer's rows (result attached to every position).
    pub fn rows(&self) -> (GameInfo, Vec<Row>) {
        let info = GameInfo {
            line: self.index,
            white: Some("chessgraph datagen".into()),
            black: Some("chessgraph datagen".into()),
            event: Some("datagen".into()),
            date: None,
            result: Some(self.result),
            start_fen: Some(self.start_fen.clone()),
        };
        let rows = self
            .positions
            .iter()
            .map(|(pos, score, ply)| Row {
                result: Some(self.result),
                ply: Some(*ply),
                ..Row::new(self.index, pos, &to_fen(pos), Label::Cp(*score))
            })
            .collect();
        (info, rows)
    }
}

/// Plays one game from `start` with `searcher` (cleared first).
pub fn play_game(searcher: &mut Searcher, index: u64, start: Chess, opts: &Options) -> Game {
    searcher.clear();
    let start_fen = chessgraph_core::chess::fen::to_fen(&start);
    let mut pos = start;
    let mut keys = vec![hash::key(&pos)];
    let mut counts = Counts::default();
    let mut positions = Vec::new();
    let (mut win_run, mut draw_run) = (0u32, 0u32);
    let mut last_sign = 0i32;
    // A soft node limit, as the field generates data: the iteration that passes it
    // finishes (up to HARD_NODES_FACTOR times as many nodes), so every move is a whole
    // iteration's choice and the label a whole iteration's score.
    let limits = Limits {
        soft_nodes: opts.depth.is_none().then_some(opts.nodes),
        nodes: opts
            .depth
            .is_none()
            .then_some(opts.nodes.saturating_mul(HARD_NODES_FACTOR)),
        depth: opts.depth,
        ..Limits::default()
    };
    let mut ply = 0u32;
    let (result, ending) = loop {
        if let Some(end) = game::outcome(&pos, &keys[..keys.len() - 1]) {
            break match end.winner {
                Some(c) => (winner(c), Ending::Checkmate),
                None => (GameResult::Draw, Ending::DrawByRule),
            };
        }
        if ply >= opts.max_plies {
            break (GameResult::Draw, Ending::Length);
        }
        let r = searcher.search(&pos, &keys[..keys.len() - 1], &limits, &mut |_| {});
        let Some(best) = r.best else {
            break (GameResult::Draw, Ending::DrawByRule);
        };
        counts.searched += 1;
        let white = pos.turn() == Color::White;
        // White-view score; mates count as beyond any threshold.
        let (white_cp, is_mate) = match r.score {
            Score::Cp(v) => (if white { v } else { -v }, false),
            Score::Mate(n) => {
                let v = if (n > 0) == white { 30_000 } else { -30_000 };
                (v, true)
            }
        };
        if pos.is_check() {
            counts.in_check += 1;
        } else if !is_quiet(best) {
            counts.tactical += 1;
        } else if is_mate {
            counts.mate_score += 1;
        } else {
            counts.kept += 1;
            positions.push((pos.clone(), white_cp, ply));
        }
        // Adjudication on the searched score.
        let sign = white_cp.signum();
        if white_cp.abs() >= opts.win_cp && sign == last_sign {
            win_run += 1;
        } else if white_cp.abs() >= opts.win_cp {
            win_run = 1;
        } else {
            win_run = 0;
        }
        last_sign = sign;
        if white_cp.abs() <= opts.draw_cp && ply >= opts.draw_after {
            draw_run += 1;
        } else {
            draw_run = 0;
        }
        if win_run >= opts.win_plies {
            break (
                winner(if sign > 0 { Color::White } else { Color::Black }),
                Ending::WinAdjudicated,
            );
        }
        if draw_run >= opts.draw_plies {
            break (GameResult::Draw, Ending::DrawAdjudicated);
        }
        pos.play_unchecked(best);
        keys.push(hash::key(&pos));
        ply += 1;
    };
    Game {
        index,
        start_fen,
        result,
        ending,
        plies: ply,
        positions,
        counts,
    }
}

fn winner(c: Color) -> GameResult {
    match c {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    }
}

/// Plays games `todo` on `threads` workers, handing each finished game to `sink` on the
/// calling thread (which owns the database). Stops early when `sink` returns an error, or
/// when the opening book runs out; the error is the sink's.
pub fn run<E>(
    evaluator: Arc<Evaluator>,
    book: &OpeningBook,
    todo: &[u64],
    threads: usize,
    opts: &Options,
    sink: &mut dyn FnMut(Game) -> Result<(), E>,
) -> Result<(), E> {
    let next = AtomicU64::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Game>(threads * 2);
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let evaluator = evaluator.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let mut searcher = Searcher::new(evaluator, opts.hash_mib);
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&index) = todo.get(i) else { break };
                    let Some(start) = book.start(index) else {
                        continue;
                    };
                    let game = play_game(&mut searcher, index, start, opts);
                    if tx.send(game).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for game in rx {
            if let Err(e) = sink(game) {
                stop.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;
    use opening::Openings;

    fn searcher() -> Searcher {
        Searcher::new(Arc::new(Evaluator::builtin("material").unwrap()), 1)
    }

    #[test]
    fn a_won_position_is_adjudicated_and_filtered() {
        let opts = Options {
            nodes: 300,
            ..Options::default()
        };
        // White has an extra queen: the score passes 1000 cp at once.
        let pos = parse_position("4k3/8/8/8/8/8/3QP3/4K3 w - - 0 1").unwrap();
        let game = play_game(&mut searcher(), 1, pos, &opts);
        assert_eq!(game.result, GameResult::WhiteWins);
        assert!(matches!(
            game.ending,
            Ending::WinAdjudicated | Ending::Checkmate
        ));
        let c = game.counts;
        assert_eq!(c.searched, c.kept + c.in_check + c.tactical + c.mate_score);
        assert_eq!(game.positions.len() as u64, c.kept);
        for (p, score, _) in &game.positions {
            let fen = to_fen(p);
            assert!(!p.is_check(), "{fen}");
            assert!(*score > 0, "{fen} {score}");
        }
    }

    #[test]
    fn bare_kings_are_a_draw_by_rule() {
        let pos = parse_position("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let game = play_game(&mut searcher(), 1, pos, &Options::default());
        assert_eq!(
            (game.result, game.ending, game.plies),
            (GameResult::Draw, Ending::DrawByRule, 0)
        );
    }

    #[test]
    fn games_from_random_openings_reach_the_sink() {
        let book = OpeningBook::new(Openings::Random(8), 1, []);
        let opts = Options {
            nodes: 200,
            max_plies: 40,
            ..Options::default()
        };
        let mut games = Vec::new();
        run(
            Arc::new(Evaluator::builtin("material").unwrap()),
            &book,
            &[1, 2, 3, 4],
            2,
            &opts,
            &mut |g| -> Result<(), std::convert::Infallible> {
                games.push(g);
                Ok(())
            },
        )
        .unwrap();
        games.sort_by_key(|g| g.index);
        assert_eq!(
            games.iter().map(|g| g.index).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        for g in &games {
            assert!(g.plies <= 40);
            assert!(!g.positions.is_empty());
        }
    }
}
