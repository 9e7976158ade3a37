//! `chessgraph tournament`: a round robin (or gauntlet) between players and UCI engines,
//! stored game by game; a cross table and maximum-likelihood ratings.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use chessgraph::measure::matches::{self, EngineSpec};
use chessgraph::measure::tournament::{self, Participant, Tournament};
use chessgraph::players::Spec;
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `chessgraph tournament`.
#[derive(clap::Args)]
pub struct Args {
    /// A player, [NAME=]SPEC (repeatable), e.g. `random:seed=1`, `tuned=engine:evaluator=tuned`: run as `chessgraph engine --player SPEC` with --db passed through; named by its spec unless NAME= is given.
    #[arg(long, value_name = "SPEC")]
    player: Vec<String>,
    /// A UCI engine, NAME=CMD (repeatable): the command split at spaces, e.g. "sf=/usr/games/stockfish" (`chessgraph` as its first word means this program, with --db).
    #[arg(long, value_name = "NAME=CMD")]
    engine: Vec<String>,
    /// A UCI option for one participant, NAME:OPTION=VALUE (repeatable), e.g. "sf:UCI_Elo=1500".
    #[arg(long, value_name = "NAME:OPTION=VALUE")]
    option: Vec<String>,
    /// Name the tournament is stored under; running it again plays only the missing games.
    #[arg(long, default_value = "tournament")]
    name: String,
    /// Only this participant's games against each of the others (a gauntlet).
    #[arg(long, value_name = "NAME")]
    gauntlet: Option<String>,
    /// Games per pair (each opening twice, colours swapped).
    #[arg(long, default_value_t = 2, value_name = "N")]
    games: u32,
    #[command(flatten)]
    limits: super::GameLimits,
    /// Adjudicate a draw when a game reaches this many moves (of each side) from its opening.
    #[arg(long, default_value_t = 100, value_name = "N")]
    max_moves: u32,
    /// Start positions: a file of FENs, EPD lines or FEN,eval CSV rows [default: the built-in balanced openings, as `match`].
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_name = "N")]
    concurrency: usize,
    /// Fix this player's rating, NAME=ELO, instead of the rated players' mean 0.
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
    /// Write every stored game of the tournament to this PGN file.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Print the run, the cross table and the ratings as JSON.
    #[arg(long)]
    json: bool,
}

/// This program's path, for `chessgraph` in commands.
fn this_program() -> anyhow::Result<String> {
    Ok(std::env::current_exe()
        .context("cannot find this program's path")?
        .display()
        .to_string())
}

/// The participants of the command line, in the order given (players, then engines).
fn participants(db_path: &Path, args: &Args) -> anyhow::Result<Vec<Participant>> {
    let exe = this_program()?;
    let db = db_path.display().to_string();
    let mut out = Vec::new();
    for text in &args.player {
        // `NAME=SPEC` where NAME has no ':' (a spec's first '=' comes after its ':').
        let (name, spec) = match text.split_once('=') {
            Some((n, s)) if !n.contains(':') && !s.trim().is_empty() => {
                (Some(n.trim().to_owned()), s)
            }
            _ => (None, text.as_str()),
        };
        let spec = Spec::parse(spec).with_context(|| format!("--player {text}"))?;
        let spec = spec.to_string();
        out.push(Participant {
            name: name.unwrap_or_else(|| spec.clone()),
            definition: format!("player {spec}"),
            engine: EngineSpec {
                name: spec.clone(),
                command: vec![
                    exe.clone(),
                    "--db".into(),
                    db.clone(),
                    "engine".into(),
                    "--player".into(),
                    spec,
                ],
                options: Vec::new(),
            },
        });
    }
    for text in &args.engine {
        let (name, cmd) = text
            .split_once('=')
            .with_context(|| format!("--engine {text:?} is not NAME=CMD"))?;
        let mut command: Vec<String> = cmd.split_whitespace().map(str::to_owned).collect();
        anyhow::ensure!(!command.is_empty(), "--engine {text:?}: empty command");
        if command[0] == "chessgraph" {
            command[0] = exe.clone();
            if !command.iter().any(|w| w == "--db") {
                command.splice(1..1, ["--db".to_owned(), db.clone()]);
            }
        }
        out.push(Participant {
            name: name.trim().to_owned(),
            definition: format!("engine {}", cmd.trim()),
            engine: EngineSpec {
                name: name.trim().to_owned(),
                command,
                options: Vec::new(),
            },
        });
    }
    for text in &args.option {
        // The longest participant name followed by ':' (player names may hold ':').
        let p = out
            .iter_mut()
            .filter(|p| text.starts_with(&format!("{}:", p.name)))
            .max_by_key(|p| p.name.len())
            .with_context(|| {
                format!("--option {text:?}: not NAME:OPTION=VALUE for a participant's NAME")
            })?;
        let rest = &text[p.name.len() + 1..];
        let (option, value) = rest
            .split_once('=')
            .with_context(|| format!("--option {text:?}: not NAME:OPTION=VALUE"))?;
        p.engine
            .options
            .push((option.trim().to_owned(), value.trim().to_owned()));
        p.definition
            .push_str(&format!("; option {}={}", option.trim(), value.trim()));
    }
    Ok(out)
}

