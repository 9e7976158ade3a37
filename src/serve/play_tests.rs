//! Unit tests of the games store: games against `random` and the engine, refusals, the
//! queue and the clients' engine-time budgets.

use super::*;

struct TestPlayers;

impl Players for TestPlayers {
    fn check(&self, spec: &str, evaluator: &str) -> Result<(), PlayerError> {
        self.build(spec, evaluator).map(|_| ())
    }

    fn build(&self, spec: &str, evaluator: &str) -> Result<Box<dyn Player>, PlayerError> {
        let bad_spec = |source| PlayerError::Spec {
            spec: spec.to_owned(),
            source,
        };
        let parsed = chessgraph_engine::players::Spec::parse(spec).map_err(bad_spec)?;
        let e = chessgraph_engine::eval::Evaluator::builtin(evaluator)
            .ok_or_else(|| PlayerError::Refused(format!("unknown evaluator {evaluator}")))?;
        let resolve = |s: &str| Ok(chessgraph_engine::eval::Evaluator::by_name_or_path(s)?);
        chessgraph_engine::players::build(&parsed, Arc::new(e), &resolve).map_err(bad_spec)
    }
}

fn play() -> Play {
    Play::start(
        PlayOptions {
            queue: 2,
            max_games: 3,
            max_movetime: Duration::from_secs(5),
            client_budget: Duration::from_secs(10),
            cache_bytes: 64 << 20,
        },
        Arc::new(TestPlayers),
    )
}

fn new_game(player: &str, human: Color, fen: Option<&str>) -> NewGame {
    NewGame {
        fen: fen.map(str::to_owned),
        player: player.into(),
        evaluator: "material".into(),
        movetime: Duration::from_millis(20),
        human,
        client: IpAddr::from([127, 0, 0, 1]),
    }
}

/// Games store with a minute of engine time a client and `queue` searches queued.
fn budgeted(queue: usize) -> Play {
    Play::start(
        PlayOptions {
            queue,
            max_games: 8,
            max_movetime: Duration::from_secs(60),
            client_budget: Duration::from_secs(60),
            cache_bytes: 64 << 20,
        },
        Arc::new(TestPlayers),
    )
}

/// A game of 30 s a move against the engine, started by `client`.
fn long_game(client: [u8; 4]) -> NewGame {
    NewGame {
        movetime: Duration::from_secs(30),
        client: IpAddr::from(client),
        ..new_game("engine", Color::Black, None)
    }
}

