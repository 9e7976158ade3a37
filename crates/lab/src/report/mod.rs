//! `chessgraph report`: one Markdown page with everything a database holds — the data and
//! its features, the stored fits, the tuned evaluators, and the recorded runs (puzzles,
//! matches, engine benchmarks, evaluator comparisons).
//!
//! It reads only the database (and, for pictures, a heatmap folder the caller names), so it
//! can be regenerated at any time; `scripts/run-sample.sh` writes `reports/README.md` with it.

use std::fmt::Write as _;
use std::path::Path;

use rusqlite::Connection;
use serde_json::Value;

use chessgraph_store::Result;
use chessgraph_store::runs;

/// What to include besides the database.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Title line (defaults to the database's file name).
    pub title: Option<String>,
    /// Folder with heatmap PNGs, as the report should link it (relative to the report).
    pub heatmaps: Option<String>,
    /// How many stored fits to show, newest first.
    pub max_fits: usize,
}

/// Renders the report as Markdown.
pub fn render(conn: &Connection, db_path: &Path, opts: &Options) -> Result<String> {
    let mut md = String::new();
    let title = opts.title.clone().unwrap_or_else(|| {
        db_path.file_name().map_or_else(
            || db_path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    });
    let _ = writeln!(md, "# chessgraph report: {title}\n");
    let generated: String =
        conn.query_row("SELECT strftime('%Y-%m-%d %H:%M UTC', 'now')", [], |r| {
            r.get(0)
        })?;
    let _ = writeln!(
        md,
        "Generated {generated} by chessgraph {} from `{}`. Every number below is read from the \
         database; `chessgraph report` regenerates this page.\n",
        env!("CARGO_PKG_VERSION"),
        db_path.file_name().map_or_else(
            || db_path.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    );
    data_section(conn, &mut md)?;
    fits_section(conn, opts.max_fits.max(1), &mut md)?;
    evaluators_section(conn, &mut md)?;
    if let Some(dir) = &opts.heatmaps {
        heatmap_section(dir, &mut md);
    }
    runs_section(conn, &mut md)?;
    tournaments_section(conn, &mut md)?;
    Ok(md)
}

fn data_section(conn: &Connection, md: &mut String) -> Result<()> {
    let s = chessgraph_store::stats::gather(conn)?;
    let _ = writeln!(md, "## Data\n");
    let _ = writeln!(
        md,
        "{} positions ({} with a centipawn evaluation, {} with a mate score, {} with a game \
         result) from {} games; {} analyzed, {} graph edges ({:.1} per position).\n",
        group(s.positions),
        group(s.with_eval),
        group(s.with_mate),
        group(s.with_result),
        group(s.games),
        group(s.analyzed),
        group(s.edges),
        if s.analyzed > 0 {
            s.edges as f64 / s.analyzed as f64
        } else {
            0.0
        }
    );
    if !s.sources.is_empty() {
        let _ = writeln!(
            md,
            "| source | format | read | imported | duplicates | rejected |\n| --- | --- | ---: | ---: | ---: | ---: |"
        );
        for src in &s.sources {
            let _ = writeln!(
                md,
                "| `{}`{} | {} | {} | {} | {} | {} |",
                // The file name only: a report is shared, local paths say nothing elsewhere.
                Path::new(&src.path)
                    .file_name()
                    .map_or_else(|| src.path.clone(), |n| n.to_string_lossy().into_owned()),
                if src.finished { "" } else { " (unfinished)" },
                src.format,
                group(src.rows_read),
                group(src.rows_imported),
                group(src.rows_duplicate),
                group(src.rows_rejected)
            );
        }
        let _ = writeln!(md);
    }
    if !s.reject_reasons.is_empty() {
        let _ = writeln!(md, "Most frequent reject reasons:\n");
        for (reason, n) in &s.reject_reasons {
            let _ = writeln!(md, "- {reason}: {}", group(*n));
        }
        let _ = writeln!(md);
    }
    if let Some((lo, hi)) = s.eval_range {
        let deciles: Vec<String> = s.eval_deciles.iter().map(|d| d.to_string()).collect();
        let _ = writeln!(
            md,
            "Evaluation (centipawns, White's point of view): min {lo}, deciles {}, max {hi}.\n",
            deciles.join(", ")
        );
    }
    if !s.features.is_empty() {
        let _ = writeln!(
            md,
            "| feature | mean | sd | min | max |\n| --- | ---: | ---: | ---: | ---: |"
        );
        for f in &s.features {
            let _ = writeln!(
                md,
                "| `{}` | {:.3} | {:.3} | {} | {} |",
                f.name, f.mean, f.sd, f.min, f.max
            );
        }
        let _ = writeln!(md);
    }
    Ok(())
}

fn fits_section(conn: &Connection, max_fits: usize, md: &mut String) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, target, filter, seed, n_train, n_test, metrics, coefficients, created_at \
         FROM fits WHERE id IN (SELECT max(id) FROM fits GROUP BY kind, target, features, filter, seed) \
         ORDER BY id DESC LIMIT ?1",
    )?;
    let rows = stmt
        .query_map([max_fits as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, String>(9)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    if rows.is_empty() {
        return Ok(());
    }
    let _ = writeln!(md, "## Fits\n");
    for (id, kind, target, filter, seed, n_train, n_test, metrics, coefs, created) in
        rows.iter().rev()
    {
        let _ = writeln!(
            md,
            "### Fit #{id}: {kind} on `{target}`\n\nRows `{filter}`; split seed {seed}: {} train, {} held out; {created}.\n",
            group(*n_train),
            group(*n_test)
        );
        let coefs: Value = serde_json::from_str(coefs).unwrap_or(Value::Null);
        let stat = if kind == "logistic" { "z" } else { "t" };
        if let Some(list) = coefs.as_array() {
            let _ = writeln!(
                md,
                "| coefficient | estimate | std. error | {stat} |\n| --- | ---: | ---: | ---: |"
            );
            for c in list {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} |",
                    c["name"].as_str().unwrap_or("?"),
                    num(&c["estimate"], 4),
                    num(&c["std_error"], 4),
                    fixed(&c["statistic"], 2)
                );
            }
            let _ = writeln!(md);
        }
        let metrics: Value = serde_json::from_str(metrics).unwrap_or(Value::Null);
        metrics_table(&metrics, md);
    }
    Ok(())
}

