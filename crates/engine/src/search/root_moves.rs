//! The root's moves, one rule for the engine and every player: the legal moves, kept to
//! UCI `go searchmoves` when it names any, and the result when none is left — mated
//! (−[`MATE`]) or stalemated (0).

use std::time::Duration;

use shakmaty::{Chess, MoveList, Position};

use super::{Limits, MATE, Score, SearchResult};

/// A root without a move to search: the score it is worth, internal units (side to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoMove(pub i32);

impl NoMove {
    /// The search result of this root: no move, no nodes, its score.
    pub fn result(self, time: Duration) -> SearchResult {
        SearchResult {
            best: None,
            ponder: None,
            score: Score::from_internal(self.0),
            depth: 0,
            nodes: 0,
            time,
        }
    }
}

/// The moves to search at `root`: its legal moves in generation order, only those of
/// `limits.searchmoves` when that is not empty. No move left gives [`NoMove`]: −[`MATE`]
/// when the side to move is in check, else 0 (stalemate, or a `searchmoves` list of no
/// legal move).
pub fn root_moves(root: &Chess, limits: &Limits) -> Result<MoveList, NoMove> {
    let mut moves = root.legal_moves();
    if !limits.searchmoves.is_empty() {
        moves.retain(|m| limits.searchmoves.contains(m));
    }
    if moves.is_empty() {
        Err(NoMove(if root.is_check() { -MATE } else { 0 }))
    } else {
        Ok(moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::{Leniency, parse};

    #[test]
    fn mated_stalemated_and_filtered_roots() {
        let mated: Chess = parse(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            Leniency::Strict,
        )
        .unwrap();
        assert_eq!(root_moves(&mated, &Limits::default()), Err(NoMove(-MATE)));
        let stalemate: Chess = parse("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Leniency::Strict).unwrap();
        assert_eq!(root_moves(&stalemate, &Limits::default()), Err(NoMove(0)));
        assert_eq!(
            NoMove(-MATE).result(Duration::ZERO).score,
            Score::Mate(0),
            "mated now"
        );
        let start = Chess::default();
        assert_eq!(root_moves(&start, &Limits::default()).unwrap().len(), 20);
        let e4 = start
            .legal_moves()
            .into_iter()
            .find(|m| m.to().to_string() == "e4")
            .unwrap();
        let limits = Limits {
            searchmoves: vec![e4],
            ..Limits::default()
        };
        assert_eq!(root_moves(&start, &limits).unwrap().as_slice(), &[e4]);
    }
}
