//! Value parsers for the options' ranges: a value out of range is refused by the parser,
//! before any file is opened, in clap's words (`invalid value '0' for '--nodes <N>': must
//! be at least 1`), so no subcommand checks its numbers by hand.

use clap::builder::TypedValueParser;

/// A value parser for a library enum: the names `name` gives the values of `all` are the
/// possible values (listed in help and errors), and the matching value is the result.
pub fn one_of<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T> {
    let names: Vec<&'static str> = all.iter().map(|&t| name(t)).collect();
    clap::builder::PossibleValuesParser::new(names).try_map(move |s: String| {
        all.iter()
            .copied()
            .find(|&t| name(t) == s)
            .ok_or_else(|| format!("{s:?} is not one of the possible values"))
    })
}

/// `s` as a `T`, the parser's own message on failure.
fn parse<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    s.trim().parse().map_err(|e: T::Err| e.to_string())
}

/// A count of at least 1 (games, nodes, threads, depth, …).
pub fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
    T::Err: std::fmt::Display,
{
    let v: T = parse(s)?;
    if v < T::from(1) {
        return Err("must be at least 1".into());
    }
    Ok(v)
}

/// A finite number above 0 (learning rates, timeouts, K).
pub fn positive<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + Into<f64> + Copy,
    T::Err: std::fmt::Display,
{
    let v: T = parse(s)?;
    let f: f64 = v.into();
    if !(f > 0.0 && f.is_finite()) {
        return Err("must be a positive number".into());
    }
    Ok(v)
}

/// A fraction from 0 to 1 (weights of blends, noise).
pub fn fraction<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + Into<f64> + Copy,
    T::Err: std::fmt::Display,
{
    let v: T = parse(s)?;
    if !(0.0..=1.0).contains(&v.into()) {
        return Err("must be between 0 and 1".into());
    }
    Ok(v)
}

/// A number of 0 or more (decay rates).
#[cfg(feature = "cnn")]
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v: f64 = parse(s)?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err("must be 0 or more".into());
    }
    Ok(v)
}

/// A count from `LO` to `HI` (sizes of layers).
#[cfg(feature = "cnn")]
pub fn between<const LO: usize, const HI: usize>(s: &str) -> Result<usize, String> {
    let v: usize = parse(s)?;
    if !(LO..=HI).contains(&v) {
        return Err(format!("must be {LO} to {HI}"));
    }
    Ok(v)
}

/// A hash table size in MiB, 1 to 4,096: each worker allocates its table up front, and a
/// size the machine cannot give would abort instead of failing.
pub fn hash_mib(s: &str) -> Result<usize, String> {
    let v: usize = parse(s)?;
    if !(1..=4096).contains(&v) {
        return Err("must be 1 to 4096 MiB".into());
    }
    Ok(v)
}

/// A UCI option as `NAME=VALUE` (both trimmed; the value may be empty).
pub fn uci_option(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| "expected NAME=VALUE".to_owned())?;
    if name.trim().is_empty() {
        return Err("expected NAME=VALUE".into());
    }
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

/// One of a few allowed integers (the NNUE's quantization scales).
pub fn int_in(allowed: &'static [i32]) -> impl TypedValueParser<Value = i32> {
    clap::builder::StringValueParser::new().try_map(move |s: String| {
        let v: i32 = parse(&s)?;
        if allowed.contains(&v) {
            Ok(v)
        } else {
            Err(format!("must be one of {allowed:?}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_refused_with_the_rule() {
        assert_eq!(at_least_one::<u64>("3"), Ok(3));
        assert_eq!(at_least_one::<u64>("0").unwrap_err(), "must be at least 1");
        assert!(at_least_one::<u32>("-1").is_err());
        assert_eq!(positive::<f32>("0.5"), Ok(0.5));
        assert_eq!(
            positive::<f64>("0").unwrap_err(),
            "must be a positive number"
        );
        assert!(positive::<f64>("inf").is_err());
        assert!(positive::<f64>("NaN").is_err());
        assert_eq!(fraction::<f32>("1"), Ok(1.0));
        assert_eq!(
            fraction::<f32>("1.5").unwrap_err(),
            "must be between 0 and 1"
        );
        assert!(fraction::<f64>("NaN").is_err());
        assert_eq!(
            uci_option(" Hash = 64"),
            Ok(("Hash".to_owned(), "64".to_owned()))
        );
        assert!(uci_option("Hash").is_err());
        assert!(uci_option("=3").is_err());
    }
}
