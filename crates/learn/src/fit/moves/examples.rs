//! The winners' moves of the stored games, recovered from their positions in game order.
//!
//! The database stores positions, not moves ([`chessgraph_store::games`]): the move from ply `k`
//! to ply `k + 1` is the legal move of the first position that gives the second's board.
//! Ply 0 is the game's start position (its `FEN` tag, or the standard one). A move is
//! recovered when both positions are stored under the game; the others (a position
//! repeated from earlier in the game or from another game, a position without a label)
//! are counted as missing.

use shakmaty::{Chess, Color, Move, Position};

use crate::fit::split::{Part, SplitMeta, game_key};
use chessgraph_core::chess::fen::parse_position;
use chessgraph_core::data::GameResult;
use chessgraph_engine::players::logistic::encoding::{self, Board};
use chessgraph_store::games::StoredGame;

/// One position where the winner is to move: its legal moves and the one played.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Board columns.
    pub board: Board,
    /// The legal moves, in move generation order.
    pub moves: Vec<Move>,
    /// `(from, to)` of each move, side to move's squares.
    pub squares: Vec<(u8, u8)>,
    /// Index of the move the winner played.
    pub played: usize,
    /// The game's part of the split.
    pub part: Part,
}

impl Sample {
    /// A sample of `pos` where `played` was chosen (`played` must be legal in `pos`).
    pub fn new(pos: &Chess, played: Move, part: Part) -> Sample {
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let squares = moves
            .iter()
            .map(|m| {
                let (f, t) = encoding::move_squares(m, pos.turn());
                (f as u8, t as u8)
            })
            .collect();
        let played = moves
            .iter()
            .position(|m| *m == played)
            .expect("the played move is legal");
        Sample {
            board: encoding::board(pos),
            moves,
            squares,
            played,
            part,
        }
    }
}

/// What was found in the games.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Collected {
    /// Games won by one side.
    pub decisive_games: usize,
    /// Of those, games per part (train, valid, test).
    pub games_by_part: [usize; 3],
    /// Winner's moves recovered (one sample each).
    pub moves: usize,
    /// Winner's moves before the game's last stored position that could not be recovered
    /// (a position of the pair not stored under the game).
    pub missing: usize,
    /// Pairs of stored positions that no legal move connects (should be 0), and games whose
    /// start position or stored positions do not parse.
    pub broken: usize,
}

/// The samples of `games` and what was found; `meta` assigns each game its part.
/// `progress` is called after each game with the number of games done.
pub fn collect(
    games: &[StoredGame],
    meta: SplitMeta,
    progress: &mut dyn FnMut(usize),
) -> (Vec<Sample>, Collected) {
    let mut samples = Vec::new();
    let mut c = Collected::default();
    for (i, g) in games.iter().enumerate() {
        let part = meta.part_of(&game_key(
            g.line,
            g.white.as_deref(),
            g.black.as_deref(),
            g.event.as_deref(),
            g.date.as_deref(),
            g.start_fen.as_deref(),
        ));
        c.decisive_games += 1;
        c.games_by_part[part as usize] += 1;
        game_samples(g, part, &mut samples, &mut c);
        progress(i + 1);
    }
    (samples, c)
}

