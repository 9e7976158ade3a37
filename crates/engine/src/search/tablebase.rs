//! Syzygy endgame tablebases for the search: loaded from directories (UCI `SyzygyPath`)
//! and probed for win/draw/loss after a capture or pawn move, and for the best root move.
//! Reading them is shakmaty-syzygy's work; a build without the `syzygy` feature has no
//! tables, and loading says so.

use shakmaty::{Chess, Move};

/// Win, draw or loss for the side to move, as the search scores it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A win within the fifty-move rule.
    Win,
    /// A loss within the fifty-move rule.
    Loss,
    /// A draw, or a win or loss the fifty-move rule turns into a draw.
    Draw,
}

/// Why tables could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// A directory could not be read.
    #[error("directory {dir}: {why}")]
    Directory {
        /// The directory.
        dir: String,
        /// The reader's reason.
        why: String,
    },
    /// The build has no tablebase support.
    #[error("this chessgraph was built without the `syzygy` feature")]
    NotBuilt,
}

/// Loaded tables.
pub struct Tablebases {
    #[cfg(feature = "syzygy")]
    inner: shakmaty_syzygy::Tablebase<Chess>,
}

#[cfg(feature = "syzygy")]
impl Tablebases {
    /// The tables in `dirs` (`:` or `;` separated) and how many files were found.
    pub fn load(dirs: &str) -> Result<(Tablebases, usize), TablebaseError> {
        let mut inner = shakmaty_syzygy::Tablebase::new();
        let mut files = 0;
        for dir in dirs.split([':', ';']).filter(|d| !d.is_empty()) {
            files += inner
                .add_directory(dir)
                .map_err(|e| TablebaseError::Directory {
                    dir: dir.to_owned(),
                    why: e.to_string(),
                })?;
        }
        Ok((Tablebases { inner }, files))
    }

    /// Most pieces of a position the tables cover.
    pub fn max_pieces(&self) -> usize {
        self.inner.max_pieces()
    }

    /// Win, draw or loss of `pos`, which was just reached by a capture or pawn move (the
    /// fifty-move counter is zero) and has no castling rights; `None` when the tables
    /// cannot tell.
    pub fn probe_wdl_after_zeroing(&self, pos: &Chess) -> Option<Outcome> {
        use shakmaty_syzygy::Wdl;
        Some(match self.inner.probe_wdl_after_zeroing(pos).ok()? {
            Wdl::Win => Outcome::Win,
            Wdl::Loss => Outcome::Loss,
            Wdl::CursedWin | Wdl::BlessedLoss | Wdl::Draw => Outcome::Draw,
        })
    }

    /// The root move the tables choose (the best by DTZ, the fifty-move rule respected)
    /// and the root's value for the side to move: its outcome under the fifty-move rule,
    /// the halfmove clock counted, and its distance to zeroing in plies. `None` when the
    /// tables cannot tell.
    pub fn best_move(&self, pos: &Chess) -> Option<(Move, Outcome, u32)> {
        // shakmaty-syzygy's DTZ beside the move is the position after it, the opponent's
        // view; the root's own probe gives the root's value for the side to move.
        let (m, _) = self.inner.best_move(pos).ok()??;
        let wdl = self.wdl(pos)?;
        let dtz = self.dtz(pos)?.unsigned_abs();
        // On the fifty-move edge, where a rounded DTZ leaves the outcome uncertain, the
        // search plays for the tables' side (it follows their best move, which wastes no ply).
        let outcome =
            self.outcome(pos)
                .unwrap_or(if wdl > 0 { Outcome::Win } else { Outcome::Loss });
        Some((m, outcome, dtz))
    }

