//! Threat inputs: the attack graph's first fact about each piece, as network features.
//!
//! A network of 768 piece-square inputs cannot see that a piece is attacked: that is a
//! relation between two pieces, and one hidden layer learns relations only by spending
//! units on each pattern. The scores a network learns from are search scores, and the
//! commonest thing a search sees that a static evaluation does not is a piece that can be
//! taken. So the `threats` feature set adds, for every piece, two more features in the
//! same colour × role × square layout (the [`super::inputs::index`] of the piece, offset
//! by a block):
//!
//! - block 1, **attacked**: an enemy piece attacks its square (for a king: check);
//! - block 2, **en prise**: attacked by a cheaper enemy piece, or attacked and not defended
//!   (pawn 1, knight and bishop 3, rook 5, queen 9; kings are never en prise).
//!
//! Attacks are the board's pseudo-attacks (pins ignored, no x-rays), as in `analyze`'s
//! graph. The features depend on the whole board, so a move can change many of them; the
//! engine recomputes them at each evaluated node from per-side attack maps (about 16
//! table lookups a side), as bitboards ([`ThreatBoards`]), and updates the accumulator by
//! the difference from those it already holds (the search's NNUE state).

use shakmaty::{Bitboard, Board, Color, Role, Square, attacks};

use super::inputs::PIECE_INPUTS;

/// Most threat features a position can have: every piece but the kings en prise, and all
/// attacked (32 + 30).
pub const MAX_THREATS: usize = 62;

/// A position's threat features from White's perspective, in ascending order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ThreatList {
    features: [u16; MAX_THREATS],
    len: u8,
}

impl Default for ThreatList {
    fn default() -> ThreatList {
        ThreatList {
            features: [0; MAX_THREATS],
            len: 0,
        }
    }
}

impl ThreatList {
    /// The features.
    pub fn as_slice(&self) -> &[u16] {
        &self.features[..usize::from(self.len)]
    }

    /// The features as indices, consuming the (small, `Copy`) list without allocating.
    pub fn into_indices(self) -> impl Iterator<Item = usize> {
        (0..usize::from(self.len)).map(move |i| usize::from(self.features[i]))
    }

    fn push(&mut self, f: usize) {
        self.features[usize::from(self.len)] = f as u16;
        self.len += 1;
    }
}

/// A position's threat features as bitboards: for each block (attacked, en prise) and each
/// piece kind (White's six roles, then Black's: the order of the piece feature index), the
/// squares of the pieces that have the feature. Two positions' features differ where their
/// boards do, which makes the difference a handful of bit operations.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreatBoards {
    boards: [[Bitboard; 12]; 2],
}

impl ThreatBoards {
    /// The threat features of `board`.
    pub fn of(board: &Board) -> ThreatBoards {
        let maps = [
            AttackMaps::of(board, Color::White),
            AttackMaps::of(board, Color::Black),
        ];
        let mut t = ThreatBoards::default();
        for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let (own, enemy) = (&maps[c], &maps[1 - c]);
            let pieces = board.by_color(color);
            for role in Role::ALL {
                // The piece's feature index from White's view, divided by 64 (the
                // tests compare every feature with `inputs::index`).
                let slot = 6 * c + role as usize - 1;
                let attacked = board.by_role(role) & pieces & enemy.all;
                t.boards[0][slot] = attacked;
                if role != Role::King {
                    t.boards[1][slot] = attacked & (!own.all | enemy.cheaper_than(role));
                }
            }
        }
        t
    }

    /// The features as a list from White's perspective, ascending.
    pub fn list(&self) -> ThreatList {
        let mut list = ThreatList::default();
        for (block, boards) in self.boards.iter().enumerate() {
            for (slot, &bb) in boards.iter().enumerate() {
                for sq in bb {
                    list.push(feature(block, slot, sq));
                }
            }
        }
        list
    }

    /// Calls `f(feature, added)` for each feature (White's perspective) that `self` has and
    /// `new` has not (`added` false) or the other way round (`added` true).
    #[inline]
    pub fn diff(&self, new: &ThreatBoards, mut f: impl FnMut(usize, bool)) {
        for block in 0..2 {
            for slot in 0..12 {
                let (old, new) = (self.boards[block][slot], new.boards[block][slot]);
                if old == new {
                    continue;
                }
                for sq in new & !old {
                    f(feature(block, slot, sq), true);
                }
                for sq in old & !new {
                    f(feature(block, slot, sq), false);
                }
            }
        }
    }
}

/// The feature (White's perspective) of block `block` (0: attacked, 1: en prise) for the
/// piece kind `slot` (its piece feature index divided by 64) on `sq`.
#[inline]
fn feature(block: usize, slot: usize, sq: Square) -> usize {
    (block + 1) * PIECE_INPUTS + 64 * slot + sq as usize
}

/// The squares one side attacks: all of them, and those attacked by pieces worth less
/// than a knight, a rook and a queen.
struct AttackMaps {
    all: Bitboard,
    below_minor: Bitboard,
    below_rook: Bitboard,
    below_queen: Bitboard,
}