/// `{"train": {...}, "test": {...}}` as a table with one row per part; scalar entries (such
/// as the residual standard error) as a line under it.
fn metrics_table(metrics: &Value, md: &mut String) {
    let Some(all) = metrics.as_object() else {
        return;
    };
    let parts: Vec<(&String, &Value)> = all.iter().filter(|(_, v)| v.is_object()).collect();
    let scalars: Vec<String> = all
        .iter()
        .filter(|(_, v)| !v.is_object())
        .map(|(k, v)| format!("{k} {}", num(v, 4)))
        .collect();
    let mut columns: Vec<&String> = Vec::new();
    for (_, part) in &parts {
        if let Some(m) = part.as_object() {
            for k in m.keys() {
                if !columns.contains(&k) {
                    columns.push(k);
                }
            }
        }
    }
    if columns.is_empty() {
        return;
    }
    let header: Vec<&str> = columns.iter().map(|c| c.as_str()).collect();
    let _ = writeln!(
        md,
        "| part | {} |\n| --- |{}",
        header.join(" | "),
        " ---: |".repeat(columns.len())
    );
    for (name, part) in parts {
        let cells: Vec<String> = columns.iter().map(|c| num(&part[c.as_str()], 4)).collect();
        let _ = writeln!(md, "| {name} | {} |", cells.join(" | "));
    }
    let _ = writeln!(md);
    if !scalars.is_empty() {
        let _ = writeln!(md, "{}.\n", scalars.join(", "));
    }
}

/// The evaluators stored by `tune`, with their held-out measures.
fn evaluators_section(conn: &Connection, md: &mut String) -> Result<()> {
    let list = chessgraph_store::evaluators::list(conn)?;
    if list.is_empty() {
        return Ok(());
    }
    let _ = writeln!(
        md,
        "## Tuned evaluators
"
    );
    let _ = writeln!(
        md,
        "The tuner's fit loss on the validation part, and on the test part the Texel loss and \
         Kendall τ-b of the static evaluation and τ after quiescence, as `chessgraph rate evaluator` \
         measures them.\n"
    );
    let _ = writeln!(
        md,
        "| evaluator | valid fit loss | test Texel loss | test τ static | test τ qsearch | date |\n\
         | --- | ---: | ---: | ---: | ---: | --- |"
    );
    let cell = |v: Option<f64>, d: usize| v.map_or(String::new(), |v| format!("{v:.d$}"));
    for e in &list {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            e.name.replace('|', "\\|"),
            cell(e.valid_loss, 6),
            cell(e.test_loss, 6),
            cell(e.test_tau, 4),
            cell(e.test_tau_qsearch, 4),
            e.created_at
        );
    }
    let _ = writeln!(md);
    Ok(())
}

