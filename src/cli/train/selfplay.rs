//! `chessgraph train selfplay`: the policy/value network plays itself with PUCT, learns
//! from its games, and again, generation after generation (AlphaZero's loop at a size two
//! cores allow).
//!
//! Files in `--out-dir`: `gen-0.safetensors` (a copy of `--init`), and per generation G
//! `gen-G.pgn` (its games), `gen-G.jsonl` (its samples: FEN, visit shares, outcome) and
//! `gen-G.safetensors` (the network trained after it). A generation whose network exists
//! is skipped, so the same command resumes a stopped run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use chessgraph_cnn::{Arch, Net};
use chessgraph_core::chess::fen::{parse_position, to_fen};
use chessgraph_core::chess::pgn::Record;
use chessgraph_engine::players::puct::PuctSettings;
use chessgraph_learn::train::cnn::{self, NetData, NetOptions, Sample};
use chessgraph_learn::train::selfplay::{self, SelfPlayGame, SelfPlayOptions};
use serde_json::json;

use crate::cli::progress::{Progress as Bar, Unit};

/// Arguments of `chessgraph train selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// The starting network, a `policy-value` model (generation 0; e.g. trained on best moves by `train cnn`).
    #[arg(long, value_name = "FILE")]
    init: PathBuf,
    /// Folder for the generations' networks, games and samples (created; an existing run there resumes).
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,
    /// Generations to play and train.
    #[arg(long, default_value_t = 5, value_name = "N")]
    generations: u32,
    /// Self-play games per generation.
    #[arg(long, default_value_t = 100, value_name = "N")]
    games: u64,
    /// PUCT simulations per move.
    #[arg(long, default_value_t = 50, value_name = "N", value_parser = crate::cli::values::at_least_one::<u32>)]
    simulations: u32,
    /// PUCT's exploration constant c.
    #[arg(long, default_value_t = 1.0, value_name = "C")]
    c: f32,
    /// Share of Dirichlet noise in the root's priors.
    #[arg(long, default_value_t = 0.25, value_name = "F", value_parser = crate::cli::values::fraction::<f32>)]
    noise: f32,
    /// α of the Dirichlet noise.
    #[arg(long, default_value_t = 0.3, value_name = "A")]
    alpha: f32,
    /// Moves drawn in proportion to their visits at the start of each game (later: the most visited).
    #[arg(long, default_value_t = 20, value_name = "N")]
    temperature_plies: u32,
    /// Adjudicate a draw after this many plies.
    #[arg(long, default_value_t = 300, value_name = "N")]
    max_plies: u32,
    /// Train on the samples of this many latest generations.
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = crate::cli::values::at_least_one::<u32>)]
    window: u32,
    /// Passes over the window per generation.
    #[arg(long, default_value_t = 2, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    epochs: usize,
    /// Positions per mini-batch.
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = crate::cli::values::at_least_one::<usize>)]
    batch: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-4, value_name = "LR", value_parser = crate::cli::values::positive::<f64>)]
    lr: f64,
    /// Seed of the games and the training.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `chessgraph train selfplay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.games >= 2,
        "--games must be at least 2 (one game in ten, the first included, is held out)"
    );
    let mut net =
        Net::load(&args.init).with_context(|| format!("--init {}", args.init.display()))?;
    anyhow::ensure!(
        net.arch() == Arch::PolicyValue,
        "--init {}: self-play needs a policy-value network, this is {}",
        args.init.display(),
        net.arch().as_str()
    );
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("cannot create {}", args.out_dir.display()))?;
    let gen0 = args.out_dir.join("gen-0.safetensors");
    if !gen0.exists() {
        net.save(&gen0)
            .with_context(|| format!("cannot write {}", gen0.display()))?;
    }
    let mut out = std::io::stdout().lock();
    // The samples of the latest `--window` generations, oldest first.
    let mut window: std::collections::VecDeque<Vec<(u64, Sample)>> = Default::default();
    let keep = |window: &mut std::collections::VecDeque<_>, samples| {
        window.push_back(samples);
        if window.len() > args.window as usize {
            window.pop_front();
        }
    };
    let started = Instant::now();
    for g in 1..=args.generations {
        let file = |ext: &str| args.out_dir.join(format!("gen-{g}.{ext}"));
        if file("safetensors").exists() && file("jsonl").exists() {
            net = Net::load(&file("safetensors"))?;
            keep(&mut window, read_samples(&file("jsonl"))?);
            writeln!(out, "generation {g}: done before, resumed")?;
            continue;
        }
        let samples = play_generation(&mut out, &net, &args, g)?;
        keep(&mut window, samples);
        net = train_generation(&mut out, &net, &window, &args, g)?;
        net.save(&file("safetensors"))
            .with_context(|| format!("cannot write {}", file("safetensors").display()))?;
    }
    writeln!(
        out,
        "{} generations in {:.1} s; networks in {} (gen-0 … gen-{})",
        args.generations,
        started.elapsed().as_secs_f64(),
        args.out_dir.display(),
        args.generations
    )?;
    Ok(())
}

