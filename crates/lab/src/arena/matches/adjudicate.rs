//! Adjudication: when a refereed game may end before the rules end it. Only where the
//! result is not in doubt — the Syzygy tables know the position (its outcome with the
//! halfmove clock counted), or both engines have agreed on a level score for a while (a
//! draw rule in the manner of fastchess's `-draw`) — or at a ply limit, when one is set.
//! No resignation: a lost-looking ending is played out or ends by the tables.

use std::sync::Arc;

use shakmaty::{Chess, Position};

use super::record::Termination;
use chessgraph_engine::engines::info::Analysis;
use chessgraph_engine::search::tablebase::{Outcome, Tablebases};

/// The draw rule: from move `move_number` of the game on, once both engines have
/// reported a score within ±`score` centipawns for `move_count` consecutive moves each
/// (a capture or pawn move, a mate score or a missing score starts the count again), the
/// game is a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// Moves of each side played from the opening before the rule applies.
    pub move_number: u32,
    /// Consecutive moves of each side with level scores.
    pub move_count: u32,
    /// The largest score, in centipawns, that counts as level.
    pub score: i32,
}

/// A `--draw` value that is not `movenumber=N,movecount=N,score=CP`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad draw rule {0:?} (expected like movenumber=40,movecount=8,score=10)")]
pub struct DrawRuleError(pub String);

impl DrawRule {
    /// The rule fastchess users commonly run: from move 40, 8 moves each within ±10 cp.
    pub const DEFAULT: DrawRule = DrawRule {
        move_number: 40,
        move_count: 8,
        score: 10,
    };

    /// Parses `movenumber=40,movecount=8,score=10`; a key left out keeps
    /// [`DrawRule::DEFAULT`]'s value.
    pub fn parse(text: &str) -> Result<DrawRule, DrawRuleError> {
        let bad = || DrawRuleError(text.to_owned());
        let mut rule = DrawRule::DEFAULT;
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(bad)?;
            let value: u32 = value.trim().parse().map_err(|_| bad())?;
            match key.trim() {
                "movenumber" => rule.move_number = value,
                "movecount" if value >= 1 => rule.move_count = value,
                "score" if value <= 10_000 => rule.score = value as i32,
                _ => return Err(bad()),
            }
        }
        Ok(rule)
    }

    /// The rule as `parse` reads it.
    pub fn describe(&self) -> String {
        format!(
            "movenumber={},movecount={},score={}",
            self.move_number, self.move_count, self.score
        )
    }
}

/// How games may be ended early; the default ends none.
#[derive(Clone, Default)]
pub struct Adjudication {
    /// A draw once a game has this many plies from its opening.
    pub max_plies: Option<u32>,
    /// The draw rule.
    pub draw: Option<DrawRule>,
    /// Tables: a position they cover (no castling rights) ends with its certain outcome.
    pub tablebases: Option<Arc<Tablebases>>,
}

impl std::fmt::Debug for Adjudication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Adjudication {
    /// The settings in words, for output and a tournament's stored settings.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.tablebases {
            parts.push(format!("{}-piece tablebases", t.max_pieces()));
        }
        if let Some(d) = &self.draw {
            parts.push(format!("draw rule {}", d.describe()));
        }
        if let Some(p) = self.max_plies {
            parts.push(format!("draw after {} moves", p / 2));
        }
        if parts.is_empty() {
            "no adjudication".into()
        } else {
            parts.join(", ")
        }
    }

    /// Whether the game at `pos`, after `evals.len()` plies from its opening (each with the
    /// score the mover reported), ends here: White's score and why. The rules of chess
    /// are checked before this.
    pub fn verdict(&self, pos: &Chess, evals: &[Option<Analysis>]) -> Option<(f64, Termination)> {
        if let Some(outcome) = self.tablebase_outcome(pos) {
            let to_move = match outcome {
                Outcome::Win => 1.0,
                Outcome::Draw => 0.5,
                Outcome::Loss => 0.0,
            };
            let white = if pos.turn().is_white() {
                to_move
            } else {
                1.0 - to_move
            };
            return Some((white, Termination::Tablebase));
        }
        if let Some(rule) = &self.draw
            && level_for(rule, pos, evals)
        {
            return Some((0.5, Termination::DrawRule));
        }
        match self.max_plies {
            Some(limit) if evals.len() >= limit as usize => Some((0.5, Termination::MaxPlies)),
            _ => None,
        }
    }

    fn tablebase_outcome(&self, pos: &Chess) -> Option<Outcome> {
        let tables = self.tablebases.as_ref()?;
        let pieces = pos.board().occupied().count();
        if pieces > tables.max_pieces() || pos.castles().any() {
            return None;
        }
        tables.outcome(pos)
    }
}

