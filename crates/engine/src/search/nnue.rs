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
//! The tests walk lines of moves and null moves, evaluating some plies and skipping others
//! as the search does, and compare every evaluation with a full refresh; in debug builds
//! every evaluation the search makes is also checked against one.

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
    use crate::eval::Evaluator;
    use crate::nnue::FeatureSet;
    use crate::search::{Limits, Quiescence, Searcher};
    use chessgraph_core::chess::fen::parse_position;

    /// Walks every line of `depth` plies from `pos` through its first moves and a null
    /// move, made as the search makes them, evaluating at even plies and at the leaves
    /// only (the lazy updates cover the plies between), and asserts that each evaluation
    /// equals a refresh. Returns the evaluations compared.
    fn walk(state: &mut NnueState, pos: &Chess, ply: usize, depth: usize) -> usize {
        let mut compared = 0;
        if ply.is_multiple_of(2) || depth == 0 {
            let refreshed = state.net.evaluate(pos);
            let v = state.evaluate(pos, ply);
            assert_eq!(
                v,
                refreshed,
                "ply {ply}: {}",
                chessgraph_core::chess::fen::to_fen(pos)
            );
            compared += 1;
        }
        if depth == 0 {
            return compared;
        }
        for m in pos.legal_moves().iter().take(8) {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            state.make(ply, pos.turn(), Some(*m));
            compared += walk(state, &child, ply + 1, depth - 1);
        }
        if !pos.is_check()
            && let Some(child) = crate::search::pruning::null_move(pos)
        {
            state.make(ply, pos.turn(), None);
            compared += walk(state, &child, ply + 1, depth - 1);
        }
        compared
    }

    /// The incremental evaluation equals a refresh along lines through captures,
    /// promotions, castling, en passant and null moves, for a network without and one with
    /// threat inputs: asserted here, so in release builds too.
    #[test]
    fn incremental_evaluation_equals_a_refresh() {
        let threats =
            crate::nnue::network::tests::random_network_bucketed(FeatureSet::Threats, 32, 8, 5);
        let builtin = Evaluator::builtin("nnue").unwrap();
        for net in [builtin.network().unwrap().clone(), Arc::new(threats)] {
            let mut state = NnueState::new(net);
            let mut compared = 0;
            for fen in FENS {
                let pos = parse_position(fen).unwrap();
                state.set_root(&pos);
                compared += walk(&mut state, &pos, 0, 3);
            }
            assert!(compared > 1000, "{compared}");
        }
    }

    const FENS: [&str; 4] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];

    /// Searches with the built-in network and a threat network; in debug builds
    /// [`NnueState::evaluate`] checks every evaluation the search makes against a refresh,
    /// and the quiescence scores are the static evaluations of their leaves.
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
        for fen in FENS {
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
