//! The first layer's output, kept per ply and updated incrementally.
//!
//! A move changes two to four features; the child's accumulator is the parent's plus the
//! weight rows of the added features minus those of the removed ones, for both
//! perspectives — one pass over `2H` values instead of a sum over ~30 pieces. The search
//! keeps one accumulator per ply in an [`AccumulatorStack`]: making a move writes ply
//! `p + 1` from ply `p`, and unmaking a move is free (the parent is still there).

use shakmaty::{Board, Color, Move, Position};

use super::Network;
use super::features::{Delta, FeatureSet, mirror};
use super::simd::add_sub_rows;
use super::threats::ThreatBoards;

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
///
/// For a network with threat inputs each ply also holds the threat features its
/// accumulator includes ([`ThreatBoards`]). Those depend on the whole board, so a ply
/// reached without being evaluated keeps its parent's ([`AccumulatorStack::push_move`]),
/// and the ply that is evaluated gets its own in the same pass as its move
/// ([`AccumulatorStack::push_evaluated`]): the parent's accumulator plus the move's piece
/// rows plus the rows of the threat features that appeared, minus those that went.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    plies: Vec<Accumulator>,
    /// The threat features each ply's accumulator includes (empty without threat inputs).
    threats: Vec<ThreatBoards>,
    with_threats: bool,
    rows: RowDeltas,
}

impl AccumulatorStack {
    /// A stack of `plies` accumulators for `net`.
    pub fn new(net: &Network, plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            plies: vec![Accumulator::new(net.hidden()); plies],
            threats: vec![ThreatBoards::default(); plies],
            with_threats: net.features() == FeatureSet::Threats,
            rows: RowDeltas::default(),
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

    /// Computes ply `ply` from scratch (the root of a search): biases and every feature.
    pub fn refresh(&mut self, net: &Network, ply: usize, pos: &impl Position) {
        net.refresh(pos, &mut self.plies[ply]);
        if self.with_threats {
            self.threats[ply] = ThreatBoards::of(pos.board());
        }
    }

    /// Writes ply `ply + 1` as ply `ply` after `m`, played by `us`: the piece features
    /// only; a network with threat inputs keeps ply `ply`'s threats until the ply is
    /// evaluated.
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
        self.threats[ply + 1] = self.threats[ply];
    }

    /// Writes ply `ply + 1` as a copy of ply `ply` (a null move changes no piece feature).
    pub fn push_null(&mut self, ply: usize) {
        let (parents, children) = self.plies.split_at_mut(ply + 1);
        children[0].clone_from(&parents[ply]);
        self.threats[ply + 1] = self.threats[ply];
    }

    /// Writes ply `ply + 1`, the position `board` after `m` (`None`: a null move) played
    /// by `us` at ply `ply`, with every feature, threats included, in one pass over the
    /// accumulator: the ply about to be evaluated. Without threat inputs this is
    /// [`AccumulatorStack::push_move`].
    pub fn push_evaluated(
        &mut self,
        net: &Network,
        ply: usize,
        us: Color,
        m: Option<&Move>,
        board: &Board,
    ) {
        if !self.with_threats {
            match m {
                Some(m) => self.push_move(net, ply, us, m),
                None => self.push_null(ply),
            }
            return;
        }
        let h = net.hidden();
        let r = &mut self.rows;
        r.clear();
        if let Some(m) = m {
            let delta = Delta::of_move(us, m);
            for f in delta.added(Color::White) {
                r.add_white.push((f * h) as u32);
            }
            for f in delta.added(Color::Black) {
                r.add_black.push((f * h) as u32);
            }
            for f in delta.removed(Color::White) {
                r.sub_white.push((f * h) as u32);
            }
            for f in delta.removed(Color::Black) {
                r.sub_black.push((f * h) as u32);
            }
        }
        let new = ThreatBoards::of(board);
        self.threats[ply].diff(&new, |f, added| r.push(f, added, h));
        self.threats[ply + 1] = new;
        let (parents, children) = self.plies.split_at_mut(ply + 1);
        let (parent, child) = (&parents[ply], &mut children[0]);
        let w = net.ft_weights.as_slice();
        add_sub_rows(
            &mut child.white,
            Some(&parent.white),
            w,
            &r.add_white,
            &r.sub_white,
        );
        add_sub_rows(
            &mut child.black,
            Some(&parent.black),
            w,
            &r.add_black,
            &r.sub_black,
        );
    }

