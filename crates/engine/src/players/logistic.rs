//! `logistic:model=FILE`: the PUC-Rio study's move classifier as a player — the legal move
//! the model of `chessgraph train moves --out FILE` gives the highest probability of being
//! a winner's move. No search; ties by [`model::prefer`]. The model's file and its
//! 192-column encoding of a move are here ([`model`], [`encoding`]); fitting it is the
//! learning crate's (`fit::moves`).

pub mod encoding;
pub mod model;

use std::path::{Path, PathBuf};
use std::time::Instant;

use shakmaty::Chess;

use super::{Player, plain_result};
use crate::search::{Control, Info, Limits, SearchResult, root_moves};
use model::{ModelFileError, MoveModel};

/// Plays the most probable move of a logistic move model.
pub struct LogisticPlayer {
    path: PathBuf,
    model: MoveModel,
    control: Control,
}

impl LogisticPlayer {
    /// Reads the model file at `path`.
    pub fn open(path: &Path) -> Result<LogisticPlayer, ModelFileError> {
        Ok(LogisticPlayer::new(path, MoveModel::read(path)?))
    }

    /// A player of `model`, named after `path`.
    pub fn new(path: &Path, model: MoveModel) -> LogisticPlayer {
        LogisticPlayer {
            path: path.to_owned(),
            model,
            control: Control::default(),
        }
    }
}

impl Player for LogisticPlayer {
    fn name(&self) -> String {
        format!("logistic:model={}", self.path.display())
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
        let start = Instant::now();
        match root_moves(pos, limits) {
            Ok(moves) => plain_result(self.model.best(pos, &moves), start.elapsed()),
            Err(none) => none.result(start.elapsed()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::{Leniency, parse};
    use chessgraph_core::chess::moves::uci;
    use shakmaty::{Move, Position};

    #[test]
    fn plays_the_most_probable_legal_move() {
        // Weights that like leaving e2 and reaching e4 (the mover's squares): 1. e4, and
        // for Black (mirrored) ...e5.
        let mut w = vec![0.0; 192];
        w[64 + 12] = 2.0; // from e2
        w[128 + 28] = 1.0; // to e4
        w[128 + 20] = 0.5; // to e3
        let mut p = LogisticPlayer::new(Path::new("m.json"), MoveModel::from_columns(-3.0, &w));
        assert_eq!(p.name(), "logistic:model=m.json");
        let mut pos = Chess::default();
        let limits = Limits::default();
        let best = p.choose(&pos, &[], &limits, &mut |_| {}).best.unwrap();
        assert_eq!(uci(&best), "e2e4");
        pos.play_unchecked(best);
        let reply = p.choose(&pos, &[], &limits, &mut |_| {}).best.unwrap();
        assert_eq!(uci(&reply), "e7e5");
        // searchmoves restricts the choice.
        let only: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| uci(m) == "e7e6" || uci(m) == "a7a6")
            .collect();
        let limits = Limits {
            searchmoves: only,
            ..Limits::default()
        };
        let r = p.choose(&pos, &[], &limits, &mut |_| {}).best.unwrap();
        assert_eq!(uci(&r), "e7e6");
        // No legal move: no move.
        let mated = parse(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            Leniency::Strict,
        )
        .unwrap();
        let none = p.choose(&mated, &[], &Limits::default(), &mut |_| {});
        assert_eq!(none.best, None);
    }

    #[test]
    fn a_missing_file_is_named() {
        let e = LogisticPlayer::open(Path::new("/no/such/dir/model.json"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("/no/such/dir/model.json"), "{e}");
    }
}
