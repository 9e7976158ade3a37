//! `analyze`: features and the attack/defense graph for stored positions.
//!
//! Positions are read in chunks of ids; while one chunk is written (one transaction per
//! chunk, so a killed run keeps whole chunks), the next is computed on the other cores
//! with rayon. Only positions without a `features` row are done, so the command is
//! incremental and resumable.

use chessgraph_core::Error as CoreError;
use std::time::Instant;

use indicatif::ProgressBar;
use rayon::prelude::*;
use rusqlite::{Connection, params};

use crate::Result;
use chessgraph_core::graph::{self, Edge, Features, piece_letter};

/// Which edges of the attack/defense graph `analyze` stores in the `edges` table.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EdgeMode {
    /// Attacks and defenses: the whole graph (about 25 rows per position).
    #[default]
    All,
    /// Attacks on enemy pieces only (about a sixth of the rows).
    Attacks,
    /// None: the features alone (`export data` still computes the graph from the positions).
    None,
}

impl EdgeMode {
    /// Every mode, for option parsers.
    pub const ALL: [EdgeMode; 3] = [EdgeMode::All, EdgeMode::Attacks, EdgeMode::None];

    /// The mode's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeMode::All => "all",
            EdgeMode::Attacks => "attacks",
            EdgeMode::None => "none",
        }
    }

    /// Whether an edge of `kind` is stored.
    pub fn keeps(self, kind: graph::EdgeKind) -> bool {
        match self {
            EdgeMode::All => true,
            EdgeMode::Attacks => kind == graph::EdgeKind::Attack,
            EdgeMode::None => false,
        }
    }
}

/// How to analyze.
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// Drop all features and edges first and compute everything again.
    pub recompute: bool,
    /// Positions per chunk (and per transaction).
    pub chunk_size: usize,
    /// Which edges to store for the positions analyzed in this run.
    pub edges: EdgeMode,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            recompute: false,
            chunk_size: 20_000,
            edges: EdgeMode::All,
        }
    }
}

/// What `analyze` did.
#[derive(Clone, Debug, Default)]
pub struct AnalyzeSummary {
    /// Positions analyzed in this run.
    pub positions: u64,
    /// Edges written in this run.
    pub edges: u64,
    /// Wall time.
    pub seconds: f64,
}

/// One analyzed position, ready to write.
struct Analyzed {
    id: i64,
    features: Features,
    edges: Vec<Edge>,
}

/// Edges per multi-row INSERT: fewer statement executions, same rows.
const EDGE_ROWS_PER_INSERT: usize = 64;

/// Positions that have no features yet.
pub fn pending(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM position_rows p \
         WHERE NOT EXISTS (SELECT 1 FROM feature_rows f WHERE f.position_id = p.id)",
        [],
        |r| r.get(0),
    )?)
}

