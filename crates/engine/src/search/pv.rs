//! The triangular principal-variation table.

use shakmaty::{Chess, Move, Position};

use super::{Searcher, decode};

impl Searcher {
    /// Makes `code` followed by the child's PV the PV of `ply`.
    #[inline]
    pub(super) fn update_pv(&mut self, ply: usize, code: u16) {
        self.pv[ply][ply] = code;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }

    /// Moves of the PV table row `ply`, decoded along `pos`.
    pub(super) fn pv_moves(&self, pos: &Chess, ply: usize) -> Vec<Move> {
        let mut out = Vec::new();
        let mut p = pos.clone();
        for &code in &self.pv[ply][ply..self.pv_len[ply].max(ply)] {
            let Some(m) = decode(&p, code) else { break };
            out.push(m);
            p.play_unchecked(m);
        }
        out
    }
}
