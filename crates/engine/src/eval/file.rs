//! Evaluator files: versioned JSON with every weight in centipawns.
//!
//! ```json
//! {
//!   "format": "chessgraph-evaluator",
//!   "version": 1,
//!   "name": "tuned-1",
//!   "provenance": {"db": "games.db", "positions": 170000, "loss": 0.0712,
//!                  "date": "2025-01-31", "method": "ridge"},
//!   "terms": {
//!     "material": {"pawn": {"mg": 100, "eg": 100}, "knight": ..., "queen": ...},
//!     "pst": {"pawn": {"mg": [[a8 .. h8], ..., [a1 .. h1]], "eg": [[...], ...]},
//!             "knight": ..., "king": ...},
//!     "mobility": {"knight": {"mg": 4, "eg": 4}, "bishop": ..., "rook": ..., "queen": ...},
//!     "king_zone_attacks": {"mg": 0, "eg": 0},
//!     "pawn_shield": ..., "defended": ..., "hanging": ...,
//!     "doubled_pawn": ..., "isolated_pawn": ...,
//!     "passed_pawn": {"rank2": ..., "rank3": ..., ..., "rank7": ...},
//!     "bishop_pair": ..., "tempo": ..., "study_mobility": ..., "study_king_safety": ...,
//!     "rook_open_file": ..., "rook_semi_open_file": ..., "knight_outpost": ...,
//!     "pawn_threats": ..., "king_danger": ..., "passed_king_distance": ...,
//!     "passed_blocked": ..., "stm_hanging": ..., "stm_threatened": ...
//!   }
//! }
//! ```
//!
//! Piece-square tables are 8 rows of 8 numbers as seen on a diagram from White's side:
//! the first row is rank 8 (a8..h8), the last rank 1 (a1..h1). Every term must be present
//! and unknown keys are rejected (a typo must not silently zero a weight). `provenance`
//! may hold any further keys; the known ones are typed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use shakmaty::{Role, Square};

use super::builtin::{Table, table_at};
use super::{Evaluator, Term, Weights};
use chessgraph_core::Error;
use chessgraph_core::Result;

/// Value of the `format` key.
pub const FORMAT: &str = "chessgraph-evaluator";
/// The file format version this code reads and writes.
pub const VERSION: u64 = 1;

