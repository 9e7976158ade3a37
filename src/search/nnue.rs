//! The search's NNUE state: one accumulator per ply, updated lazily.
//!
//! Making a move only records it for the child's ply; the accumulator of a ply is brought
//! up to date when that ply is evaluated, from the deepest ply of the current line that is
//! still valid. Nodes that are never evaluated (transposition-table cutoffs, the interior
//! nodes past their static evaluation) cost nothing, and every evaluated node costs one
//! update per move since its evaluated ancestor — usually exactly one.
//!
//! A network with threat inputs gets the evaluated ply's threat features in the same pass
//! as its move (the plies between keep their evaluated ancestor's), so the accumulator
//! holds every feature and the output layer reads it alone.
//!
//! In debug builds every evaluation is checked against a full refresh, so the test suite
//! proves the incremental path on whatever positions its searches reach.

use std::sync::Arc;

use shakmaty::{Chess, Color, Move, Position};

use super::MAX_PLY;
use crate::nnue::{AccumulatorStack, Network};

/// Accumulators of the current line.
#[derive(Clone, Debug)]
pub struct NnueState {
    net: Arc<Network>,
    stack: AccumulatorStack,
    /// `moves[p]` led from ply `p − 1` to ply `p` (mover, move; `None`: a null move).
    moves: Vec<(Color, Option<Move>)>,
    /// Plies `0..=valid` hold the accumulators of the current line (with a threat
    /// network, a ply not yet evaluated holds its evaluated ancestor's threat features).
    valid: usize,
}

impl NnueState {
    /// State for `net`.
    pub fn new(net: Arc<Network>) -> NnueState {
        NnueState {
            stack: AccumulatorStack::new(&net, MAX_PLY + 2),
            moves: vec![(Color::White, None); MAX_PLY + 2],
            net,
            valid: 0,
        }
    }

    /// The tree starts at `root` (ply 0).
    pub fn set_root(&mut self, root: &Chess) {
        self.stack.refresh(&self.net, 0, root);
        self.valid = 0;
    }

    /// `us` played `m` (or a null move when `None`) at ply `ply`.
    #[inline]
    pub fn make(&mut self, ply: usize, us: Color, m: Option<Move>) {
        self.moves[ply + 1] = (us, m);
        self.valid = self.valid.min(ply);
    }

    /// The evaluation of `pos`, the position at ply `ply` of the current line, in
    /// centipawns from the side to move's view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        while self.valid + 1 < ply {
            let p = self.valid;
            match self.moves[p + 1] {
                (us, Some(m)) => self.stack.push_move(&self.net, p, us, &m),
                (_, None) => self.stack.push_null(p),
            }
            self.valid = p + 1;
        }
        if self.valid < ply {
            let (us, m) = self.moves[ply];
            self.stack
                .push_evaluated(&self.net, ply - 1, us, m.as_ref(), pos.board());
            self.valid = ply;
        } else {
            self.stack.update_threats(&self.net, ply, pos.board());
        }
        let pieces = pos.board().occupied().count() as u32;
        let v = self.stack.evaluate(&self.net, ply, pos.turn(), pieces);
        debug_assert_eq!(
            v,
            self.net.evaluate(pos),
            "incremental NNUE evaluation differs from a refresh at ply {ply}"
        );
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_position;
    use crate::eval::Evaluator;
    use crate::nnue::FeatureSet;
    use crate::search::{Limits, Quiescence, Searcher};

    /// Searches with the built-in network through captures, promotions, castling, en
    /// passant and null moves; the debug assertion in [`NnueState::evaluate`] compares
    /// every evaluation with a refresh, and the scores are the trainer's (same network).
    #[test]
    fn searches_evaluate_incrementally_like_a_refresh() {
        let threats =
            crate::nnue::network::tests::random_network_bucketed(FeatureSet::Threats, 32, 8, 5);
        searches_like_a_refresh(Arc::new(Evaluator::builtin("nnue").unwrap()));
        searches_like_a_refresh(Arc::new(Evaluator::from_network("threats", threats)));
    }

    fn searches_like_a_refresh(e: Arc<Evaluator>) {
        let mut searcher = Searcher::new(e.clone(), 4);
        let mut q = Quiescence::new(e.clone());
        let mut nodes = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = parse_position(fen).unwrap();
            let limits = Limits {
                depth: Some(4),
                ..Limits::default()
            };
            let r = searcher.search(&pos, &[], &limits, &mut |_| {});
            assert!(r.best.is_some(), "{fen}");
            nodes += r.nodes;
            let (v, leaf) = q.leaf(&pos);
            // The quiescence score is the static evaluation of the leaf it ends in.
            if !leaf.is_check() {
                assert_eq!(v, e.evaluate(&leaf), "{fen}");
            }
        }
        assert!(nodes > 1000, "{nodes}");
    }
}
