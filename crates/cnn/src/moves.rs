//! AlphaZero's move encoding: 8 × 8 × 73 = 4,672 policy outputs.
//!
//! A move is its from-square (64) and one of 73 move planes:
//!
//! * 0..56 — "queen moves": direction × distance, `direction · 7 + (distance − 1)`, the
//!   directions N, NE, E, SE, S, SW, W, NW. Rook, bishop, king, pawn and queen moves,
//!   castling (the king's two-square move, as UCI writes it) and promotions to a queen
//!   are all queen moves.
//! * 56..64 — knight moves, in the order of [`KNIGHT_STEPS`].
//! * 64..73 — under-promotions: `64 + 3 · piece + (file step + 1)`, piece knight 0,
//!   bishop 1, rook 2, file step −1, 0, +1.
//!
//! As the input planes ([`super::encode`]), squares are absolute (White's side of the
//! board), so a Black pawn push goes "S". The policy index is `plane · 64 + from`: the
//! order of a convolution's `(73, 8, 8)` output flattened.

use shakmaty::{Move, Role, Square};

/// Policy outputs.
pub const POLICY_LEN: usize = 73 * 64;

/// The eight queen directions as (file step, rank step): N, NE, E, SE, S, SW, W, NW.
const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The eight knight steps as (file step, rank step), in plane order 56..64.
pub const KNIGHT_STEPS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// The from- and to-square of `m` as UCI writes it (castling: the king's two squares).
fn squares(m: &Move) -> (Square, Square) {
    match *m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() { 6 } else { 2 };
            (
                king,
                Square::from_coords(shakmaty::File::new(file), king.rank()),
            )
        }
        _ => (m.from().expect("a board move has a from-square"), m.to()),
    }
}

/// The policy index (0..[`POLICY_LEN`]) of a legal move of standard chess.
///
/// # Panics
///
/// On a drop (not a move of chess).
pub fn policy_index(m: &Move) -> usize {
    let (from, to) = squares(m);
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    let plane = match m.promotion() {
        Some(role @ (Role::Knight | Role::Bishop | Role::Rook)) => {
            let piece = match role {
                Role::Knight => 0,
                Role::Bishop => 1,
                _ => 2,
            };
            64 + 3 * piece + (df + 1) as usize
        }
        _ => {
            if let Some(k) = KNIGHT_STEPS.iter().position(|&s| s == (df, dr)) {
                56 + k
            } else {
                let distance = df.abs().max(dr.abs());
                let dir = (df.signum(), dr.signum());
                let d = DIRECTIONS
                    .iter()
                    .position(|&s| s == dir)
                    .expect("a move of chess is a queen or knight move");
                d * 7 + (distance - 1) as usize
            }
        }
    };
    plane * 64 + usize::from(from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;
    use chessgraph_core::chess::moves::parse_uci;
    use shakmaty::{Chess, Position};

    fn index(fen: &str, uci: &str) -> usize {
        let pos = parse_position(fen).unwrap();
        policy_index(&parse_uci(&pos, uci).unwrap())
    }

    #[test]
    fn known_indices() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        // e2e4: north, distance 2 → plane 1, from e2 = 12.
        assert_eq!(index(start, "e2e4"), 64 + 12);
        // g1f3: knight step (-1, +2) → plane 56 + 7, from g1 = 6.
        assert_eq!(index(start, "g1f3"), 63 * 64 + 6);
        // White castles short: the king goes east two squares.
        let castle = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
        assert_eq!(index(castle, "e1g1"), (2 * 7 + 1) * 64 + 4);
        // Under-promotion to a rook capturing toward the a-file from b7.
        let promo = "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(index(promo, "b7a8r"), (64 + 6) * 64 + 49);
        // Promotion to a queen is a queen move (north, distance 1).
        assert_eq!(index(promo, "b7b8q"), 49);
    }

    #[test]
    fn legal_moves_have_distinct_indices() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPpP/R3K2R b KQkq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/8/8/8/1p6/R3K3 b - - 0 1",
        ] {
            let pos = parse_position(fen).unwrap();
            let mut seen = std::collections::HashSet::new();
            for m in pos.legal_moves() {
                let i = policy_index(&m);
                assert!(i < POLICY_LEN);
                assert!(seen.insert(i), "{fen}: {m} shares index {i}");
            }
        }
        let _ = Chess::default();
    }
}
