//! Computing term coefficients from a position.
//!
//! One generic routine, [`extract`], feeds every `(term, coefficient)` pair to a [`Sink`]:
//! [`TermList`](super::TermList) records them, the evaluator's weighted sink multiplies
//! them into middlegame and endgame sums. Both therefore see exactly the same
//! coefficients; the evaluator merely skips groups whose weights are all zero.

use shakmaty::{Bitboard, Board, ByColor, Chess, Color, Position, Role, Square, attacks};

use super::layout::{self, MOBILITY_ROLES, ROLES, role_index};
use super::study;
use chessgraph_core::graph::{PawnSets, pawn_sets};

/// Receives term coefficients. A term may be reported several times; contributions add.
pub(crate) trait Sink {
    /// Adds `coef` to the coefficient of term `index`.
    fn add(&mut self, index: usize, coef: i32);
}

/// Groups of terms that are computed together and can be skipped together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Groups {
    pub material: bool,
    pub pst: bool,
    pub mobility: bool,
    pub king_zone: bool,
    pub pawn_shield: bool,
    pub defended: bool,
    pub hanging: bool,
    pub pawn_structure: bool,
    pub bishop_pair: bool,
    pub tempo: bool,
    pub study_mobility: bool,
    pub study_king_safety: bool,
    /// Rook files, outposts, pawn threats, king danger, passed-pawn races and blocks,
    /// the side to move's hanging and threatened pieces.
    pub extras: bool,
    /// Count study mobility with the engine's fast counter ([`study::mobility_counts`])
    /// instead of the canonical [`chessgraph_core::graph::mobility_counts`] (same numbers; tests
    /// assert it).
    pub fast_study_mobility: bool,
}

impl Groups {
    /// Every group (for [`terms`](super::terms)).
    pub const ALL: Groups = Groups {
        material: true,
        pst: true,
        mobility: true,
        king_zone: true,
        pawn_shield: true,
        defended: true,
        hanging: true,
        pawn_structure: true,
        bishop_pair: true,
        tempo: true,
        study_mobility: true,
        study_king_safety: true,
        extras: true,
        fast_study_mobility: false,
    };

    /// The groups with at least one non-zero weight (`nonzero(i)` for term `i`).
    pub fn active(nonzero: impl Fn(usize) -> bool) -> Groups {
        let any = |range: std::ops::Range<usize>| range.into_iter().any(&nonzero);
        Groups {
            material: any(layout::MATERIAL..layout::PST),
            pst: any(layout::PST..layout::MOBILITY),
            mobility: any(layout::MOBILITY..layout::KING_ZONE_ATTACKS),
            king_zone: nonzero(layout::KING_ZONE_ATTACKS),
            pawn_shield: nonzero(layout::PAWN_SHIELD),
            defended: nonzero(layout::DEFENDED),
            hanging: nonzero(layout::HANGING),
            pawn_structure: any(layout::DOUBLED_PAWN..layout::BISHOP_PAIR),
            bishop_pair: nonzero(layout::BISHOP_PAIR),
            tempo: nonzero(layout::TEMPO),
            study_mobility: nonzero(layout::STUDY_MOBILITY),
            study_king_safety: nonzero(layout::STUDY_KING_SAFETY),
            extras: any(layout::ROOK_OPEN_FILE..layout::TERM_COUNT),
            fast_study_mobility: true,
        }
    }

    fn needs_attack_maps(&self) -> bool {
        self.mobility || self.king_zone || self.defended || self.hanging || self.extras
    }
}

/// Game phase: knights and bishops 1, rooks 2, queens 4 (both sides), capped at 24.
/// 24 is a full middlegame, 0 a pawn (or bare-king) ending.
#[inline]
pub fn phase(board: &Board) -> i32 {
    let minors = (board.knights() | board.bishops()).count() as i32;
    let rooks = board.rooks().count() as i32;
    let queens = board.queens().count() as i32;
    (minors + 2 * rooks + 4 * queens).min(24)
}

const FILE_A: u64 = 0x0101_0101_0101_0101;

#[inline]
fn file_mask(file: u32) -> Bitboard {
    Bitboard(FILE_A << file)
}

#[inline]
fn adjacent_files(file: u32) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    if file > 0 {
        b |= file_mask(file - 1);
    }
    if file < 7 {
        b |= file_mask(file + 1);
    }
    b
}

/// Squares strictly in front of `sq` from `color`'s point of view (all ranks ahead).
#[inline]
fn ahead(color: Color, sq: Square) -> Bitboard {
    let rank = sq.rank() as u32;
    match color {
        Color::White => Bitboard(if rank == 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        }),
        Color::Black => Bitboard(if rank == 0 {
            0
        } else {
            !0u64 >> (8 * (8 - rank))
        }),
    }
}

