//! Built-in evaluators: `material`, `simplified` (Simplified Evaluation Function) and
//! `seed003` (the graph-features study's bot).

use shakmaty::{Role, Square};

use super::layout::ROLES;
use super::{Evaluator, Provenance, Term, Weights};
use chessgraph_core::chess::values::piece_value;

/// A piece-square table written as on a diagram: first row a8..h8, last row a1..h1.
pub type Table = [[i32; 8]; 8];

/// Value at `sq` (White's view) of a table written rank 8 first.
pub fn table_at(table: &Table, sq: Square) -> i32 {
    table[7 - sq.rank() as usize][sq.file() as usize]
}

/// Simplified Evaluation Function (Tomasz Michniewski) piece-square tables, rank 8 first.
pub mod sef {
    use super::Table;

    /// Pawn.
    #[rustfmt::skip]
    pub const PAWN: Table = [
        [  0,  0,  0,  0,  0,  0,  0,  0],
        [ 50, 50, 50, 50, 50, 50, 50, 50],
        [ 10, 10, 20, 30, 30, 20, 10, 10],
        [  5,  5, 10, 25, 25, 10,  5,  5],
        [  0,  0,  0, 20, 20,  0,  0,  0],
        [  5, -5,-10,  0,  0,-10, -5,  5],
        [  5, 10, 10,-20,-20, 10, 10,  5],
        [  0,  0,  0,  0,  0,  0,  0,  0],
    ];

    /// Knight.
    #[rustfmt::skip]
    pub const KNIGHT: Table = [
        [-50,-40,-30,-30,-30,-30,-40,-50],
        [-40,-20,  0,  0,  0,  0,-20,-40],
        [-30,  0, 10, 15, 15, 10,  0,-30],
        [-30,  5, 15, 20, 20, 15,  5,-30],
        [-30,  0, 15, 20, 20, 15,  0,-30],
        [-30,  5, 10, 15, 15, 10,  5,-30],
        [-40,-20,  0,  5,  5,  0,-20,-40],
        [-50,-40,-30,-30,-30,-30,-40,-50],
    ];

    /// Bishop.
    #[rustfmt::skip]
    pub const BISHOP: Table = [
        [-20,-10,-10,-10,-10,-10,-10,-20],
        [-10,  0,  0,  0,  0,  0,  0,-10],
        [-10,  0,  5, 10, 10,  5,  0,-10],
        [-10,  5,  5, 10, 10,  5,  5,-10],
        [-10,  0, 10, 10, 10, 10,  0,-10],
        [-10, 10, 10, 10, 10, 10, 10,-10],
        [-10,  5,  0,  0,  0,  0,  5,-10],
        [-20,-10,-10,-10,-10,-10,-10,-20],
    ];

    /// Rook.
    #[rustfmt::skip]
    pub const ROOK: Table = [
        [  0,  0,  0,  0,  0,  0,  0,  0],
        [  5, 10, 10, 10, 10, 10, 10,  5],
        [ -5,  0,  0,  0,  0,  0,  0, -5],
        [ -5,  0,  0,  0,  0,  0,  0, -5],
        [ -5,  0,  0,  0,  0,  0,  0, -5],
        [ -5,  0,  0,  0,  0,  0,  0, -5],
        [ -5,  0,  0,  0,  0,  0,  0, -5],
        [  0,  0,  0,  5,  5,  0,  0,  0],
    ];

    /// Queen.
    #[rustfmt::skip]
    pub const QUEEN: Table = [
        [-20,-10,-10, -5, -5,-10,-10,-20],
        [-10,  0,  0,  0,  0,  0,  0,-10],
        [-10,  0,  5,  5,  5,  5,  0,-10],
        [ -5,  0,  5,  5,  5,  5,  0, -5],
        [  0,  0,  5,  5,  5,  5,  0, -5],
        [-10,  5,  5,  5,  5,  5,  0,-10],
        [-10,  0,  5,  0,  0,  0,  0,-10],
        [-20,-10,-10, -5, -5,-10,-10,-20],
    ];

    /// King, middlegame.
    #[rustfmt::skip]
    pub const KING_MG: Table = [
        [-30,-40,-40,-50,-50,-40,-40,-30],
        [-30,-40,-40,-50,-50,-40,-40,-30],
        [-30,-40,-40,-50,-50,-40,-40,-30],
        [-30,-40,-40,-50,-50,-40,-40,-30],
        [-20,-30,-30,-40,-40,-30,-30,-20],
        [-10,-20,-20,-20,-20,-20,-20,-10],
        [ 20, 20,  0,  0,  0,  0, 20, 20],
        [ 20, 30, 10,  0,  0, 10, 30, 20],
    ];

    /// King, endgame.
    #[rustfmt::skip]
    pub const KING_EG: Table = [
        [-50,-40,-30,-20,-20,-30,-40,-50],
        [-30,-20,-10,  0,  0,-10,-20,-30],
        [-30,-10, 20, 30, 30, 20,-10,-30],
        [-30,-10, 30, 40, 40, 30,-10,-30],
        [-30,-10, 30, 40, 40, 30,-10,-30],
        [-30,-10, 20, 30, 30, 20,-10,-30],
        [-30,-30,  0,  0,  0,  0,-30,-30],
        [-50,-30,-30,-30,-30,-30,-30,-50],
    ];
}

