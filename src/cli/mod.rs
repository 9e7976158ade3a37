//! One file per subcommand: each parses its arguments and calls the library.

/// Writes a diagnostic line to standard error. A closed stderr is not an error (nobody is
/// reading); unlike `eprintln!`, this never panics.
macro_rules! warn {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Writes a line to standard output and returns the I/O result: a closed pipe ends the
/// command quietly (see `main`), where `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)
    }};
}

pub mod analyze;
pub mod bench;
pub mod datagen;
pub mod engine;
pub mod eval;
pub mod export;
pub mod fit;
pub mod heatmap;
pub mod import;
pub mod label;
pub mod matches;
pub mod progress;
pub mod rate;
pub mod report;
#[cfg(feature = "serve")]
pub mod serve;
pub mod solve;
pub mod sql;
pub mod stats;
pub mod tournament;
pub mod train;
pub mod tune;
pub mod values;

use std::path::Path;

use anyhow::Context;

/// Opens (creating if missing) the database at `path`; errors name it once.
pub fn open_db(path: &Path) -> anyhow::Result<rusqlite::Connection> {
    match chessgraph_store::open(path) {
        Ok(conn) => Ok(conn),
        Err(e @ chessgraph_store::Error::DatabaseIsDirectory { .. }) => Err(e.into()),
        Err(e) => Err(e).with_context(|| format!("cannot open database {}", path.display())),
    }
}

/// Opens the database at `path` for a command that reads what earlier commands stored; a
/// missing file is an error that says which command makes it (`first`, e.g.
/// "`chessgraph import FILE`"), not a silently created empty database.
pub fn open_existing(path: &Path, first: &str) -> anyhow::Result<rusqlite::Connection> {
    if !path.exists() {
        anyhow::bail!("no database at {} (run {first} first)", path.display());
    }
    let mut conn = open_db(path)?;
    settle_imports(&mut conn, path)?;
    Ok(conn)
}

/// Settles the interrupted bulk imports of the open database before a command reads its
/// positions ([`chessgraph_store::import::settle`]), saying so on standard error.
pub fn settle_imports(conn: &mut rusqlite::Connection, path: &Path) -> anyhow::Result<()> {
    let settled = match chessgraph_store::import::settle(conn) {
        Ok(settled) => settled,
        Err(e @ chessgraph_store::Error::ImportRunning { .. }) => return Err(e.into()),
        Err(e) => {
            return Err(e).with_context(|| {
                format!("cannot check the interrupted import in {}", path.display())
            });
        }
    };
    for u in settled {
        warn!(
            "chessgraph: the bulk import of {} into {} had stopped at line {}: its {} rows are \
             now checked for duplicates (`chessgraph import {}` imports the rest)",
            u.path,
            path.display(),
            u.line,
            u.rows,
            u.path
        );
    }
    Ok(())
}

/// Opens the database at `path` for a command that only reads it: query-only, so it works
/// on a read-only file or directory, nothing is created or migrated, and the WAL's side
/// files go when it closes.
pub fn open_reading(path: &Path, first: &str) -> anyhow::Result<rusqlite::Connection> {
    if !path.exists() {
        anyhow::bail!("no database at {} (run {first} first)", path.display());
    }
    let opened = match chessgraph_store::open_query_only(path) {
        // A writable connection settles an interrupted bulk import; where the file cannot
        // be written the refusal, which says how to settle it, stands.
        Err(e @ chessgraph_store::Error::UnfinishedImport { .. }) => {
            match chessgraph_store::open(path) {
                Ok(mut conn) => {
                    settle_imports(&mut conn, path)?;
                    drop(conn);
                    chessgraph_store::open_query_only(path)
                }
                Err(_) => Err(e),
            }
        }
        opened => opened,
    };
    match opened {
        Ok(conn) => Ok(conn),
        Err(
            e @ (chessgraph_store::Error::DatabaseIsDirectory { .. }
            | chessgraph_store::Error::UnfinishedImport { .. }
            | chessgraph_store::Error::ImportRunning { .. }),
        ) => Err(e.into()),
        // An empty file (0 bytes, or SQLite's with no table yet) is no older database.
        Err(chessgraph_store::Error::SchemaTooOld { found: 0, .. }) => {
            anyhow::bail!("{} is empty (run {first} first)", path.display())
        }
        Err(e) => Err(e).with_context(|| format!("cannot open database {}", path.display())),
    }
}