/// Pawn attacks of all `pawns` of `color`.
#[inline]
fn pawn_attack_map(color: Color, pawns: Bitboard) -> Bitboard {
    let not_a = Bitboard(!FILE_A);
    let not_h = Bitboard(!(FILE_A << 7));
    match color {
        Color::White => (pawns & not_a).shift(7) | (pawns & not_h).shift(9),
        Color::Black => (pawns & not_a).shift(-9) | (pawns & not_h).shift(-7),
    }
}

/// Per-side counts of the attack-based terms.
#[derive(Default)]
struct SideAttacks {
    mobility: [i32; 4],
    king_zone: i32,
    all: Bitboard,
    /// Squares attacked by the side's pawns.
    pawns: Bitboard,
    /// Squares attacked by its knights and bishops.
    minors: Bitboard,
    /// Squares attacked by its rooks.
    rooks: Bitboard,
}

fn side_attacks(board: &Board, color: Color, enemy_zone: Bitboard) -> SideAttacks {
    let occ = board.occupied();
    let own = board.by_color(color);
    let pawns = pawn_attack_map(color, board.pawns() & own);
    let mut out = SideAttacks {
        all: pawns,
        pawns,
        ..SideAttacks::default()
    };
    if let Some(k) = board.king_of(color) {
        out.all |= attacks::king_attacks(k);
    }
    for (i, role) in MOBILITY_ROLES.into_iter().enumerate() {
        for sq in board.by_piece(role.of(color)) {
            let a = match role {
                Role::Knight => attacks::knight_attacks(sq),
                Role::Bishop => attacks::bishop_attacks(sq, occ),
                Role::Rook => attacks::rook_attacks(sq, occ),
                _ => attacks::queen_attacks(sq, occ),
            };
            out.all |= a;
            match role {
                Role::Knight | Role::Bishop => out.minors |= a,
                Role::Rook => out.rooks |= a,
                _ => {}
            }
            out.mobility[i] += (a & !own).count() as i32;
            out.king_zone += (a & enemy_zone).count() as i32;
        }
    }
    out
}

/// King square and neighbours of `color`'s king (empty without a king).
fn king_zone(board: &Board, color: Color) -> Bitboard {
    board
        .king_of(color)
        .map_or(Bitboard::EMPTY, |k| attacks::king_attacks(k).with(k))
}

fn pawn_shield(board: &Board, color: Color) -> i32 {
    let Some(k) = board.king_of(color) else {
        return 0;
    };
    let files = adjacent_files(k.file() as u32) | file_mask(k.file() as u32);
    let rank = k.rank() as i32;
    let mut ranks = Bitboard::EMPTY;
    for d in [1, 2] {
        let r = if color == Color::White {
            rank + d
        } else {
            rank - d
        };
        if (0..8).contains(&r) {
            ranks |= Bitboard(0xffu64 << (8 * r));
        }
    }
    (board.pawns() & board.by_color(color) & files & ranks).count() as i32
}

/// Both sides' passed pawns as the evaluator counts them: no enemy pawn ahead on the same
/// or an adjacent file, and no own pawn ahead on the same file (the front pawn of a
/// doubled pair is the passed one).
fn passed_pawns(sets: &PawnSets) -> ByColor<Bitboard> {
    ByColor {
        white: sets.passed.white & !sets.doubled.white,
        black: sets.passed.black & !sets.doubled.black,
    }
}

/// Passed pawns of `color` by relative rank 2..=7.
fn passed_by_rank(passed: Bitboard, color: Color) -> [i32; 6] {
    let mut out = [0; 6];
    for sq in passed {
        let rel = color.relative_rank(sq.rank()) as usize; // 1..=6 for ranks 2..7
        if (1..=6).contains(&rel) {
            out[rel - 1] += 1;
        }
    }
    out
}

