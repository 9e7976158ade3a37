//! `chessgraph-engine`: the engine alone, as engine testing frameworks (OpenBench,
//! fastchess, cutechess-cli) run an engine: UCI on standard input and output when started
//! without arguments, `bench [DEPTH]` for the bench report (its last lines are the node
//! signature and the speed, in the form those frameworks read). `make EXE=PATH` at the
//! repository's root builds it; `chessgraph engine` is the same engine inside the tool.
//!
//! Built with the `tune` feature, the search's constants are UCI options too, and
//! `spsa` prints them as SPSA input lines (see `chessgraph tune spsa`).

use std::process::ExitCode;
use std::sync::Arc;

use chessgraph_engine::eval::{DEFAULT_EVALUATOR, Evaluator};
use chessgraph_engine::players::{DEFAULT_HASH_MIB, ResolveError, Settings};
use chessgraph_engine::search::bench;
use chessgraph_engine::uci::{self, ENGINE_NAME, Output};

const USAGE: &str = "usage: chessgraph-engine [bench [DEPTH] | spsa | --version | --help]
  (no arguments)  a UCI engine on standard input and output
  bench [DEPTH]   search the bench positions to DEPTH (default 8): nodes and speed
  spsa            the tunable search constants as SPSA input lines (a `tune` build)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        [] => play(),
        ["bench"] => run_bench(bench::DEFAULT_DEPTH),
        ["bench", depth] => match depth.parse::<u32>() {
            Ok(d) if (1..=64).contains(&d) => run_bench(d),
            _ => Err(format!(
                "bench: the depth must be a number from 1 to 64, got {depth:?}"
            )),
        },
        ["spsa"] => spsa(),
        ["--version" | "-V"] => {
            println!("{ENGINE_NAME}");
            Ok(())
        }
        ["--help" | "-h"] => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown arguments {other:?}\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("chessgraph-engine: {message}");
            ExitCode::from(2)
        }
    }
}

/// The built-in network; it is compiled in, so loading it cannot fail.
fn network() -> Result<Arc<Evaluator>, String> {
    Evaluator::builtin(DEFAULT_EVALUATOR)
        .map(Arc::new)
        .ok_or_else(|| format!("no built-in evaluator {DEFAULT_EVALUATOR:?}"))
}

/// The UCI loop until `quit` or the end of input.
fn play() -> Result<(), String> {
    let player = Settings::Engine(network()?, DEFAULT_HASH_MIB)
        .build()
        .map_err(|e| e.to_string())?;
    let resolve: uci::Resolver =
        Box::new(|s: &str| Evaluator::by_name_or_path(s).map_err(ResolveError::from));
    let out = Output::new(Box::new(std::io::stdout()));
    uci::run(
        std::io::stdin().lock(),
        out,
        player,
        DEFAULT_EVALUATOR,
        resolve,
    )
    .map_err(|e| format!("reading UCI commands from standard input: {e}"))
}

/// The bench report: one line a position, then the totals.
fn run_bench(depth: u32) -> Result<(), String> {
    let total = bench::run(network()?, depth, &mut |line| {
        println!("{}", bench::line_text(line));
    })
    .map_err(|e| e.to_string())?;
    println!("{}", bench::total_text(&total));
    Ok(())
}

/// The tunable constants as SPSA input lines at their current values (a `tune` build; a
/// normal one has no such options, so the lines would drive nothing).
fn spsa() -> Result<(), String> {
    if !cfg!(feature = "tune") {
        return Err(
            "this build has no tunable options: build it with `make tune` (the `tune` feature)"
                .into(),
        );
    }
    use chessgraph_engine::search::params;
    for (p, v) in params::PARAMS.iter().zip(params::values()) {
        println!("{}", p.spsa_line(v));
    }
    Ok(())
}
