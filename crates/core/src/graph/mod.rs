//! The attack/defense graph and the position features.
//!
//! [`analyze`] computes, in one pass over the pieces, the [`Features`] of a position and
//! its attack/defense graph: one [`Edge`] per piece that directly attacks an occupied
//! square (an enemy piece: [`EdgeKind::Attack`], an own piece: [`EdgeKind::Defend`]).
//! Everything is bitboard arithmetic on shakmaty's attack tables; the only allocation is
//! the caller's edge vector, which is reused.
//!
//! The definitions are the graph-features study's and are pinned by a golden file computed with
//! python-chess (`scripts/golden/features.py`, `tests/golden/features.csv`):
//! "attacks" are always direct attacks with the current occupancy (no x-rays; pinned
//! pieces and kings attack as usual; pawns attack their capture diagonals only), which is
//! python-chess's `board.attacks(sq)` / `board.attackers(color, sq)`.

mod mobility;
mod pawns;

#[cfg(test)]
mod tests;

use shakmaty::{Bitboard, Board, ByColor, Chess, Color, Piece, Position, Role, Square, attacks};

pub use mobility::mobility_counts;
#[cfg(test)]
pub use mobility::null_move_mobility;
pub use pawns::{PawnSets, PawnStructure, pawn_sets, pawn_structure};

/// The features of one position. Column names of the `features` table; white minus black
/// unless the name says a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Features {
    /// Material (P1 N3 B3 R5 Q9, K0), white minus black.
    pub material: i32,
    /// Material of both sides summed (78 in the start position).
    pub total_material: i32,
    /// Legal moves of White with White to move (a null move first if Black is to move).
    pub mobility_white: i32,
    /// Legal moves of Black with Black to move (a null move first if White is to move).
    pub mobility_black: i32,
    /// `mobility_white - mobility_black`.
    pub mobility: i32,
    /// Attackers of d4, e4, d5, e5 (each attacker counted once per square), white minus black.
    pub center_control: i32,
    /// Squares next to the black king attacked by White minus squares next to the white king
    /// attacked by Black.
    pub king_safety: i32,
    /// Weighted defenders: for every piece (kings included as defended pieces), the sum over
    /// its own pieces attacking its square of P50 N35 B30 R10 Q4 K0; white minus black.
    pub connectivity: i32,
    /// Game phase: N and B 1, R 2, Q 4, both sides summed, capped at 24 (24 = opening).
    pub phase: i32,
    /// Squares attacked by White (bit 0 = a1, bit 63 = h8).
    pub white_attacks: u64,
    /// Squares attacked by Black (bit 0 = a1, bit 63 = h8).
    pub black_attacks: u64,
    /// The side to move is in check.
    pub in_check: bool,
    /// White non-king pieces attacked by Black and defended by no white piece.
    pub hanging_white: i32,
    /// Black non-king pieces attacked by White and defended by no black piece.
    pub hanging_black: i32,
    /// White non-king pieces attacked by a black piece of lower value (a king is never lower).
    pub threatened_white: i32,
    /// Black non-king pieces attacked by a white piece of lower value (a king is never lower).
    pub threatened_black: i32,
    /// White non-king pieces attacking at least one square of the black king zone
    /// (the king's square and its neighbours).
    pub king_attackers_white: i32,
    /// Black non-king pieces attacking at least one square of the white king zone.
    pub king_attackers_black: i32,
    /// White pawns with another white pawn ahead on the same file.
    pub doubled_pawns_white: i32,
    /// Black pawns with another black pawn ahead on the same file.
    pub doubled_pawns_black: i32,
    /// White pawns with no white pawn on an adjacent file.
    pub isolated_pawns_white: i32,
    /// Black pawns with no black pawn on an adjacent file.
    pub isolated_pawns_black: i32,
    /// White pawns with no black pawn ahead on the same or an adjacent file.
    pub passed_pawns_white: i32,
    /// Black pawns with no white pawn ahead on the same or an adjacent file.
    pub passed_pawns_black: i32,
}

impl Features {
    /// The column names of the `features` view after `position_id`, in its order: the
    /// fields of [`Features`], in their order.
    pub const COLUMNS: [&'static str; 24] = [
        "material",
        "total_material",
        "mobility_white",
        "mobility_black",
        "mobility",
        "center_control",
        "king_safety",
        "connectivity",
        "phase",
        "white_attacks",
        "black_attacks",
        "in_check",
        "hanging_white",
        "hanging_black",
        "threatened_white",
        "threatened_black",
        "king_attackers_white",
        "king_attackers_black",
        "doubled_pawns_white",
        "doubled_pawns_black",
        "isolated_pawns_white",
        "isolated_pawns_black",
        "passed_pawns_white",
        "passed_pawns_black",
    ];