/// The `extras` group's terms (see [`layout::Term`] from `RookOpenFile` on).
fn extras<S: Sink>(
    pos: &Chess,
    w: &SideAttacks,
    b: &SideAttacks,
    passed: &ByColor<Bitboard>,
    sink: &mut S,
) {
    let board = pos.board();
    let pawns = board.pawns();
    let pieces = board.knights() | board.bishops() | board.rooks() | board.queens();
    let (mut open, mut semi, mut outposts, mut threats) = (0, 0, 0, 0);
    let (mut race, mut blocked) = (0, 0);
    for (color, own_att, sign) in [(Color::White, w, 1), (Color::Black, b, -1)] {
        let own = board.by_color(color);
        let own_pawns = pawns & own;
        let enemy_pawns = pawns & !own;
        for sq in board.rooks() & own {
            let file = file_mask(sq.file() as u32);
            if (pawns & file).is_empty() {
                open += sign;
            } else if (own_pawns & file).is_empty() {
                semi += sign;
            }
        }
        for sq in board.knights() & own {
            let rel = color.relative_rank(sq.rank()) as u32;
            if (3..=5).contains(&rel)
                && own_att.pawns.contains(sq)
                && (enemy_pawns & adjacent_files(sq.file() as u32) & ahead(color, sq)).is_empty()
            {
                outposts += sign;
            }
        }
        threats += sign * (pieces & !own & own_att.pawns).count() as i32;
        let (Some(own_king), Some(enemy_king)) = (board.king_of(color), board.king_of(!color))
        else {
            continue;
        };
        for sq in *passed.get(color) {
            let stop = match color {
                Color::White => sq.offset(8),
                Color::Black => sq.offset(-8),
            };
            let Some(stop) = stop else { continue };
            race += sign * (enemy_king.distance(stop) as i32 - own_king.distance(stop) as i32);
            if board.occupied().contains(stop) {
                blocked += sign;
            }
        }
    }
    sink.add(layout::ROOK_OPEN_FILE, open);
    sink.add(layout::ROOK_SEMI_OPEN_FILE, semi);
    sink.add(layout::KNIGHT_OUTPOST, outposts);
    sink.add(layout::PAWN_THREATS, threats);
    let danger = |a: &SideAttacks| a.king_zone.min(12).pow(2);
    sink.add(layout::KING_DANGER, danger(w) - danger(b));
    sink.add(layout::PASSED_KING_DISTANCE, race);
    sink.add(layout::PASSED_BLOCKED, blocked);

    // The side to move's pieces in danger: it can save one, rarely two.
    let stm = pos.turn();
    let (own_att, enemy_att) = stm.fold_wb((w, b), (b, w));
    let own = board.by_color(stm);
    let men = own & !board.kings();
    let hanging = (men & enemy_att.all & !own_att.all).count() as i32;
    let threatened = ((board.knights() | board.bishops()) & own & enemy_att.pawns).count()
        + (board.rooks() & own & (enemy_att.pawns | enemy_att.minors)).count()
        + (board.queens() & own & (enemy_att.pawns | enemy_att.minors | enemy_att.rooks)).count();
    let sign = stm.fold_wb(1, -1);
    sink.add(layout::STM_HANGING, sign * hanging);
    sink.add(layout::STM_THREATENED, sign * threatened as i32);
}

/// Feeds every coefficient of the groups in `groups` to `sink`.
pub(crate) fn extract<S: Sink>(pos: &Chess, groups: &Groups, sink: &mut S) {
    let board = pos.board();
    piece_terms(board, groups, sink);
    let passed = pawn_terms(board, groups, sink);
    if groups.needs_attack_maps() {
        attack_terms(pos, groups, &passed, sink);
    }
    if groups.pawn_shield {
        sink.add(
            layout::PAWN_SHIELD,
            pawn_shield(board, Color::White) - pawn_shield(board, Color::Black),
        );
    }
    if groups.bishop_pair {
        let bishops = board.bishops();
        let c = i32::from((bishops & board.white()).more_than_one())
            - i32::from((bishops & board.black()).more_than_one());
        sink.add(layout::BISHOP_PAIR, c);
    }
    if groups.tempo {
        sink.add(layout::TEMPO, pos.turn().fold_wb(1, -1));
    }
    study_terms(pos, groups, sink);
}

/// Material (kings left out) and the piece-square tables.
#[inline]
fn piece_terms<S: Sink>(board: &Board, groups: &Groups, sink: &mut S) {
    let (white, black) = (board.white(), board.black());
    if groups.material {
        for (i, role) in ROLES[..5].iter().enumerate() {
            let by_role = board.by_role(*role);
            let c = (by_role & white).count() as i32 - (by_role & black).count() as i32;
            if c != 0 {
                sink.add(layout::MATERIAL + i, c);
            }
        }
    }
    if groups.pst {
        for role in ROLES {
            let base = layout::PST + 64 * role_index(role);
            let by_role = board.by_role(role);
            for sq in by_role & white {
                sink.add(base + sq as usize, 1);
            }
            for sq in by_role & black {
                sink.add(base + sq.flip_vertical() as usize, -1);
            }
        }
    }
}