/// Analyzes every position without features (all of them with `recompute`).
pub fn analyze(
    conn: &mut Connection,
    opts: &AnalyzeOptions,
    progress: &ProgressBar,
) -> Result<AnalyzeSummary> {
    let started = Instant::now();
    if opts.recompute {
        conn.execute_batch("BEGIN; DELETE FROM edges; DELETE FROM feature_rows; COMMIT;")?;
    }
    let todo = pending(conn)?;
    progress.set_length(todo);
    let mut summary = AnalyzeSummary::default();
    if todo == 0 {
        // A run killed after dropping the index left it missing: build it now.
        conn.execute_batch(INDEX_SQL)?;
        return Ok(summary);
    }
    // Bulk loads are faster with the secondary index built once at the end. A run killed
    // before that leaves it missing; the next run (whatever it has to do) builds it.
    if todo > 50_000 {
        conn.execute_batch("DROP INDEX IF EXISTS edges_attacks")?;
    }
    let chunk_size = opts.chunk_size.max(1);
    let mut after_id = 0i64;
    let mut ready: Option<Vec<Analyzed>> = None;
    loop {
        let chunk = read_chunk(conn, after_id, chunk_size)?;
        if let Some(last) = chunk.last() {
            after_id = last.0;
        }
        if chunk.is_empty() && ready.is_none() {
            break;
        }
        // Write the previous chunk while computing this one.
        let previous = ready.take();
        let (written, computed) = rayon::join(
            || match previous {
                Some(rows) => {
                    write_chunk(conn, &rows).map(|edges| Some((rows.len() as u64, edges)))
                }
                None => Ok(None),
            },
            || compute_chunk(&chunk, opts.edges),
        );
        if let Some((positions, edges)) = written? {
            summary.positions += positions;
            summary.edges += edges;
            progress.inc(positions);
        }
        let computed = computed?;
        if !computed.is_empty() {
            ready = Some(computed);
        }
    }
    conn.execute_batch(INDEX_SQL)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The secondary edge index, as in the migration (rebuilt after bulk loads).
const INDEX_SQL: &str =
    "CREATE INDEX IF NOT EXISTS edges_attacks ON edges(attacker, target) WHERE kind = 'attack'";

fn read_chunk(conn: &Connection, after_id: i64, limit: usize) -> Result<Vec<(i64, Vec<u8>)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.id, p.board FROM position_rows p \
         WHERE p.id > ?1 AND NOT EXISTS (SELECT 1 FROM feature_rows f WHERE f.position_id = p.id) \
         ORDER BY p.id LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![after_id, limit as i64], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn compute_chunk(chunk: &[(i64, Vec<u8>)], mode: EdgeMode) -> Result<Vec<Analyzed>> {
    chunk
        .par_iter()
        .map(|(id, board)| {
            // Stored positions were validated on import; a failure means the DB was edited.
            let pos = chessgraph_core::chess::packed::unpack(board).map_err(|source| {
                CoreError::StoredPosition {
                    fen: format!("#{id} (packed {board:02x?})"),
                    source: source.into(),
                }
            })?;
            let mut edges = Vec::with_capacity(32);
            let features = graph::analyze(&pos, &mut edges);
            edges.retain(|e| mode.keeps(e.kind));
            // Insert in primary-key order (target square first): appends, no page splits.
            edges.sort_unstable_by_key(|e| (e.to_sq, e.from_sq));
            Ok(Analyzed {
                id: *id,
                features,
                edges,
            })
        })
        .collect()
}

/// Writes one chunk in one transaction; returns the number of edges written.
fn write_chunk(conn: &mut Connection, rows: &[Analyzed]) -> Result<u64> {
    let tx = conn.transaction()?;
    let mut edges_written = 0u64;
    {
        let many_sql = edge_insert_sql(EDGE_ROWS_PER_INSERT);
        let mut edge_many = tx.prepare_cached(&many_sql)?;
        let mut edge_one = tx.prepare_cached(&edge_insert_sql(1))?;
        // Edges of consecutive positions are batched across position boundaries.
        let mut pending: Vec<(i64, &Edge)> = Vec::with_capacity(EDGE_ROWS_PER_INSERT);
        for row in rows {
            write_features(&tx, row.id, &row.features)?;
            for edge in &row.edges {
                pending.push((row.id, edge));
                if pending.len() == EDGE_ROWS_PER_INSERT {
                    bind_edges(&mut edge_many, &pending)?;
                    edge_many.raw_execute()?;
                    edges_written += pending.len() as u64;
                    pending.clear();
                }
            }
        }
        for one in pending.chunks(1) {
            bind_edges(&mut edge_one, one)?;
            edge_one.raw_execute()?;
            edges_written += 1;
        }
    }
    tx.commit()?;
    Ok(edges_written)
}

/// Stores (or replaces) the features of position `id`: the one writer of `feature_rows`,
/// for `analyze` and for `import --analyze`.
pub(crate) fn write_features(conn: &Connection, id: i64, f: &Features) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO feature_rows (position_id, material, total_material, mobility_white, \
         mobility_black, center_control, king_safety, connectivity, phase, in_check, \
         hanging_white, hanging_black, threatened_white, threatened_black, king_attackers_white, \
         king_attackers_black, doubled_pawns_white, doubled_pawns_black, isolated_pawns_white, \
         isolated_pawns_black, passed_pawns_white, passed_pawns_black) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, \
         ?21, ?22)",
    )?
    .execute(params![
        id,
        f.material,
        f.total_material,
        f.mobility_white,
        f.mobility_black,
        f.center_control,
        f.king_safety,
        f.connectivity,
        f.phase,
        f.in_check,
        f.hanging_white,
        f.hanging_black,
        f.threatened_white,
        f.threatened_black,
        f.king_attackers_white,
        f.king_attackers_black,
        f.doubled_pawns_white,
        f.doubled_pawns_black,
        f.isolated_pawns_white,
        f.isolated_pawns_black,
        f.passed_pawns_white,
        f.passed_pawns_black,
    ])?;
    Ok(())
}

fn edge_insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT INTO edges (position_id, from_sq, to_sq, attacker, target, kind) VALUES ",
    );
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str("(?,?,?,?,?,?)");
    }
    sql
}

