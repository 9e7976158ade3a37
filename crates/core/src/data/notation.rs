//! Moves as test suites write them: SAN (`Nf3`, `exd8=Q+`, `O-O`), UCI (`g1f3`) or long
//! algebraic notation (`Ng1-f3`, `e7xd8=Q`), and STS-style points in a `c0` comment
//! (`"f5=10, Be5+=2, Bf2=3"`).

use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Role};

/// Why a suite's move text is not one legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    /// SAN and UCI/LAN read the text as different moves.
    #[error("ambiguous: SAN and UCI/LAN readings are different moves")]
    Readings,
    /// A SAN move several pieces can make.
    #[error("ambiguous: several pieces can make this move")]
    Pieces,
    /// A well-formed move that is illegal here.
    #[error("illegal move in this position")]
    Illegal,
    /// No notation reads the text.
    #[error("not a move in SAN, UCI or long algebraic notation")]
    Unreadable,
}

/// A move in SAN, UCI or long algebraic notation, legal in `pos`. Every notation that
/// reads the text must give the same move; a SAN move two pieces could make is refused
/// as ambiguous.
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, MoveTextError> {
    let san = SanPlus::from_ascii(text.as_bytes()).map(|s| s.san.to_move(pos));
    let readings: Vec<Move> = [
        san.as_ref().ok().and_then(|r| r.as_ref().ok().copied()),
        crate::chess::moves::parse_uci(pos, text),
        lan_move(pos, text),
    ]
    .into_iter()
    .flatten()
    .collect();
    match readings.split_first() {
        Some((&first, rest)) if rest.iter().all(|&m| m == first) => Ok(first),
        Some(_) => Err(MoveTextError::Readings),
        None => match san {
            Ok(Err(SanError::AmbiguousSan)) => Err(MoveTextError::Pieces),
            Ok(Err(SanError::IllegalSan)) => Err(MoveTextError::Illegal),
            _ => Err(MoveTextError::Unreadable),
        },
    }
}

/// A move in long algebraic notation: optional piece letter, from square, `-` or `x`, to
/// square, optional `=Q` promotion, optional `+`/`#`. The piece must be the one on the
/// from square, and a `x` must capture.
fn lan_move(pos: &Chess, text: &str) -> Option<Move> {
    let text = text.trim_end_matches(['+', '#', '!', '?']);
    let (role, rest) = match text.chars().next()? {
        c @ ('N' | 'B' | 'R' | 'Q' | 'K') => (Role::from_char(c.to_ascii_lowercase())?, &text[1..]),
        _ => (Role::Pawn, text),
    };
    let bytes = rest.as_bytes();
    if bytes.len() < 5 || !matches!(bytes[2], b'-' | b'x') {
        return None;
    }
    let promotion = match &rest[5..] {
        "" => String::new(),
        p => {
            let p = p.strip_prefix('=').unwrap_or(p);
            if p.len() != 1 || role != Role::Pawn {
                return None;
            }
            p.to_ascii_lowercase()
        }
    };
    let uci = format!("{}{}{promotion}", &rest[..2], &rest[3..5]);
    let m = UciMove::from_ascii(uci.as_bytes())
        .ok()?
        .to_move(pos)
        .ok()?;
    let capture_ok = (bytes[2] == b'x') == m.is_capture();
    (m.role() == role && capture_ok && !m.is_castle()).then_some(m)
}