/// The evaluator a player uses when `--evaluator` names none: the engine plays with
/// [`chessgraph_engine::eval::DEFAULT_EVALUATOR`]; the studies' players reproduce the studies, so
/// they use the graph-features study's evaluator, `seed003`.
pub fn default_evaluator(spec: &chessgraph_engine::players::Spec) -> &'static str {
    if spec.name == "engine" {
        chessgraph_engine::eval::DEFAULT_EVALUATOR
    } else {
        STUDY_EVALUATOR
    }
}

/// The player `--player SPEC` names, with `--evaluator` (or the spec's default, see
/// [`default_evaluator`]): the player, its evaluator's name, and the resolver that turns
/// later evaluator names (UCI's `Evaluator` option) into evaluators through the database.
pub fn player(
    db_path: &Path,
    spec: &str,
    evaluator: Option<&str>,
) -> anyhow::Result<(
    Box<dyn chessgraph_engine::players::Player>,
    String,
    chessgraph_engine::uci::Resolver,
)> {
    let (settings, name, resolve) = checked_player(db_path, spec, spec, evaluator)?;
    let player = settings
        .build()
        .with_context(|| format!("--player {spec}"))?;
    Ok((player, name, resolve))
}

/// The checked settings of `--player SPEC` (every key known, every value in range, its
/// evaluators loaded; nothing built yet), its evaluator's name and the resolver: what
/// [`player`] builds on, and what `tournament` checks before any engine starts. Errors
/// about the spec's keys and values name the flag as `--player {shown}`.
pub fn checked_player(
    db_path: &Path,
    spec: &str,
    shown: &str,
    evaluator: Option<&str>,
) -> anyhow::Result<(
    chessgraph_engine::players::Settings,
    String,
    chessgraph_engine::uci::Resolver,
)> {
    let parsed = chessgraph_engine::players::Spec::parse(spec)?;
    let name = evaluator
        .unwrap_or_else(|| default_evaluator(&parsed))
        .to_owned();
    let loaded = chessgraph_store::evaluators::resolve(db_path, &name)
        .with_context(|| format!("loading evaluator {name:?}"))?;
    let db = db_path.to_owned();
    let resolve = move |s: &str| {
        chessgraph_store::evaluators::resolve(&db, s)
            .map_err(chessgraph_engine::players::ResolveError::from)
    };
    let settings =
        chessgraph_engine::players::Settings::check(&parsed, std::sync::Arc::new(loaded), &resolve)
            .with_context(|| format!("--player {shown}"))?;
    Ok((settings, name, Box::new(resolve)))
}

/// The graph-features study's evaluator, which the studies' players use unless told otherwise.
pub const STUDY_EVALUATOR: &str = "seed003";

/// Records a command's summary in the `runs` table of the database at `path` for
/// `chessgraph report`, when that database exists (measuring commands never create one).
/// A failure to record is a warning: the measurement itself was printed.
pub fn record_run(path: &Path, kind: &str, label: &str, summary: &impl serde::Serialize) {
    if !path.exists() {
        return;
    }
    let result = chessgraph_store::open(path)
        .and_then(|conn| chessgraph_store::runs::record(&conn, kind, label, summary));
    if let Err(e) = result {
        warn!(
            "chessgraph: warning: could not record the {kind} run in {}: {}",
            path.display(),
            chessgraph_engine::uci::output::error_chain(&e)
        );
    }
}

/// Whether a file argument is `-`: standard output, as everywhere `-` is.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses `-` for a file argument of a command whose standard output already carries its
/// results (rather than writing a file named `-`).
pub fn not_stdout(path: Option<&Path>, flag: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        !path.is_some_and(is_stdout),
        "{flag} -: standard output carries this command's results; give a file name"
    );
    Ok(())
}

