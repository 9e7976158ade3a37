//! The `chessgraph` command line: one flat `match` handing each subcommand to its `run`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;
#[cfg(feature = "serve")]
mod serve;

/// Study chess positions with data: import evaluated positions into SQLite, compute the
/// attack/defense graph and features, fit and tune evaluation weights, draw heatmaps, play
/// and measure a UCI engine.
#[derive(Parser)]
#[command(name = "chessgraph", version, about, after_help = AFTER_HELP)]
struct Cli {
    /// The SQLite database file (see `chessgraph --help`).
    #[arg(
        long,
        global = true,
        default_value = "chessgraph.db",
        value_name = "FILE"
    )]
    db: PathBuf,
    #[command(subcommand)]
    command: Command,
}

/// How the commands are named, and what `--db` does, said once in the top-level help:
/// every subcommand's `--db` line is one short line, so its own options stay in view.
const AFTER_HELP: &str = "The commands come in the order of the work: data in (import, analyze, stats), weights and models made from it (fit, tune, datagen, label, train), positions and evaluators measured (eval, rate, heatmap), files out (export), the engine played and measured (engine, bench, solve, match, tournament), and the record (report, serve). A verb that makes or measures several kinds of thing names the kind as its second word: `train nnue|cnn|selfplay|moves` writes a model file a player or evaluator loads, `fit linear|logistic` fits evaluation weights to features, `tune evaluator|spsa` tunes an evaluator on the data or an engine's options by games, `rate evaluator|policy` measures against the stored labels, `export data|evaluator|bullet` writes files for other programs; `eval FEN` evaluates one position term by term.

--db FILE: `import`, `datagen` and `tournament` create it when missing; the commands that read it need it to exist; `solve`, `bench`, `match` and `rate evaluator --input` record their runs in it only when it exists.";

