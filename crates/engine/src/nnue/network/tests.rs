use super::*;
use shakmaty::Chess;

/// A small network with pseudo-random weights (deterministic).
pub(crate) fn random_network(hidden: usize, seed: u64) -> Network {
    random_network_of(FeatureSet::Pieces, hidden, seed)
}

/// A small network of `set` with pseudo-random weights (deterministic).
pub(crate) fn random_network_of(set: FeatureSet, hidden: usize, seed: u64) -> Network {
    random_network_bucketed(set, hidden, 1, seed)
}

/// A small network of `set` with `buckets` output buckets and pseudo-random weights.
pub(crate) fn random_network_bucketed(
    set: FeatureSet,
    hidden: usize,
    buckets: usize,
    seed: u64,
) -> Network {
    Network::random(set, hidden, buckets, seed)
}

/// The bytes of `net` (one bucket) in format version 1, as earlier chessgraphs wrote.
fn version_1_bytes(net: &Network) -> Vec<u8> {
    assert_eq!(net.buckets(), 1);
    let v2 = net.to_bytes();
    let mut v1 = v2[..8].to_vec();
    v1.extend_from_slice(&1u32.to_le_bytes());
    v1.extend_from_slice(&v2[12..20]); // inputs, hidden
    v1.extend_from_slice(&v2[24..v2.len() - 8]); // QA, QB, SCALE, JSON, weights
    let checksum = fnv1a64(&v1);
    v1.extend_from_slice(&checksum.to_le_bytes());
    v1
}

#[test]
fn reads_version_1_files() {
    let net = random_network_of(FeatureSet::Threats, 8, 11);
    let back = Network::from_bytes(&version_1_bytes(&net), "v1").unwrap();
    assert_eq!(back, net);
}

#[test]
fn output_buckets_by_piece_count() {
    assert_eq!(output_bucket(32, 1), 0);
    assert_eq!(output_bucket(2, 8), 0);
    assert_eq!(output_bucket(5, 8), 0);
    assert_eq!(output_bucket(6, 8), 1);
    assert_eq!(output_bucket(29, 8), 6);
    assert_eq!(output_bucket(30, 8), 7);
    assert_eq!(output_bucket(32, 8), 7);
    let counts: Vec<usize> = (0..8)
        .map(|b| (2..=32).filter(|&p| output_bucket(p, 8) == b).count())
        .collect();
    assert_eq!(counts, [4, 4, 4, 4, 4, 4, 4, 3]);
    // Each bucket's output layer is used for its own positions only.
    let mut net = random_network_bucketed(FeatureSet::Pieces, 16, 8, 4);
    let start = Chess::default();
    let endgame: Chess =
        chessgraph_core::chess::fen::parse_position("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1").unwrap();
    let (a, b) = (net.evaluate(&start), net.evaluate(&endgame));
    net.out_bias[0] += 64 * 255; // one centipawn-scale step in the endgame bucket only
    assert_eq!(net.evaluate(&start), a);
    assert_ne!(net.evaluate(&endgame), b);
    let back = Network::from_bytes(&net.to_bytes(), "b").unwrap();
    assert_eq!(back, net);
}

/// A file states its output scale: the same integer weights at twice the scale give
/// half the output; a scale this chessgraph does not know is refused by name.
#[test]
fn the_output_scale_is_the_files() {
    let net = random_network(16, 3);
    assert_eq!(net.qb(), crate::nnue::QB);
    let with_qb = |qb| {
        Network::from_parts(
            net.features(),
            net.ft_weights.clone(),
            net.ft_bias.clone(),
            net.out_weights.clone(),
            net.out_bias.clone(),
            qb,
            net.provenance().clone(),
        )
    };
    let coarse = with_qb(64).unwrap();
    let back = Network::from_bytes(&coarse.to_bytes(), "c").unwrap();
    assert_eq!(back.qb(), 64);
    assert_eq!(back, coarse);
    let mut halves = 0;
    for fen in [
        "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
    ] {
        let pos: Chess = chessgraph_core::chess::fen::parse_position(fen).unwrap();
        let (fine, coarse) = (net.evaluate(&pos), back.evaluate(&pos));
        assert!(
            (coarse - 2 * fine).abs() <= 2,
            "{fen}: {coarse} vs 2 × {fine}"
        );
        halves += usize::from(coarse != 0);
    }
    assert!(halves > 0);
    let mut bytes = coarse.to_bytes();
    bytes[28] = 100; // QB 64 -> 100
    let e = Network::from_bytes(&bytes, "c").unwrap_err().to_string();
    assert!(e.contains("QB=100"), "{e}");
    assert!(with_qb(100).is_none());
}

#[test]
fn round_trip_and_damage() {
    let threats = random_network_of(FeatureSet::Threats, 8, 5);
    let back = Network::from_bytes(&threats.to_bytes(), "t").unwrap();
    assert_eq!(back.features(), FeatureSet::Threats);
    assert_eq!(back, threats);
    let mut other_inputs = threats.to_bytes();
    other_inputs[12] = 0x01; // 2304 = 0x0900 -> 0x0901
    let e = Network::from_bytes(&other_inputs, "t")
        .unwrap_err()
        .to_string();
    assert!(e.contains("inputs=2305"), "{e}");

    let net = random_network(16, 7);
    let bytes = net.to_bytes();
    let back = Network::from_bytes(&bytes, "t").unwrap();
    assert_eq!(back, net);

    let msg = |b: &[u8]| Network::from_bytes(b, "t").unwrap_err().to_string();
    assert!(msg(&bytes[..bytes.len() - 100]).contains("incomplete"));
    assert!(msg(&bytes[..20]).contains("truncated"));
    assert!(msg(b"{\"format\": 1}").contains("bad magic"));
    let mut v3 = bytes.clone();
    v3[8] = 3;
    assert!(msg(&v3).contains("version 3"));
    let mut flipped = bytes.clone();
    let mid = bytes.len() / 2;
    flipped[mid] ^= 1;
    assert!(msg(&flipped).contains("checksum"));
    let mut other_size = bytes.clone();
    other_size[16] = 32; // hidden 16 -> 32 without the weights to match
    assert!(msg(&other_size).contains("hidden size 32"));
}

#[test]
fn evaluation_is_colour_symmetric() {
    // The mirrored position (colours swapped, board flipped) must get the same score
    // from the side to move's view: both perspectives share one weight matrix.
    for net in [
        random_network(32, 3),
        random_network_of(FeatureSet::Threats, 32, 3),
    ] {
        for fen in [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "8/2P5/8/8/8/8/5p2/K6k b - - 0 1",
        ] {
            let pos: Chess = chessgraph_core::chess::fen::parse_position(fen).unwrap();
            let flipped_fen = {
                let mut board = pos.board().clone();
                board.flip_vertical();
                board.swap_colors();
                let setup = shakmaty::Setup {
                    board,
                    turn: !pos.turn(),
                    ..shakmaty::Setup::empty()
                };
                shakmaty::fen::Fen::try_from_setup(setup)
                    .unwrap()
                    .to_string()
            };
            let mirrored: Chess =
                chessgraph_core::chess::fen::parse_position(&flipped_fen).unwrap();
            assert_eq!(net.evaluate(&pos), net.evaluate(&mirrored), "{fen}");
        }
    }
}
