//! Move ordering: TT move, SEE-filtered MVV-LVA captures, killers, then the quiet moves
//! by history (from-to, by side) plus continuation history (the move's piece and target
//! after the moves one and two plies before), the continuation-history pruning test that
//! reads the same tables; and the selection step that picks the best remaining move.

use shakmaty::{Chess, Color, Move, MoveList, Position, Role, Square};

use super::continuation::{CONT_SIZE, PIECE_SQUARES};
use super::params::{
    cmp_limit, cmp_limit_improving, cmp_max_depth, cmp_max_depth_improving, fmp_limit,
    fmp_limit_improving,
};
use super::{Searcher, code_squares, encode, see};
use chessgraph_core::chess::moves::is_quiet;
use chessgraph_core::chess::values::{mvv_lva, piece_value};

/// Capacity of shakmaty's [`MoveList`] (the most legal moves a position can have, with
/// room to spare): per-node score buffers are this long, on the stack.
pub const MAX_MOVES: usize = 270;

/// Selection sort step: moves the best-scored remaining move (the first of equals) to `i`
/// and returns it. Shared by the main, quiescence and mate searches.
#[inline]
pub(super) fn pick_best<T: PartialOrd + Copy>(
    moves: &mut MoveList,
    scores: &mut [T],
    i: usize,
) -> Move {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
    moves[i]
}

/// Removes the quiet moves (neither capture nor promotion) from `from` on, keeping the
/// order of the others: for a move loop that has decided to prune every remaining quiet.
pub(super) fn drop_quiets(moves: &mut MoveList, scores: &mut [i32], from: usize) {
    let mut kept = from;
    for i in from..moves.len() {
        let m = moves[i];
        if !is_quiet(m) {
            moves[kept] = m;
            scores[kept] = scores[i];
            kept += 1;
        }
    }
    moves.truncate(kept);
}

const ORDER_TT: i32 = 30_000_000;
pub(super) const ORDER_GOOD_CAPTURE: i32 = 20_000_000;
pub(super) const ORDER_KILLER: i32 = 10_000_000;
const ORDER_BAD_CAPTURE: i32 = -10_000_000;
const ORDER_UNDERPROMOTION: i32 = -20_000_000;
const HISTORY_MAX: i32 = 1 << 14;
/// A cutoff's history bonus is this times depth² (at most 400 · this): with the gravity
/// toward [`HISTORY_MAX`], a move's entry saturates after a few dozen deep cutoffs, fast
/// enough for the late-move reductions and the continuation pruning to read it.
const HISTORY_GAIN: i32 = 32;

/// The (piece, square) index of a `color` `role` arriving on `sq` (castling: the king on
/// the rook's square, as [`super::encode`] writes it).
#[inline]
pub(super) fn piece_square(color: Color, role: Role, sq: Square) -> u16 {
    ((color as usize * 6 + role as usize - 1) * 64 + sq as usize) as u16
}

/// The continuation tables' rows for the node at `ply`: the moves one and two plies
/// before (none at the root, after a null move or beyond the path).
#[inline]
fn cont_rows(moved: &[u16], ply: usize) -> [Option<usize>; 2] {
    let row = |table: usize| {
        let back = table + 1;
        (ply >= back && moved[ply - back] != 0)
            .then(|| table * CONT_SIZE + (moved[ply - back] as usize - 1) * PIECE_SQUARES)
    };
    [row(0), row(1)]
}

impl Searcher {
    pub(super) fn score_moves(
        &self,
        pos: &Chess,
        moves: &MoveList,
        tt_move: u16,
        ply: usize,
        out: &mut [i32],
    ) {
        let turn = pos.turn() as usize;
        let killers = self.killers[ply];
        let rows = cont_rows(&self.moved, ply);
        for (i, &m) in moves.iter().enumerate() {
            let code = encode(m);
            out[i] = if code == tt_move {
                ORDER_TT
            } else if let Some(p) = m.promotion().filter(|&p| p != Role::Queen) {
                ORDER_UNDERPROMOTION + piece_value(p)
            } else if !is_quiet(m) {
                if see::see(pos, m) >= 0 {
                    ORDER_GOOD_CAPTURE + mvv_lva(m)
                } else {
                    ORDER_BAD_CAPTURE + mvv_lva(m)
                }
            } else if code == killers[0] {
                ORDER_KILLER + 1
            } else if code == killers[1] {
                ORDER_KILLER
            } else {
                let ps = piece_square(pos.turn(), m.role(), m.to()) as usize;
                let cont: i32 = rows
                    .iter()
                    .flatten()
                    .map(|row| i32::from(self.continuation.get(row + ps)))
                    .sum();
                self.history[history_index(turn, code)] + cont
            };
        }
    }

    /// Whether continuation-history pruning skips the quiet move `m` at `ply` and
    /// `depth`: its continuation history after the previous move is below
    /// [`cmp_limit`] or after the move two plies before below [`fmp_limit`] (a missing
    /// context never prunes).
    pub(super) fn continuation_prunes(
        &self,
        pos: &Chess,
        m: Move,
        ply: usize,
        depth: i32,
        improving: bool,
    ) -> bool {
        let (max_depth, limit_one, limit_two) = if improving {
            (
                cmp_max_depth_improving(),
                cmp_limit_improving(),
                fmp_limit_improving(),
            )
        } else {
            (cmp_max_depth(), cmp_limit(), fmp_limit())
        };
        if depth > max_depth {
            return false;
        }
        let ps = piece_square(pos.turn(), m.role(), m.to()) as usize;
        let [one, two] = cont_rows(&self.moved, ply);
        let below = |row: Option<usize>, limit: i32| {
            row.is_some_and(|row| i32::from(self.continuation.get(row + ps)) < limit)
        };
        below(one, limit_one) || below(two, limit_two)
    }

