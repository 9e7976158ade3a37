//! Tournaments (`chessgraph tournament`): a round robin, or a gauntlet of one player
//! against all others, between UCI engines and the studies' players (each run as
//! `chessgraph engine --player SPEC`), every game refereed by
//! [`matches::play_game`].
//!
//! Every pair plays `games_per_pair` games: game `k` starts from opening `k / 2`, the
//! pair's first name (in sort order) has White in even `k`, so each opening is played with
//! colours swapped. Games are scheduled round by round (game 0 of every pair, then game 1,
//! ...) so that the standings stay balanced while it runs, `concurrency` at a time, and
//! each is stored in the database as it finishes: running the same tournament again plays
//! only the games not stored yet, and more players or more games per pair extend it.
//!
//! Files: this one (participants, schedule, resume, the worker threads), `ratings` (the
//! maximum-likelihood fit), `table` (cross table and ranking, as text and Markdown).

use chessgraph_core::Error as CoreError;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use rusqlite::Connection;
use shakmaty::{Chess, Position};

use chessgraph_core::chess::fnv::Fnv1a64;
use chessgraph_core::chess::moves::uci;
use chessgraph_learn::ratings::table::CrossTable;

use crate::arena::matches::{self, Adjudication, EngineSpec, GameRecord, PgnGame, TimeControl};
use chessgraph_core::chess::fen::to_fen;
use chessgraph_engine::engines::client::Engine;
use chessgraph_store::Result;
use chessgraph_store::tournaments::{self as store, GameRow};

/// A participant: its name, what it is (stored, so that a name keeps its meaning across
/// runs), and how to start it.
#[derive(Clone, Debug)]
pub struct Participant {
    /// Name in the tables and the PGN.
    pub name: String,
    /// What plays under the name, e.g. `player random:seed=1` or `engine /usr/games/stockfish`
    /// with its UCI options.
    pub definition: String,
    /// The UCI engine command and options.
    pub engine: EngineSpec,
}

/// A tournament to play.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// Name it is stored under.
    pub name: String,
    /// The players.
    pub participants: Vec<Participant>,
    /// Only this participant's games against all others (a gauntlet).
    pub gauntlet: Option<String>,
    /// Games per pair (each opening twice, colours swapped).
    pub games_per_pair: u32,
    /// Thinking time.
    pub tc: TimeControl,
    /// When games may end before the rules end them.
    pub adjudication: Adjudication,
    /// Start positions.
    pub openings: Vec<Chess>,
    /// Games played at once.
    pub concurrency: usize,
}

impl Tournament {
    /// The settings a stored tournament keeps: games played under other ones would not be
    /// comparable (time control, move limit, openings).
    pub fn settings(&self) -> serde_json::Value {
        let mut hash = Fnv1a64::default();
        for pos in &self.openings {
            let fen = to_fen(pos);
            hash.write(fen.as_bytes());
            hash.write(b"\n");
        }
        let hash = hash.finish();
        let adj = &self.adjudication;
        let mut settings = serde_json::json!({
            "time_control": self.tc.describe(),
            "max_moves": adj.max_plies.map(|p| p / 2),
            "openings": self.openings.len(),
            "openings_fingerprint": format!("{hash:016x}"),
        });
        // Only when set, so that tournaments stored before these existed still match.
        if let Some(rule) = &adj.draw {
            settings["draw"] = rule.describe().into();
        }
        if let Some(tables) = &adj.tablebases {
            settings["tablebases"] = tables.max_pieces().into();
        }
        settings
    }
}

/// One scheduled game: game `game_index` between participants `a` and `b` (`a`'s name
/// sorts first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The pair's first player (by name).
    pub a: usize,
    /// The pair's second player.
    pub b: usize,
    /// Number of the game within the pair, from 0.
    pub game_index: u32,
}

impl Pairing {
    /// The participant with White.
    pub fn white(&self) -> usize {
        if self.game_index.is_multiple_of(2) {
            self.a
        } else {
            self.b
        }
    }

    /// The opening's index among `count` openings.
    pub fn opening(&self, count: usize) -> usize {
        (self.game_index / 2) as usize % count
    }
}

/// Every game of a round robin between `names` (or of the gauntlet of participant
/// `gauntlet`), round by round.
pub fn schedule(names: &[String], gauntlet: Option<usize>, games_per_pair: u32) -> Vec<Pairing> {
    let n = names.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| gauntlet.is_none_or(|g| i == g || j == g))
        .map(|(i, j)| if names[i] <= names[j] { (i, j) } else { (j, i) })
        .collect();
    (0..games_per_pair)
        .flat_map(|k| {
            pairs.iter().map(move |&(a, b)| Pairing {
                a,
                b,
                game_index: k,
            })
        })
        .collect()
}

/// A game finished, with the standings so far (stored games of earlier runs included).
pub struct Progress<'a> {
    /// The game, as stored.
    pub game: &'a GameRow,
    /// Games played in this run so far.
    pub done: usize,
    /// Games this run plays.
    pub todo: usize,
    /// Every stored game of the tournament.
    pub table: &'a CrossTable,
}

