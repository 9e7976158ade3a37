//! The first layer's output, kept per ply and updated incrementally.
//!
//! A move changes two to four features; the child's accumulator is the parent's plus the
//! weight rows of the added features minus those of the removed ones, for both
//! perspectives — one pass over `2H` values instead of a sum over ~30 pieces. The search
//! keeps one accumulator per ply in an [`AccumulatorStack`]: making a move writes ply
//! `p + 1` from ply `p`, and unmaking a move is free (the parent is still there).

use shakmaty::{Color, Move, Position};

use super::Network;
use super::features::{Delta, mirror};
use super::simd::add_sub_rows;
use super::threats::{ThreatList, threats};

/// The hidden layer's pre-activations from both perspectives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// From White's perspective.
    pub white: Vec<i16>,
    /// From Black's perspective.
    pub black: Vec<i16>,
}

impl Accumulator {
    /// A zeroed accumulator for a network with `hidden` units.
    pub fn new(hidden: usize) -> Accumulator {
        Accumulator {
            white: vec![0; hidden],
            black: vec![0; hidden],
        }
    }
}

/// One accumulator per ply of a search, for incremental updates.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    plies: Vec<Accumulator>,
}

impl AccumulatorStack {
    /// A stack of `plies` accumulators for `net`.
    pub fn new(net: &Network, plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            plies: vec![Accumulator::new(net.hidden()); plies],
        }
    }

    /// Number of plies the stack holds.
    pub fn len(&self) -> usize {
        self.plies.len()
    }

    /// Whether the stack holds no ply.
    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// Computes ply `ply` from scratch (the root of a search): biases and piece features
    /// (a network with threat inputs adds those per evaluation).
    pub fn refresh(&mut self, net: &Network, ply: usize, pos: &impl Position) {
        net.refresh_pieces(pos, &mut self.plies[ply]);
    }

    /// Writes ply `ply + 1` as ply `ply` after `m`, played by `us`.
    pub fn push_move(&mut self, net: &Network, ply: usize, us: Color, m: &Move) {
        let delta = Delta::of_move(us, m);
        let (parents, children) = self.plies.split_at_mut(ply + 1);
        let (parent, child) = (&parents[ply], &mut children[0]);
        for persp in [Color::White, Color::Black] {
            let (from, to) = match persp {
                Color::White => (&parent.white, &mut child.white),
                Color::Black => (&parent.black, &mut child.black),
            };
            let mut add = [None::<&[i16]>; 2];
            let mut sub = [None::<&[i16]>; 2];
            for (slot, f) in add.iter_mut().zip(delta.added(persp)) {
                *slot = Some(net.feature_weights(f));
            }
            for (slot, f) in sub.iter_mut().zip(delta.removed(persp)) {
                *slot = Some(net.feature_weights(f));
            }
            update(from, to, add, sub);
        }
    }

    /// Writes ply `ply + 1` as a copy of ply `ply` (a null move changes no feature).
    pub fn push_null(&mut self, ply: usize) {
        let (parents, children) = self.plies.split_at_mut(ply + 1);
        children[0].clone_from(&parents[ply]);
    }

    /// The evaluation at ply `ply` of a position with `pieces` pieces, centipawns from
    /// `turn`'s point of view.
    #[inline]
    pub fn evaluate(&self, net: &Network, ply: usize, turn: Color, pieces: u32) -> i32 {
        net.output(&self.plies[ply], turn, pieces)
    }

    /// The accumulator at `ply`.
    pub fn get(&self, ply: usize) -> &Accumulator {
        &self.plies[ply]
    }
}

/// The threat features' share of the first layer, per ply, for networks with threat
/// inputs. Threats depend on the whole board, so a ply's list is recomputed when the ply is
/// evaluated, and its accumulator (weights only, no biases) is the nearest evaluated
/// ancestor's plus the rows of the features that appeared minus those that went — a move
/// usually changes a handful.
#[derive(Clone, Debug)]
pub struct ThreatStack {
    plies: Vec<(ThreatList, Accumulator)>,
    /// Whether ply `p` holds the threats of the current line's position at `p`.
    ok: Vec<bool>,
    deltas: RowDeltas,
}

