//! Polyglot opening books (`.bin`): 16-byte big-endian entries `key u64, move u16,
//! weight u16, learn u32`, sorted by key. Keys are [`chessgraph_core::chess::hash::key`]
//! (shakmaty's Zobrist64 uses the Polyglot random numbers). Moves: bits 0-5 target square,
//! 6-11 origin square (a1 = 0), 12-14 promotion (1 knight .. 4 queen); castling is encoded
//! as the king capturing its own rook (e1h1).

use std::path::Path;

use shakmaty::{Chess, Move, Position, Role};

use chessgraph_core::Error;
use chessgraph_core::Result;
use chessgraph_core::chess::hash;

/// One book entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BookEntry {
    /// Position key.
    pub key: u64,
    /// Polyglot move encoding.
    pub mv: u16,
    /// Relative weight.
    pub weight: u16,
}

/// An opening book loaded into memory.
#[derive(Debug, Clone, Default)]
pub struct Book {
    entries: Vec<BookEntry>,
}

/// Polyglot encoding of a move.
pub fn polyglot_move(m: Move) -> u16 {
    let promo = |p: Option<Role>| -> u16 {
        match p {
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(Role::Queen) => 4,
            _ => 0,
        }
    };
    match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => to as u16 | (from as u16) << 6 | promo(promotion) << 12,
        Move::EnPassant { from, to } => to as u16 | (from as u16) << 6,
        Move::Castle { king, rook } => rook as u16 | (king as u16) << 6,
        Move::Put { .. } => 0,
    }
}

impl Book {
    /// Parses book bytes; `path` names the file in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Book> {
        if !bytes.len().is_multiple_of(16) {
            return Err(Error::NotABook {
                path: path.to_owned(),
                why: format!("size {} is not a multiple of 16 bytes", bytes.len()),
            });
        }
        let entries: Vec<BookEntry> = bytes
            .chunks_exact(16)
            .map(|c| BookEntry {
                key: u64::from_be_bytes(c[0..8].try_into().expect("8 bytes")),
                mv: u16::from_be_bytes([c[8], c[9]]),
                weight: u16::from_be_bytes([c[10], c[11]]),
            })
            .collect();
        if let Some(i) = entries.windows(2).position(|w| w[0].key > w[1].key) {
            return Err(Error::NotABook {
                path: path.to_owned(),
                why: format!("entry {} is out of key order", i + 2),
            });
        }
        Ok(Book { entries })
    }

    /// Reads a book file.
    pub fn load(path: &Path) -> Result<Book> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Book::from_bytes(&bytes, path)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Legal book moves of `pos` with their weights (entries with weight 0 are kept).
    pub fn moves(&self, pos: &Chess) -> Vec<(Move, u16)> {
        let key = hash::key(pos);
        let start = self.entries.partition_point(|e| e.key < key);
        let legal = pos.legal_moves();
        self.entries[start..]
            .iter()
            .take_while(|e| e.key == key)
            .filter_map(|e| {
                legal
                    .iter()
                    .find(|&&m| polyglot_move(m) == e.mv)
                    .map(|&m| (m, e.weight))
            })
            .collect()
    }

    /// A book move chosen with probability proportional to its weight; `random` is any
    /// random number. `None` when the position is not in the book.
    pub fn pick(&self, pos: &Chess, random: u64) -> Option<Move> {
        let moves = self.moves(pos);
        let total: u64 = moves.iter().map(|&(_, w)| u64::from(w)).sum();
        if total == 0 {
            return moves.first().map(|&(m, _)| m);
        }
        let mut r = random % total;
        for (m, w) in moves {
            if r < u64::from(w) {
                return Some(m);
            }
            r -= u64::from(w);
        }
        None
    }
}

/// Serializes entries as a Polyglot book (sorted by key) — for tests and tools.
pub fn to_bytes(entries: &[BookEntry]) -> Vec<u8> {
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| (e.key, std::cmp::Reverse(e.weight)));
    let mut out = Vec::with_capacity(16 * sorted.len());
    for e in sorted {
        out.extend_from_slice(&e.key.to_be_bytes());
        out.extend_from_slice(&e.mv.to_be_bytes());
        out.extend_from_slice(&e.weight.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Chess, uci: &str) -> Move {
        chessgraph_core::chess::moves::parse_uci(pos, uci).unwrap()
    }

    #[test]
    fn polyglot_move_encoding() {
        let start = Chess::default();
        // e2e4: from e2 (12), to e4 (28).
        assert_eq!(polyglot_move(mv(&start, "e2e4")), 28 | 12 << 6);
        let pos: Chess = chessgraph_core::chess::fen::parse(
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            chessgraph_core::chess::fen::Leniency::Strict,
        )
        .unwrap();
        // O-O is e1h1 in Polyglot.
        assert_eq!(polyglot_move(mv(&pos, "e1g1")), 7 | 4 << 6);
        let promo: Chess = chessgraph_core::chess::fen::parse(
            "8/P6k/8/8/8/8/8/K7 w - - 0 1",
            chessgraph_core::chess::fen::Leniency::Strict,
        )
        .unwrap();
        assert_eq!(polyglot_move(mv(&promo, "a7a8n")), 56 | 48 << 6 | 1 << 12);
    }

    #[test]
    fn probe_and_weighted_pick() {
        let start = Chess::default();
        let e4 = mv(&start, "e2e4");
        let d4 = mv(&start, "d2d4");
        let bytes = to_bytes(&[
            BookEntry {
                key: 0x463b_9618_1691_fc9c,
                mv: polyglot_move(e4),
                weight: 3,
            },
            BookEntry {
                key: 0x463b_9618_1691_fc9c,
                mv: polyglot_move(d4),
                weight: 1,
            },
            // An entry of another position and an illegal move are ignored.
            BookEntry {
                key: 1,
                mv: 5,
                weight: 9,
            },
            BookEntry {
                key: 0x463b_9618_1691_fc9c,
                mv: 0x0fff,
                weight: 100,
            },
        ]);
        let book = Book::from_bytes(&bytes, Path::new("t.bin")).unwrap();
        assert_eq!(book.len(), 4);
        assert_eq!(book.moves(&start), vec![(e4, 3), (d4, 1)]);
        let picks: Vec<Move> = (0..4).map(|r| book.pick(&start, r).unwrap()).collect();
        assert_eq!(picks, vec![e4, e4, e4, d4]);
        let mut after = start.clone();
        after.play_unchecked(e4);
        assert_eq!(book.pick(&after, 0), None);
    }

    #[test]
    fn bad_books() {
        let e = Book::from_bytes(&[0; 17], Path::new("x.bin")).unwrap_err();
        assert!(e.to_string().contains("x.bin") && e.to_string().contains("16"));
        let mut bytes = vec![0u8; 32];
        bytes[0] = 1; // first key larger than the second
        let e = Book::from_bytes(&bytes, Path::new("y.bin")).unwrap_err();
        assert!(e.to_string().contains("out of key order"), "{e}");
        assert!(Book::load(Path::new("/no/such/book.bin")).is_err());
    }
}
