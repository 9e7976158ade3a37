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
    /// and its DTZ: positive when winning, negative when losing, 0 for a draw; `None` when
    /// the tables cannot tell.
    pub fn best_move(&self, pos: &Chess) -> Option<(Move, i32)> {
        let (m, dtz) = self.inner.best_move(pos).ok()??;
        Some((m, dtz.ignore_rounding().0))
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
    pub fn best_move(&self, _pos: &Chess) -> Option<(Move, i32)> {
        None
    }
}
