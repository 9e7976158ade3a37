//! The fixed list of evaluation terms and their index layout.
//!
//! Every term has one coefficient per position (an integer, White's count minus Black's
//! count) and two weights (middlegame, endgame). Indices are stable within evaluator file
//! format version 1:
//!
//! | index     | term                                                                  |
//! |-----------|-----------------------------------------------------------------------|
//! | 0..5      | material: pawn, knight, bishop, rook, queen (piece count)             |
//! | 5..389    | PST: 6 piece types (P N B R Q K) × 64 squares, `5 + 64·role + square` |
//! | 389..393  | mobility of knight, bishop, rook, queen                               |
//! | 393       | king zone attacks                                                     |
//! | 394       | pawn shield                                                           |
//! | 395       | defended pieces                                                       |
//! | 396       | hanging pieces                                                        |
//! | 397       | doubled pawns                                                         |
//! | 398       | isolated pawns                                                        |
//! | 399..405  | passed pawn on relative rank 2, 3, 4, 5, 6, 7                          |
//! | 405       | bishop pair                                                           |
//! | 406       | tempo                                                                 |
//! | 407       | study mobility                                                        |
//! | 408       | study king safety                                                     |
//! | 409       | rook on an open file                                                  |
//! | 410       | rook on a semi-open file                                              |
//! | 411       | knight outpost                                                        |
//! | 412       | pawn threats                                                          |
//! | 413       | king danger                                                           |
//! | 414       | passed pawn king distance                                             |
//! | 415       | blocked passed pawn                                                   |
//! | 416       | hanging, side to move                                                 |
//! | 417       | threatened, side to move                                              |
//!
//! PST squares are numbered from White's point of view with a1 = 0, b1 = 1, ..., h8 = 63;
//! a Black piece counts on the vertically mirrored square (a Black knight on e5 counts
//! −1 on the knight PST's e4 entry). See [`Term`] for the exact definition of each term.

use std::fmt;

use shakmaty::{Role, Square};

/// Number of terms (length of a weight vector).
pub const TERM_COUNT: usize = 418;

/// First material term (pawn); knight, bishop, rook, queen follow.
pub const MATERIAL: usize = 0;
/// First PST entry (pawn on a1); `PST + 64·role_index + square`.
pub const PST: usize = 5;
/// First mobility term (knight); bishop, rook, queen follow.
pub const MOBILITY: usize = PST + 6 * 64;
/// Index of [`Term::KingZoneAttacks`].
pub const KING_ZONE_ATTACKS: usize = MOBILITY + 4;
/// Index of [`Term::PawnShield`].
pub const PAWN_SHIELD: usize = KING_ZONE_ATTACKS + 1;
/// Index of [`Term::Defended`].
pub const DEFENDED: usize = PAWN_SHIELD + 1;
/// Index of [`Term::Hanging`].
pub const HANGING: usize = DEFENDED + 1;
/// Index of [`Term::DoubledPawn`].
pub const DOUBLED_PAWN: usize = HANGING + 1;
/// Index of [`Term::IsolatedPawn`].
pub const ISOLATED_PAWN: usize = DOUBLED_PAWN + 1;
/// Index of [`Term::PassedPawn`] on relative rank 2; ranks 3..7 follow.
pub const PASSED_PAWN: usize = ISOLATED_PAWN + 1;
/// Index of [`Term::BishopPair`].
pub const BISHOP_PAIR: usize = PASSED_PAWN + 6;
/// Index of [`Term::Tempo`].
pub const TEMPO: usize = BISHOP_PAIR + 1;
/// Index of [`Term::StudyMobility`].
pub const STUDY_MOBILITY: usize = TEMPO + 1;
/// Index of [`Term::StudyKingSafety`].
pub const STUDY_KING_SAFETY: usize = STUDY_MOBILITY + 1;

/// Index of [`Term::RookOpenFile`].
pub const ROOK_OPEN_FILE: usize = STUDY_KING_SAFETY + 1;
/// Index of [`Term::RookSemiOpenFile`].
pub const ROOK_SEMI_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
/// Index of [`Term::KnightOutpost`].
pub const KNIGHT_OUTPOST: usize = ROOK_SEMI_OPEN_FILE + 1;
/// Index of [`Term::PawnThreats`].
pub const PAWN_THREATS: usize = KNIGHT_OUTPOST + 1;
/// Index of [`Term::KingDanger`].
pub const KING_DANGER: usize = PAWN_THREATS + 1;
/// Index of [`Term::PassedKingDistance`].
pub const PASSED_KING_DISTANCE: usize = KING_DANGER + 1;
/// Index of [`Term::PassedBlocked`].
pub const PASSED_BLOCKED: usize = PASSED_KING_DISTANCE + 1;
/// Index of [`Term::StmHanging`].
pub const STM_HANGING: usize = PASSED_BLOCKED + 1;
/// Index of [`Term::StmThreatened`].
pub const STM_THREATENED: usize = STM_HANGING + 1;

