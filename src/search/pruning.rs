//! Pruning helpers: the null move.

use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// Position after a null move (side to move passes, en passant cleared). Only valid when
/// the side to move is not in check. The halfmove clock restarts so that repetition
/// detection below the null move never reaches across it.
pub(super) fn null_move(pos: &Chess) -> Option<Chess> {
    let mut setup = pos.to_setup(EnPassantMode::Always);
    setup.ep_square = None;
    setup.halfmoves = 0;
    setup.swap_turn();
    setup.position(CastlingMode::Standard).ok()
}
