//! `chessgraph tournament`: a round robin (or gauntlet) between players and UCI engines,
//! stored game by game; a cross table and maximum-likelihood ratings.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::progress::{Progress, Unit};
use anyhow::Context;
use chessgraph_engine::engines::command;
use chessgraph_engine::players::Spec;
use chessgraph_lab::arena::matches::{self, EngineSpec};
use chessgraph_lab::arena::sprt::{Sprt, SprtParams, SprtReport, Verdict};
use chessgraph_lab::arena::tournament::{self, Participant, Tournament};
use chessgraph_store::tournaments::GameRow;

/// Arguments of `chessgraph tournament`.
#[derive(clap::Args)]
pub struct Args {
    /// A player, [NAME=]SPEC (repeatable), e.g. `random:seed=1`, `tuned=engine:evaluator=tuned`: run as `chessgraph engine --player SPEC` with --db passed through; named by its spec unless NAME= is given.
    #[arg(long, value_name = "SPEC")]
    player: Vec<String>,
    /// A UCI engine, NAME=CMD (repeatable): the command quoted as in a shell, e.g. "sf=/usr/games/stockfish" (`chessgraph` as its first word means this program, with --db).
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
    /// Games per pair (each opening twice, colours swapped); with --sprt the cap [default: 2, with --sprt 20000].
    #[arg(long, value_name = "N")]
    games: Option<u32>,
    /// For two players: stop when a sequential probability ratio test on game pairs decides, elo0=A,elo1=B[,alpha=0.05,beta=0.05] in logistic Elo of the --gauntlet player (else the first given) over the other.
    #[arg(long, value_name = "elo0=A,elo1=B")]
    sprt: Option<SprtParams>,
    #[command(flatten)]
    limits: super::GameLimits,
    #[command(flatten)]
    adjudication: super::AdjudicationArgs,
    /// Start positions: a file of FENs, EPD lines or FEN,eval CSV rows [default: the built-in balanced openings, as `match`].
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
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

/// The participants of the command line, in the order given (players, then engines).
fn participants(db_path: &Path, args: &Args) -> anyhow::Result<Vec<Participant>> {
    let exe = command::this_program("--player")?;
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
        // Checked in full here (unknown players and keys, values, evaluators), so that a
        // bad spec is one error before any engine starts, not a dead engine's.
        let _checked = super::checked_player(db_path, spec, text, None)?;
        let spec = Spec::parse(spec)?.to_string();
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
        let command = command::parse(&format!("--engine {}=", name.trim()), cmd, db_path)?;
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

/// The SPRT of a two-player tournament, from the tested player's side.
struct TournamentSprt {
    test: Sprt,
    /// The tested player and its opponent.
    names: [String; 2],
}

impl TournamentSprt {
    /// The test for the two participants of `t`: the gauntlet player's, else the first's.
    fn new(params: SprtParams, t: &Tournament) -> anyhow::Result<TournamentSprt> {
        let names: Vec<&str> = t.participants.iter().map(|p| p.name.as_str()).collect();
        anyhow::ensure!(
            names.len() == 2,
            "--sprt tests one player against one other: this tournament has {} players ({}); \
             play a two-player match or gauntlet",
            names.len(),
            names.join(", ")
        );
        let first = usize::from(t.gauntlet.as_deref() == Some(names[1]));
        Ok(TournamentSprt {
            test: Sprt::new(params),
            names: [names[first].to_owned(), names[1 - first].to_owned()],
        })
    }

    /// Counts a stored game (pairs: games 2k and 2k + 1, one opening); the verdict, if any.
    fn add(&mut self, g: &GameRow) -> Option<Verdict> {
        let [tested, other] = &self.names;
        let players = [&g.player_a, &g.player_b];
        if !(players.contains(&tested) && players.contains(&other)) {
            return self.test.verdict();
        }
        let white = g.white_score();
        let score = if &g.white == tested {
            white
        } else {
            1.0 - white
        };
        self.test.add_game(u64::from(g.game_index / 2), score)
    }
}

/// `--anchor NAME=ELO`, parsed.
fn anchor(anchor: Option<&str>) -> anyhow::Result<Option<(String, f64)>> {
    Ok(match anchor {
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
    })
}

/// Runs `chessgraph tournament`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    super::not_stdout(args.pgn.as_deref(), "--pgn")?;
    let games = args
        .games
        .unwrap_or(if args.sprt.is_some() { 20_000 } else { 2 });
    anyhow::ensure!(games >= 1, "--games must be at least 1");
    anyhow::ensure!(
        args.sprt.is_none() || games.is_multiple_of(2),
        "--sprt counts games in pairs (one opening, colours swapped): --games must be even, not {games}"
    );
    let anchor = anchor(args.anchor.as_deref())?;
    let tc = args.limits.time_control()?;
    let openings = match &args.openings {
        Some(path) => matches::read_openings(path)?,
        None => matches::default_openings(),
    };
    let t = Tournament {
        name: args.name.clone(),
        participants: participants(db_path, &args)?,
        gauntlet: args.gauntlet.clone(),
        games_per_pair: games,
        tc,
        adjudication: args.adjudication.adjudication()?,
        openings,
        concurrency: args.concurrency,
    };
    let conn = super::open_db(db_path)?;
    let mut sprt = match args.sprt {
        Some(params) => {
            let mut test = TournamentSprt::new(params, &t)?;
            // Earlier runs' games first, in the order they finished.
            if let Some((_, _, stored)) = chessgraph_learn::ratings::load(&conn, &t.name)? {
                for g in &stored {
                    test.add(g);
                }
            }
            Some(test)
        }
        None => None,
    };
    let mut out = std::io::stdout().lock();
    if !args.json && !args.quiet {
        writeln!(
            out,
            "tournament {:?}: {} players, {}, {} games per pair, {}, {}{}",
            t.name,
            t.participants.len(),
            t.gauntlet
                .as_ref()
                .map_or("round robin".to_owned(), |g| format!("gauntlet of {g}")),
            t.games_per_pair,
            tc.describe(),
            t.adjudication.describe(),
            args.sprt
                .map_or(String::new(), |p| format!(", SPRT {p} (at most)"))
        )?;
    }
    let summary = if sprt.as_ref().is_some_and(|s| s.test.verdict().is_some()) {
        None // the stored games decided it
    } else {
        Some(play(&conn, &t, &args, sprt.as_mut())?)
    };
    if let Some(s) = sprt.as_mut() {
        s.test.finish();
    }
    let (stored, table, games) = chessgraph_learn::ratings::load(&conn, &t.name)?
        .context("the tournament was just stored")?;
    let standings = chessgraph_learn::ratings::standings(
        &table,
        anchor.as_ref().map(|(n, e)| (n.as_str(), *e)),
    )
    .context("--anchor")?;
    if let Some(path) = &args.pgn {
        let text = tournament::pgn(
            &games,
            &format!("chessgraph tournament {}", t.name),
            &tc.describe(),
        )?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let sprt = sprt.map(|s| (s.names, s.test.report()));
    if args.json {
        let json = serde_json::json!({
            "tournament": t.name,
            "settings": stored.settings,
            "run": summary,
            "games": table.games(),
            "standings": standings,
            "sprt": sprt.as_ref().map(|(names, r)| serde_json::json!({
                "player": names[0], "opponent": names[1], "test": r,
            })),
        });
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        return Ok(());
    }
    write!(out, "{}", standings.text())?;
    write_run(&mut out, summary.as_ref(), table.games(), sprt.as_ref())
}

/// The run's line (games played, or none since the SPRT was decided) and the SPRT's state
/// and verdict (last).
fn write_run(
    out: &mut impl Write,
    summary: Option<&tournament::RunSummary>,
    stored_games: u32,
    sprt: Option<&([String; 2], SprtReport)>,
) -> anyhow::Result<()> {
    match summary {
        Some(summary) => {
            let rate = if summary.seconds > 0.0 {
                summary.played as f64 / summary.seconds
            } else {
                0.0
            };
            writeln!(
                out,
                "\nplayed {} in {:.1} s ({rate:.2} games/s); {} of the {} scheduled were stored before; {} stored in all",
                super::plural(summary.played as u64, "game"),
                summary.seconds,
                summary.already_played,
                summary.scheduled,
                super::plural(stored_games as u64, "game")
            )?;
        }
        None => writeln!(
            out,
            "\nthe {} stored games already decide the SPRT: none played",
            stored_games
        )?,
    }
    if let Some((names, r)) = sprt {
        writeln!(out, "{} vs {}: {}", names[0], names[1], r.status_line())?;
        writeln!(out, "{}", r.verdict_line())?;
    }
    Ok(())
}

/// Plays the tournament's missing games with a progress bar on a terminal, feeding the
/// SPRT, if any, and stopping when it decides (its state also goes to standard error
/// every ten seconds when that is not a terminal).
fn play(
    conn: &rusqlite::Connection,
    t: &Tournament,
    args: &Args,
    mut sprt: Option<&mut TournamentSprt>,
) -> anyhow::Result<tournament::RunSummary> {
    let silent = args.quiet || args.json;
    let terminal = std::io::stderr().is_terminal();
    let bar = Progress::new("tournament", Unit::Items("games"), None, silent);
    let mut last_line: Option<Instant> = None;
    let summary = tournament::run(conn, t, &mut |p| {
        bar.set_length(p.todo as u64);
        bar.set_position(p.done as u64);
        let Some(test) = sprt.as_deref_mut() else {
            if let Some((name, points, games)) = p.table.leader() {
                bar.set_message(format!("leader {name} {points}/{games}"));
            }
            return true;
        };
        let undecided = test.test.verdict().is_none();
        let verdict = test.add(p.game);
        let report = test.test.report();
        bar.set_message(report.llr_text());
        let due = last_line.is_none_or(|t| t.elapsed() >= Duration::from_secs(10));
        if !silent && !terminal && undecided && (verdict.is_some() || due) {
            last_line = Some(Instant::now());
            eprintln!("{}", report.status_line());
        }
        verdict.is_none()
    })
    .context("tournament")?;
    bar.finish();
    Ok(summary)
}