fn game_samples(g: &StoredGame, part: Part, out: &mut Vec<Sample>, c: &mut Collected) {
    let winner = match g.result {
        GameResult::WhiteWins => Color::White,
        GameResult::BlackWins => Color::Black,
        GameResult::Draw => return,
    };
    let start = match &g.start_fen {
        None => Chess::default(),
        Some(fen) => match parse_position(fen) {
            Ok(p) => p,
            Err(_) => {
                c.broken += 1;
                return;
            }
        },
    };
    // Positions by ply; the start position is ply 0.
    let mut line: Vec<(i64, Chess)> = vec![(0, start)];
    for (ply, fen) in &g.positions {
        if *ply <= 0 {
            continue;
        }
        match parse_position(fen) {
            Ok(p) => line.push((*ply, p)),
            Err(_) => c.broken += 1,
        }
    }
    let last = line.last().map_or(0, |(ply, _)| *ply);
    // Winner's plies before the last stored position.
    let start_turn = line[0].1.turn();
    let winner_plies = (0..last)
        .filter(|k| (if k % 2 == 0 { start_turn } else { !start_turn }) == winner)
        .count();
    let mut found = 0;
    for pair in line.windows(2) {
        let ((k, pos), (k1, next)) = (&pair[0], &pair[1]);
        if *k1 != k + 1 || pos.turn() != winner {
            continue;
        }
        let played = pos.legal_moves().into_iter().find(|m| {
            pos.clone()
                .play(*m)
                .is_ok_and(|p| p.board() == next.board())
        });
        match played {
            Some(m) => {
                out.push(Sample::new(pos, m, part));
                found += 1;
            }
            None => c.broken += 1,
        }
    }
    c.moves += found;
    c.missing += winner_plies.saturating_sub(found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessgraph_core::chess::fen::normalized_fen;

    const META: SplitMeta = SplitMeta {
        seed: 1,
        train_pct: 80,
        valid_pct: 10,
        test_pct: 10,
    };

    /// A game of `ucis` from the start, with the positions after the plies in `stored`.
    fn game(result: GameResult, ucis: &[&str], stored: &[i64]) -> StoredGame {
        let mut pos = Chess::default();
        let mut positions = Vec::new();
        for (i, u) in ucis.iter().enumerate() {
            let m = chessgraph_core::chess::moves::parse_uci(&pos, u).unwrap();
            pos.play_unchecked(m);
            let ply = i as i64 + 1;
            if stored.contains(&ply) {
                positions.push((ply, normalized_fen(&pos)));
            }
        }
        StoredGame {
            id: 1,
            line: 1,
            white: None,
            black: None,
            event: None,
            date: None,
            result,
            start_fen: None,
            positions,
        }
    }

    fn played(s: &Sample) -> String {
        chessgraph_core::chess::moves::uci(&s.moves[s.played])
    }

    const LINE: &[&str] = &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"];

    #[test]
    fn winner_moves_between_stored_positions() {
        let (s, c) = collect(
            &[game(GameResult::WhiteWins, LINE, &[1, 2, 3, 4, 5, 6])],
            META,
            &mut |_| {},
        );
        let got: Vec<String> = s.iter().map(played).collect();
        assert_eq!(got, ["e2e4", "g1f3", "f1c4"]);
        assert_eq!(s[0].moves.len(), 20);
        assert_eq!((c.moves, c.missing, c.broken), (3, 0, 0));
        // Black won: Black's moves.
        let (s, _) = collect(
            &[game(GameResult::BlackWins, LINE, &[1, 2, 3, 4, 5, 6])],
            META,
            &mut |_| {},
        );
        let got: Vec<String> = s.iter().map(played).collect();
        assert_eq!(got, ["e7e5", "b8c6", "g8f6"]);
    }

    #[test]
    fn gaps_lose_the_moves_around_them_and_draws_give_nothing() {
        // Ply 2 not stored: White's move 3 (ply 2 -> 3) is lost; Black's e7e5 as well,
        // but Black lost. Ply 6 missing: the game's last stored position is ply 5.
        let (s, c) = collect(
            &[game(GameResult::WhiteWins, LINE, &[1, 3, 4, 5])],
            META,
            &mut |_| {},
        );
        let got: Vec<String> = s.iter().map(played).collect();
        assert_eq!(got, ["e2e4", "f1c4"]);
        assert_eq!((c.moves, c.missing), (2, 1));
        let (s, c) = collect(
            &[game(GameResult::Draw, LINE, &[1, 2, 3])],
            META,
            &mut |_| {},
        );
        assert!(s.is_empty());
        assert_eq!(c.moves, 0);
    }
}