fn bind_edges(stmt: &mut rusqlite::CachedStatement<'_>, edges: &[(i64, &Edge)]) -> Result<()> {
    for (i, (id, edge)) in edges.iter().enumerate() {
        let base = i * 6;
        stmt.raw_bind_parameter(base + 1, id)?;
        stmt.raw_bind_parameter(base + 2, edge.from_sq)?;
        stmt.raw_bind_parameter(base + 3, edge.to_sq)?;
        stmt.raw_bind_parameter(base + 4, piece_letter(edge.attacker))?;
        stmt.raw_bind_parameter(base + 5, piece_letter(edge.target))?;
        stmt.raw_bind_parameter(base + 6, edge.kind.as_str())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_modes_store_all_attacks_or_no_edges_and_the_same_features() {
        let mut conn = crate::open_in_memory().unwrap();
        // Pawns attacking each other (two attacks) and kings defending them (two defenses).
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) VALUES (1, 't', 'csv', 'none', 'white', 'now');
             INSERT INTO positions (fen, fen_input, eval_cp, source_id, line) VALUES
               ('8/8/4k3/3p4/4P3/3K4/8/8 w - -', 'x', 0, 1, 1);",
        )
        .unwrap();
        let dump = |conn: &Connection, sql: &str| -> String {
            let mut stmt = conn.prepare(sql).unwrap();
            let rows: Vec<String> = stmt
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            rows.join(",")
        };
        let features_sql =
            "SELECT mobility || ':' || king_safety || ':' || connectivity FROM features";
        let edges_sql = "SELECT from_sq || '-' || to_sq || kind FROM edges ORDER BY to_sq, from_sq";
        let mut seen = Vec::new();
        for mode in [EdgeMode::All, EdgeMode::Attacks, EdgeMode::None] {
            let opts = AnalyzeOptions {
                recompute: true,
                chunk_size: 1,
                edges: mode,
            };
            let run = analyze(&mut conn, &opts, &ProgressBar::hidden()).unwrap();
            assert_eq!(run.positions, 1);
            seen.push((dump(&conn, features_sql), dump(&conn, edges_sql), run.edges));
        }
        // d3 = 19, e4 = 28, d5 = 35, e6 = 44.
        assert_eq!(seen[0].1, "19-28defend,35-28attack,28-35attack,44-35defend");
        assert_eq!(seen[1].1, "35-28attack,28-35attack");
        assert_eq!((seen[2].1.as_str(), seen[2].2), ("", 0));
        assert!(seen.iter().all(|s| s.0 == seen[0].0), "{seen:?}");
    }

    #[test]
    fn analyze_is_incremental_and_complete() {
        let mut conn = crate::open_in_memory().unwrap();
        conn.execute_batch(
            "INSERT INTO sources (id, path, format, compression, pov, started_at) VALUES (1, 't', 'csv', 'none', 'white', 'now');
             INSERT INTO positions (fen, fen_input, eval_cp, source_id, line) VALUES
               ('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -', 'x', 10, 1, 1),
               ('4k3/8/8/8/8/8/4P3/4K3 w - -', 'y', 100, 1, 2);",
        )
        .unwrap();
        let opts = AnalyzeOptions {
            recompute: false,
            chunk_size: 1,
            ..AnalyzeOptions::default()
        };
        let s = analyze(&mut conn, &opts, &ProgressBar::hidden()).unwrap();
        assert_eq!(s.positions, 2);
        assert_eq!(pending(&conn).unwrap(), 0);
        let total: i64 = conn
            .query_row("SELECT count(*) FROM edges", [], |r| r.get(0))
            .unwrap();
        assert_eq!(total as u64, s.edges);
        // K+P v K: only the white king defending its pawn.
        let (n, kind): (i64, String) = conn
            .query_row(
                "SELECT count(*), group_concat(attacker || from_sq || target || to_sq || kind) FROM edges WHERE position_id = 2",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((n, kind.as_str()), (1, "K4P12defend"));
        // Nothing new: nothing done.
        let again = analyze(&mut conn, &opts, &ProgressBar::hidden()).unwrap();
        assert_eq!(again.positions, 0);
        // Recompute redoes all.
        let all = analyze(
            &mut conn,
            &AnalyzeOptions {
                recompute: true,
                chunk_size: 7,
                ..AnalyzeOptions::default()
            },
            &ProgressBar::hidden(),
        )
        .unwrap();
        assert_eq!((all.positions, all.edges), (s.positions, s.edges));
    }
}
