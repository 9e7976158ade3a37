//! Every byte against the `bulletformat` crate's reading of the same position, score and
//! result (its text form `FEN | score | result`, White-relative).

use std::str::FromStr;

use bulletformat::{BulletFormat, ChessBoard};
use shakmaty::{Chess, Color, Position};

use super::*;
use crate::chess::fen::{Leniency, parse};

/// The fixture's 2,000 positions (both sides to move, all phases).
fn fixture() -> Vec<(String, Chess)> {
    let path = chessgraph_testkit::repo_root().join("tests/fixtures/eval-positions-2k.csv");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let fen = l.split(',').next().unwrap().to_owned();
            let pos = parse(&fen, Leniency::Strict).unwrap();
            (fen, pos)
        })
        .collect()
}

#[test]
fn bytes_equal_bulletformats_reading() {
    let positions = fixture();
    assert!(positions.len() > 1900);
    let results = [(0.0, "0.0"), (0.5, "0.5"), (1.0, "1.0")];
    for (i, (fen, pos)) in positions.iter().enumerate() {
        let score = (i as i32 * 37) % 2001 - 1000;
        let (result, text) = results[i % 3];
        let ours = encode(pos, score, result);
        let theirs = ChessBoard::from_str(&format!("{fen} | {score} | {text}")).unwrap();
        assert_eq!(
            ours,
            ChessBoard::as_bytes_slice(&[theirs]),
            "{fen} | {score} | {text}"
        );
    }
}

#[test]
fn decodes_to_the_side_to_moves_view() {
    for (fen, pos) in fixture().iter().take(300) {
        let record = decode(&encode(pos, 120, 1.0));
        let mut board = pos.board().clone();
        if pos.turn() == Color::Black {
            board.flip_vertical();
            board.swap_colors();
        }
        assert_eq!(record.placement(), board.to_string(), "{fen}");
        let white = pos.turn() == Color::White;
        assert_eq!(record.score, if white { 120 } else { -120 }, "{fen}");
        assert_eq!(record.result, if white { 2 } else { 0 }, "{fen}");
    }
}

#[test]
fn scores_are_clamped_to_the_field() {
    let pos = Chess::default();
    assert_eq!(decode(&encode(&pos, 100_000, 0.5)).score, i16::MAX);
    assert_eq!(decode(&encode(&pos, -100_000, 0.5)).score, i16::MIN);
    assert_eq!(decode(&encode(&pos, 0, 0.5)).result, 1);
}
