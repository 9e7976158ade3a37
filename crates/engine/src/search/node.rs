//! A node of the main search as its move loop and the singular search see it.

use super::tt::Hit;

/// What the move loop needs to know about the node it searches.
#[derive(Clone, Copy)]
pub(super) struct Node {
    pub(super) key: u64,
    pub(super) depth: i32,
    pub(super) ply: usize,
    pub(super) pv_node: bool,
    /// A null-window node expected to fail high (a reduced search's child, the child of an
    /// expected all-node's first move): reduced more.
    pub(super) cut_node: bool,
    pub(super) in_check: bool,
    /// The static evaluation (−[`INF`](super::INF) in check).
    pub(super) static_eval: i32,
    /// The static evaluation is higher than two plies before (our last move here), so the
    /// position is getting better for the side to move: prune less.
    pub(super) improving: bool,
    /// The transposition table's entry for the node (none in a singular search).
    pub(super) hit: Option<Hit>,
    /// The move a singular-extension search leaves out (0: none).
    pub(super) excluded: u16,
}