#[derive(Subcommand)]
enum Command {
    /// Load FEN+evaluation rows from CSV, PGN with [%eval] comments, EPD or the Lichess evaluation database (.jsonl) (plain, .gz, .zst, or - for stdin).
    Import(cli::import::Args),
    /// Compute features and the attack/defense graph for every position not yet analyzed.
    Analyze(cli::analyze::Args),
    /// Show what is in the database: counts, distributions, sources and rejects.
    Stats(cli::stats::Args),
    /// Run SQL on the database with chessgraph's functions, so every view reads: `chessgraph sql "SELECT fen, eval_cp FROM positions LIMIT 5"` (read-only unless --write; --format table|csv|json|jsonl).
    Sql(cli::sql::Args),
    /// Fit evaluation weights to the features on the train split and store them: `fit linear` (on eval_cp) or `fit logistic` (on the result or the sign).
    Fit(cli::fit::Args),
    /// Tune an evaluator on the stored positions (`tune evaluator`, Texel's method; also plain `tune`) or a UCI engine's options by games (`tune spsa`, SPSA as OpenBench runs it).
    Tune(cli::tune::TuneArgs),
    /// Self-play games at fixed nodes per move: stores every searched position with its score and the game result.
    Datagen(cli::datagen::Args),
    /// Label the database's positions with any UCI engine (e.g. Stockfish), several processes in parallel; resumable.
    Label(cli::label::Args),
    /// Train a model file that a player or evaluator loads: `train nnue` (also plain `train --out FILE`), `train cnn`, `train selfplay`, `train moves` (the move classifier).
    Train(cli::train::TrainArgs),
    /// Evaluate one position term by term, as Stockfish's `eval` does: `chessgraph eval FEN [--evaluator A,B]`.
    Eval(cli::eval::EvalArgs),
    /// Rate against the stored labels: evaluators (`rate evaluator`: τ, Pearson, RMSE, Texel loss) or policy networks (`rate policy`: best-move agreement).
    #[command(subcommand)]
    Rate(cli::rate::Rate),
    /// Write files for other programs: the tables as Parquet (`export data`), an evaluator file (`export evaluator`) or training data for the bullet trainer (`export bullet`).
    #[command(subcommand)]
    Export(cli::export::Export),
    /// Average evaluation per piece and square: one PNG board per piece, a 3 × 4 grid and a CSV.
    Heatmap(cli::heatmap::Args),
    /// Play chess over UCI on standard input/output (for GUIs and match runners).
    Engine(cli::engine::Args),
    /// Search a fixed set of positions to a fixed depth: deterministic node count and speed.
    Bench(cli::bench::Args),
    /// Solve mate problems and best-move suites (EPD `dm N`/`bm`/`am`/STS `c0`, PGN with a FEN tag) with the engine or any player; solved/total, points, times.
    Solve(cli::solve::Args),
    /// Play two UCI engines against each other (refereed: legal moves, clocks, draws by rule); W/D/L and Elo.
    Match(cli::matches::Args),
    /// Round robin or gauntlet between players and UCI engines, stored game by game (resumable); cross table and maximum-likelihood ratings.
    Tournament(cli::tournament::Args),
    /// Write a Markdown report of the database: data, features, fits, evaluators, puzzles, matches, benchmarks.
    Report(cli::report::Args),
    /// Serve a page to play the engine and browse the database in a browser (read-only; loopback by default).
    #[cfg(feature = "serve")]
    Serve(cli::serve::Args),
    /// Former name of `train cnn`.
    #[cfg(feature = "cnn")]
    #[command(hide = true)]
    TrainNet(cli::train::cnn::Args),
    /// Former name of `train selfplay`.
    #[cfg(feature = "cnn")]
    #[command(hide = true)]
    SelfplayTrain(cli::train::selfplay::Args),
    /// Former name of `rate policy`.
    #[cfg(feature = "cnn")]
    #[command(hide = true)]
    EvalPolicy(cli::rate::policy::Args),
    /// Former name of `export evaluator`.
    #[command(hide = true)]
    ExportEvaluator(cli::export::evaluator::Args),
    /// Former name of `export data`.
    #[cfg(feature = "parquet")]
    #[command(hide = true)]
    ExportData(cli::export::data::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Import(args) => cli::import::run(&cli.db, args),
        Command::Analyze(args) => cli::analyze::run(&cli.db, args),
        Command::Stats(args) => cli::stats::run(&cli.db, args),
        Command::Sql(args) => cli::sql::run(&cli.db, args),
        Command::Fit(args) => cli::fit::run(&cli.db, args),
        Command::Tune(args) => args.run(&cli.db),
        Command::Datagen(args) => cli::datagen::run(&cli.db, args),
        Command::Label(args) => cli::label::run(&cli.db, args),
        Command::Train(args) => args.run(&cli.db),
        Command::Eval(args) => cli::eval::run_eval(&cli.db, args),
        Command::Rate(what) => what.run(&cli.db),
        Command::Export(what) => what.run(&cli.db),
        Command::Heatmap(args) => cli::heatmap::run(&cli.db, args),
        Command::Engine(args) => cli::engine::run(&cli.db, args),
        Command::Bench(args) => cli::bench::run(&cli.db, args),
        Command::Solve(args) => cli::solve::run(&cli.db, args),
        Command::Match(args) => cli::matches::run(&cli.db, args),
        Command::Tournament(args) => cli::tournament::run(&cli.db, args),
        Command::Report(args) => cli::report::run(&cli.db, args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => cli::serve::run(&cli.db, args),
        #[cfg(feature = "cnn")]
        Command::TrainNet(args) => cli::train::cnn::run(&cli.db, args),
        #[cfg(feature = "cnn")]
        Command::SelfplayTrain(args) => cli::train::selfplay::run(args),
        #[cfg(feature = "cnn")]
        Command::EvalPolicy(args) => cli::rate::policy::run(&cli.db, args),
        Command::ExportEvaluator(args) => cli::export::evaluator::run(&cli.db, args),
        #[cfg(feature = "parquet")]
        Command::ExportData(args) => cli::export::data::run(&cli.db, args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "chessgraph: error: {err}");
            for cause in err.chain().skip(1) {
                let _ = write!(stderr, "\n  caused by: {cause}");
            }
            let _ = writeln!(stderr);
            ExitCode::FAILURE
        }
    }
}

/// A closed pipe (`chessgraph stats | head`) is not a failure. The writers that wrap an
/// I/O error without giving it as their source (serde_json, csv) are asked directly.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(BrokenPipe))
            || cause.downcast_ref::<csv::Error>().is_some_and(
                |e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == BrokenPipe),
            )
    })
}
