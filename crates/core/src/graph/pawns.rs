//! Pawn structure: doubled, isolated and passed pawns, by bitboard fills.

use shakmaty::{Bitboard, Board, ByColor, Color};

/// Counts of pawn-structure features per color.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PawnStructure {
    /// Pawns with another own pawn ahead of them on the same file (2 on a file count 1).
    pub doubled: ByColor<i32>,
    /// Pawns with no own pawn on an adjacent file.
    pub isolated: ByColor<i32>,
    /// Pawns with no enemy pawn ahead of them on the same or an adjacent file.
    pub passed: ByColor<i32>,
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Every square on or above (towards rank 8) a square of `b`.
const fn north_fill(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b |= b << 32;
    b
}

/// Every square on or below (towards rank 1) a square of `b`.
const fn south_fill(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b |= b >> 32;
    b
}

/// `b` together with its neighbours on the adjacent files (same rank).
const fn with_adjacent_files(b: u64) -> u64 {
    b | ((b & !FILE_A) >> 1) | ((b & !FILE_H) << 1)
}

/// The squares of the files adjacent to the files occupied by `b`.
const fn adjacent_files(b: u64) -> u64 {
    let files = north_fill(south_fill(b));
    ((files & !FILE_A) >> 1) | ((files & !FILE_H) << 1)
}

/// The pawns of each color that are doubled, isolated and passed, as sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PawnSets {
    /// Pawns with another own pawn ahead of them on the same file (the rear ones).
    pub doubled: ByColor<Bitboard>,
    /// Pawns with no own pawn on an adjacent file.
    pub isolated: ByColor<Bitboard>,
    /// Pawns with no enemy pawn ahead of them on the same or an adjacent file.
    pub passed: ByColor<Bitboard>,
}

/// Doubled, isolated and passed pawns of both colors, as sets (bitboard fills, no loops).
pub fn pawn_sets(board: &Board) -> PawnSets {
    let white = (board.pawns() & board.by_color(Color::White)).0;
    let black = (board.pawns() & board.by_color(Color::Black)).0;

    // "Ahead" is towards rank 8 for White, towards rank 1 for Black. A white pawn is doubled
    // when it lies strictly behind another white pawn, i.e. in the south fill of the white
    // pawns shifted one rank down; mirrored for Black.
    let doubled = ByColor {
        white: Bitboard(white & south_fill(white >> 8)),
        black: Bitboard(black & north_fill(black << 8)),
    };
    let isolated = ByColor {
        white: Bitboard(white & !adjacent_files(white)),
        black: Bitboard(black & !adjacent_files(black)),
    };
    // Squares from which an enemy pawn is ahead on the same or an adjacent file: the
    // enemy's front spans seen from our side, widened by one file each way.
    let passed = ByColor {
        white: Bitboard(white & !with_adjacent_files(south_fill(black >> 8))),
        black: Bitboard(black & !with_adjacent_files(north_fill(white << 8))),
    };
    PawnSets {
        doubled,
        isolated,
        passed,
    }
}

/// Doubled, isolated and passed pawns of both colors.
pub fn pawn_structure(board: &Board) -> PawnStructure {
    let sets = pawn_sets(board);
    let count = |b: ByColor<Bitboard>| b.map(|b| b.count() as i32);
    PawnStructure {
        doubled: count(sets.doubled),
        isolated: count(sets.isolated),
        passed: count(sets.passed),
    }
}