/// Starts a [`long_game`] of `client` and returns its id.
fn started(p: &Play, client: [u8; 4]) -> String {
    p.create(long_game(client)).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

fn wait_for_turn(p: &Play, id: &str) -> Value {
    wait_as(p, id, LOCAL)
}

fn wait_as(p: &Play, id: &str, client: IpAddr) -> Value {
    for _ in 0..2000 {
        let s = p.get(id, client).unwrap();
        if s["status"] != "queued" && s["status"] != "thinking" {
            return s;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("the engine never moved");
}

/// Two searches of 30 s use up a client's minute: its next engine search is refused,
/// another client's plays, and a `random` game moves at once whatever the queue holds.
#[test]
fn engine_time_counts_against_the_clients_budget() {
    let p = budgeted(2);
    let a = started(&p, [10, 0, 0, 1]);
    let b = started(&p, [10, 0, 0, 1]);
    let refused = p
        .create(NewGame {
            client: IpAddr::from([10, 0, 0, 1]),
            ..new_game("engine", Color::Black, None)
        })
        .unwrap_err();
    assert_eq!(refused.status, 503);
    assert!(refused.message.contains("engine time"), "{refused:?}");
    // The queue is full now (one running, one waiting): a random game still moves.
    let r = p
        .create(NewGame {
            client: IpAddr::from([10, 0, 0, 1]),
            ..new_game("random:seed=1", Color::Black, None)
        })
        .unwrap();
    let s = wait_as(&p, r["id"].as_str().unwrap(), IpAddr::from([10, 0, 0, 1]));
    assert_eq!(s["moves"].as_array().unwrap().len(), 1, "{s}");
    // Ending a game gives its time back.
    p.remove(&b, IpAddr::from([10, 0, 0, 1])).unwrap();
    let c = started(&p, [10, 0, 0, 2]);
    p.remove(&a, IpAddr::from([10, 0, 0, 1])).unwrap();
    p.remove(&c, IpAddr::from([10, 0, 0, 2])).unwrap();
}

#[test]
fn a_game_against_the_random_player() {
    let p = play();
    let s = p
        .create(new_game("random:seed=3", Color::White, None))
        .unwrap();
    let id = s["id"].as_str().unwrap().to_owned();
    let id = id.as_str();
    assert_eq!(s["status"], "your-move");
    assert_eq!(s["legal"].as_array().unwrap().len(), 20);
    assert_eq!(p.play(id, LOCAL, "e2e5").unwrap_err().status, 400);
    p.play(id, LOCAL, "e2e4").unwrap();
    let s = wait_for_turn(&p, id);
    assert_eq!(s["moves"].as_array().unwrap().len(), 2);
    assert_eq!(s["moves"][0]["san"], "e4");
    assert!(s["pgn"].as_str().unwrap().contains("1. e4 "), "{s}");
    // Take-back removes the engine's reply and the person's move.
    let s = p.undo(id, LOCAL).unwrap();
    assert_eq!(s["moves"].as_array().unwrap().len(), 0);
    assert_eq!(p.undo(id, LOCAL).unwrap_err().status, 409);
    assert_eq!(p.get("99", LOCAL).unwrap_err().status, 404);
}

#[test]
fn the_engine_moves_first_and_finds_mate() {
    let p = play();
    // Black to move mates with Qh4#; the person plays White, so the engine moves first.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2";
    let s = p
        .create(new_game("engine", Color::White, Some(fen)))
        .unwrap();
    let id = s["id"].as_str().unwrap().to_owned();
    let id = id.as_str();
    let s = wait_for_turn(&p, id);
    assert_eq!(s["moves"][0]["san"], "Qh4#", "{s}");
    assert_eq!(s["status"], "over");
    assert_eq!(s["result"], "0-1");
    assert!(s["pgn"].as_str().unwrap().contains("[FEN "), "{s}");
    assert!(s["thinking"]["score"]["mate"].as_i64().unwrap() < 0, "{s}");
}

#[test]
fn bad_requests_are_refused() {
    let p = play();
    assert_eq!(
        p.create(new_game("nobody", Color::White, None))
            .err()
            .unwrap()
            .status,
        400
    );
    assert_eq!(
        p.create(new_game("random", Color::White, Some("not a fen")))
            .err()
            .unwrap()
            .status,
        400
    );
    let mut g = new_game("random", Color::White, None);
    g.movetime = Duration::from_secs(60);
    assert_eq!(p.create(g).err().unwrap().status, 400);
    // Games beyond the limit replace the oldest idle one.
    let ids: Vec<String> = (0..5)
        .map(|_| {
            p.create(new_game("random", Color::White, None)).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(p.get(&ids[0], LOCAL).unwrap_err().status, 404);
    assert!(p.get(&ids[4], LOCAL).is_ok());
}

/// A game is its creator's: another client gets the answer a game that does not exist
/// gets; and every loopback address is one client, whose budget a second address of
/// 127.0.0.0/8 does not double.
#[test]
fn games_belong_to_their_client_and_loopback_is_one_client() {
    let p = budgeted(4);
    let a = started(&p, [127, 0, 0, 1]);
    let b = started(&p, [127, 0, 0, 2]);
    let refused = p.create(long_game([127, 0, 0, 3])).unwrap_err();
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.message.contains("engine time"), "{refused:?}");
    let other = IpAddr::from([10, 0, 0, 9]);
    let absent = "0".repeat(32);
    let nothing = p.get(&absent, other).unwrap_err();
    let answers = [
        p.get(&a, other).unwrap_err(),
        p.play(&a, other, "e2e4").unwrap_err(),
        p.undo(&a, other).unwrap_err(),
        p.remove(&a, other).unwrap_err(),
    ];
    for e in answers {
        assert_eq!(e.status, 404);
        assert_eq!(e.message.replace(&a, &absent), nothing.message);
    }
    // The game is still there for its creator, from any loopback address.
    assert!(p.get(&a, IpAddr::from([127, 0, 0, 9])).is_ok());
    p.remove(&a, LOCAL).unwrap();
    p.remove(&b, LOCAL).unwrap();
}

/// A player that counts how many of its kind are alive.
struct Counted(Box<dyn Player>, Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.1.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Player for Counted {
    fn name(&self) -> String {
        self.0.name()
    }

    fn control(&self) -> Control {
        self.0.control()
    }

    fn choose(
        &mut self,
        pos: &Chess,
        history: &[u64],
        limits: &Limits,
        info: &mut dyn FnMut(&Info),
    ) -> chessgraph_engine::search::SearchResult {
        self.0.choose(pos, history, limits, info)
    }
}

/// Players of 40 MiB each (as their footprint says), counted.
struct Heavy(Arc<std::sync::atomic::AtomicUsize>);

impl Players for Heavy {
    fn check(&self, spec: &str, evaluator: &str) -> Result<(), PlayerError> {
        TestPlayers.check(spec, evaluator)
    }

    fn build(&self, spec: &str, evaluator: &str) -> Result<Box<dyn Player>, PlayerError> {
        let p = TestPlayers.build(spec, evaluator)?;
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Box::new(Counted(p, self.0.clone())))
    }

    fn footprint(&self, _spec: &str) -> u64 {
        40 << 20
    }
}

/// The players kept between moves stay within the memory budget: four players of 40 MiB
/// against a budget of 64 MiB leave one alive, not four.
#[test]
fn the_players_kept_between_moves_fit_the_memory_budget() {
    let alive = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let p = Play::start(
        PlayOptions {
            queue: 4,
            max_games: 8,
            max_movetime: Duration::from_secs(5),
            client_budget: Duration::from_secs(60),
            cache_bytes: 64 << 20,
        },
        Arc::new(Heavy(alive.clone())),
    );
    for seed in 1..=4 {
        let g = p
            .create(new_game(&format!("random:seed={seed}"), Color::Black, None))
            .unwrap();
        let s = wait_for_turn(&p, g["id"].as_str().unwrap());
        assert_eq!(s["moves"].as_array().unwrap().len(), 1, "{s}");
    }
    assert_eq!(alive.load(Ordering::SeqCst), 1);
}
