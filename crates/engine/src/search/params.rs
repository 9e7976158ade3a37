//! Every pruning, reduction and window constant of the search, named in one place.
//! Changing one changes the bench signature (see `bench`), as it should.

/// Reverse futility pruning applies at depths up to this.
pub const RFP_MAX_DEPTH: i32 = 6;
/// Reverse futility margin per ply of depth, centipawns.
pub const RFP_MARGIN: i32 = 90;

/// Null-move pruning applies from this depth on.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move reduction: `NMP_BASE + depth / NMP_DEPTH_DIVISOR`.
pub const NMP_BASE: i32 = 3;
/// See [`NMP_BASE`].
pub const NMP_DEPTH_DIVISOR: i32 = 4;

/// Futility pruning of quiet moves applies at depths up to this …
pub const FUTILITY_MAX_DEPTH: i32 = 8;
/// … when the static evaluation plus `FUTILITY_BASE + FUTILITY_MARGIN · depth`
/// centipawns is at most alpha.
pub const FUTILITY_BASE: i32 = 90;
/// See [`FUTILITY_BASE`].
pub const FUTILITY_MARGIN: i32 = 60;

/// SEE pruning (after the first move, out of check) applies at depths up to this …
pub const SEE_PRUNE_MAX_DEPTH: i32 = 8;
/// … to a quiet move losing more than this many centipawns per ply of depth …
pub const SEE_QUIET_MARGIN: i32 = 64;
/// … and to a capture losing more than this times the depth squared.
pub const SEE_NOISY_MARGIN: i32 = 20;

/// Continuation-history pruning at a non-PV node, at depths up to this (one less when
/// improving): a quiet move whose continuation history after the previous move is below
/// [`CMP_LIMIT`] (after the move two plies before: [`FMP_LIMIT`]) is skipped. Index:
/// `improving`.
pub const CMP_MAX_DEPTH: [i32; 2] = [3, 2];
/// See [`CMP_MAX_DEPTH`].
pub const CMP_LIMIT: [i32; 2] = [0, -1000];
/// See [`CMP_MAX_DEPTH`].
pub const FMP_LIMIT: [i32; 2] = [-2000, -4000];

/// ProbCut applies at non-PV nodes from this depth on …
pub const PROBCUT_MIN_DEPTH: i32 = 5;
/// … to captures that reach beta plus this margin, verified this many plies shallower.
pub const PROBCUT_MARGIN: i32 = 100;
/// See [`PROBCUT_MARGIN`].
pub const PROBCUT_REDUCTION: i32 = 4;

/// Late-move pruning at a non-PV node applies at depths up to this: after
/// `LMP_BASE + depth²` quiet moves (half as many when the position is not improving) the
/// remaining quiet moves are skipped.
pub const LMP_MAX_DEPTH: i32 = 6;
/// See [`LMP_MAX_DEPTH`].
pub const LMP_BASE: i32 = 3;

/// Singular extensions: from this depth on, the table's move …
pub const SE_MIN_DEPTH: i32 = 8;
/// … whose entry is at most this many plies shallower than the node …
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
/// … is singular when every other move fails low against the table's score less this
/// many centipawns per ply of depth.
pub const SE_MARGIN: i32 = 2;

/// Internal iterative reduction: a node this deep without a move from the table is
/// searched one ply shallower (its ordering is poor; a later visit finds the move there).
pub const IIR_MIN_DEPTH: i32 = 4;

/// Late-move reductions apply from this depth …
pub const LMR_MIN_DEPTH: i32 = 3;
/// … to moves after this many searched ones.
pub const LMR_MIN_SEARCHED: usize = 3;
/// LMR table: `LMR_BASE + ln(depth) · ln(move number) / LMR_DIVISOR` plies.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
/// A quiet move is reduced a ply less (more) per this much history and continuation
/// history above (below) zero, at most two plies either way.
pub const LMR_HISTORY_DIVISOR: i32 = 8192;

/// Delta pruning in the quiescence search: a capture that cannot raise the score to
/// alpha even with this margin on top of the captured piece is skipped.
pub const DELTA_MARGIN: i32 = 200;

/// Aspiration windows start at this depth …
pub const ASPIRATION_MIN_DEPTH: u32 = 4;
/// … with this half-width, doubled after every fail …
pub const ASPIRATION_DELTA: i32 = 20;
/// … until it passes this, when the window opens fully.
pub const ASPIRATION_MAX_DELTA: i32 = 1000;
