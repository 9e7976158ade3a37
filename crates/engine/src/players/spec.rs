//! Player specs: `NAME[:key=value,...]`, e.g. `minimax:depth=4,evaluator=seed003`.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// What is wrong with a player spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The spec is empty or not of the form `NAME[:key=value,...]`.
    #[error("player spec {0:?}: expected NAME[:key=value,...]")]
    Syntax(String),
    /// No player of that name.
    #[error("unknown player {0:?} (players: {names})", names = super::PLAYER_NAMES.join(", "))]
    UnknownPlayer(String),
    /// A key the player does not take.
    #[error("player {player}: unknown key {key:?} (it takes: {known})")]
    UnknownKey {
        /// The player.
        player: String,
        /// The key given.
        key: String,
        /// The keys it takes.
        known: String,
    },
    /// A value that does not parse or is out of range.
    #[error("player {player}: {key}={value:?}: {why}")]
    Value {
        /// The player.
        player: String,
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// Why it is refused.
        why: String,
    },
}

/// A parsed player spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The player's name (`random`, `minimax`, ...).
    pub name: String,
    /// The settings in the order given.
    pub params: Vec<(String, String)>,
}

impl Spec {
    /// Parses `NAME[:key=value,...]`; a key given twice is an error.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        let text = text.trim();
        let bad = || SpecError::Syntax(text.to_owned());
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (text, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(bad());
        }
        let mut params: Vec<(String, String)> = Vec::new();
        if let Some(rest) = rest {
            for part in rest.split(',') {
                let (k, v) = part.split_once('=').ok_or_else(bad)?;
                let (k, v) = (k.trim(), v.trim());
                if k.is_empty() || v.is_empty() {
                    return Err(bad());
                }
                if params.iter().any(|(key, _)| key == k) {
                    return Err(SpecError::Value {
                        player: name.to_owned(),
                        key: k.to_owned(),
                        value: v.to_owned(),
                        why: "given twice".into(),
                    });
                }
                params.push((k.to_owned(), v.to_owned()));
            }
        }
        Ok(Spec {
            name: name.to_owned(),
            params,
        })
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Refuses keys outside `known`.
    pub fn check_keys(&self, known: &[&str]) -> Result<(), SpecError> {
        match self
            .params
            .iter()
            .find(|(k, _)| !known.contains(&k.as_str()))
        {
            Some((k, _)) => Err(SpecError::UnknownKey {
                player: self.name.clone(),
                key: k.clone(),
                known: if known.is_empty() {
                    "nothing".into()
                } else {
                    known.join(", ")
                },
            }),
            None => Ok(()),
        }
    }

    /// The value of `key` parsed as a `T` within `range`, or `default` when not given.
    pub fn parse_or<T>(
        &self,
        key: &str,
        default: T,
        range: RangeInclusive<T>,
    ) -> Result<T, SpecError>
    where
        T: FromStr + PartialOrd + fmt::Display,
    {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        let err = |why: String| SpecError::Value {
            player: self.name.clone(),
            key: key.to_owned(),
            value: v.to_owned(),
            why,
        };
        let x: T = v.parse().map_err(|_| err("not a number".into()))?;
        if !range.contains(&x) {
            return Err(err(format!("must be {} to {}", range.start(), range.end())));
        }
        Ok(x)
    }
}

/// Writes the spec back as `NAME[:key=value,...]`.
impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let s = Spec::parse(" minimax:depth=4, evaluator=seed003 ").unwrap();
        assert_eq!(s.name, "minimax");
        assert_eq!(s.get("depth"), Some("4"));
        assert_eq!(s.get("evaluator"), Some("seed003"));
        assert_eq!(s.get("c"), None);
        assert_eq!(s.to_string(), "minimax:depth=4,evaluator=seed003");
        assert_eq!(Spec::parse("random").unwrap().params, vec![]);
    }

    #[test]
    fn refuses_bad_specs() {
        for bad in [
            "",
            ":x=1",
            "random:",
            "random:seed",
            "random:=3",
            "ran dom",
            "a:b=1,,",
        ] {
            assert!(Spec::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Spec::parse("random:seed=1,seed=2").is_err());
        let s = Spec::parse("mcts:iterations=abc,c=-1").unwrap();
        assert!(s.parse_or("iterations", 10u32, 1..=100).is_err());
        assert!(s.parse_or("c", 2.0f64, 0.0..=100.0).is_err());
        assert_eq!(s.parse_or("rollout", 6u32, 0..=100), Ok(6));
        assert!(s.check_keys(&["iterations"]).is_err());
        assert!(s.check_keys(&["iterations", "c"]).is_ok());
    }
}