const _: () = assert!(STM_THREATENED + 1 == TERM_COUNT);

/// Piece types in term order (material, PST and mobility blocks).
pub const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// Piece types that have a mobility term, in term order.
pub const MOBILITY_ROLES: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// Position of `role` in [`ROLES`] (pawn 0 ... king 5).
#[inline]
pub const fn role_index(role: Role) -> usize {
    role as usize - 1
}

/// One evaluation term. Each coefficient is White's count minus Black's count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    /// Number of pieces of this type (not king).
    Material(Role),
    /// 1 per piece of this type on this square (White's view; Black mirrored).
    Pst(Role, Square),
    /// Per piece of this type (N, B, R, Q): squares it attacks that are not occupied by
    /// its own side's pieces (x-ray-free attacks, pins ignored).
    Mobility(Role),
    /// Sum over the side's knights, bishops, rooks and queens of the squares they attack
    /// in the enemy king zone (the enemy king's square and its neighbours).
    KingZoneAttacks,
    /// Own pawns on the king's file and the adjacent files, one or two ranks in front of
    /// the king.
    PawnShield,
    /// Own pieces and pawns (not the king) attacked by at least one own piece.
    Defended,
    /// Own pieces and pawns (not the king) attacked by the enemy and not defended.
    Hanging,
    /// Pawns beyond the first on each file (a file with 3 pawns counts 2).
    DoubledPawn,
    /// Pawns with no own pawn on an adjacent file.
    IsolatedPawn,
    /// Passed pawns (no enemy pawn ahead on the same or an adjacent file, no own pawn
    /// ahead on the same file) on this relative rank, 2..=7.
    PassedPawn(u8),
    /// 1 if the side has two or more bishops.
    BishopPair,
    /// 1 for the side to move.
    Tempo,
    /// The study's mobility: the side's legal moves counted with that side to move (the
    /// side not to move passes first, as python-chess's null move, clearing en passant).
    StudyMobility,
    /// The study's king safety: squares next to the enemy king attacked by the side.
    StudyKingSafety,
    /// Rooks on a file without pawns.
    RookOpenFile,
    /// Rooks on a file without own pawns but with enemy pawns.
    RookSemiOpenFile,
    /// Knights on relative ranks 4 to 6, defended by an own pawn, that no enemy pawn can
    /// ever attack (none on an adjacent file ahead).
    KnightOutpost,
    /// Enemy knights, bishops, rooks and queens attacked by the side's pawns.
    PawnThreats,
    /// The square of the king-zone attack count ([`Term::KingZoneAttacks`], capped at 12):
    /// attacks on the king grow more dangerous together.
    KingDanger,
    /// Over the side's passed pawns: the enemy king's distance to the square in front of the
    /// pawn minus the own king's (Chebyshev distance; kings race for passed pawns).
    PassedKingDistance,
    /// Passed pawns whose square in front is occupied.
    PassedBlocked,
    /// The side to move's hanging pieces and pawns (attacked, not defended, not the king),
    /// counted for the side to move only: +n when White is to move, −n when Black is.
    StmHanging,
    /// The side to move's pieces attacked by a lower-valued enemy piece (pawn on a piece,
    /// minor on a rook or queen, rook on a queen), counted like [`Term::StmHanging`].
    StmThreatened,
}

impl Term {
    /// The term's index in weight vectors and [`TermList`](super::TermList)s.
    pub fn index(self) -> usize {
        match self {
            Term::Material(role) => {
                debug_assert!(role != Role::King, "no material term for the king");
                MATERIAL + role_index(role)
            }
            Term::Pst(role, sq) => PST + 64 * role_index(role) + sq as usize,
            Term::Mobility(role) => MOBILITY + role_index(role) - 1,
            Term::KingZoneAttacks => KING_ZONE_ATTACKS,
            Term::PawnShield => PAWN_SHIELD,
            Term::Defended => DEFENDED,
            Term::Hanging => HANGING,
            Term::DoubledPawn => DOUBLED_PAWN,
            Term::IsolatedPawn => ISOLATED_PAWN,
            Term::PassedPawn(rank) => PASSED_PAWN + rank as usize - 2,
            Term::BishopPair => BISHOP_PAIR,
            Term::Tempo => TEMPO,
            Term::StudyMobility => STUDY_MOBILITY,
            Term::StudyKingSafety => STUDY_KING_SAFETY,
            Term::RookOpenFile => ROOK_OPEN_FILE,
            Term::RookSemiOpenFile => ROOK_SEMI_OPEN_FILE,
            Term::KnightOutpost => KNIGHT_OUTPOST,
            Term::PawnThreats => PAWN_THREATS,
            Term::KingDanger => KING_DANGER,
            Term::PassedKingDistance => PASSED_KING_DISTANCE,
            Term::PassedBlocked => PASSED_BLOCKED,
            Term::StmHanging => STM_HANGING,
            Term::StmThreatened => STM_THREATENED,
        }
    }