    pub(super) fn update_quiet_stats(
        &mut self,
        pos: &Chess,
        code: u16,
        depth: i32,
        ply: usize,
        tried: &[u16],
    ) {
        let killers = &mut self.killers[ply];
        if killers[0] != code {
            killers[1] = killers[0];
            killers[0] = code;
        }
        let turn = pos.turn() as usize;
        let bonus = HISTORY_GAIN * (depth * depth).min(400);
        let rows = cont_rows(&self.moved, ply);
        let board = pos.board();
        let mut apply = |code: u16, delta: i32| {
            let h = &mut self.history[history_index(turn, code)];
            *h += delta - *h * delta.abs() / HISTORY_MAX;
            let (from, to) = code_squares(code);
            let Some(role) = board.role_at(from) else {
                return;
            };
            let ps = piece_square(pos.turn(), role, to) as usize;
            for row in rows.iter().flatten() {
                let c = self.continuation.get_mut(row + ps);
                let v = i32::from(*c);
                *c = (v + delta - v * delta.abs() / HISTORY_MAX) as i16;
            }
        };
        apply(code, bonus);
        for &c in tried {
            apply(c, -bonus);
        }
    }
}

#[inline]
pub(super) fn history_index(turn: usize, code: u16) -> usize {
    turn * 4096 + (code & 0xfff) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::parse_position;

    #[test]
    fn continuation_history_rewards_a_reply_in_its_context() {
        use crate::eval::Evaluator;
        use std::sync::Arc;
        let mut s = Searcher::new(Arc::new(Evaluator::builtin("seed003").unwrap()), 1);
        let pos =
            parse_position("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1").unwrap();
        let moves = pos.legal_moves();
        let at = |sq: Square| moves.iter().position(|m| m.to() == sq).unwrap();
        let (reply, other) = (at(Square::D5), at(Square::E5));
        let knight_f3 = piece_square(Color::White, Role::Knight, Square::F3) + 1;
        s.moved[0] = knight_f3;
        s.update_quiet_stats(&pos, encode(moves[reply]), 6, 1, &[encode(moves[other])]);
        s.killers[1] = [0; 2];
        let scores = |s: &Searcher| {
            let mut out = [0i32; MAX_MOVES];
            s.score_moves(&pos, &moves, 0, 1, &mut out);
            (out[reply], out[other])
        };
        // After Nf3, the history and the continuation each gain the bonus (32 · 6²) or
        // lose it.
        let bonus = HISTORY_GAIN * 36;
        assert_eq!(scores(&s), (2 * bonus, -2 * bonus));
        // After another move only the from-to history is left.
        s.moved[0] = piece_square(Color::White, Role::Pawn, Square::E4) + 1;
        assert_eq!(scores(&s), (bonus, -bonus));
        // A context where the reply did badly prunes it near the leaves, not deeper.
        s.moved[0] = knight_f3;
        let (r, o) = (moves[reply], moves[other]);
        assert!(s.continuation_prunes(&pos, o, 1, 3, false));
        assert!(!s.continuation_prunes(&pos, r, 1, 3, false));
        assert!(!s.continuation_prunes(&pos, o, 1, 4, false));
        // Without a previous move there is no context to judge by.
        s.moved[0] = 0;
        assert!(!s.continuation_prunes(&pos, o, 1, 3, false));
    }

    #[test]
    fn drop_quiets_keeps_the_noisy_moves_in_order() {
        // White can capture on d5 (pawn, knight) and promote on b8.
        let pos = parse_position("4k3/1P6/8/3p4/4P3/2N5/8/4K3 w - - 0 1").unwrap();
        let mut moves = pos.legal_moves();
        let mut scores = [0i32; MAX_MOVES];
        for (i, s) in scores.iter_mut().enumerate().take(moves.len()) {
            *s = -(i as i32);
        }
        let noisy: Vec<(Move, i32)> = (1..moves.len())
            .filter(|&i| !is_quiet(moves[i]))
            .map(|i| (moves[i], scores[i]))
            .collect();
        assert!(noisy.len() >= 4);
        let first = moves[0];
        drop_quiets(&mut moves, &mut scores, 1);
        assert_eq!(moves[0], first);
        let kept: Vec<(Move, i32)> = (1..moves.len()).map(|i| (moves[i], scores[i])).collect();
        assert_eq!(kept, noisy);
    }

    #[test]
    fn score_buffers_hold_every_move_list() {
        assert_eq!(MoveList::new().capacity(), MAX_MOVES);
        // 218 legal moves, the most known in a legal position.
        let pos = parse_position("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1").unwrap();
        let mut moves = pos.legal_moves();
        assert_eq!(moves.len(), 218);
        let mut scores = [0i32; MAX_MOVES];
        for (i, s) in scores.iter_mut().enumerate().take(moves.len()) {
            *s = (i as i32 * 37) % 101;
        }
        let mut last = i32::MAX;
        for i in 0..moves.len() {
            pick_best(&mut moves, &mut scores, i);
            assert!(scores[i] <= last);
            last = scores[i];
        }
    }
}