/// `n` and the noun, with an `s` unless `n` is 1: "1 game", "4 games".
pub fn plural(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A metric with `decimals` places, or `-` when it is undefined (an empty part, no
/// centipawn labels for τ, one outcome only for AUC).
pub fn metric(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        "-".to_owned()
    }
}

/// How long each move of a refereed game may take (`match`, `tournament`): a clock, or a
/// fixed time, depth or node count per move.
#[derive(clap::Args)]
pub struct GameLimits {
    /// Clock: seconds+increment per game, or moves/seconds+increment (e.g. 5+0.05, 40/60) [default: 1+0.01].
    #[arg(long, value_name = "TC", conflicts_with_all = ["movetime", "depth", "nodes"])]
    tc: Option<String>,
    /// Fixed time per move in milliseconds.
    #[arg(long, value_name = "MS", conflicts_with_all = ["depth", "nodes"], value_parser = values::at_least_one::<u64>)]
    movetime: Option<u64>,
    /// Fixed search depth per move.
    #[arg(long, value_name = "N", conflicts_with = "nodes", value_parser = values::at_least_one::<u32>)]
    depth: Option<u32>,
    /// Fixed node count per move.
    #[arg(long, value_name = "N", value_parser = values::at_least_one::<u64>)]
    nodes: Option<u64>,
}

impl GameLimits {
    /// The time control the flags ask for (1+0.01 when none is given).
    pub fn time_control(&self) -> anyhow::Result<chessgraph_lab::arena::matches::TimeControl> {
        use chessgraph_lab::arena::matches::TimeControl;
        Ok(match (&self.tc, self.movetime, self.depth, self.nodes) {
            (Some(tc), ..) => TimeControl::parse_clock(tc)?,
            (_, Some(ms), ..) => TimeControl::MoveTime(std::time::Duration::from_millis(ms)),
            (_, _, Some(d), _) => {
                anyhow::ensure!((1..=64).contains(&d), "--depth must be 1 to 64");
                TimeControl::Depth(d)
            }
            (_, _, _, Some(n)) => TimeControl::Nodes(n.max(1)),
            _ => TimeControl::parse_clock("1+0.01").expect("valid"),
        })
    }
}

/// When a refereed game may end before the rules of chess end it (`match`, `tournament`).
/// Without these flags every game is played out.
#[derive(clap::Args)]
pub struct AdjudicationArgs {
    /// Adjudicate a draw when a game reaches this many moves (of each side) from its opening [default: no limit].
    #[arg(long, value_name = "N", value_parser = values::at_least_one::<u32>)]
    max_moves: Option<u32>,
    /// Adjudicate a draw once both engines' scores stay level: movenumber=40,movecount=8,score=10 (the values used when the flag has none) — from move 40 on, 8 moves of each side within ±10 cp with no capture or pawn move.
    #[arg(long, value_name = "RULE", num_args = 0..=1, default_missing_value = "")]
    draw: Option<String>,
    /// Adjudicate positions the Syzygy tables in these directories (`:`-separated) cover, by their outcome with the halfmove clock counted.
    #[arg(long, value_name = "DIRS")]
    syzygy: Option<String>,
}

impl AdjudicationArgs {
    /// The adjudication the flags ask for (tables loaded, rule parsed).
    pub fn adjudication(&self) -> anyhow::Result<chessgraph_lab::arena::matches::Adjudication> {
        use chessgraph_lab::arena::matches::{Adjudication, DrawRule};
        let tablebases = match &self.syzygy {
            Some(dirs) => {
                let (tables, files) = chessgraph_engine::search::tablebase::Tablebases::load(dirs)
                    .with_context(|| format!("--syzygy {dirs}"))?;
                anyhow::ensure!(files > 0, "--syzygy {dirs}: no Syzygy tables found there");
                Some(std::sync::Arc::new(tables))
            }
            None => None,
        };
        Ok(Adjudication {
            max_plies: self.max_moves.map(|m| m.saturating_mul(2)),
            draw: self.draw.as_deref().map(DrawRule::parse).transpose()?,
            tablebases,
        })
    }
}

/// K of σ(K·cp) for a trainer: `given`, or fitted on `pairs` (label, game result) of the
/// training positions by the one K policy of `fit::metrics`; said on `out`.
pub fn choose_k(
    out: &mut impl std::io::Write,
    given: Option<f64>,
    pairs: &[(f64, f64)],
) -> anyhow::Result<f64> {
    if let Some(k) = given {
        writeln!(out, "K = {k:.6} per cp (given)")?;
        return Ok(k);
    }
    let (k, fitted_on) = chessgraph_learn::stats::k_or_default(pairs);
    if fitted_on > 0 {
        writeln!(
            out,
            "K = {k:.6} per cp, fitted on {fitted_on} training positions with a label and a game result"
        )?;
    } else {
        writeln!(
            out,
            "K = {k:.6} per cp (ln 10 / 400: too few game results to fit it)"
        )?;
    }
    Ok(k)
}