    /// The values of [`Features::COLUMNS`] as SQLite stores them: integers, the attack
    /// sets' 64 bits as a signed integer, `in_check` 0 or 1.
    pub fn values(&self) -> [i64; 24] {
        let f = self;
        [
            f.material.into(),
            f.total_material.into(),
            f.mobility_white.into(),
            f.mobility_black.into(),
            f.mobility.into(),
            f.center_control.into(),
            f.king_safety.into(),
            f.connectivity.into(),
            f.phase.into(),
            f.white_attacks as i64,
            f.black_attacks as i64,
            f.in_check.into(),
            f.hanging_white.into(),
            f.hanging_black.into(),
            f.threatened_white.into(),
            f.threatened_black.into(),
            f.king_attackers_white.into(),
            f.king_attackers_black.into(),
            f.doubled_pawns_white.into(),
            f.doubled_pawns_black.into(),
            f.isolated_pawns_white.into(),
            f.isolated_pawns_black.into(),
            f.passed_pawns_white.into(),
            f.passed_pawns_black.into(),
        ]
    }
}

/// The squares `color` attacks on the board packed in `bytes`, as a bitboard (a1 = bit 0):
/// the `features.white_attacks` / `black_attacks` columns, which the schema computes from
/// the stored board.
pub fn board_attacks(bytes: &[u8], color: Color) -> Result<u64, crate::chess::packed::PackedError> {
    let pos = crate::chess::packed::unpack(bytes)?;
    Ok(u64::from(attacked_squares(pos.board(), color)))
}

/// Whether an edge goes to an enemy piece or to an own piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// The target is a piece of the other color (a check is an attack on the king).
    Attack,
    /// The target is a piece of the same color.
    Defend,
}

impl EdgeKind {
    /// The value of the `edges.kind` column: `"attack"` or `"defend"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Attack => "attack",
            EdgeKind::Defend => "defend",
        }
    }
}

/// FEN letter of a piece (the `edges.attacker` and `edges.target` columns), as a static
/// string: no allocation per edge.
pub fn piece_letter(piece: Piece) -> &'static str {
    const WHITE: [&str; 6] = ["P", "N", "B", "R", "Q", "K"];
    const BLACK: [&str; 6] = ["p", "n", "b", "r", "q", "k"];
    let i = piece.role as usize - 1;
    if piece.color.is_white() {
        WHITE[i]
    } else {
        BLACK[i]
    }
}

/// One edge of the attack/defense graph: the piece on `from_sq` directly attacks the
/// occupied square `to_sq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    /// Square of the attacking piece, 0..63 (a1 = 0, h8 = 63).
    pub from_sq: u8,
    /// Square of the attacked or defended piece.
    pub to_sq: u8,
    /// The piece on `from_sq`.
    pub attacker: Piece,
    /// The piece on `to_sq`.
    pub target: Piece,
    /// Attack (other color) or defend (same color).
    pub kind: EdgeKind,
}

/// Material value used by the features: P1 N3 B3 R5 Q9, K0.
pub const fn material_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}

/// Weight of a defender in [`Features::connectivity`]: P50 N35 B30 R10 Q4 K0.
pub const fn defender_weight(role: Role) -> i32 {
    match role {
        Role::Pawn => 50,
        Role::Knight => 35,
        Role::Bishop => 30,
        Role::Rook => 10,
        Role::Queen => 4,
        Role::King => 0,
    }
}

/// Game phase of a board: N and B 1, R 2, Q 4, both sides summed, capped at 24.
pub fn phase(board: &Board) -> i32 {
    let raw = (board.knights() | board.bishops()).count()
        + 2 * board.rooks().count()
        + 4 * board.queens().count();
    (raw as i32).min(24)
}

/// Squares attacked by the pieces of `color` (direct attacks, no x-rays).
pub fn attacked_squares(board: &Board, color: Color) -> Bitboard {
    let occ = board.occupied();
    let mut attacked = Bitboard::EMPTY;
    for sq in board.by_color(color) {
        if let Some(role) = board.role_at(sq) {
            attacked |= attacks::attacks(sq, Piece { color, role }, occ);
        }
    }
    attacked
}

/// King safety of a board: squares next to the black king attacked by White minus squares
/// next to the white king attacked by Black (see [`Features::king_safety`]).
pub fn king_safety(board: &Board) -> i32 {
    let attacked = ByColor::new_with(|color| attacked_squares(board, color));
    king_safety_from(board, &attacked)
}

fn king_safety_from(board: &Board, attacked: &ByColor<Bitboard>) -> i32 {
    let exposed = |color: Color| -> i32 {
        board.king_of(color).map_or(0, |king| {
            (attacks::king_attacks(king) & *attacked.get(!color)).count() as i32
        })
    };
    exposed(Color::Black) - exposed(Color::White)
}

/// Material of one side (P1 N3 B3 R5 Q9).
fn side_material(board: &Board, color: Color) -> i32 {
    let ours = board.by_color(color);
    Role::ALL
        .into_iter()
        .map(|role| material_value(role) * (board.by_role(role) & ours).count() as i32)
        .sum()
}

/// The piece on an occupied square.
fn piece_on(board: &Board, sq: Square) -> Piece {
    board
        .piece_at(sq)
        .expect("square taken from the occupied bitboard")
}