    /// The term at `index`, or `None` if `index >= TERM_COUNT`.
    pub fn from_index(index: usize) -> Option<Term> {
        Some(match index {
            i if i < PST => Term::Material(ROLES[i - MATERIAL]),
            i if i < MOBILITY => {
                let j = i - PST;
                Term::Pst(ROLES[j / 64], Square::new((j % 64) as u32))
            }
            i if i < KING_ZONE_ATTACKS => Term::Mobility(MOBILITY_ROLES[i - MOBILITY]),
            KING_ZONE_ATTACKS => Term::KingZoneAttacks,
            PAWN_SHIELD => Term::PawnShield,
            DEFENDED => Term::Defended,
            HANGING => Term::Hanging,
            DOUBLED_PAWN => Term::DoubledPawn,
            ISOLATED_PAWN => Term::IsolatedPawn,
            i if i < BISHOP_PAIR => Term::PassedPawn((i - PASSED_PAWN + 2) as u8),
            BISHOP_PAIR => Term::BishopPair,
            TEMPO => Term::Tempo,
            STUDY_MOBILITY => Term::StudyMobility,
            STUDY_KING_SAFETY => Term::StudyKingSafety,
            ROOK_OPEN_FILE => Term::RookOpenFile,
            ROOK_SEMI_OPEN_FILE => Term::RookSemiOpenFile,
            KNIGHT_OUTPOST => Term::KnightOutpost,
            PAWN_THREATS => Term::PawnThreats,
            KING_DANGER => Term::KingDanger,
            PASSED_KING_DISTANCE => Term::PassedKingDistance,
            PASSED_BLOCKED => Term::PassedBlocked,
            STM_HANGING => Term::StmHanging,
            STM_THREATENED => Term::StmThreatened,
            _ => return None,
        })
    }
}

/// Lower-case English name of a piece type (`"knight"`), as used in evaluator files.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Readable, stable names: `material.knight`, `pst.knight.e4`, `mobility.rook`,
/// `king_zone_attacks`, `passed_pawn.rank5`, `study_mobility`, ...
impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Term::Material(role) => write!(f, "material.{}", role_name(role)),
            Term::Pst(role, sq) => write!(f, "pst.{}.{sq}", role_name(role)),
            Term::Mobility(role) => write!(f, "mobility.{}", role_name(role)),
            Term::KingZoneAttacks => f.write_str("king_zone_attacks"),
            Term::PawnShield => f.write_str("pawn_shield"),
            Term::Defended => f.write_str("defended"),
            Term::Hanging => f.write_str("hanging"),
            Term::DoubledPawn => f.write_str("doubled_pawn"),
            Term::IsolatedPawn => f.write_str("isolated_pawn"),
            Term::PassedPawn(rank) => write!(f, "passed_pawn.rank{rank}"),
            Term::BishopPair => f.write_str("bishop_pair"),
            Term::Tempo => f.write_str("tempo"),
            Term::StudyMobility => f.write_str("study_mobility"),
            Term::StudyKingSafety => f.write_str("study_king_safety"),
            Term::RookOpenFile => f.write_str("rook_open_file"),
            Term::RookSemiOpenFile => f.write_str("rook_semi_open_file"),
            Term::KnightOutpost => f.write_str("knight_outpost"),
            Term::PawnThreats => f.write_str("pawn_threats"),
            Term::KingDanger => f.write_str("king_danger"),
            Term::PassedKingDistance => f.write_str("passed_king_distance"),
            Term::PassedBlocked => f.write_str("passed_blocked"),
            Term::StmHanging => f.write_str("stm_hanging"),
            Term::StmThreatened => f.write_str("stm_threatened"),
        }
    }
}

/// Name of the term at `index` (see [`Term`]'s `Display`).
///
/// # Panics
///
/// If `index >= TERM_COUNT`.
pub fn term_name(index: usize) -> String {
    Term::from_index(index)
        .unwrap_or_else(|| panic!("term index {index} out of range"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trip_covers_every_term_once() {
        let mut names = std::collections::HashSet::new();
        for i in 0..TERM_COUNT {
            let term = Term::from_index(i).unwrap();
            assert_eq!(term.index(), i, "{term}");
            assert!(names.insert(term.to_string()), "duplicate name {term}");
        }
        assert_eq!(Term::from_index(TERM_COUNT), None);
    }

    #[test]
    fn documented_indices() {
        assert_eq!(Term::Material(Role::Queen).index(), 4);
        assert_eq!(Term::Pst(Role::Pawn, Square::A1).index(), 5);
        assert_eq!(Term::Pst(Role::Knight, Square::E4).index(), 5 + 64 + 28);
        assert_eq!(Term::Mobility(Role::Knight).index(), 389);
        assert_eq!(Term::PassedPawn(7).index(), 404);
        assert_eq!(Term::StudyKingSafety.index(), 408);
        assert_eq!(Term::StmThreatened.index(), 417);
        assert_eq!(term_name(5 + 64 + 28), "pst.knight.e4");
        assert_eq!(term_name(401), "passed_pawn.rank4");
    }
}