fn heatmap_section(dir: &str, md: &mut String) {
    let dir = dir.trim_end_matches('/');
    let _ = writeln!(
        md,
        "## Heatmaps\n\nAverage evaluation per piece and square (`chessgraph heatmap`); the numbers \
         are in [`{dir}/heatmap.csv`]({dir}/heatmap.csv).\n\n![heatmaps]({dir}/grid.png)\n"
    );
}

/// Known run kinds, in report order, with their section titles.
const RUN_KINDS: &[(&str, &str)] = &[
    ("eval", "Evaluators against the labels"),
    ("solve", "Puzzles"),
    ("bench", "Engine benchmark"),
    ("match", "Matches"),
];

fn runs_section(conn: &Connection, md: &mut String) -> Result<()> {
    for (kind, title) in RUN_KINDS {
        let runs = runs::latest_per_label(conn, kind)?;
        if runs.is_empty() {
            continue;
        }
        let _ = writeln!(md, "## {title}\n");
        if *kind == "solve" {
            puzzles_table(&runs, md);
        } else {
            summary_table(&runs, md);
        }
    }
    Ok(())
}

/// Every stored tournament: its settings, cross table and ratings (mean 0).
fn tournaments_section(conn: &Connection, md: &mut String) -> Result<()> {
    let list = chessgraph_store::tournaments::list(conn)?;
    if list.is_empty() {
        return Ok(());
    }
    let _ = writeln!(md, "## Tournaments\n");
    for t in &list {
        let Some((_, table, _)) = chessgraph_learn::ratings::load(conn, &t.name)? else {
            continue;
        };
        let s = &t.settings;
        let _ = writeln!(
            md,
            "### {}\n\n{} games between {} players; {}, a draw after {} moves, {} openings; \
             started {}.\n",
            t.name.replace('|', "\\|"),
            group(i64::from(table.games())),
            table.names().len(),
            s["time_control"].as_str().unwrap_or("?"),
            num(&s["max_moves"], 4),
            num(&s["openings"], 4),
            t.created_at
        );
        if table.games() == 0 {
            continue;
        }
        let standings = chessgraph_learn::ratings::standings(&table, None)?;
        let _ = writeln!(md, "{}", standings.markdown());
    }
    Ok(())
}

/// The `solve` runs as a compact table: the file's name, who solved under which limit, the
/// score and the time per puzzle (the full records are in the `runs` table).
fn puzzles_table(list: &[runs::Run], md: &mut String) {
    let _ = writeln!(
        md,
        "| file | player | limit | solved | rate | ms per puzzle | date |\n\
         | --- | --- | --- | ---: | ---: | ---: | --- |"
    );
    for run in list {
        let s = &run.summary;
        let file = s["file"].as_str().map_or_else(
            || run.label.clone(),
            |f| {
                Path::new(f)
                    .file_name()
                    .map_or_else(|| f.to_owned(), |n| n.to_string_lossy().into_owned())
            },
        );
        let player = s["player"].as_str().unwrap_or("engine");
        let mut limit = Vec::new();
        if s["mate_search"].as_bool() == Some(true) {
            limit.push("mate search".to_owned());
        }
        if let Some(ms) = s["movetime_ms"].as_u64() {
            limit.push(format!("{} ms", group(ms as i64)));
        }
        if let Some(d) = s["depth"].as_u64() {
            limit.push(format!("depth {d}"));
        }
        if let Some(n) = s["nodes"].as_u64() {
            limit.push(format!("{} nodes", group(n as i64)));
        }
        let solved = s["solved"].as_u64().unwrap_or(0);
        let attempted = s["attempted"].as_u64().unwrap_or(0);
        let rate = if attempted > 0 {
            format!("{:.1} %", 100.0 * solved as f64 / attempted as f64)
        } else {
            String::new()
        };
        let ms = ["ms_per_puzzle", "bm_ms_per_position", "median_ms"]
            .iter()
            .find(|k| s[**k].is_number())
            .map_or_else(String::new, |k| num(&s[*k], 3));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {}/{} | {rate} | {ms} | {} |",
            file.replace('|', "\\|"),
            player.replace('|', "\\|"),
            limit.join(", "),
            group(solved as i64),
            group(attempted as i64),
            run.created_at
        );
    }
    let _ = writeln!(md);
}