/// Whether the draw rule holds after the moves whose scores are `evals`: enough moves
/// played, and the last `2 · move_count` plies all level, with no capture or pawn move
/// among them (the halfmove clock counts them).
fn level_for(rule: &DrawRule, pos: &Chess, evals: &[Option<Analysis>]) -> bool {
    let plies = evals.len();
    let window = 2 * rule.move_count as usize;
    if plies < 2 * rule.move_number as usize || plies < window {
        return false;
    }
    if (pos.halfmoves() as usize) < window {
        return false;
    }
    evals[plies - window..].iter().all(
        |e| matches!(e, Some(Analysis { cp: Some(cp), mate: None, .. }) if cp.abs() <= rule.score),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(cp: i32) -> Option<Analysis> {
        Some(Analysis {
            cp: Some(cp),
            mate: None,
            depth: Some(10),
            nodes: None,
        })
    }

    fn at(fen: &str) -> Chess {
        chessgraph_core::chess::fen::parse_position(fen).unwrap()
    }

    #[test]
    fn draw_rules_parse_and_refuse() {
        assert_eq!(DrawRule::parse("").unwrap(), DrawRule::DEFAULT);
        let r = DrawRule::parse("movenumber=30, movecount=4,score=5").unwrap();
        assert_eq!((r.move_number, r.move_count, r.score), (30, 4, 5));
        assert_eq!(DrawRule::parse(&r.describe()).unwrap(), r);
        for bad in [
            "movecount=0",
            "score=-1",
            "moves=3",
            "movenumber",
            "score=x",
        ] {
            assert!(DrawRule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn draw_rule_needs_level_quiet_moves_late_enough() {
        let rule = DrawRule {
            move_number: 2,
            move_count: 2,
            score: 10,
        };
        let adj = Adjudication {
            draw: Some(rule),
            ..Adjudication::default()
        };
        // Four quiet plies on the halfmove clock.
        let quiet = at("4k3/8/8/8/8/8/4P3/4K3 w - - 4 10");
        let level = vec![scored(5); 4];
        assert_eq!(adj.verdict(&quiet, &level).map(|v| v.0), Some(0.5));
        // Too early in the game.
        assert!(adj.verdict(&quiet, &level[..3]).is_none());
        // One score outside ±10, or a mate score, or no score.
        for odd in [scored(-11), None] {
            let mut evals = level.clone();
            evals[1] = odd;
            assert!(adj.verdict(&quiet, &evals).is_none());
        }
        // A capture or pawn move inside the window.
        let fresh = at("4k3/8/8/8/8/8/4P3/4K3 w - - 3 10");
        assert!(adj.verdict(&fresh, &level).is_none());
    }

    #[test]
    fn no_rule_no_verdict_and_the_ply_limit() {
        let pos = at("4k3/8/8/8/8/8/4P3/4K3 w - - 40 60");
        let evals = vec![scored(0); 30];
        assert!(Adjudication::default().verdict(&pos, &evals).is_none());
        let limit = Adjudication {
            max_plies: Some(30),
            ..Adjudication::default()
        };
        assert_eq!(
            limit.verdict(&pos, &evals),
            Some((0.5, Termination::MaxPlies))
        );
        assert!(limit.verdict(&pos, &evals[..29]).is_none());
    }

    #[cfg(feature = "syzygy")]
    #[test]
    fn tables_decide_for_either_side() {
        let Some(dir) = chessgraph_testkit::shared("syzygy") else {
            return;
        };
        let (tables, _) = Tablebases::load(dir.to_str().unwrap()).unwrap();
        let adj = Adjudication {
            tablebases: Some(Arc::new(tables)),
            ..Adjudication::default()
        };
        let verdict = |fen: &str| adj.verdict(&at(fen), &[]).map(|(s, _)| s);
        // KRK: the rook's side wins, whoever is to move.
        assert_eq!(verdict("8/8/8/3k4/8/8/1R6/K7 w - - 0 1"), Some(1.0));
        assert_eq!(verdict("8/8/8/3k4/8/8/1R6/K7 b - - 0 1"), Some(1.0));
        assert_eq!(verdict("8/8/8/3K4/8/8/1r6/k7 w - - 0 1"), Some(0.0));
        // KRKR: a draw; five pieces: beyond the tables.
        assert_eq!(verdict("8/8/8/3k4/8/8/1R6/K6r w - - 0 1"), Some(0.5));
        assert_eq!(verdict("8/8/8/3k4/8/8/1RP5/K6r w - - 0 1"), None);
        // The same win with the clock at 99: the fifty-move rule comes first.
        assert_eq!(verdict("8/8/8/3k4/8/8/1R6/K7 w - - 99 80"), Some(0.5));
    }
}