    /// Brings ply `ply`'s threat features up to date with `board`, its position, in
    /// place (a ply pushed without them and evaluated later). Nothing to do without
    /// threat inputs.
    pub fn update_threats(&mut self, net: &Network, ply: usize, board: &Board) {
        if !self.with_threats {
            return;
        }
        let new = ThreatBoards::of(board);
        if new == self.threats[ply] {
            return;
        }
        let h = net.hidden();
        let r = &mut self.rows;
        r.clear();
        self.threats[ply].diff(&new, |f, added| r.push(f, added, h));
        self.threats[ply] = new;
        let acc = &mut self.plies[ply];
        let w = net.ft_weights.as_slice();
        add_sub_rows(&mut acc.white, None, w, &r.add_white, &r.sub_white);
        add_sub_rows(&mut acc.black, None, w, &r.add_black, &r.sub_black);
    }

    /// The evaluation at ply `ply` of a position with `pieces` pieces, centipawns from
    /// `turn`'s point of view (the ply must be up to date: see the push methods).
    #[inline]
    pub fn evaluate(&self, net: &Network, ply: usize, turn: Color, pieces: u32) -> i32 {
        net.output(&self.plies[ply], turn, pieces)
    }

    /// The accumulator at `ply`.
    pub fn get(&self, ply: usize) -> &Accumulator {
        &self.plies[ply]
    }
}

/// The weight rows (offsets into the first layer's weights) to add and subtract for each
/// perspective in one update; kept between updates so that they are not allocated per
/// evaluation.
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
    fn push(&mut self, f: usize, added: bool, hidden: usize) {
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

super::simd::avx2_dispatch! {
    /// `to = from + Σ add − Σ sub`, fused into one pass for the common shapes so the
    /// compiler vectorizes each (quiet move 1+1, capture 1+2, castling 2+2).
    fn update / update_avx2 = update_generic(from: &[i16], to: &mut [i16], add: [Option<&[i16]>; 2], sub: [Option<&[i16]>; 2])
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
    use crate::nnue::network::tests::random_network_bucketed;
    use chessgraph_core::chess::fen::parse_position;
    use shakmaty::Chess;

    /// Random walks through positions with every kind of move: the incrementally updated
    /// accumulator equals a refresh, and so does the evaluation, at every ply — for piece
    /// and threat inputs, with the plies' threats brought up to date in the move's pass, in
    /// place after it, or only a ply later (a ply the search does not evaluate); hidden
    /// sizes with and without whole AVX2 blocks.
    #[test]
    fn incremental_equals_refresh() {
        let mut moves_played = 0;
        for (set, hidden) in [
            (FeatureSet::Pieces, 48),
            (FeatureSet::Threats, 48),
            (FeatureSet::Threats, 256),
        ] {
            moves_played += random_walks(&random_network_bucketed(set, hidden, 8, 11));
        }
        assert!(moves_played > 3000, "{moves_played}");
    }

    /// Checked moves played on random walks with `net`.
    fn random_walks(net: &Network) -> usize {
        let mut stack = AccumulatorStack::new(net, 64);
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
                stack.refresh(net, 0, &pos);
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
                    let (us, mode) = (pos.turn(), (seed >> 8) % 3);
                    pos.play_unchecked(m);
                    match mode {
                        0 => stack.push_evaluated(net, ply, us, Some(&m), pos.board()),
                        _ => stack.push_move(net, ply, us, &m),
                    }
                    if mode == 1 {
                        stack.update_threats(net, ply + 1, pos.board());
                    }
                    if mode == 2 && net.features() == FeatureSet::Threats {
                        continue; // not evaluated: its threats are its parent's
                    }
                    net.refresh(&pos, &mut fresh);
                    assert_eq!(stack.get(ply + 1), &fresh, "{fen} ply {ply} {m}");
                    assert_eq!(
                        stack.evaluate(
                            net,
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
        moves_played
    }
}