/// Plays generation `g`'s games with `net`, writes them (PGN) and their samples (JSON
/// lines), says the score and the rate, and returns the samples with their game numbers.
fn play_generation(
    out: &mut impl Write,
    net: &Net,
    args: &Args,
    g: u32,
) -> anyhow::Result<Vec<(u64, Sample)>> {
    let file = |ext: &str| args.out_dir.join(format!("gen-{g}.{ext}"));
    let opts = SelfPlayOptions {
        search: PuctSettings {
            simulations: args.simulations,
            c: args.c,
            dirichlet_alpha: args.alpha,
            dirichlet_fraction: args.noise,
        },
        temperature_plies: args.temperature_plies,
        max_plies: args.max_plies,
        seed: args.seed ^ (u64::from(g) << 32),
    };
    let play_start = Instant::now();
    let bar = Bar::new(
        &format!("generation {g}"),
        Unit::Items("games"),
        Some(args.games),
        args.quiet,
    );
    let games = selfplay::play_games(net, &opts, 0, args.games, &|_| bar.inc(1));
    bar.finish();
    let play_seconds = play_start.elapsed().as_secs_f64();
    write_pgn(&file("pgn"), g, &games)?;
    let samples: Vec<(u64, Sample)> = games
        .iter()
        .enumerate()
        .flat_map(|(i, game)| game.samples.iter().map(move |s| (i as u64, s.clone())))
        .collect();
    write_samples(&file("jsonl"), &samples)?;
    let (w, d, l) = games
        .iter()
        .fold((0, 0, 0), |(w, d, l), game| match game.outcome() {
            x if x > 0.0 => (w + 1, d, l),
            x if x < 0.0 => (w, d, l + 1),
            _ => (w, d + 1, l),
        });
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    let simulations: u64 = games.iter().map(|g| g.simulations).sum();
    writeln!(
        out,
        "generation {g}: {} games (White +{w} ={d} −{l}), {plies} positions, {:.0} plies per game, in {play_seconds:.1} s ({:.0} simulations/s)",
        games.len(),
        plies as f64 / games.len() as f64,
        simulations as f64 / play_seconds.max(1e-9)
    )?;
    out.flush()?;
    Ok(samples)
}

/// Trains the next generation from `net` on the window's samples (games 0, 10, 20, … of
/// each generation held out to choose the epoch).
fn train_generation(
    out: &mut impl Write,
    net: &Net,
    window: &std::collections::VecDeque<Vec<(u64, Sample)>>,
    args: &Args,
    g: u32,
) -> anyhow::Result<Net> {
    let mut data = NetData::default();
    for (game, s) in window.iter().flatten() {
        if game % 10 == 0 {
            data.valid.push(s.clone());
        } else {
            data.train.push(s.clone());
        }
    }
    let h = net.header();
    let opts = NetOptions {
        arch: h.arch,
        shape: h.shape,
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        decay: 0.0,
        weight_decay: 0.0,
        patience: args.epochs,
        k: h.k,
        seed: args.seed ^ u64::from(g),
    };
    let mut made = h.provenance.clone();
    made["selfplay"] = json!({
        "generation": g, "games": args.games, "simulations": args.simulations,
        "c": args.c, "noise": args.noise, "window": args.window, "epochs": args.epochs,
        "lr": args.lr, "seed": args.seed,
    });
    let started = Instant::now();
    let trained = cnn::train(&data, &opts, Some(net), made, &mut |_| {})
        .with_context(|| format!("training generation {g}"))?;
    writeln!(
        out,
        "generation {g}: trained on {} positions × {} epochs in {:.1} s; valid loss {:.4} (value MSE {:.4}, policy CE {:.4}, top-1 {:.1} %)",
        data.train.len(),
        trained.epochs_run,
        started.elapsed().as_secs_f64(),
        trained.valid.loss,
        trained.valid.value_mse.unwrap_or(f64::NAN),
        trained.valid.policy_ce.unwrap_or(f64::NAN),
        100.0 * trained.valid.top1.unwrap_or(f64::NAN)
    )?;
    Ok(trained.net)
}

fn write_pgn(path: &Path, g: u32, games: &[SelfPlayGame]) -> anyhow::Result<()> {
    let name = format!("gen-{}", g - 1);
    let event = format!("chessgraph self-play, generation {g}");
    let mut text = String::new();
    for (i, game) in games.iter().enumerate() {
        let round = (i + 1).to_string();
        let roster = [
            ("Event", event.as_str()),
            ("Round", round.as_str()),
            ("White", name.as_str()),
            ("Black", name.as_str()),
        ];
        let start = shakmaty::Chess::default();
        text += &Record {
            roster: &roster,
            extra: &[],
            start: &start,
            moves: &game.moves,
            result: game.result(),
        }
        .write();
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn write_samples(path: &Path, samples: &[(u64, Sample)]) -> anyhow::Result<()> {
    let mut text = String::new();
    for (game, s) in samples {
        let line = json!({
            "game": game,
            "fen": to_fen(&s.pos),
            "best": s.best,
            "outcome": s.outcome,
            "visits": s.visits,
        });
        text += &line.to_string();
        text.push('\n');
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn read_samples(path: &Path) -> anyhow::Result<Vec<(u64, Sample)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bad = || format!("{}:{}: not a self-play sample", path.display(), i + 1);
        let v: serde_json::Value = serde_json::from_str(line).with_context(bad)?;
        let pos = parse_position(v["fen"].as_str().unwrap_or_default()).with_context(bad)?;
        let visits: Vec<(u16, f32)> =
            serde_json::from_value(v["visits"].clone()).with_context(bad)?;
        let outcome = v["outcome"].as_f64().map(|x| x as f32);
        out.push((
            v["game"].as_u64().with_context(bad)?,
            Sample {
                pos,
                label_cp: f32::NAN,
                mate: false,
                result: outcome.map_or(f32::NAN, |z| (z + 1.0) / 2.0),
                best: v["best"].as_u64().map(|b| b as u16),
                outcome,
                visits,
            },
        ));
    }
    Ok(out)
}