/// The attack/defense graph of `board` alone, written to `edges` (cleared first), ordered
/// by (`from_sq`, `to_sq`): the same edges [`analyze`] gives, without the features (it
/// needs no legal position, only the board).
pub fn edges(board: &Board, edges: &mut Vec<Edge>) {
    edges.clear();
    let occ = board.occupied();
    for sq in occ {
        let piece = piece_on(board, sq);
        push_edges(board, sq, piece, attacks::attacks(sq, piece, occ), edges);
    }
}

/// The edges from `piece` on `sq` to every occupied square it attacks (`attacks`), in
/// ascending target order: a defence of its own side's pieces, an attack on the other's.
// Forced inline: in `analyze`'s loop over every piece of 171k positions a call cost 5 %.
#[inline(always)]
fn push_edges(board: &Board, sq: Square, piece: Piece, attacks: Bitboard, edges: &mut Vec<Edge>) {
    let own = board.by_color(piece.color);
    for to in attacks & board.occupied() {
        edges.push(Edge {
            from_sq: sq as u8,
            to_sq: to as u8,
            attacker: piece,
            target: piece_on(board, to),
            kind: if own.contains(to) {
                EdgeKind::Defend
            } else {
                EdgeKind::Attack
            },
        });
    }
}

/// Features of `pos`; the attack/defense graph is written to `edges` (cleared first),
/// ordered by (`from_sq`, `to_sq`).
pub fn analyze(pos: &Chess, edges: &mut Vec<Edge>) -> Features {
    edges.clear();
    let board = pos.board();
    let occ = board.occupied();

    // King zone of each color: the king's square and its neighbours.
    let zone = ByColor::new_with(|color| {
        board
            .king_of(color)
            .map_or(Bitboard::EMPTY, |k| attacks::king_attacks(k).with(k))
    });

    let mut attacked = ByColor::<Bitboard>::default();
    // Squares attacked by pawns, by minor pieces, by rooks (for threatened pieces).
    let mut by_pawn = ByColor::<Bitboard>::default();
    let mut by_minor = ByColor::<Bitboard>::default();
    let mut by_rook = ByColor::<Bitboard>::default();
    let mut center = ByColor::<i32>::default();
    let mut connectivity = ByColor::<i32>::default();
    let mut king_attackers = ByColor::<i32>::default();

    // Ascending squares, ascending targets: the edges come out in (from_sq, to_sq) order.
    for sq in occ {
        let piece = piece_on(board, sq);
        let color = piece.color;
        let role = piece.role;
        let own = board.by_color(color);
        let a = attacks::attacks(sq, piece, occ);

        *attacked.get_mut(color) |= a;
        *center.get_mut(color) += (a & Bitboard::CENTER).count() as i32;
        *connectivity.get_mut(color) += defender_weight(role) * (a & own).count() as i32;
        match role {
            Role::Pawn => *by_pawn.get_mut(color) |= a,
            Role::Knight | Role::Bishop => *by_minor.get_mut(color) |= a,
            Role::Rook => *by_rook.get_mut(color) |= a,
            Role::Queen | Role::King => {}
        }
        if role != Role::King && a.intersects(*zone.get(!color)) {
            *king_attackers.get_mut(color) += 1;
        }
        push_edges(board, sq, piece, a, edges);
    }

    let non_king = occ & !board.kings();
    let hanging = |color: Color| -> i32 {
        (board.by_color(color) & non_king & *attacked.get(!color) & !*attacked.get(color)).count()
            as i32
    };
    // Pieces attacked by a lower-valued enemy: minors by pawns, rooks by pawns and minors,
    // queens by anything but queens and kings. Pawns are never threatened.
    let threatened = |color: Color| -> i32 {
        let ours = board.by_color(color);
        let them = !color;
        let pawn = *by_pawn.get(them);
        let minor = pawn | *by_minor.get(them);
        let rook = minor | *by_rook.get(them);
        ((ours & (board.knights() | board.bishops()) & pawn)
            | (ours & board.rooks() & minor)
            | (ours & board.queens() & rook))
            .count() as i32
    };

    let (mobility_white, mobility_black) = mobility::counts_with(pos, &attacked);
    let pawns = pawn_structure(board);
    let material_white = side_material(board, Color::White);
    let material_black = side_material(board, Color::Black);

    Features {
        material: material_white - material_black,
        total_material: material_white + material_black,
        mobility_white,
        mobility_black,
        mobility: mobility_white - mobility_black,
        center_control: center.white - center.black,
        king_safety: king_safety_from(board, &attacked),
        connectivity: connectivity.white - connectivity.black,
        phase: phase(board),
        white_attacks: attacked.white.0,
        black_attacks: attacked.black.0,
        in_check: pos.is_check(),
        hanging_white: hanging(Color::White),
        hanging_black: hanging(Color::Black),
        threatened_white: threatened(Color::White),
        threatened_black: threatened(Color::Black),
        king_attackers_white: king_attackers.white,
        king_attackers_black: king_attackers.black,
        doubled_pawns_white: pawns.doubled.white,
        doubled_pawns_black: pawns.doubled.black,
        isolated_pawns_white: pawns.isolated.white,
        isolated_pawns_black: pawns.isolated.black,
        passed_pawns_white: pawns.passed.white,
        passed_pawns_black: pawns.passed.black,
    }
}