/// Runs `chessgraph tournament`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    anyhow::ensure!(args.max_moves >= 1, "--max-moves must be at least 1");
    anyhow::ensure!(args.concurrency >= 1, "--concurrency must be at least 1");
    let anchor = match &args.anchor {
        Some(a) => {
            let (name, elo) = a
                .rsplit_once('=')
                .with_context(|| format!("--anchor {a:?} is not NAME=ELO"))?;
            let elo: f64 = elo
                .trim()
                .parse()
                .ok()
                .filter(|e: &f64| e.is_finite())
                .with_context(|| format!("--anchor {a:?}: {elo:?} is not a number"))?;
            Some((name.trim().to_owned(), elo))
        }
        None => None,
    };
    let tc = args.limits.time_control()?;
    let openings = match &args.openings {
        Some(path) => matches::read_openings(path)?,
        None => matches::default_openings(),
    };
    let t = Tournament {
        name: args.name.clone(),
        participants: participants(db_path, &args)?,
        gauntlet: args.gauntlet.clone(),
        games_per_pair: args.games,
        tc,
        max_moves: args.max_moves,
        openings,
        concurrency: args.concurrency,
    };
    let conn = chessgraph::db::open(db_path)
        .with_context(|| format!("cannot open database {}", db_path.display()))?;
    let mut out = std::io::stdout().lock();
    if !args.json && !args.quiet {
        writeln!(
            out,
            "tournament {:?}: {} players, {}, {} games per pair, {}, draw after {} moves",
            t.name,
            t.participants.len(),
            t.gauntlet
                .as_ref()
                .map_or("round robin".to_owned(), |g| format!("gauntlet of {g}")),
            t.games_per_pair,
            tc.describe(),
            t.max_moves
        )?;
    }
    let bar = if args.quiet || args.json || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(0);
        b.set_style(
            ProgressStyle::with_template("[{elapsed_precise}] [{bar:30}] {pos}/{len} games {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        b
    };
    let summary = tournament::run(&conn, &t, &mut |p| {
        bar.set_length(p.todo as u64);
        bar.set_position(p.done as u64);
        if let Some((name, points, games)) = p.table.leader() {
            bar.set_message(format!("leader {name} {points}/{games}"));
        }
    })
    .context("tournament")?;
    bar.finish_and_clear();
    let (stored, table, games) = chessgraph::fit::ratings::load(&conn, &t.name)?
        .context("the tournament was just stored")?;
    let standings =
        chessgraph::fit::ratings::standings(&table, anchor.as_ref().map(|(n, e)| (n.as_str(), *e)))
            .context("--anchor")?;
    if let Some(path) = &args.pgn {
        let text = tournament::pgn(
            &games,
            &format!("chessgraph tournament {}", t.name),
            &tc.describe(),
        )?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        let json = serde_json::json!({
            "tournament": t.name,
            "settings": stored.settings,
            "run": summary,
            "games": table.games(),
            "standings": standings,
        });
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        return Ok(());
    }
    write!(out, "{}", standings.text())?;
    let rate = if summary.seconds > 0.0 {
        summary.played as f64 / summary.seconds
    } else {
        0.0
    };
    writeln!(
        out,
        "\nplayed {} games in {:.1} s ({rate:.2} games/s); {} of the {} scheduled were stored before; {} games stored in all",
        summary.played,
        summary.seconds,
        summary.already_played,
        summary.scheduled,
        table.games()
    )?;
    Ok(())
}