/// Doubled, isolated and passed pawns (by rank); returns the passed pawns, which the
/// extras use too (none when neither group is asked for).
#[inline]
fn pawn_terms<S: Sink>(board: &Board, groups: &Groups, sink: &mut S) -> ByColor<Bitboard> {
    if !(groups.pawn_structure || groups.extras) {
        return ByColor::default();
    }
    let sets = pawn_sets(board);
    let passed = passed_pawns(&sets);
    if groups.pawn_structure {
        let count = |b: ByColor<Bitboard>| b.white.count() as i32 - b.black.count() as i32;
        sink.add(layout::DOUBLED_PAWN, count(sets.doubled));
        sink.add(layout::ISOLATED_PAWN, count(sets.isolated));
        let wp = passed_by_rank(passed.white, Color::White);
        let bp = passed_by_rank(passed.black, Color::Black);
        for i in 0..6 {
            if wp[i] != bp[i] {
                sink.add(layout::PASSED_PAWN + i, wp[i] - bp[i]);
            }
        }
    }
    passed
}

/// The terms read from both sides' attack maps: mobility, king-zone attacks, defended
/// and hanging men, and the extras.
#[inline]
fn attack_terms<S: Sink>(pos: &Chess, groups: &Groups, passed: &ByColor<Bitboard>, sink: &mut S) {
    let board = pos.board();
    let w = side_attacks(board, Color::White, king_zone(board, Color::Black));
    let b = side_attacks(board, Color::Black, king_zone(board, Color::White));
    if groups.mobility {
        for i in 0..4 {
            let c = w.mobility[i] - b.mobility[i];
            if c != 0 {
                sink.add(layout::MOBILITY + i, c);
            }
        }
    }
    if groups.king_zone {
        sink.add(layout::KING_ZONE_ATTACKS, w.king_zone - b.king_zone);
    }
    let kings = board.kings();
    let white_men = board.white() & !kings;
    let black_men = board.black() & !kings;
    if groups.defended {
        let c = (white_men & w.all).count() as i32 - (black_men & b.all).count() as i32;
        sink.add(layout::DEFENDED, c);
    }
    if groups.hanging {
        let c = (white_men & b.all & !w.all).count() as i32
            - (black_men & w.all & !b.all).count() as i32;
        sink.add(layout::HANGING, c);
    }
    if groups.extras {
        extras(pos, &w, &b, passed, sink);
    }
}

/// The studies' mobility and king safety.
#[inline]
fn study_terms<S: Sink>(pos: &Chess, groups: &Groups, sink: &mut S) {
    if groups.study_mobility {
        let c = if groups.fast_study_mobility {
            let (w, b) = study::mobility_counts(pos);
            w as i32 - b as i32
        } else {
            let (w, b) = chessgraph_core::graph::mobility_counts(pos);
            w - b
        };
        sink.add(layout::STUDY_MOBILITY, c);
    }
    if groups.study_king_safety {
        sink.add(
            layout::STUDY_KING_SAFETY,
            study::study_king_safety(pos.board()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        chessgraph_core::chess::fen::parse_position(fen).unwrap()
    }

    #[test]
    fn phase_counts_and_caps() {
        assert_eq!(phase(Chess::default().board()), 24);
        assert_eq!(phase(pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").board()), 0);
        // R + B vs Q: 2 + 1 + 4.
        assert_eq!(phase(pos("3qk3/8/8/8/8/8/8/2BRK3 w - - 0 1").board()), 7);
        // Four queens each side of the start position would exceed 24.
        assert_eq!(
            phase(pos("qqqqk3/8/8/8/8/8/8/QQQQK3 w - - 0 1").board()),
            24
        );
    }

    #[test]
    fn pawn_structure_counts() {
        // White a2 a3 c4: a-pawns doubled, all three isolated; a3 is passed, a2 is not
        // (the rear of a doubled pair), c4 is not (d6 is ahead on an adjacent file).
        // Black h7 d6: both isolated; h7 passed, d6 not (c4).
        let p = pos("4k3/7p/3p4/8/2P5/P7/P7/4K3 w - - 0 1");
        let sets = pawn_sets(p.board());
        let passed = passed_pawns(&sets);
        assert_eq!(sets.doubled.white.count(), 1);
        assert_eq!(sets.isolated.white.count(), 3);
        assert_eq!(
            passed_by_rank(passed.white, Color::White),
            [0, 1, 0, 0, 0, 0]
        );
        assert_eq!(sets.doubled.black.count(), 0);
        assert_eq!(sets.isolated.black.count(), 2);
        // h7 is on Black's relative rank 2, d6 on relative rank 3 and not passed (c4).
        assert_eq!(
            passed_by_rank(passed.black, Color::Black),
            [1, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn pawn_shield_in_front_of_king() {
        // White king g1 with f2 g2 h3; Black king g8 with only h7.
        let p = pos("6k1/7p/8/8/8/7P/5PP1/6K1 w - - 0 1");
        assert_eq!(pawn_shield(p.board(), Color::White), 3);
        assert_eq!(pawn_shield(p.board(), Color::Black), 1);
    }
}
