//! `chessgraph match`: two UCI engines play each other, refereed by chessgraph.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use chessgraph_engine::engines::command;
use chessgraph_lab::arena::matches::{self, EngineSpec, MatchOptions, Summary};

/// Arguments of `chessgraph match`.
#[derive(clap::Args)]
pub struct Args {
    /// First engine's command line, quoted as in a shell (`chessgraph` as its first word means this program, with --db) [default: chessgraph engine].
    #[arg(long, value_name = "CMD")]
    engine1: Option<String>,
    /// Second engine's command line, quoted as in a shell, e.g. "/usr/games/stockfish" or "chessgraph engine --evaluator material".
    #[arg(long, value_name = "CMD")]
    engine2: String,
    /// UCI option for the first engine, NAME=VALUE (repeatable).
    #[arg(long, value_name = "NAME=VALUE", value_parser = super::values::uci_option)]
    option1: Vec<(String, String)>,
    /// UCI option for the second engine, NAME=VALUE (repeatable).
    #[arg(long, value_name = "NAME=VALUE", value_parser = super::values::uci_option)]
    option2: Vec<(String, String)>,
    /// Names in the output and the PGN [default: from the commands].
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    names: Option<Vec<String>>,
    /// Number of games (each opening twice, colours swapped); for a test that stops when it decides, `tournament --sprt`.
    #[arg(long, default_value_t = 20)]
    games: usize,
    #[command(flatten)]
    limits: super::GameLimits,
    /// Start positions: a file of FENs, EPD lines or FEN,eval CSV rows [default: 1,093 balanced positions from the shared sample's games, assets/openings/balanced.epd].
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    #[command(flatten)]
    adjudication: super::AdjudicationArgs,
    /// Write the games to this PGN file.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Print only the summary.
    #[arg(long, short)]
    quiet: bool,
    /// Print the summary as JSON (and no per-game lines).
    #[arg(long)]
    json: bool,
}

/// The engines' names and how to start them, from the command line.
fn engine_specs(args: &Args, db_path: &Path) -> anyhow::Result<([String; 2], [EngineSpec; 2])> {
    let cmd1 = args.engine1.as_deref().unwrap_or("chessgraph engine");
    let commands = [
        command::parse("--engine1", cmd1, db_path)?,
        command::parse("--engine2", &args.engine2, db_path)?,
    ];
    let default_names = [cmd1.to_owned(), args.engine2.clone()];
    let names = match args.names.clone() {
        Some(n) => {
            anyhow::ensure!(n.len() == 2, "--names takes two names, A,B");
            [n[0].clone(), n[1].clone()]
        }
        None if default_names[0] == default_names[1] => [
            format!("{} #1", default_names[0]),
            format!("{} #2", default_names[1]),
        ],
        None => default_names,
    };
    let specs = [
        EngineSpec {
            name: names[0].clone(),
            command: commands[0].clone(),
            options: args.option1.clone(),
        },
        EngineSpec {
            name: names[1].clone(),
            command: commands[1].clone(),
            options: args.option2.clone(),
        },
    ];
    Ok((names, specs))
}

/// Runs `chessgraph match`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    super::not_stdout(args.pgn.as_deref(), "--pgn")?;
    let games = args.games;
    anyhow::ensure!(games >= 1, "--games must be at least 1");
    let tc = args.limits.time_control()?;
    let (names, specs) = engine_specs(&args, db_path)?;
    let openings = match &args.openings {
        Some(path) => matches::read_openings(path)?,
        None => matches::default_openings(),
    };
    let opts = MatchOptions {
        games,
        tc,
        openings,
        adjudication: args.adjudication.adjudication()?,
    };
    let mut pgn = match &args.pgn {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => None,
    };
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(
            out,
            "{} vs {}: {}, {}",
            names[0],
            names[1],
            super::plural(opts.games as u64, "game"),
            tc.describe()
        )?;
    }
    let mut io_error = None;
    let summary = matches::run(&specs, &opts, &mut |g, s| {
        if let Some(w) = pgn.as_mut()
            && let Err(e) = w.write_all(g.pgn([&names[0], &names[1]], &tc.describe()).as_bytes())
        {
            io_error.get_or_insert(e);
        }
        if !args.quiet && !args.json {
            let _ = writeln!(
                out,
                "game {:>4}: {} - {} {} ({}, {} plies)   {}: +{} ={} -{}",
                g.number,
                names[g.white],
                names[1 - g.white],
                g.result(),
                g.termination.describe(),
                g.moves.len(),
                names[0],
                s.wins,
                s.draws,
                s.losses
            );
        }
    })
    .context("match")?;
    if let Some(e) = io_error {
        return Err(e).context("writing the PGN");
    }
    if let Some(mut w) = pgn {
        w.flush().context("writing the PGN")?;
    }
    let label = format!("{} vs {} ({})", names[0], names[1], tc.describe());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
        super::record_run(db_path, "match", &label, &summary);
        return Ok(());
    }
    write_summary(&mut out, &names[0], &summary)?;
    super::record_run(db_path, "match", &label, &summary);
    Ok(())
}

/// The summary lines: the first engine's record and Elo, and faults.
fn write_summary(out: &mut impl Write, first: &str, summary: &Summary) -> anyhow::Result<()> {
    let elo = if summary.elo.is_finite() && summary.elo_95.is_finite() {
        format!("Elo {:+.0} ± {:.0} (95 %)", summary.elo, summary.elo_95)
    } else if summary.elo.is_finite() {
        format!("Elo {:+.0} (95 % interval unbounded)", summary.elo)
    } else {
        "Elo not estimable from a one-sided score".to_owned()
    };
    writeln!(
        out,
        "\n{}: +{} ={} -{} of {}, score {:.1} %, {elo}",
        first,
        summary.wins,
        summary.draws,
        summary.losses,
        super::plural(summary.games as u64, "game"),
        100.0 * summary.score,
    )?;
    writeln!(
        out,
        "illegal moves {} / {}, time losses {} / {}, engine failures {} / {}, mean length {:.0} plies",
        summary.illegal_moves[0],
        summary.illegal_moves[1],
        summary.time_losses[0],
        summary.time_losses[1],
        summary.failures[0],
        summary.failures[1],
        summary.mean_plies
    )?;
    Ok(())
}