impl ThreatStack {
    /// A stack of `plies` entries for `net`.
    pub fn new(net: &Network, plies: usize) -> ThreatStack {
        ThreatStack {
            plies: vec![(ThreatList::default(), Accumulator::new(net.hidden())); plies],
            ok: vec![false; plies],
            deltas: RowDeltas::default(),
        }
    }

    /// The line starts at `board` (ply 0); every other ply is stale.
    pub fn set_root(&mut self, net: &Network, board: &shakmaty::Board) {
        self.ok.fill(false);
        let (list, acc) = &mut self.plies[0];
        *list = ThreatList::default();
        acc.white.fill(0);
        acc.black.fill(0);
        self.ok[0] = true;
        self.update(net, 0, board);
    }

    /// The position at `ply` changed (a move was made into it).
    #[inline]
    pub fn invalidate(&mut self, ply: usize) {
        self.ok[ply] = false;
    }

    /// The threat accumulator of `board`, the position at `ply` of the current line.
    pub fn update(&mut self, net: &Network, ply: usize, board: &shakmaty::Board) -> &Accumulator {
        let new = threats(board);
        if self.ok[ply] && self.plies[ply].0 == new {
            return &self.plies[ply].1;
        }
        let from = (0..=ply).rev().find(|&q| self.ok[q]).unwrap_or(ply);
        let (before, after) = self.plies.split_at_mut(ply);
        let dst = &mut after[0];
        let src = (from != ply).then(|| &before[from]);
        let old = src.map_or(dst.0.as_slice(), |s| s.0.as_slice());
        // The features that appeared and went since `from` (both lists are sorted).
        let d = &mut self.deltas;
        d.clear();
        let h = net.hidden();
        let newer = new.as_slice();
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < newer.len() {
            match (old.get(i), newer.get(j)) {
                (Some(&a), Some(&b)) if a == b => {
                    i += 1;
                    j += 1;
                }
                (Some(&a), Some(&b)) if a < b => {
                    d.push(a, false, h);
                    i += 1;
                }
                (Some(&a), None) => {
                    d.push(a, false, h);
                    i += 1;
                }
                (_, Some(&b)) => {
                    d.push(b, true, h);
                    j += 1;
                }
                (None, None) => unreachable!(),
            }
        }
        let (src_white, src_black) = match src {
            Some(s) => (Some(s.1.white.as_slice()), Some(s.1.black.as_slice())),
            None => (None, None),
        };
        let w = net.ft_weights.as_slice();
        add_sub_rows(&mut dst.1.white, src_white, w, &d.add_white, &d.sub_white);
        add_sub_rows(&mut dst.1.black, src_black, w, &d.add_black, &d.sub_black);
        dst.0 = new;
        self.ok[ply] = true;
        &self.plies[ply].1
    }
}

/// The weight rows (offsets into the first layer's weights) of the threat features that
/// appeared and went between two plies, for each perspective; kept between updates so
/// that they are not allocated per evaluation.
#[derive(Clone, Debug, Default)]
struct RowDeltas {
    add_white: Vec<u32>,
    add_black: Vec<u32>,
    sub_white: Vec<u32>,
    sub_black: Vec<u32>,
}

impl RowDeltas {
    fn clear(&mut self) {
        self.add_white.clear();
        self.add_black.clear();
        self.sub_white.clear();
        self.sub_black.clear();
    }

    /// Feature `f` (White's perspective) appeared (`added`) or went, in a net with
    /// `hidden` units.
    fn push(&mut self, f: u16, added: bool, hidden: usize) {
        let f = usize::from(f);
        let (white, black) = ((f * hidden) as u32, (mirror(f) * hidden) as u32);
        if added {
            self.add_white.push(white);
            self.add_black.push(black);
        } else {
            self.sub_white.push(white);
            self.sub_black.push(black);
        }
    }
}

