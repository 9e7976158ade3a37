use super::*;
use crate::chess::fen::{Leniency, normalized_fen, parse, parse_position};

fn pos(fen: &str) -> Chess {
    parse_position(fen).unwrap()
}

#[test]
fn start_position_bytes_worked_by_hand() {
    let bytes = pack(&Chess::default());
    let mut expected = 0xFFFF_0000_0000_FFFFu64.to_le_bytes().to_vec();
    expected.push(0);
    // a1 castling rook (12) with b1 knight (1), c1 bishop with d1 queen, e1 king with f1
    // bishop, g1 knight with h1 castling rook; the pawns; a8 castling rook (13) with b8
    // knight (7), c8 bishop (8) with d8 queen (10), e8 king (11) with f8 bishop, g8
    // knight with h8 castling rook.
    expected.extend_from_slice(&[0x1C, 0x42, 0x25, 0xC1, 0, 0, 0, 0]);
    expected.extend_from_slice(&[0x66, 0x66, 0x66, 0x66, 0x7D, 0xA8, 0x8B, 0xD7]);
    assert_eq!(bytes, expected);
    assert_eq!(bytes.len(), MAX_LEN);
    assert_eq!(unpack(&bytes).unwrap(), Chess::default());
}

#[test]
fn turn_castling_and_en_passant_are_identity() {
    // A legal en passant capture (exf6) keeps its square; after 1. e4 none is possible, so
    // the position packs as the one without it, as its normalized FEN is.
    for (fen, len) in [
        (
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            25,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            25,
        ),
        ("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 5 30", 12),
        ("8/8/4k3/8/2pP4/8/8/4K3 b - d3 0 1", 11),
        ("8/8/8/8/8/8/8/K6k w - - 0 1", 10),
    ] {
        let p = pos(fen);
        let bytes = pack(&p);
        assert_eq!(bytes.len(), len, "{fen}");
        let back = unpack(&bytes).unwrap();
        assert_eq!(normalized_fen(&back), normalized_fen(&p), "{fen}");
    }
    let ep = pack(&pos("8/8/4k3/8/2pP4/8/8/4K3 b - d3 0 1"));
    // e1 king, c4 pawn, d4 pawn, e6 king: the d4 pawn is the third code.
    assert_eq!(ep[9], 5 | 6 << 4);
    assert_eq!(ep[10], EP_PAWN | 11 << 4);
    let no_ep = pack(&pos(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    ));
    assert_eq!(
        pack(&pos(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        )),
        no_ep
    );
    // Side to move and each castling right change the bytes.
    let base = pack(&pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"));
    for other in [
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
    ] {
        assert_ne!(pack(&pos(other)), base, "{other}");
    }
}

#[test]
fn bytes_no_pack_wrote_are_errors() {
    let start = pack(&Chess::default());
    let mut turn = start.clone();
    turn[8] = 2;
    let mut code15 = start.clone();
    code15[9] = 0x1F;
    let mut two_kings = start.clone();
    two_kings[11] = 0x55; // e1 and f1 both White kings
    let mut rook_on_b1 = start.clone();
    rook_on_b1[9] = 0xC0 | 12; // a1 castling rook, b1 castling rook
    let mut ep_without_capture = start.clone();
    ep_without_capture[13] = 0x0E; // a2 marked as an en passant pawn
    let lone = pack(&pos("8/8/8/8/8/8/8/K6k w - - 0 1"));
    let mut odd_nibble = pack(&pos("8/8/8/8/8/8/8/K5qk w - - 0 1"));
    *odd_nibble.last_mut().unwrap() |= 0x30;
    for (bad, what) in [
        (&[][..], "bytes, expected"),
        (&start[..24], "bytes, expected"),
        (&lone[..9], "bytes, expected"),
        (&turn[..], "side to move byte 2"),
        (&code15[..], "code 15"),
        (&two_kings[..], "packed position:"),
        (&rook_on_b1[..], "packed position:"),
        (&ep_without_capture[..], "packed position:"),
        (&odd_nibble[..], "packed position:"),
    ] {
        let e = unpack(bad).unwrap_err().to_string();
        assert!(e.contains(what), "{what}: {e}");
    }
    // Random bytes never panic, and whatever unpacks packs back to the same bytes.
    let mut rng = crate::chess::rng::SplitMix(7);
    for _ in 0..20_000 {
        let mut bytes = start.clone();
        let i = 8 + (rng.next_u64() % 17) as usize;
        bytes[i] = rng.next_u64() as u8;
        if let Ok(p) = unpack(&bytes) {
            assert_eq!(pack(&p), bytes);
        }
    }
}

/// Every position in the shared data sets: packing and unpacking gives the same
/// normalized FEN, and two positions pack alike exactly when their normalized FENs are
/// equal.
#[test]
fn every_shared_position_round_trips() {
    use rayon::prelude::*;
    use std::io::BufRead;
    let Some(dir) = chessgraph_testkit::shared_data() else {
        return;
    };
    let mut total = 0;
    for (file, skip) in [
        ("positions-200k.csv.zst", 1),
        ("selfplay-700k.csv.zst", 1),
        ("bestmoves-sfd8.epd.zst", 0),
        ("datagen-1.9m-sfd4.epd.zst", 0),
        ("datagen-1.9m-sfd4-2.epd.zst", 0),
    ] {
        let path = dir.join(file);
        let reader = zstd::Decoder::new(std::fs::File::open(&path).unwrap()).unwrap();
        let lines: Vec<String> = std::io::BufReader::new(reader)
            .lines()
            .skip(skip)
            .map(Result::unwrap)
            .collect();
        let packed: Vec<(String, Vec<u8>)> = lines
            .par_iter()
            .map(|line| {
                let fen = if file.ends_with(".csv.zst") {
                    line.split(',').next().unwrap().to_string()
                } else {
                    let fields: Vec<&str> = line.splitn(5, ' ').take(4).collect();
                    fields.join(" ") + " 0 1"
                };
                let p = parse(&fen, Leniency::DropCastling).unwrap();
                let bytes = pack(&p);
                assert!(bytes.len() <= MAX_LEN);
                let back = unpack(&bytes).unwrap_or_else(|e| panic!("{file}: {fen}: {e}"));
                let fen = normalized_fen(&p);
                assert_eq!(normalized_fen(&back), fen, "{file}");
                (fen, bytes)
            })
            .collect();
        let fens: std::collections::HashSet<&String> = packed.iter().map(|(f, _)| f).collect();
        let keys: std::collections::HashSet<&Vec<u8>> = packed.iter().map(|(_, b)| b).collect();
        assert_eq!(fens.len(), keys.len(), "{file}");
        assert!(packed.len() > 100_000, "{file}: {}", packed.len());
        total += packed.len();
    }
    assert!(total > 5_000_000, "{total}");
}

#[test]
fn key_is_fnv_then_splitmix_of_the_bytes() {
    // Computed independently (Python: FNV-1a 64 of the 25 start-position bytes above,
    // splitmix64's finalizer, its top 47 bits). The key is stored in the database's
    // position index: this value must never change.
    assert_eq!(key(&pack(&Chess::default())), 140_339_441_922_146);
    assert!(key(&[0xff; 25]) >= 0 && key(&[0xff; 25]) < 1 << 47);
    assert_ne!(key(&[0; 9]), key(&[0; 10]));
}