    /// The game's outcome for the side to move when it is certain: the tables' value with
    /// the halfmove clock counted (a win or loss whose zeroing move the fifty-move rule
    /// may come before is a draw), and `None` when the tables cannot tell or a rounded
    /// DTZ (off by one at most) leaves it on the edge of the fifty-move rule. For
    /// adjudicating games; the search uses [`Tablebases::best_move`].
    pub fn outcome(&self, pos: &Chess) -> Option<Outcome> {
        use shakmaty::Position;
        use shakmaty_syzygy::MaybeRounded;
        let wdl = self.wdl(pos)?;
        if wdl.abs() < 2 {
            return Some(Outcome::Draw);
        }
        let (dtz, slack) = match self.inner.probe_dtz(pos).ok()? {
            MaybeRounded::Precise(d) => (d.0.unsigned_abs(), 0),
            MaybeRounded::Rounded(d) => (d.0.unsigned_abs(), 1),
        };
        let plies = dtz + pos.halfmoves();
        if plies + slack <= 100 {
            Some(if wdl > 0 { Outcome::Win } else { Outcome::Loss })
        } else if plies > 100 {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// The WDL value of `pos` as if its halfmove clock were zero, the side to move's view:
    /// 2 win, 1 cursed win (a win the fifty-move rule draws), 0 draw, −1 blessed loss, −2
    /// loss. `None` when the tables cannot tell.
    pub fn wdl(&self, pos: &Chess) -> Option<i32> {
        use shakmaty_syzygy::Wdl;
        Some(match self.inner.probe_wdl_after_zeroing(pos).ok()? {
            Wdl::Loss => -2,
            Wdl::BlessedLoss => -1,
            Wdl::Draw => 0,
            Wdl::CursedWin => 1,
            Wdl::Win => 2,
        })
    }

    /// The distance to zeroing (a capture or pawn move) with best play, signed by the
    /// WDL value as the tables store it (which may be rounded by one). `None` when the
    /// tables cannot tell.
    pub fn dtz(&self, pos: &Chess) -> Option<i32> {
        Some(self.inner.probe_dtz(pos).ok()?.ignore_rounding().0)
    }
}

#[cfg(not(feature = "syzygy"))]
impl Tablebases {
    /// Without the `syzygy` feature there are no tables to load.
    pub fn load(_dirs: &str) -> Result<(Tablebases, usize), TablebaseError> {
        Err(TablebaseError::NotBuilt)
    }

    /// No tables: no pieces covered.
    pub fn max_pieces(&self) -> usize {
        0
    }

    /// No tables: nothing known.
    pub fn probe_wdl_after_zeroing(&self, _pos: &Chess) -> Option<Outcome> {
        None
    }

    /// No tables: nothing known.
    pub fn outcome(&self, _pos: &Chess) -> Option<Outcome> {
        None
    }

    /// No tables: nothing known.
    pub fn best_move(&self, _pos: &Chess) -> Option<(Move, Outcome, u32)> {
        None
    }
}

#[cfg(all(test, feature = "syzygy"))]
mod tests {
    use std::io::Read;

    use super::*;

    /// Every 3- and 4-piece table, from the shared data beside the project, and how many
    /// files; `None` where there is no `../shared/data` (the test is skipped, see
    /// `chessgraph_testkit`); where it is there, tables missing from it are a failure.
    fn shared_tables() -> Option<(Tablebases, usize)> {
        let tables = chessgraph_testkit::shared("syzygy")?;
        Some(Tablebases::load(tables.to_str().unwrap()).unwrap())
    }

    /// python-chess's probes of the shared tables (`scripts/golden/syzygy.py`): FEN, WDL
    /// and DTZ of 35,000 random positions.
    fn golden_probes() -> Vec<(String, i32, i32)> {
        let root = chessgraph_testkit::repo_root();
        let mut text = String::new();
        zstd::Decoder::new(std::fs::File::open(root.join("tests/golden/syzygy.csv.zst")).unwrap())
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text.lines()
            .skip(1)
            .map(|line| {
                let f: Vec<&str> = line.split(',').collect();
                (
                    f[0].to_owned(),
                    f[1].parse().unwrap(),
                    f[2].parse().unwrap(),
                )
            })
            .collect()
    }

    /// A one-thread searcher with the `material` evaluator and the shared tables.
    fn searcher_with_tables() -> Option<crate::search::Searcher> {
        use crate::eval::Evaluator;
        let (tb, _) = shared_tables()?;
        let mut searcher = crate::search::Searcher::new(
            std::sync::Arc::new(Evaluator::builtin("material").unwrap()),
            1,
        );
        searcher.set_tablebase(Some(std::sync::Arc::new(tb)));
        Some(searcher)
    }

    /// WDL and DTZ of 35,000 random positions (1,000 of each 3- and 4-piece material)
    /// equal python-chess's probes of the same tables (`scripts/golden/syzygy.py`).
    #[test]
    fn probes_equal_python_chess() {
        let Some((tb, files)) = shared_tables() else {
            return;
        };
        assert_eq!(files, 70);
        let golden = golden_probes();
        for (fen, wdl, dtz) in &golden {
            let pos = chessgraph_core::chess::fen::parse_position(fen).unwrap();
            assert_eq!(tb.wdl(&pos), Some(*wdl), "WDL of {fen}");
            assert_eq!(tb.dtz(&pos), Some(*dtz), "DTZ of {fen}");
        }
        assert_eq!(golden.len(), 35_000);
    }

    /// The certain outcome agrees with python-chess's probes: a win or loss at a zero
    /// clock, a draw once the clock leaves too few plies for the zeroing move, a draw for
    /// a draw, cursed win or blessed loss; never a decision on the fifty-move edge.
    #[test]
    fn outcome_counts_the_halfmove_clock() {
        let Some((tb, _)) = shared_tables() else {
            return;
        };
        let mut decided = 0;
        for (fen, wdl, dtz) in golden_probes().into_iter().step_by(7) {
            let pos = chessgraph_core::chess::fen::parse_position(&fen).unwrap();
            let expected = match wdl {
                2 => Outcome::Win,
                -2 => Outcome::Loss,
                _ => Outcome::Draw,
            };
            match tb.outcome(&pos) {
                Some(o) => {
                    assert_eq!(o, expected, "{fen}");
                    decided += 1;
                }
                None => assert!(wdl.abs() == 2 && dtz.abs() >= 99, "{fen}: undecided"),
            }
            if wdl.abs() == 2 && dtz.abs() >= 2 {
                let late = 100 - dtz.abs() + 2;
                let fen = fen.replace(" 0 1", &format!(" {late} 60"));
                let pos = chessgraph_core::chess::fen::parse_position(&fen).unwrap();
                assert_eq!(tb.outcome(&pos), Some(Outcome::Draw), "{fen}");
                let edge = fen.replace(&format!(" {late} 60"), &format!(" {} 60", late - 2));
                let pos = chessgraph_core::chess::fen::parse_position(&edge).unwrap();
                assert_ne!(tb.outcome(&pos), Some(Outcome::Draw), "{edge}");
            }
        }
        assert!(decided > 4_900, "{decided}");
    }

    /// The score the engine reports at a root inside the tables has the sign of
    /// python-chess's WDL probe of that root (`scripts/golden/syzygy.py`), for either side
    /// to move, wins, losses and draws; and a win or loss the halfmove clock puts beyond
    /// the fifty-move rule (DTZ + clock > 100, a cursed win or blessed loss) is a draw.
    #[test]
    fn root_scores_have_the_sign_of_python_chess_probes() {
        use shakmaty::Position;

        use crate::search::{Limits, Score, TB_WIN};

        let Some(mut searcher) = searcher_with_tables() else {
            return;
        };
        let limits = Limits {
            depth: Some(1),
            ..Limits::default()
        };
        let mut score_of = |fen: &str| {
            let pos = chessgraph_core::chess::fen::parse_position(fen).unwrap();
            if pos.legal_moves().is_empty() {
                return None;
            }
            match searcher.search(&pos, &[], &limits, &mut |_| {}).score {
                Score::Cp(cp) => Some(cp),
                Score::Mate(m) => panic!("{fen}: mate {m} from a tablebase root"),
            }
        };
        let mut seen = [[0; 3]; 2];
        for (fen, wdl, dtz) in golden_probes().into_iter().step_by(5) {
            let Some(cp) = score_of(&fen) else { continue };
            let white = fen.split(' ').nth(1) == Some("w");
            seen[usize::from(white)][(wdl.signum() + 1) as usize] += 1;
            match wdl {
                2 => assert!(cp > TB_WIN - 101, "{fen}: a win scored {cp}"),
                -2 => assert!(cp < -TB_WIN + 101, "{fen}: a loss scored {cp}"),
                _ => assert_eq!(cp, 0, "{fen}: a draw scored {cp}"),
            }
            // The same root with the clock run so far that the fifty-move rule comes first.
            if wdl != 0 && dtz.abs() >= 4 {
                let late = 100 - dtz.abs() + 2;
                let fen = fen.replace(" 0 1", &format!(" {late} 60"));
                assert_eq!(score_of(&fen), Some(0), "{fen}: cursed by the clock");
            }
        }
        for (colour, counts) in ["black", "white"].iter().zip(seen) {
            assert!(
                counts.iter().all(|&n| n >= 10),
                "{colour} to move: {counts:?}"
            );
        }
    }

    /// From won 3- and 4-piece starts, the engine with the tables, playing both sides,
    /// mates before the fifty-move rule: every winning move keeps the win and makes
    /// progress by DTZ.
    #[test]
    fn won_starts_are_converted_within_the_fifty_move_rule() {
        use shakmaty::Position;

        use crate::search::Limits;

        let Some((tb, _)) = shared_tables() else {
            return;
        };
        let Some(mut searcher) = searcher_with_tables() else {
            return;
        };
        let limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        for fen in [
            "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
            "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
            "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
            "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
            "8/8/3k4/8/8/8/1r6/KQ6 w - - 0 1",
            "8/8/8/8/3k4/8/3P4/3K1R2 b - - 0 1",
        ] {
            let mut pos = chessgraph_core::chess::fen::parse_position(fen).unwrap();
            let winner = if tb.wdl(&pos) == Some(2) {
                pos.turn()
            } else {
                assert_eq!(tb.wdl(&pos), Some(-2), "{fen} is not decided");
                !pos.turn()
            };
            let mut plies = 0;
            while !pos.is_checkmate() {
                assert!(pos.halfmoves() < 100, "{fen}: fifty moves without progress");
                assert!(
                    !pos.is_stalemate() && !pos.is_insufficient_material(),
                    "{fen}: drawn"
                );
                let best = searcher
                    .search(&pos, &[], &limits, &mut |_| {})
                    .best
                    .unwrap();
                pos.play_unchecked(best);
                plies += 1;
                assert!(plies < 400, "{fen}: no mate in 200 moves");
            }
            assert_eq!(pos.turn(), !winner, "{fen}: the wrong side was mated");
        }
    }
}
