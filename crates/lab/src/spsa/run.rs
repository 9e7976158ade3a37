//! The games of an SPSA run: worker threads, each with its own pair of engines, take the
//! next iteration, set the two engines' options to its perturbation, play its pairs of
//! games through the referee of [`crate::arena::matches`], and apply the result to the
//! shared values as soon as it is in (so several iterations are under way at once, as on
//! OpenBench's workers).

use std::sync::Mutex;

use shakmaty::Chess;

use super::history::{History, Row};
use super::{Param, Perturbation, Schedule, perturb, update};
use crate::arena::matches::{self, Adjudication, EngineSpec, Summary, TimeControl};
use chessgraph_core::Error as CoreError;
use chessgraph_engine::engines::client::Engine;
use chessgraph_store::Result;

/// How a run plays its games.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The engine: its command and the options both sides keep (Hash, Threads, …).
    pub engine: EngineSpec,
    /// The options tuned.
    pub params: Vec<Param>,
    /// How the steps shrink.
    pub schedule: Schedule,
    /// Pairs of games (an opening with both colours) per iteration.
    pub pairs: u32,
    /// Seed of the perturbations.
    pub seed: u64,
    /// Thinking time.
    pub tc: TimeControl,
    /// Start positions, used in turn.
    pub openings: Vec<Chess>,
    /// When games end early.
    pub adjudication: Adjudication,
    /// Iterations played at once (each on its own two engines).
    pub concurrency: usize,
}

/// What the run reports after each iteration.
pub struct Finished<'a> {
    /// The iteration's row, as written to the history.
    pub row: &'a Row,
    /// Its perturbation.
    pub perturbation: &'a Perturbation,
    /// Every game of this sitting, from the `θ + c·δ` side (faults included).
    pub games: &'a Summary,
    /// Iterations finished, this sitting's and before.
    pub finished: u64,
}

struct Shared<'h, 'f> {
    history: &'h mut History,
    next: u64,
    games: Summary,
    failure: Option<chessgraph_store::Error>,
    on_finished: &'f mut (dyn FnMut(&Finished) + Send),
}

/// Plays the iterations `history` does not have yet, up to the schedule's count; returns
/// this sitting's games.
pub fn run(
    settings: &Settings,
    history: &mut History,
    on_finished: &mut (dyn FnMut(&Finished) + Send),
) -> Result<Summary> {
    if settings.openings.is_empty() {
        return Err(CoreError::Invalid("spsa: no opening positions".into()).into());
    }
    // An engine that cannot start, or lacks an option, is an error before any game.
    check_engine(settings)?;
    let next = history.finished() + 1;
    let shared = Mutex::new(Shared {
        history,
        next,
        games: Summary::default(),
        failure: None,
        on_finished,
    });
    std::thread::scope(|scope| {
        for _ in 0..settings.concurrency.max(1) {
            scope.spawn(|| worker(settings, &shared));
        }
    });
    let shared = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    match shared.failure {
        Some(e) => Err(e),
        None => Ok(shared.games),
    }
}

/// Starts the engine with the start values, which checks the command and the options.
fn check_engine(settings: &Settings) -> Result<()> {
    let values: Vec<f64> = settings.params.iter().map(|p| p.start).collect();
    let spec = side_spec(settings, &values, 0);
    let engine = matches::start(&spec)?;
    for p in &settings.params {
        if !engine.has_option(&p.name) {
            return Err(CoreError::Invalid(format!(
                "the engine has no UCI option {:?} to tune (its options: {})",
                p.name,
                engine.option_names().join(", ")
            ))
            .into());
        }
    }
    Ok(())
}

/// One side's engine: the fixed options, then the tuned ones at `values`.
fn side_spec(settings: &Settings, values: &[f64], side: usize) -> EngineSpec {
    let mut spec = settings.engine.clone();
    spec.name = ["θ+cδ", "θ−cδ"][side].to_owned();
    spec.options.extend(
        settings
            .params
            .iter()
            .zip(values)
            .map(|(p, &v)| (p.name.clone(), p.uci_value(v))),
    );
    spec
}

/// Takes iterations until none is left or one failed.
fn worker(settings: &Settings, shared: &Mutex<Shared>) {
    let mut engines: [Option<Engine>; 2] = [None, None];
    loop {
        let pert = {
            let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
            if s.next > settings.schedule.iterations || s.failure.is_some() {
                return;
            }
            let k = s.next;
            s.next += 1;
            perturb(
                &settings.params,
                s.history.values(),
                &settings.schedule,
                k,
                settings.seed,
            )
        };
        let (wdl, games) = play_iteration(settings, &pert, &mut engines);
        let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
        let mut values = s.history.values().to_vec();
        let result = f64::from(wdl[0]) - f64::from(wdl[2]);
        update(&settings.params, &mut values, &pert, result);
        let row = Row {
            iteration: pert.iteration,
            wdl,
            values,
        };
        if let Err(e) = s.history.push(row.clone()) {
            s.failure.get_or_insert(e);
            return;
        }
        for g in &games {
            s.games.add(&g.0, g.1);
        }
        let finished = s.history.finished();
        let s = &mut *s;
        (s.on_finished)(&Finished {
            row: &row,
            perturbation: &pert,
            games: &s.games,
            finished,
        });
    }
}

/// Plays one iteration's pairs: the first engine with `pert.plus`, the second with
/// `pert.minus`. Returns the first's wins, draws and losses, and the games.
fn play_iteration(
    settings: &Settings,
    pert: &Perturbation,
    engines: &mut [Option<Engine>; 2],
) -> ([u32; 3], Vec<(matches::GameRecord, Option<usize>)>) {
    let specs = [
        side_spec(settings, &pert.plus, 0),
        side_spec(settings, &pert.minus, 1),
    ];
    // Running engines take the new values; one that fails is restarted with them.
    for (slot, values) in engines.iter_mut().zip([&pert.plus, &pert.minus]) {
        if let Some(e) = slot {
            let sent = settings
                .params
                .iter()
                .zip(values.iter())
                .try_for_each(|(p, &v)| {
                    e.send(&format!(
                        "setoption name {} value {}",
                        p.name,
                        p.uci_value(v)
                    ))
                });
            if sent.and_then(|()| e.ready()).is_err() {
                *slot = None;
            }
        }
    }
    let mut wdl = [0u32; 3];
    let mut games = Vec::with_capacity(2 * settings.pairs as usize);
    let first = (pert.iteration - 1) * u64::from(settings.pairs);
    for j in 0..u64::from(settings.pairs) {
        let opening = &settings.openings[((first + j) % settings.openings.len() as u64) as usize];
        for white in 0..2 {
            let number = (2 * (first + j) + white as u64 + 1) as usize;
            let (record, loser) = matches::play_game(
                &specs,
                engines,
                number,
                white,
                opening,
                settings.tc,
                &settings.adjudication,
            );
            match record.score_of(0) {
                s if s > 0.75 => wdl[0] += 1,
                s if s < 0.25 => wdl[2] += 1,
                _ => wdl[1] += 1,
            }
            games.push((record, loser));
        }
    }
    (wdl, games)
}