/// What a run did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunSummary {
    /// `tournaments.id`.
    pub id: i64,
    /// Games the schedule holds.
    pub scheduled: usize,
    /// Of those, stored by earlier runs.
    pub already_played: usize,
    /// Played now.
    pub played: usize,
    /// Wall time of the games.
    pub seconds: f64,
}

/// Checks names and the gauntlet; returns the gauntlet's index.
fn validate(t: &Tournament) -> Result<Option<usize>> {
    let bad = |m: String| Err(CoreError::Invalid(m).into());
    if t.participants.len() < 2 {
        return bad("a tournament needs at least two players".into());
    }
    let mut seen = HashSet::new();
    for p in &t.participants {
        if p.name.trim().is_empty() || p.name.trim() != p.name {
            return bad(format!(
                "player name {:?}: empty or padded with spaces",
                p.name
            ));
        }
        if !seen.insert(p.name.as_str()) {
            return bad(format!("player {:?} is given twice", p.name));
        }
    }
    if t.games_per_pair == 0 || t.adjudication.max_plies == Some(0) || t.concurrency == 0 {
        return bad("games per pair, the move limit and the concurrency must be at least 1".into());
    }
    if t.openings.is_empty() {
        return bad("no opening positions".into());
    }
    match &t.gauntlet {
        None => Ok(None),
        Some(g) => match t.participants.iter().position(|p| &p.name == g) {
            Some(i) => Ok(Some(i)),
            None => bad(format!(
                "--gauntlet {g:?} is not one of the players ({})",
                t.participants
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
    }
}

/// Plays the games of `t` that `conn` does not hold yet, storing each as it finishes;
/// `on_game` sees every game with the standings so far and returns whether to go on
/// (`false`: no new game starts, the games under way finish and are stored). A
/// participant that cannot start is an error before any game; one that fails later
/// loses that game and is restarted.
pub fn run(
    conn: &Connection,
    t: &Tournament,
    on_game: &mut dyn FnMut(&Progress<'_>) -> bool,
) -> Result<RunSummary> {
    let gauntlet = validate(t)?;
    // Stored only once every participant with games to play has started: a wrong command
    // is an error now, not a forfeit in every game, and leaves nothing behind.
    let tx = conn.unchecked_transaction()?;
    let id = store::open(&tx, &t.name, &t.settings())?;
    for p in &t.participants {
        store::register_player(&tx, id, &p.name, &p.definition)?;
    }
    let names: Vec<String> = t.participants.iter().map(|p| p.name.clone()).collect();
    let all = schedule(&names, gauntlet, t.games_per_pair);
    let played = store::played(&tx, id)?;
    let todo: Vec<Pairing> = all
        .iter()
        .copied()
        .filter(|p| !played.contains(&(names[p.a].clone(), names[p.b].clone(), p.game_index)))
        .collect();
    for (i, p) in t.participants.iter().enumerate() {
        if todo.iter().any(|g| g.a == i || g.b == i) {
            let e = &p.engine;
            drop(
                Engine::start(&e.name, &e.command, &e.options).map_err(|source| {
                    CoreError::Engine {
                        what: format!("of player {}: cannot start", p.name),
                        source: source.into(),
                    }
                })?,
            );
        }
    }
    tx.commit()?;
    let mut table = CrossTable::new(store::players(conn, id)?);
    for g in store::games(conn, id)? {
        table.add(&g);
    }
    let mut summary = RunSummary {
        id,
        scheduled: all.len(),
        already_played: all.len() - todo.len(),
        played: 0,
        seconds: 0.0,
    };
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, finished) = mpsc::channel::<(usize, GameRecord, Option<usize>)>();
    let result = std::thread::scope(|scope| -> Result<()> {
        for _ in 0..t.concurrency.min(todo.len()) {
            let sender = sender.clone();
            let (todo, next, stop) = (&todo, &next, &stop);
            scope.spawn(move || worker(t, todo, next, stop, &sender));
        }
        drop(sender);
        for (job, record, loser) in finished.iter() {
            let row = game_row(t, &todo[job], &record, loser);
            if let Err(e) = store::insert_game(conn, id, &row) {
                stop.store(true, Ordering::Relaxed);
                return Err(e);
            }
            table.add(&row);
            summary.played += 1;
            let go_on = on_game(&Progress {
                game: &row,
                done: summary.played,
                todo: todo.len(),
                table: &table,
            });
            if !go_on {
                stop.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    });
    summary.seconds = started.elapsed().as_secs_f64();
    result.map(|()| summary)
}

/// A worker thread: takes the next game until none is left, keeping the engines of its
/// last game running when the next one needs them.
fn worker(
    t: &Tournament,
    todo: &[Pairing],
    next: &AtomicUsize,
    stop: &AtomicBool,
    sender: &mpsc::Sender<(usize, GameRecord, Option<usize>)>,
) {
    let mut held: Vec<(usize, Engine)> = Vec::new();
    let take = |held: &mut Vec<(usize, Engine)>, who: usize| {
        held.iter()
            .position(|(i, _)| *i == who)
            .map(|k| held.swap_remove(k).1)
    };
    while !stop.load(Ordering::Relaxed) {
        let job = next.fetch_add(1, Ordering::Relaxed);
        let Some(&p) = todo.get(job) else { break };
        let seats = [p.a, p.b];
        let mut engines = [take(&mut held, p.a), take(&mut held, p.b)];
        held.clear(); // engines of players not in this game quit
        let specs = seats.map(|i| t.participants[i].engine.clone());
        let white = usize::from(p.white() == p.b);
        let opening = &t.openings[p.opening(t.openings.len())];
        let (record, loser) = matches::play_game(
            &specs,
            &mut engines,
            job + 1,
            white,
            opening,
            t.tc,
            &t.adjudication,
        );
        for (seat, engine) in seats.into_iter().zip(engines) {
            if let Some(e) = engine {
                held.push((seat, e));
            }
        }
        if sender.send((job, record, loser)).is_err() {
            break;
        }
    }
}

/// A finished game as stored.
fn game_row(t: &Tournament, p: &Pairing, g: &GameRecord, loser: Option<usize>) -> GameRow {
    let seats = [p.a, p.b];
    let name = |seat: usize| t.participants[seats[seat]].name.clone();
    let moves: Vec<String> = g.moves.iter().map(uci).collect();
    GameRow {
        player_a: name(0),
        player_b: name(1),
        game_index: p.game_index,
        white: name(g.white),
        black: name(1 - g.white),
        opening: p.opening(t.openings.len()) as u32,
        start_fen: to_fen(&g.start),
        moves: moves.join(" "),
        result: g.result().to_owned(),
        termination: g.termination.describe(),
        fault: loser.map(name),
        plies: g.moves.len() as u32,
    }
}

/// Stored games as PGN, `event` in the `Event` tag, numbered in the order they finished.
/// A stored move that is not legal is an error naming the game.
pub fn pgn(games: &[GameRow], event: &str, tc: &str) -> Result<String> {
    let mut out = String::new();
    for (i, g) in games.iter().enumerate() {
        let bad = |why: String| CoreError::Stored {
            what: format!("stored game {} ({} - {})", i + 1, g.white, g.black),
            why,
        };
        let start = chessgraph_core::chess::fen::parse_position(&g.start_fen)
            .map_err(|e| bad(e.to_string()))?;
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for text in g.moves.split_whitespace() {
            let m = chessgraph_core::chess::moves::parse_uci(&pos, text)
                .ok_or_else(|| bad(format!("move {text:?} is not legal")))?;
            pos.play_unchecked(m);
            moves.push(m);
        }
        out.push_str(
            &PgnGame {
                event,
                round: i + 1,
                white: &g.white,
                black: &g.black,
                start: &start,
                moves: &moves,
                evals: &[],
                result: &g.result,
                termination: &g.termination,
                tc,
            }
            .to_pgn(),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_store::Error;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn round_robin_and_gauntlet_schedules() {
        let n = names(&["c", "a", "b"]);
        let s = schedule(&n, None, 2);
        assert_eq!(s.len(), 6);
        // Round by round; the pair's first name sorts first.
        assert_eq!(
            s[0],
            Pairing {
                a: 1,
                b: 0,
                game_index: 0
            }
        );
        assert_eq!(
            s[3],
            Pairing {
                a: 1,
                b: 0,
                game_index: 1
            }
        );
        assert!(s[..3].iter().all(|p| p.game_index == 0));
        assert_eq!((s[0].white(), s[3].white()), (1, 0));
        assert_eq!((s[0].opening(5), s[3].opening(5)), (0, 0));
        assert_eq!(
            Pairing {
                a: 0,
                b: 1,
                game_index: 5
            }
            .opening(2),
            0
        );
        let g = schedule(&n, Some(2), 3);
        assert_eq!(g.len(), 6);
        assert!(g.iter().all(|p| p.a == 2 || p.b == 2));
    }

    #[test]
    fn stored_games_become_pgn() {
        let g = GameRow {
            player_a: "a".into(),
            player_b: "b".into(),
            game_index: 0,
            white: "a".into(),
            black: "b".into(),
            opening: 0,
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            moves: "f2f3 e7e5 g2g4 d8h4".into(),
            result: "0-1".into(),
            termination: "checkmate".into(),
            fault: None,
            plies: 4,
        };
        let text = pgn(
            std::slice::from_ref(&g),
            "chessgraph tournament t",
            "nodes 10",
        )
        .unwrap();
        assert!(
            text.contains("[Event \"chessgraph tournament t\"]"),
            "{text}"
        );
        assert!(text.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{text}");
        let broken = GameRow {
            moves: "f2f3 e7e5 e1e3".into(),
            ..g
        };
        let e = pgn(&[broken], "x", "y").unwrap_err();
        // A stored move that is not legal: the database was changed, not the user's fault.
        assert!(
            matches!(e, Error::Core(CoreError::Stored { .. })) && !e.is_users(),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains("stored game 1") && e.contains("e1e3"), "{e}");
    }
}