/// Where an evaluator's weights came from. All keys optional; unknown keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Database the weights were fitted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
    /// Number of positions used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<u64>,
    /// Final loss of the fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    /// Date of the fit (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Anything else (method, regularisation, source, ...).
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pair {
    mg: i32,
    eg: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TablePair {
    mg: Table,
    eg: Table,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pieces5 {
    pawn: Pair,
    knight: Pair,
    bishop: Pair,
    rook: Pair,
    queen: Pair,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pieces6 {
    pawn: TablePair,
    knight: TablePair,
    bishop: TablePair,
    rook: TablePair,
    queen: TablePair,
    king: TablePair,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pieces4 {
    knight: Pair,
    bishop: Pair,
    rook: Pair,
    queen: Pair,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ranks {
    rank2: Pair,
    rank3: Pair,
    rank4: Pair,
    rank5: Pair,
    rank6: Pair,
    rank7: Pair,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Terms {
    material: Pieces5,
    pst: Pieces6,
    mobility: Pieces4,
    king_zone_attacks: Pair,
    pawn_shield: Pair,
    defended: Pair,
    hanging: Pair,
    doubled_pawn: Pair,
    isolated_pawn: Pair,
    passed_pawn: Ranks,
    bishop_pair: Pair,
    tempo: Pair,
    study_mobility: Pair,
    study_king_safety: Pair,
    rook_open_file: Pair,
    rook_semi_open_file: Pair,
    knight_outpost: Pair,
    pawn_threats: Pair,
    king_danger: Pair,
    passed_king_distance: Pair,
    passed_blocked: Pair,
    stm_hanging: Pair,
    stm_threatened: Pair,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    format: String,
    version: u64,
    name: String,
    #[serde(default)]
    provenance: Provenance,
    terms: Terms,
}

fn pair(w: &Weights, term: Term) -> Pair {
    let (mg, eg) = w.get(term);
    Pair { mg, eg }
}

fn table_pair(w: &Weights, role: Role) -> TablePair {
    let mut mg = [[0; 8]; 8];
    let mut eg = [[0; 8]; 8];
    for sq in Square::ALL {
        let (m, e) = w.get(Term::Pst(role, sq));
        mg[7 - sq.rank() as usize][sq.file() as usize] = m;
        eg[7 - sq.rank() as usize][sq.file() as usize] = e;
    }
    TablePair { mg, eg }
}

fn to_terms(w: &Weights) -> Terms {
    Terms {
        material: Pieces5 {
            pawn: pair(w, Term::Material(Role::Pawn)),
            knight: pair(w, Term::Material(Role::Knight)),
            bishop: pair(w, Term::Material(Role::Bishop)),
            rook: pair(w, Term::Material(Role::Rook)),
            queen: pair(w, Term::Material(Role::Queen)),
        },
        pst: Pieces6 {
            pawn: table_pair(w, Role::Pawn),
            knight: table_pair(w, Role::Knight),
            bishop: table_pair(w, Role::Bishop),
            rook: table_pair(w, Role::Rook),
            queen: table_pair(w, Role::Queen),
            king: table_pair(w, Role::King),
        },
        mobility: Pieces4 {
            knight: pair(w, Term::Mobility(Role::Knight)),
            bishop: pair(w, Term::Mobility(Role::Bishop)),
            rook: pair(w, Term::Mobility(Role::Rook)),
            queen: pair(w, Term::Mobility(Role::Queen)),
        },
        king_zone_attacks: pair(w, Term::KingZoneAttacks),
        pawn_shield: pair(w, Term::PawnShield),
        defended: pair(w, Term::Defended),
        hanging: pair(w, Term::Hanging),
        doubled_pawn: pair(w, Term::DoubledPawn),
        isolated_pawn: pair(w, Term::IsolatedPawn),
        passed_pawn: Ranks {
            rank2: pair(w, Term::PassedPawn(2)),
            rank3: pair(w, Term::PassedPawn(3)),
            rank4: pair(w, Term::PassedPawn(4)),
            rank5: pair(w, Term::PassedPawn(5)),
            rank6: pair(w, Term::PassedPawn(6)),
            rank7: pair(w, Term::PassedPawn(7)),
        },
        bishop_pair: pair(w, Term::BishopPair),
        tempo: pair(w, Term::Tempo),
        study_mobility: pair(w, Term::StudyMobility),
        study_king_safety: pair(w, Term::StudyKingSafety),
        rook_open_file: pair(w, Term::RookOpenFile),
        rook_semi_open_file: pair(w, Term::RookSemiOpenFile),
        knight_outpost: pair(w, Term::KnightOutpost),
        pawn_threats: pair(w, Term::PawnThreats),
        king_danger: pair(w, Term::KingDanger),
        passed_king_distance: pair(w, Term::PassedKingDistance),
        passed_blocked: pair(w, Term::PassedBlocked),
        stm_hanging: pair(w, Term::StmHanging),
        stm_threatened: pair(w, Term::StmThreatened),
    }
}

fn from_terms(t: &Terms) -> Weights {
    let mut w = Weights::zero();
    let mut set = |term: Term, p: &Pair| w.set(term, p.mg, p.eg);
    set(Term::Material(Role::Pawn), &t.material.pawn);
    set(Term::Material(Role::Knight), &t.material.knight);
    set(Term::Material(Role::Bishop), &t.material.bishop);
    set(Term::Material(Role::Rook), &t.material.rook);
    set(Term::Material(Role::Queen), &t.material.queen);
    set(Term::Mobility(Role::Knight), &t.mobility.knight);
    set(Term::Mobility(Role::Bishop), &t.mobility.bishop);
    set(Term::Mobility(Role::Rook), &t.mobility.rook);
    set(Term::Mobility(Role::Queen), &t.mobility.queen);
    set(Term::KingZoneAttacks, &t.king_zone_attacks);
    set(Term::PawnShield, &t.pawn_shield);
    set(Term::Defended, &t.defended);
    set(Term::Hanging, &t.hanging);
    set(Term::DoubledPawn, &t.doubled_pawn);
    set(Term::IsolatedPawn, &t.isolated_pawn);
    let ranks = &t.passed_pawn;
    for (rank, p) in (2u8..).zip([
        &ranks.rank2,
        &ranks.rank3,
        &ranks.rank4,
        &ranks.rank5,
        &ranks.rank6,
        &ranks.rank7,
    ]) {
        set(Term::PassedPawn(rank), p);
    }
    set(Term::BishopPair, &t.bishop_pair);
    set(Term::Tempo, &t.tempo);
    set(Term::StudyMobility, &t.study_mobility);
    set(Term::StudyKingSafety, &t.study_king_safety);
    set(Term::RookOpenFile, &t.rook_open_file);
    set(Term::RookSemiOpenFile, &t.rook_semi_open_file);
    set(Term::KnightOutpost, &t.knight_outpost);
    set(Term::PawnThreats, &t.pawn_threats);
    set(Term::KingDanger, &t.king_danger);
    set(Term::PassedKingDistance, &t.passed_king_distance);
    set(Term::PassedBlocked, &t.passed_blocked);
    set(Term::StmHanging, &t.stm_hanging);
    set(Term::StmThreatened, &t.stm_threatened);
    let pst = &t.pst;
    for (role, tp) in [
        (Role::Pawn, &pst.pawn),
        (Role::Knight, &pst.knight),
        (Role::Bishop, &pst.bishop),
        (Role::Rook, &pst.rook),
        (Role::Queen, &pst.queen),
        (Role::King, &pst.king),
    ] {
        for sq in Square::ALL {
            w.set(
                Term::Pst(role, sq),
                table_at(&tp.mg, sq),
                table_at(&tp.eg, sq),
            );
        }
    }
    w
}

fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::EvaluatorFile {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

/// Parses an evaluator document; `path` is only used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<Evaluator> {
    let json_err = |source| Error::Json {
        path: path.to_owned(),
        source,
    };
    // Check the header first so that a file of another kind or version gets a clear
    // message instead of a complaint about the first missing term.
    let value: Value = serde_json::from_str(text).map_err(|e| {
        bad(
            path,
            format!(
                "not a chessgraph evaluator file (JSON from `chessgraph export evaluator` or `tune --out`) \
                 nor a network file: {e}"
            ),
        )
    })?;
    let Some(obj) = value.as_object() else {
        return Err(bad(path, "not a JSON object"));
    };
    match obj.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        Some(other) => {
            return Err(bad(
                path,
                format!("format is {other:?}, expected {FORMAT:?}"),
            ));
        }
        None => return Err(bad(path, format!("missing \"format\": {FORMAT:?}"))),
    }
    match obj.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => {
            return Err(bad(
                path,
                format!("version {v} is not supported (this chessgraph reads version {VERSION})"),
            ));
        }
        None => return Err(bad(path, "missing or non-integer \"version\"")),
    }
    // Parse the text again (not the Value) so that errors carry line and column.
    let doc: Document = serde_json::from_str(text).map_err(json_err)?;
    if doc.name.trim().is_empty() {
        return Err(bad(path, "\"name\" is empty"));
    }
    Ok(Evaluator::new(
        doc.name,
        doc.provenance,
        from_terms(&doc.terms),
    ))
}

/// Reads an evaluator file.
pub fn load(path: &Path) -> Result<Evaluator> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    parse(&text, path)
}

/// The document text of `evaluator` (pretty JSON; number arrays on one line).
pub fn to_string(evaluator: &Evaluator) -> Result<String> {
    let weights = evaluator.linear_weights("to write as an evaluator file")?;
    let doc = Document {
        format: FORMAT.to_owned(),
        version: VERSION,
        name: evaluator.name().to_owned(),
        provenance: evaluator.provenance().clone(),
        terms: to_terms(weights),
    };
    let value = serde_json::to_value(&doc).expect("evaluator document serializes");
    let mut out = String::new();
    write_value(&mut out, &value, 0);
    out.push('\n');
    Ok(out)
}

/// Writes `evaluator` to `path`.
pub fn save(evaluator: &Evaluator, path: &Path) -> Result<()> {
    std::fs::write(path, to_string(evaluator)?).map_err(|e| Error::io(path, e))
}

/// Pretty printer that keeps arrays of numbers (PST rows) on one line.
fn write_value(out: &mut String, v: &Value, indent: usize) {
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    match v {
        Value::Array(items) if items.iter().all(|x| !x.is_array() && !x.is_object()) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{x}");
            }
            out.push(']');
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, x) in items.iter().enumerate() {
                pad(out, indent + 2);
                write_value(out, x, indent + 2);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, indent);
            out.push(']');
        }
        Value::Object(map) if map.values().all(|x| !x.is_array() && !x.is_object()) => {
            // Small flat objects such as {"mg": 100, "eg": 100} stay on one line.
            out.push('{');
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}: {x}", Value::from(k.as_str()));
            }
            out.push('}');
        }
        Value::Object(map) => {
            out.push_str("{\n");
            for (i, (k, x)) in map.iter().enumerate() {
                pad(out, indent + 2);
                let _ = write!(out, "{}: ", Value::from(k.as_str()));
                write_value(out, x, indent + 2);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(out, indent);
            out.push('}');
        }
        scalar => {
            let _ = write!(out, "{scalar}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{BUILTIN_NAMES, TERM_COUNT};

    #[test]
    fn round_trip_builtins_and_dense_weights() {
        let dir = tempfile::tempdir().unwrap();
        for name in BUILTIN_NAMES {
            let e = Evaluator::builtin(name).unwrap();
            let path = dir.path().join(format!("{name}.json"));
            e.save(&path).unwrap();
            assert_eq!(Evaluator::load(&path).unwrap(), e, "{name}");
        }
        let mut w = Weights::zero();
        for i in 0..TERM_COUNT {
            w.mg[i] = i as i32 - 200;
            w.eg[i] = 3 * i as i32 + 1;
        }
        let prov = Provenance {
            db: Some("x.db".into()),
            positions: Some(171_024),
            loss: Some(0.0625),
            date: Some("2025-01-01".into()),
            extra: [("method".to_owned(), Value::from("ridge"))].into(),
        };
        let e = Evaluator::new("dense", prov, w);
        let path = dir.path().join("dense.json");
        e.save(&path).unwrap();
        assert_eq!(Evaluator::load(&path).unwrap(), e);
        // Key order and layout are stable: saving the loaded copy gives the same bytes.
        let again = to_string(&Evaluator::load(&path).unwrap()).unwrap();
        assert_eq!(again, std::fs::read_to_string(&path).unwrap());
    }

    #[test]
    fn pst_rows_are_rank8_first() {
        let text = to_string(&Evaluator::builtin("simplified").unwrap()).unwrap();
        // The pawn table's second row is rank 7: all 50.
        assert!(text.contains("[50, 50, 50, 50, 50, 50, 50, 50]"), "{text}");
        // King middlegame first row (rank 8) then the castled-king row last.
        assert!(text.contains("[20, 30, 10, 0, 0, 10, 30, 20]"));
        assert!(text.contains("\"pawn\": {\"mg\": 100, \"eg\": 100}"));
    }

    fn err(text: &str) -> String {
        match parse(text, Path::new("w.json")) {
            Ok(_) => panic!("accepted {text}"),
            Err(e) => {
                let mut s = e.to_string();
                let mut src = std::error::Error::source(&e);
                while let Some(c) = src {
                    s.push_str(": ");
                    s.push_str(&c.to_string());
                    src = c.source();
                }
                s
            }
        }
    }

    #[test]
    fn bad_files_give_typed_errors() {
        let good = to_string(&Evaluator::builtin("material").unwrap()).unwrap();
        let e = err("{ not json");
        assert!(e.contains("w.json") && e.contains("line 1"), "{e}");
        let e = err("[1, 2]");
        assert!(
            e.contains("w.json") && e.contains("not a JSON object"),
            "{e}"
        );
        let e = err(&good.replace(FORMAT, "something-else"));
        assert!(e.contains("format is \"something-else\""), "{e}");
        let e = err(&good.replace("\"version\": 1", "\"version\": 2"));
        assert!(e.contains("version 2 is not supported"), "{e}");
        let e = err(&good.replace("\"tempo\"", "\"tempi\""));
        assert!(e.contains("w.json") && e.contains("tempi"), "{e}");
        let e = err(&good.replace("\"bishop_pair\": {\"mg\": 0, \"eg\": 0},", ""));
        assert!(e.contains("missing field `bishop_pair`"), "{e}");
        let e = err(&good.replace("\"name\": \"material\"", "\"name\": \" \""));
        assert!(e.contains("\"name\" is empty"), "{e}");
        // A PST row with 7 numbers.
        let e = err(&good.replacen("[0, 0, 0, 0, 0, 0, 0, 0]", "[0, 0, 0, 0, 0, 0, 0]", 1));
        assert!(e.contains("w.json") && e.contains("line"), "{e}");
        // A weight that is not a 32-bit integer.
        let e = err(&good.replace("\"mg\": 900", "\"mg\": 9e99"));
        assert!(e.contains("w.json"), "{e}");
        let missing = Evaluator::load(Path::new("/nonexistent/dir/e.json")).unwrap_err();
        assert!(missing.to_string().contains("/nonexistent/dir/e.json"));
    }

    #[test]
    fn by_name_or_path() {
        assert_eq!(
            Evaluator::by_name_or_path("seed003").unwrap().name(),
            "seed003"
        );
        let e = Evaluator::by_name_or_path("no-such-evaluator").unwrap_err();
        assert!(e.to_string().contains("seed003"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        Evaluator::builtin("material").unwrap().save(&path).unwrap();
        let loaded = Evaluator::by_name_or_path(path.to_str().unwrap()).unwrap();
        assert_eq!(loaded.name(), "material");
    }
}
