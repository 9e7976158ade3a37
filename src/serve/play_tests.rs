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
        let parsed = crate::players::Spec::parse(spec).map_err(bad_spec)?;
        let e = crate::eval::Evaluator::builtin(evaluator)
            .ok_or_else(|| PlayerError::Refused(format!("unknown evaluator {evaluator}")))?;
        let resolve = |s: &str| crate::eval::Evaluator::by_name_or_path(s);
        crate::players::build(&parsed, Arc::new(e), &resolve).map_err(bad_spec)
    }
}

fn play() -> Play {
    Play::start(
        PlayOptions {
            queue: 2,
            max_games: 3,
            max_movetime: Duration::from_secs(5),
            client_budget: Duration::from_secs(10),
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

fn wait_for_turn(p: &Play, id: u64) -> Value {
    for _ in 0..2000 {
        let s = p.get(id).unwrap();
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
    let p = Play::start(
        PlayOptions {
            queue: 2,
            max_games: 8,
            max_movetime: Duration::from_secs(60),
            client_budget: Duration::from_secs(60),
        },
        Arc::new(TestPlayers),
    );
    let long = |client: [u8; 4]| NewGame {
        movetime: Duration::from_secs(30),
        client: IpAddr::from(client),
        ..new_game("engine", Color::Black, None)
    };
    let a = p.create(long([10, 0, 0, 1])).unwrap()["id"]
        .as_u64()
        .unwrap();
    let b = p.create(long([10, 0, 0, 1])).unwrap()["id"]
        .as_u64()
        .unwrap();
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
    let s = wait_for_turn(&p, r["id"].as_u64().unwrap());
    assert_eq!(s["moves"].as_array().unwrap().len(), 1, "{s}");
    // Ending a game gives its time back.
    p.remove(b).unwrap();
    let c = p.create(long([10, 0, 0, 2])).unwrap()["id"]
        .as_u64()
        .unwrap();
    for id in [a, c] {
        p.remove(id).unwrap();
    }
}

#[test]
fn a_game_against_the_random_player() {
    let p = play();
    let s = p
        .create(new_game("random:seed=3", Color::White, None))
        .unwrap();
    let id = s["id"].as_u64().unwrap();
    assert_eq!(s["status"], "your-move");
    assert_eq!(s["legal"].as_array().unwrap().len(), 20);
    assert_eq!(p.play(id, "e2e5").unwrap_err().status, 400);
    p.play(id, "e2e4").unwrap();
    let s = wait_for_turn(&p, id);
    assert_eq!(s["moves"].as_array().unwrap().len(), 2);
    assert_eq!(s["moves"][0]["san"], "e4");
    assert!(s["pgn"].as_str().unwrap().contains("1. e4 "), "{s}");
    // Take-back removes the engine's reply and the person's move.
    let s = p.undo(id).unwrap();
    assert_eq!(s["moves"].as_array().unwrap().len(), 0);
    assert_eq!(p.undo(id).unwrap_err().status, 409);
    assert_eq!(p.get(99).unwrap_err().status, 404);
}

#[test]
fn the_engine_moves_first_and_finds_mate() {
    let p = play();
    // Black to move mates with Qh4#; the person plays White, so the engine moves first.
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2";
    let s = p
        .create(new_game("engine", Color::White, Some(fen)))
        .unwrap();
    let id = s["id"].as_u64().unwrap();
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
    let ids: Vec<u64> = (0..5)
        .map(|_| {
            p.create(new_game("random", Color::White, None)).unwrap()["id"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(p.get(ids[0]).unwrap_err().status, 404);
    assert!(p.get(ids[4]).is_ok());
}