fn provenance(note: &str) -> Provenance {
    let mut p = Provenance::default();
    p.extra.insert(
        "source".to_owned(),
        serde_json::Value::from(note.to_owned()),
    );
    p
}

fn set_material(w: &mut Weights, values: [i32; 5]) {
    for (role, v) in ROLES[..5].iter().zip(values) {
        w.set(Term::Material(*role), v, v);
    }
}

fn simplified_weights() -> Weights {
    let mut w = Weights::zero();
    set_material(
        &mut w,
        [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ]
        .map(piece_value),
    );
    let tables: [(Role, &Table, &Table); 6] = [
        (Role::Pawn, &sef::PAWN, &sef::PAWN),
        (Role::Knight, &sef::KNIGHT, &sef::KNIGHT),
        (Role::Bishop, &sef::BISHOP, &sef::BISHOP),
        (Role::Rook, &sef::ROOK, &sef::ROOK),
        (Role::Queen, &sef::QUEEN, &sef::QUEEN),
        (Role::King, &sef::KING_MG, &sef::KING_EG),
    ];
    for (role, mg, eg) in tables {
        for sq in Square::ALL {
            w.set(Term::Pst(role, sq), table_at(mg, sq), table_at(eg, sq));
        }
    }
    w
}

/// The built-in evaluator called `name`, if any.
pub fn by_name(name: &str) -> Option<Evaluator> {
    Some(match name {
        "material" => {
            let mut w = Weights::zero();
            set_material(&mut w, [100, 300, 300, 500, 900]);
            Evaluator::new(name, provenance("built-in: material only"), w)
        }
        "simplified" => Evaluator::new(
            name,
            provenance("built-in: Simplified Evaluation Function (Tomasz Michniewski)"),
            simplified_weights(),
        ),
        "seed003" => {
            let mut w = simplified_weights();
            w.set(Term::StudyMobility, 3, 3);
            w.set(Term::StudyKingSafety, 10, 10);
            Evaluator::new(
                name,
                provenance(
                    "built-in: the graph-features study's bot (Simplified Evaluation Function \
                     + 3 x study mobility + 10 x study king safety)",
                ),
                w,
            )
        }
        "nnue" => Evaluator::from_network(name, builtin_network().clone()),
        _ => return None,
    })
}

/// The built-in network's file, zstd-compressed (weight decay leaves small weights: the
/// 1.2 MB file packs into ~430 kB).
const NNUE_ZST: &[u8] = include_bytes!("../../../../assets/nnue/chessgraph.nnue.zst");

/// The built-in network, decoded once.
fn builtin_network() -> &'static crate::nnue::Network {
    static NET: std::sync::OnceLock<crate::nnue::Network> = std::sync::OnceLock::new();
    NET.get_or_init(|| {
        let bytes = zstd::decode_all(NNUE_ZST).expect("the built-in network is checked by a test");
        crate::nnue::Network::from_bytes(&bytes, "<built-in nnue>")
            .expect("the built-in network is checked by a test")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_white_view_rank8_first() {
        // White's pawn on d2 is penalised, on d7 rewarded; king on g1 is the safe corner.
        assert_eq!(table_at(&sef::PAWN, Square::D2), -20);
        assert_eq!(table_at(&sef::PAWN, Square::D7), 50);
        assert_eq!(table_at(&sef::KING_MG, Square::G1), 30);
        assert_eq!(table_at(&sef::KING_EG, Square::E4), 40);
        assert_eq!(table_at(&sef::QUEEN, Square::A5), -5);
        assert_eq!(table_at(&sef::QUEEN, Square::A4), 0);
        assert_eq!(table_at(&sef::QUEEN, Square::A3), -10);
    }

    #[test]
    fn seed003_adds_study_terms_to_simplified() {
        let s = by_name("simplified").unwrap();
        let d = by_name("seed003").unwrap();
        assert_eq!(d.weights().unwrap().get(Term::StudyMobility), (3, 3));
        assert_eq!(d.weights().unwrap().get(Term::StudyKingSafety), (10, 10));
        assert_eq!(s.weights().unwrap().get(Term::StudyMobility), (0, 0));
        assert_eq!(
            d.weights().unwrap().get(Term::Material(Role::Bishop)),
            (330, 330)
        );
        assert!(d.uses_study_mobility() && !s.uses_study_mobility());
        assert!(by_name("nonsense").is_none());
    }

    #[test]
    fn the_built_in_network_loads_and_plays_both_sides_alike() {
        let e = by_name("nnue").unwrap();
        let net = e.network().expect("a network evaluator");
        assert!(net.hidden() > 0 && e.weights().is_none());
        // White's view: the mirrored start position after 1. e4 / 1... e5 scores opposite.
        let w = chessgraph_core::chess::fen::parse_position(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        )
        .unwrap();
        let b = chessgraph_core::chess::fen::parse_position(
            "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        )
        .unwrap();
        assert_eq!(e.evaluate(&w), -e.evaluate(&b));
    }
}