/// `to = from + Σ add − Σ sub`, fused into one pass for the common shapes so the compiler
/// vectorizes each (quiet move 1+1, capture 1+2, castling 2+2).
#[inline]
fn update(from: &[i16], to: &mut [i16], add: [Option<&[i16]>; 2], sub: [Option<&[i16]>; 2]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { update_avx2(from, to, add, sub) };
    }
    update_generic(from, to, add, sub)
}

/// [`update`] compiled for AVX2 (16 lanes of `i16`); the build targets baseline x86-64.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn update_avx2(from: &[i16], to: &mut [i16], add: [Option<&[i16]>; 2], sub: [Option<&[i16]>; 2]) {
    update_generic(from, to, add, sub)
}

#[inline(always)]
fn update_generic(
    from: &[i16],
    to: &mut [i16],
    add: [Option<&[i16]>; 2],
    sub: [Option<&[i16]>; 2],
) {
    let n = to.len();
    let from = &from[..n];
    match (add, sub) {
        ([Some(a), None], [Some(s), None]) => {
            let (a, s) = (&a[..n], &s[..n]);
            for i in 0..n {
                to[i] = from[i].wrapping_add(a[i]).wrapping_sub(s[i]);
            }
        }
        ([Some(a), None], [Some(s1), Some(s2)]) => {
            let (a, s1, s2) = (&a[..n], &s1[..n], &s2[..n]);
            for i in 0..n {
                to[i] = from[i]
                    .wrapping_add(a[i])
                    .wrapping_sub(s1[i])
                    .wrapping_sub(s2[i]);
            }
        }
        ([Some(a1), Some(a2)], [Some(s1), Some(s2)]) => {
            let (a1, a2, s1, s2) = (&a1[..n], &a2[..n], &s1[..n], &s2[..n]);
            for i in 0..n {
                to[i] = from[i]
                    .wrapping_add(a1[i])
                    .wrapping_add(a2[i])
                    .wrapping_sub(s1[i])
                    .wrapping_sub(s2[i]);
            }
        }
        _ => {
            to.copy_from_slice(from);
            for a in add.into_iter().flatten() {
                super::simd::add_assign(to, a);
            }
            for s in sub.into_iter().flatten() {
                super::simd::sub_assign(to, s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_position;
    use crate::nnue::network::tests::random_network_bucketed;
    use shakmaty::Chess;

    /// Random walks through positions with every kind of move: the incrementally updated
    /// accumulator equals a refresh, and so does the evaluation, at every ply.
    #[test]
    fn incremental_equals_refresh() {
        let net = random_network_bucketed(crate::nnue::FeatureSet::Pieces, 48, 8, 11);
        let mut stack = AccumulatorStack::new(&net, 64);
        let mut fresh = Accumulator::new(net.hidden());
        let mut seed = 99u64;
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
        ];
        let mut moves_played = 0;
        for fen in fens {
            for _walk in 0..20 {
                let mut pos: Chess = parse_position(fen).unwrap();
                stack.refresh(&net, 0, &pos);
                for ply in 0..40 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Prefer captures, promotions and castling half of the time.
                    let special: Vec<_> = moves
                        .iter()
                        .filter(|m| m.is_capture() || m.is_promotion() || m.is_castle())
                        .collect();
                    let m = if !special.is_empty() && seed >> 63 == 1 {
                        *special[(seed >> 20) as usize % special.len()]
                    } else {
                        moves[(seed >> 20) as usize % moves.len()]
                    };
                    stack.push_move(&net, ply, pos.turn(), &m);
                    pos.play_unchecked(m);
                    net.refresh(&pos, &mut fresh);
                    assert_eq!(stack.get(ply + 1), &fresh, "{fen} ply {ply} {m}");
                    assert_eq!(
                        stack.evaluate(
                            &net,
                            ply + 1,
                            pos.turn(),
                            pos.board().occupied().count() as u32
                        ),
                        net.evaluate(&pos)
                    );
                    moves_played += 1;
                }
            }
        }
        assert!(moves_played > 1000);
    }
}