/// The points of an STS-style `c0` comment: `MOVE=N` items separated by commas. `None`
/// when the comment is not such a list (then it is just a comment); an error when it is
/// one but a move does not read (illegal, ambiguous) or is given twice.
pub fn parse_points(pos: &Chess, text: &str) -> Option<Result<Vec<(Move, u32)>, String>> {
    let items: Vec<(&str, u32)> = text
        .split(',')
        .map(|item| {
            let (mv, pts) = item.trim().rsplit_once('=')?;
            let pts = pts.trim().parse::<u32>().ok()?;
            let mv = mv.trim();
            (!mv.is_empty() && !mv.contains(char::is_whitespace)).then_some((mv, pts))
        })
        .collect::<Option<_>>()?;
    let mut points: Vec<(Move, u32)> = Vec::with_capacity(items.len());
    for (text, pts) in items {
        let m = match parse_move(pos, text) {
            Ok(m) => m,
            Err(e) => return Some(Err(format!("c0 points {text:?}: {e}"))),
        };
        if points.iter().any(|&(other, _)| other == m) {
            return Some(Err(format!("c0 points {text:?}: move given twice")));
        }
        points.push((m, pts));
    }
    Some(Ok(points))
}

/// `m` in SAN without check marks.
pub fn san(pos: &Chess, m: Move) -> String {
    San::from_move(pos, m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{self, Leniency};

    fn pos(text: &str) -> Chess {
        fen::parse(text, Leniency::Strict).unwrap()
    }

    fn read(p: &Chess, text: &str) -> Result<String, MoveTextError> {
        parse_move(p, text).map(|m| san(p, m))
    }

    #[test]
    fn san_uci_and_lan_read_the_same_move() {
        let start = Chess::default();
        for text in ["Nf3", "g1f3", "Ng1-f3", "Nf3+", "Ng1f3"] {
            assert_eq!(read(&start, text), Ok("Nf3".to_owned()), "{text}");
        }
        for text in ["e4", "e2e4", "e2-e4"] {
            assert_eq!(read(&start, text), Ok("e4".to_owned()), "{text}");
        }
        let p = pos("3rk3/8/8/3p4/8/8/8/3QK2R w K - 0 1");
        assert_eq!(read(&p, "Qd1xd5"), Ok("Qxd5".to_owned()));
        assert_eq!(read(&p, "O-O"), Ok("O-O".to_owned()));
        assert_eq!(read(&p, "e1g1"), Ok("O-O".to_owned()));
        let promo = pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        for text in ["b8=Q", "b7b8q", "b7-b8=Q", "b7-b8Q+"] {
            assert_eq!(read(&promo, text), Ok("b8=Q".to_owned()), "{text}");
        }
    }

    #[test]
    fn bad_moves_say_why() {
        let start = Chess::default();
        // LAN with the wrong piece, a capture that captures nothing, a move that is not legal.
        assert!(read(&start, "Bg1-f3").is_err());
        assert!(read(&start, "e2xe4").is_err());
        assert_eq!(read(&start, "Nf6"), Err(MoveTextError::Illegal));
        assert_eq!(read(&start, "xyz"), Err(MoveTextError::Unreadable));
        let two_knights = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
        assert_eq!(read(&two_knights, "Nd2"), Err(MoveTextError::Pieces));
        assert_eq!(read(&two_knights, "Nbd2"), Ok("Nbd2".to_owned()));
    }

    #[test]
    fn c0_points_or_plain_comment() {
        let p = pos("1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - 0 1");
        let points = parse_points(&p, "f5=10, Be5+=2, Bf2=3, Bg4=2")
            .unwrap()
            .unwrap();
        let named: Vec<(String, u32)> = points.iter().map(|&(m, n)| (san(&p, m), n)).collect();
        assert_eq!(
            named,
            [("f5", 10), ("Be5", 2), ("Bf2", 3), ("Bg4", 2)].map(|(m, n)| (m.to_owned(), n))
        );
        assert!(parse_points(&p, "a nice move by Kasparov").is_none());
        assert!(parse_points(&p, "f5 = good").is_none());
        let e = parse_points(&p, "f5=10, Qh8=3").unwrap().unwrap_err();
        assert!(e.starts_with("c0 points \"Qh8\""), "{e}");
        assert!(parse_points(&p, "f5=10, f4-f5=3").unwrap().is_err());
    }
}