/// The runs as one table: a row per run, a column per scalar summary key.
fn summary_table(list: &[runs::Run], md: &mut String) {
    let mut columns: Vec<String> = Vec::new();
    for run in list {
        if let Some(obj) = run.summary.as_object() {
            for (k, v) in obj {
                if !(v.is_object() || v.is_array() || columns.contains(k)) {
                    columns.push(k.clone());
                }
            }
        }
    }
    let _ = writeln!(
        md,
        "| run | {} | date |\n| --- |{} --- |",
        columns.join(" | "),
        " ---: |".repeat(columns.len())
    );
    for run in list {
        let cells: Vec<String> = columns.iter().map(|c| num(&run.summary[c], 4)).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            run.label.replace('|', "\\|"),
            cells.join(" | "),
            run.created_at
        );
    }
    let _ = writeln!(md);
}

/// A JSON value for a table cell: integers grouped, floats to `digits` significant places.
fn num(v: &Value, digits: usize) -> String {
    match v {
        Value::Null => String::new(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                group(i)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f == 0.0 || !f.is_finite() {
                    format!("{f}")
                } else {
                    let magnitude = f.abs().log10().floor() as i32;
                    let decimals = (digits as i32 - 1 - magnitude).clamp(0, 8) as usize;
                    format!("{f:.decimals$}")
                }
            }
        }
        Value::String(s) => s.replace('|', "\\|"),
        other => other.to_string(),
    }
}

/// A JSON number with a fixed number of decimals.
fn fixed(v: &Value, decimals: usize) -> String {
    v.as_f64()
        .map_or_else(String::new, |f| format!("{f:.decimals$}"))
}

/// 1234567 → "1,234,567".
fn group(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_cells() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(-1234567), "-1,234,567");
        assert_eq!(num(&serde_json::json!(0.123456), 4), "0.1235");
        assert_eq!(num(&serde_json::json!(87.84), 4), "87.84");
        assert_eq!(num(&serde_json::json!(12345.6), 4), "12346");
        assert_eq!(num(&serde_json::json!(171024), 4), "171,024");
        assert_eq!(num(&Value::Null, 4), "");
    }

    #[test]
    fn empty_database_reports_zero_positions() {
        let conn = chessgraph_store::open_in_memory().unwrap();
        let md = render(&conn, Path::new("x.db"), &Options::default()).unwrap();
        assert!(md.starts_with("# chessgraph report: x.db"), "{md}");
        assert!(md.contains("0 positions"), "{md}");
        assert!(!md.contains("## Fits"), "{md}");
    }

    #[test]
    fn tournaments_show_cross_table_and_ratings() {
        use chessgraph_store::tournaments::{self, GameRow};
        let conn = chessgraph_store::open_in_memory().unwrap();
        let settings =
            serde_json::json!({"time_control": "nodes 100", "max_moves": 20, "openings": 3});
        let id = tournaments::open(&conn, "ladder", &settings).unwrap();
        for name in ["a", "b"] {
            tournaments::register_player(&conn, id, name, "player x").unwrap();
        }
        for (k, result) in ["1-0", "1/2-1/2", "0-1"].into_iter().enumerate() {
            let row = GameRow {
                player_a: "a".into(),
                player_b: "b".into(),
                game_index: k as u32,
                white: "a".into(),
                black: "b".into(),
                opening: 0,
                start_fen: String::new(),
                moves: String::new(),
                result: result.into(),
                termination: String::new(),
                fault: None,
                plies: 0,
            };
            tournaments::insert_game(&conn, id, &row).unwrap();
        }
        let md = render(&conn, Path::new("x.db"), &Options::default()).unwrap();
        assert!(
            md.contains("## Tournaments") && md.contains("### ladder"),
            "{md}"
        );
        assert!(
            md.contains("3 games between 2 players; nodes 100, a draw after 20 moves"),
            "{md}"
        );
        assert!(
            md.contains("| 1 | a | · | 1.5/3 | 1.5 | 3 | 50.0 % |"),
            "{md}"
        );
        assert!(md.contains("| 1 | 1 | a | 0 | ± "), "{md}");
    }

    #[test]
    fn runs_become_tables() {
        let conn = chessgraph_store::open_in_memory().unwrap();
        runs::record(
            &conn,
            "solve",
            "mates.epd",
            &serde_json::json!({"file": "/data/sets/mates.epd", "player": "engine",
                "mate_search": true, "solved": 165, "attempted": 166, "median_ms": 0.02,
                "lines": [1]}),
        )
        .unwrap();
        let md = render(&conn, Path::new("x.db"), &Options::default()).unwrap();
        assert!(md.contains("## Puzzles"), "{md}");
        assert!(
            md.contains("| file | player | limit | solved | rate | ms per puzzle | date |"),
            "{md}"
        );
        assert!(
            md.contains("| mates.epd | engine | mate search | 165/166 | 99.4 % | 0.0200 |"),
            "{md}"
        );
        assert!(!md.contains("/data/sets"), "{md}");
    }
}