impl AttackMaps {
    #[inline]
    fn of(board: &Board, side: Color) -> AttackMaps {
        const FILE_A: u64 = 0x0101_0101_0101_0101;
        const FILE_H: u64 = FILE_A << 7;
        let occ = board.occupied();
        let ours = board.by_color(side);
        // All pawns at once: a capture to the a-side shifts by 7 (White) or 9 (Black).
        let p = (board.pawns() & ours).0;
        let pawns = Bitboard(match side {
            Color::White => ((p & !FILE_A) << 7) | ((p & !FILE_H) << 9),
            Color::Black => ((p & !FILE_A) >> 9) | ((p & !FILE_H) >> 7),
        });
        let mut minors = pawns;
        for sq in board.knights() & ours {
            minors |= attacks::knight_attacks(sq);
        }
        for sq in board.bishops() & ours {
            minors |= attacks::bishop_attacks(sq, occ);
        }
        let mut below_queen = minors;
        for sq in board.rooks() & ours {
            below_queen |= attacks::rook_attacks(sq, occ);
        }
        let mut all = below_queen;
        for sq in board.queens() & ours {
            all |= attacks::queen_attacks(sq, occ);
        }
        for sq in board.kings() & ours {
            all |= attacks::king_attacks(sq);
        }
        AttackMaps {
            all,
            below_minor: pawns,
            below_rook: minors,
            below_queen,
        }
    }

    /// Squares attacked by a piece worth less than `role`.
    #[inline]
    fn cheaper_than(&self, role: Role) -> Bitboard {
        match role {
            Role::Pawn | Role::King => Bitboard::EMPTY,
            Role::Knight | Role::Bishop => self.below_minor,
            Role::Rook => self.below_rook,
            Role::Queen => self.below_queen,
        }
    }
}

/// The threat features of `board` from White's perspective, ascending (feature indices
/// count from 0 at the first piece feature: block 1 starts at 768, block 2 at 1536).
pub fn threats(board: &Board) -> ThreatList {
    ThreatBoards::of(board).list()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::inputs::index;
    use chessgraph_core::chess::fen::parse_position;
    use shakmaty::Position;

    /// The definition, written the slow way with `attacks_to` for every piece.
    fn reference(board: &Board) -> Vec<u16> {
        let value = |r: Role| match r {
            Role::Pawn => 1,
            Role::Knight | Role::Bishop => 3,
            Role::Rook => 5,
            Role::Queen => 9,
            Role::King => 100,
        };
        let occ = board.occupied();
        let mut v = Vec::new();
        for (sq, piece) in board {
            let attackers = board.attacks_to(sq, !piece.color, occ);
            if attackers.is_empty() {
                continue;
            }
            let f = index(Color::White, piece, sq);
            v.push((PIECE_INPUTS + f) as u16);
            let defended = board.attacks_to(sq, piece.color, occ).any();
            let cheapest = attackers
                .into_iter()
                .filter_map(|a| board.role_at(a))
                .map(value)
                .min()
                .unwrap();
            if piece.role != Role::King && (!defended || cheapest < value(piece.role)) {
                v.push((2 * PIECE_INPUTS + f) as u16);
            }
        }
        v.sort_unstable();
        v
    }

    #[test]
    fn attack_maps_agree_with_attacks_to_on_random_games() {
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut checked = 0;
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            for _ in 0..40 {
                let mut pos = parse_position(fen).unwrap();
                let mut before = ThreatBoards::of(pos.board());
                for _ in 0..60 {
                    let now = ThreatBoards::of(pos.board());
                    let t = now.list();
                    assert_eq!(t.as_slice(), reference(pos.board()), "{}", pos.board());
                    // The previous position's features plus the difference are these.
                    let mut set: Vec<u16> = before.list().as_slice().to_vec();
                    before.diff(&now, |f, added| {
                        let f = f as u16;
                        assert_eq!(set.contains(&f), !added, "{f} {}", pos.board());
                        if added {
                            set.push(f);
                        } else {
                            set.retain(|&x| x != f);
                        }
                    });
                    set.sort_unstable();
                    assert_eq!(set, t.as_slice());
                    before = now;
                    checked += 1;
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    pos.play_unchecked(moves[(rng % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(checked > 5000, "{checked}");
    }

    #[test]
    fn a_hanging_piece_and_a_defended_one() {
        // White knight e5 attacked by the d6 pawn (cheaper): en prise though defended by
        // d4; black rook a8 attacked by the g2 bishop and undefended: en prise; the black
        // pawn d6 is attacked by nothing.
        let pos = parse_position("r3k3/8/3p4/4N3/3P4/8/6B1/4K3 w - - 0 1").unwrap();
        let t = threats(pos.board());
        let n = index(
            Color::White,
            Role::Knight.of(Color::White),
            shakmaty::Square::E5,
        );
        let r = index(
            Color::White,
            Role::Rook.of(Color::Black),
            shakmaty::Square::A8,
        );
        let p = index(
            Color::White,
            Role::Pawn.of(Color::Black),
            shakmaty::Square::D6,
        );
        let has = |f: usize| t.as_slice().contains(&(f as u16));
        assert!(has(PIECE_INPUTS + n) && has(2 * PIECE_INPUTS + n));
        assert!(has(PIECE_INPUTS + r) && has(2 * PIECE_INPUTS + r));
        assert!(!has(PIECE_INPUTS + p) && !has(2 * PIECE_INPUTS + p));
        assert_eq!(t.as_slice().len(), 4);
    }
}
