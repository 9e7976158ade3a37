//! The network's inputs: one feature per piece, seen from a perspective, and optionally
//! the threat features of [`super::threats`].
//!
//! From White's perspective a piece of colour `c` and role `r` on square `s` is feature
//! `[c ≠ White]·384 + (r − 1)·64 + s`; from Black's, colours are swapped and the board is
//! flipped vertically (`s ^ 56`), so both perspectives read the board "from their own
//! side" and share one weight matrix. A move changes at most four features per
//! perspective (castling: king and rook each leave and arrive), which is what makes the
//! first layer cheap to update.

use serde::Serialize;
use shakmaty::{Color, Move, Piece, Position, Role, Square};

pub use super::inputs::{PIECE_INPUTS, index};
use super::threats::{MAX_THREATS, threats};

/// Most active features of a position under any feature set.
pub const MAX_FEATURES: usize = 32 + MAX_THREATS;

/// Which inputs a network reads (stored in its file as the input count).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureSet {
    /// 768 piece-square inputs.
    Pieces,
    /// The 768 piece-square inputs, then each piece again when it is attacked and when it
    /// is en prise (2,304 inputs; [`super::threats`]).
    Threats,
}

impl FeatureSet {
    /// Both sets, for option parsers.
    pub const ALL: [FeatureSet; 2] = [FeatureSet::Pieces, FeatureSet::Threats];

    /// The set's name (`pieces`, `threats`).
    pub fn as_str(self) -> &'static str {
        match self {
            FeatureSet::Pieces => "pieces",
            FeatureSet::Threats => "threats",
        }
    }

    /// Number of inputs.
    pub fn inputs(self) -> usize {
        match self {
            FeatureSet::Pieces => PIECE_INPUTS,
            FeatureSet::Threats => 3 * PIECE_INPUTS,
        }
    }

    /// The set with `inputs` inputs, if there is one.
    pub fn from_inputs(inputs: usize) -> Option<FeatureSet> {
        [FeatureSet::Pieces, FeatureSet::Threats]
            .into_iter()
            .find(|s| s.inputs() == inputs)
    }
}

/// The same feature seen from the other perspective: colour swapped, board flipped (in
/// any block of 768: threat features mirror like the piece they are about).
#[inline]
pub fn mirror(feature: usize) -> usize {
    let (block, f) = (feature / PIECE_INPUTS, feature % PIECE_INPUTS);
    block * PIECE_INPUTS + (((f + 384) % PIECE_INPUTS) ^ 56)
}

/// The piece features of `pos` from White's perspective, in board order.
pub fn pieces(pos: &impl Position) -> impl Iterator<Item = usize> + '_ {
    pos.board()
        .iter()
        .map(|(sq, piece)| index(Color::White, piece, sq))
}

/// Every active feature of `pos` under `set` from White's perspective: the pieces in board
/// order, then the threat features ascending.
pub fn active(pos: &impl Position, set: FeatureSet) -> impl Iterator<Item = usize> + '_ {
    let threat_list = match set {
        FeatureSet::Pieces => None,
        FeatureSet::Threats => Some(threats(pos.board())),
    };
    pieces(pos).chain(threat_list.into_iter().flat_map(|t| t.into_indices()))
}

/// The pieces a move removes from and adds to the board, in board terms; the caller
/// turns them into features for each perspective.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Pieces that appear: `(piece, square)`.
    pub add: [Option<(Piece, Square)>; 2],
    /// Pieces that disappear.
    pub sub: [Option<(Piece, Square)>; 2],
}

impl Delta {
    /// The changes made by `m` played by `us`.
    pub fn of_move(us: Color, m: &Move) -> Delta {
        let them = !us;
        let mut d = Delta::default();
        match *m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                d.sub[0] = Some((role.of(us), from));
                d.add[0] = Some((promotion.unwrap_or(role).of(us), to));
                if let Some(c) = capture {
                    d.sub[1] = Some((c.of(them), to));
                }
            }
            Move::EnPassant { from, to } => {
                d.sub[0] = Some((Role::Pawn.of(us), from));
                d.add[0] = Some((Role::Pawn.of(us), to));
                d.sub[1] = Some((
                    Role::Pawn.of(them),
                    Square::from_coords(to.file(), from.rank()),
                ));
            }
            Move::Castle { king, rook } => {
                let side = shakmaty::CastlingSide::from_king_side(rook > king);
                d.sub[0] = Some((Role::King.of(us), king));
                d.sub[1] = Some((Role::Rook.of(us), rook));
                d.add[0] = Some((Role::King.of(us), side.king_to(us)));
                d.add[1] = Some((Role::Rook.of(us), side.rook_to(us)));
            }
            Move::Put { role, to } => {
                d.add[0] = Some((role.of(us), to));
            }
        }
        d
    }

    /// Added features from `perspective` (at most two).
    pub fn added(&self, perspective: Color) -> impl Iterator<Item = usize> + '_ {
        self.add
            .iter()
            .flatten()
            .map(move |&(p, sq)| index(perspective, p, sq))
    }

    /// Removed features from `perspective` (at most two).
    pub fn removed(&self, perspective: Color) -> impl Iterator<Item = usize> + '_ {
        self.sub
            .iter()
            .flatten()
            .map(move |&(p, sq)| index(perspective, p, sq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::{Leniency, parse};
    use shakmaty::{Chess, Position};

    fn features_of(pos: &Chess, perspective: Color) -> Vec<usize> {
        let mut v: Vec<usize> = pos
            .board()
            .iter()
            .map(|(sq, p)| index(perspective, p, sq))
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn index_ranges_and_mirror() {
        let pos = Chess::default();
        for (sq, p) in pos.board().iter() {
            let w = index(Color::White, p, sq);
            let b = index(Color::Black, p, sq);
            assert!(w < PIECE_INPUTS && b < PIECE_INPUTS);
            assert_eq!(mirror(w), b);
            assert_eq!(mirror(b), w);
            for block in 1..3 {
                let o = block * PIECE_INPUTS;
                assert_eq!(mirror(o + w), o + b);
            }
        }
        // The start position is symmetric: both perspectives see the same features.
        assert_eq!(
            features_of(&pos, Color::White),
            features_of(&pos, Color::Black)
        );
        // White pawn on e2 from White = black pawn on e7 from Black.
        assert_eq!(
            index(Color::White, Role::Pawn.of(Color::White), Square::E2),
            index(Color::Black, Role::Pawn.of(Color::Black), Square::E7)
        );
    }

    /// Applying a move's delta to the parent's feature set gives the child's, for every
    /// kind of move (captures, promotions, castling both ways, en passant).
    #[test]
    fn deltas_match_recomputed_features() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/2P5/8/8/8/8/5p2/K6k b - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos = parse(fen, Leniency::Strict).unwrap();
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let d = Delta::of_move(pos.turn(), &m);
                for persp in [Color::White, Color::Black] {
                    let mut f = features_of(&pos, persp);
                    for r in d.removed(persp) {
                        let i = f
                            .iter()
                            .position(|&x| x == r)
                            .expect("removed feature present");
                        f.remove(i);
                    }
                    f.extend(d.added(persp));
                    f.sort_unstable();
                    assert_eq!(f, features_of(&child, persp), "{fen} {m}");
                }
                checked += 1;
            }
        }
        assert!(checked > 100);
    }
}
