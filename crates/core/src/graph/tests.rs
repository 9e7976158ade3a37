use std::collections::BTreeSet;
use std::fmt::Write as _;

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Piece, Position, Role, Square};

use super::*;

/// Features and edges from python-chess (`scripts/golden/features.py`).
const GOLDEN: &str = include_str!("../../../../tests/golden/features.csv");

fn position(fen: &str) -> Chess {
    crate::chess::fen::parse(fen, crate::chess::fen::Leniency::Strict)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The golden file's edge notation: `e1d2:K>P:defend;...`.
fn edge_string(edges: &[Edge]) -> String {
    let mut out = String::new();
    for (i, e) in edges.iter().enumerate() {
        if i > 0 {
            out.push(';');
        }
        let from = Square::new(u32::from(e.from_sq));
        let to = Square::new(u32::from(e.to_sq));
        write!(
            out,
            "{from}{to}:{}>{}:{}",
            e.attacker.char(),
            e.target.char(),
            e.kind.as_str()
        )
        .unwrap();
    }
    out
}

/// Feature values by column name (booleans as 0/1), via the Serialize derive, so the test
/// also pins the field names to the `features` table's columns.
fn feature_values(f: &Features) -> Vec<(String, u64)> {
    let serde_json::Value::Object(map) = serde_json::to_value(f).unwrap() else {
        panic!("Features serializes to an object");
    };
    map.into_iter()
        .map(|(k, v)| {
            let n = match v {
                serde_json::Value::Bool(b) => u64::from(b),
                serde_json::Value::Number(n) => {
                    n.as_u64().or_else(|| n.as_i64().map(|i| i as u64)).unwrap()
                }
                other => panic!("{k}: unexpected {other}"),
            };
            (k, n)
        })
        .collect()
}

#[test]
fn golden_features_match_python_chess() {
    let mut reader = csv::Reader::from_reader(GOLDEN.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("golden file has no column {name}"))
    };
    let fen_col = column("fen");
    let source_col = column("source");
    let edges_col = column("edges");

    // Every field of Features is a column of the golden file, and vice versa.
    let fields: BTreeSet<String> = feature_values(&Features::default())
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    let columns: BTreeSet<String> = headers
        .iter()
        .filter(|h| !["source", "fen", "edges"].contains(h))
        .map(str::to_owned)
        .collect();
    assert_eq!(fields, columns, "Features fields vs golden columns");

    let mut edges = Vec::new();
    let mut mismatches = Vec::new();
    let mut rows = 0;
    for record in reader.records() {
        let record = record.unwrap();
        rows += 1;
        let fen = &record[fen_col];
        let pos = position(fen);
        let features = analyze(&pos, &mut edges);
        for (name, got) in feature_values(&features) {
            let expected: u64 = record[column(&name)]
                .parse::<i64>()
                .map(|v| v as u64)
                .or_else(|_| record[column(&name)].parse::<u64>())
                .unwrap();
            if got != expected {
                mismatches.push(format!(
                    "{} [{fen}] {name}: expected {}, got {}",
                    &record[source_col], expected as i64, got as i64
                ));
            }
        }
        let got = edge_string(&edges);
        if got != record[edges_col] {
            mismatches.push(format!(
                "{} [{fen}] edges:\n  expected {}\n  got      {got}",
                &record[source_col], &record[edges_col]
            ));
        }
        // The board-only graph (what `export data` computes) is the same graph.
        let mut board_edges = Vec::new();
        super::edges(pos.board(), &mut board_edges);
        if board_edges != edges {
            mismatches.push(format!(
                "{} [{fen}] graph::edges differs from analyze",
                &record[source_col]
            ));
        }
    }
    assert!(rows >= 250, "golden file has only {rows} rows");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// The null-move count agrees with shakmaty's own legal move generator on the position with
/// the turn passed, wherever shakmaty can build that position (side to move not in check).
#[test]
fn null_move_mobility_matches_shakmaty_when_not_in_check() {
    let mut reader = csv::Reader::from_reader(GOLDEN.as_bytes());
    let mut compared = 0;
    for record in reader.records() {
        let record = record.unwrap();
        let pos = position(&record[1]);
        if pos.is_check() {
            continue;
        }
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        setup.swap_turn();
        setup.ep_square = None;
        let passed: Chess = setup
            .position(CastlingMode::Standard)
            .unwrap_or_else(|e| panic!("{}: {e}", &record[1]));
        assert_eq!(
            null_move_mobility(&pos),
            passed.legal_moves().len() as i32,
            "{}",
            &record[1]
        );
        compared += 1;
    }
    assert!(compared >= 200, "only {compared} positions compared");
}

#[test]
fn start_position() {
    let mut edges = Vec::new();
    let f = analyze(&Chess::default(), &mut edges);
    assert_eq!(f.material, 0);
    assert_eq!(f.total_material, 78);
    assert_eq!(
        (f.mobility_white, f.mobility_black, f.mobility),
        (20, 20, 0)
    );
    assert_eq!(f.phase, 24);
    assert_eq!(f.center_control, 0);
    assert_eq!(f.king_safety, 0);
    assert_eq!(f.connectivity, 0);
    // Ranks 2 and 3, and b1..g1 (nothing attacks a1 and h1).
    assert_eq!(f.white_attacks, 0x00ff_ff7e);
    assert_eq!(f.black_attacks, 0x7eff_ff00_0000_0000);
    assert!(!f.in_check);
    assert_eq!(
        (f.hanging_white, f.threatened_white, f.king_attackers_white),
        (0, 0, 0)
    );
    assert_eq!((f.doubled_pawns_white, f.isolated_pawns_white), (0, 0));
    assert_eq!((f.passed_pawns_white, f.passed_pawns_black), (0, 0));
    // Per side: Ra1 2, Nb1 1, Bc1 2, Qd1 5, Ke1 5, Bf1 2, Ng1 1, Rh1 2 defenders' edges.
    assert_eq!(edges.len(), 40);
    assert!(edges.iter().all(|e| e.kind == EdgeKind::Defend));
    assert!(
        edges
            .windows(2)
            .all(|w| (w[0].from_sq, w[0].to_sq) < (w[1].from_sq, w[1].to_sq))
    );
    assert_eq!(
        edge_string(&edges[..3]),
        "a1b1:R>N:defend;a1a2:R>P:defend;b1d2:N>P:defend"
    );
    assert_eq!(mobility_counts(&Chess::default()), (20, 20));
    assert_eq!(king_safety(Chess::default().board()), 0);
}

/// White in check by a pawn on f2: the pawn may "capture the king" with promotion after
/// the null move. Checked by hand.
#[test]
fn pawn_check_and_king_capture_with_promotion() {
    let pos = position("6k1/8/8/8/8/8/5p2/4K3 w - - 0 1");
    let mut edges = vec![
        Edge {
            from_sq: 0,
            to_sq: 1,
            attacker: shakmaty::Piece::from_char('Q').unwrap(),
            target: shakmaty::Piece::from_char('q').unwrap(),
            kind: EdgeKind::Attack,
        };
        5
    ];
    let f = analyze(&pos, &mut edges);
    assert!(f.in_check);
    // Kd1 Kd2 Ke2 Kf1 Kxf2.
    assert_eq!(f.mobility_white, 5);
    // Kf8 Kh8 Kf7 Kg7 Kh7, f1=Q/R/B/N, fxe1=Q/R/B/N.
    assert_eq!(f.mobility_black, 13);
    assert_eq!(f.mobility, -8);
    assert_eq!((f.material, f.total_material, f.phase), (-1, 1, 0));
    assert_eq!((f.hanging_white, f.hanging_black), (0, 1));
    // A king never counts as a lower-valued attacker.
    assert_eq!(f.threatened_black, 0);
    assert_eq!((f.king_attackers_white, f.king_attackers_black), (0, 1));
    assert_eq!((f.passed_pawns_black, f.isolated_pawns_black), (1, 1));
    assert_eq!(f.king_safety, 0);
    assert_eq!(edge_string(&edges), "e1f2:K>p:attack;f2e1:p>K:attack");
}

/// Checked by hand: Black's Rd5 is attacked by Ne3 (lower value) and undefended; it
/// attacks d1 and d2 next to the white king; Bc3 defends the king through d2.
#[test]
fn threats_hanging_and_connectivity() {
    let pos = position("4k3/8/8/3r4/8/2B1N3/8/4K3 w - - 0 1");
    let mut edges = Vec::new();
    let f = analyze(&pos, &mut edges);
    assert_eq!((f.threatened_white, f.threatened_black), (0, 1));
    assert_eq!((f.hanging_white, f.hanging_black), (0, 1));
    assert_eq!((f.king_attackers_white, f.king_attackers_black), (0, 1));
    assert_eq!(f.king_safety, -2);
    assert_eq!(f.connectivity, 30);
    assert_eq!(f.material, 1);
    assert_eq!(f.phase, 4);
    assert_eq!(edge_string(&edges), "c3e1:B>K:defend;e3d5:N>r:attack");
}

#[test]
fn pawn_structure_counts() {
    // White: c2 c3 c4 (tripled: 2 doubled), e2 e3 (1 doubled), h2 isolated.
    let pos = position("4k3/8/8/8/2P5/2P1P3/2P1P2P/4K3 w - - 0 1");
    let p = pawn_structure(pos.board());
    assert_eq!(p.doubled.white, 3);
    assert_eq!(p.isolated.white, 6);
    assert_eq!(p.passed.white, 6);
    // Black d6 f6 e4 vs White e5 d3: e4 is passed? d3 is behind e4 from Black's view
    // (ranks below 4 are ahead for Black), so e4 is not passed; d6 and f6 face e5? e5 is
    // ahead of d6 (rank 5 < 6) on an adjacent file: not passed.
    let pos = position("4k3/8/3p1p2/4P3/4p3/3P4/8/4K3 b - - 0 1");
    let p = pawn_structure(pos.board());
    assert_eq!(p.passed.black, 0);
    // White e5: black d6/f6 ahead on adjacent files; d3: e4 ahead. None passed.
    assert_eq!(p.passed.white, 0);
    assert_eq!(p.isolated.black, 0);
    assert_eq!(p.isolated.white, 0);
    assert_eq!((p.doubled.white, p.doubled.black), (0, 0));
}

#[test]
fn letters() {
    assert_eq!(
        piece_letter(Piece {
            color: Color::White,
            role: Role::Pawn
        }),
        "P"
    );
    assert_eq!(
        piece_letter(Piece {
            color: Color::Black,
            role: Role::King
        }),
        "k"
    );
    assert_eq!(
        piece_letter(Piece {
            color: Color::Black,
            role: Role::Knight
        }),
        "n"
    );
}

#[test]
fn columns_are_the_fields_in_order_and_values_follow_them() {
    let pos = position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let f = analyze(&pos, &mut Vec::new());
    let json = serde_json::to_value(f).unwrap();
    let fields: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, Features::COLUMNS);
    for (name, value) in Features::COLUMNS.iter().zip(f.values()) {
        let expected = match &json[name] {
            serde_json::Value::Bool(b) => i64::from(*b),
            v if *name == "white_attacks" || *name == "black_attacks" => v.as_u64().unwrap() as i64,
            v => v.as_i64().unwrap(),
        };
        assert_eq!(value, expected, "{name}");
    }
    let bytes = crate::chess::packed::pack(&pos);
    assert_eq!(
        board_attacks(&bytes, Color::White).unwrap(),
        f.white_attacks
    );
    assert_eq!(
        board_attacks(&bytes, Color::Black).unwrap(),
        f.black_attacks
    );
    assert!(board_attacks(&bytes[..5], Color::White).is_err());
}
