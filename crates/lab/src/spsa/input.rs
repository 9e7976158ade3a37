//! The options to tune, one a line as OpenBench's tune page takes them (and as
//! `chessgraph-engine spsa` prints them): `name, int|float, value, min, max, c_end, r_end`.
//! Blank lines and lines starting with `#` are skipped.

use super::Param;

/// A line that is not an option to tune; the message names the line and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("line {line}: {why}")]
pub struct InputError {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

/// The options of `text` (the lines above), checked: seven fields, numbers where numbers
/// belong, `min ≤ value ≤ max`, positive steps, each name once.
pub fn parse_input(text: &str) -> Result<Vec<Param>, InputError> {
    let mut params: Vec<Param> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |why: String| InputError { line: i + 1, why };
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != 7 {
            return Err(err(format!(
                "expected `name, int|float, value, min, max, c_end, r_end`, got {} fields in {line:?}",
                fields.len()
            )));
        }
        let float = match fields[1] {
            "int" => false,
            "float" => true,
            other => return Err(err(format!("type {other:?}: expected int or float"))),
        };
        let number = |k: usize, what: &str| -> Result<f64, InputError> {
            fields[k]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(format!("{what} {:?} is not a number", fields[k])))
        };
        let p = Param {
            name: fields[0].to_owned(),
            float,
            start: number(2, "value")?,
            min: number(3, "min")?,
            max: number(4, "max")?,
            c_end: number(5, "c_end")?,
            r_end: number(6, "r_end")?,
        };
        if p.name.is_empty() {
            return Err(err("the option's name is empty".into()));
        }
        if !(p.min <= p.start && p.start <= p.max) || p.min == p.max {
            return Err(err(format!(
                "{}: value {} must lie in min..max, {}..{} (min below max)",
                p.name, p.start, p.min, p.max
            )));
        }
        if p.c_end <= 0.0 || p.r_end <= 0.0 {
            return Err(err(format!("{}: c_end and r_end must be positive", p.name)));
        }
        if params.iter().any(|q| q.name.eq_ignore_ascii_case(&p.name)) {
            return Err(err(format!("{}: the option is listed twice", p.name)));
        }
        params.push(p);
    }
    if params.is_empty() {
        return Err(InputError {
            line: text.lines().count(),
            why: "no options to tune".into(),
        });
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_lines_and_names_the_bad_one() {
        let text = "# from chessgraph-engine spsa\nrfp_margin, int, 90, 30, 200, 8, 0.002\n\n\
                    lmr_scale, float, 0.5, 0.1, 1.5, 0.05, 0.002\n";
        let params = parse_input(text).unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(params[0].name, "rfp_margin");
        assert!(!params[0].float && params[1].float);
        assert_eq!((params[0].start, params[0].c_end), (90.0, 8.0));

        let bad = [
            ("a, int, 1, 0, 2, 1\n", "line 1: expected"),
            ("a, bool, 1, 0, 2, 1, 0.1\n", "type \"bool\""),
            (
                "#\na, int, x, 0, 2, 1, 0.1\n",
                "line 2: value \"x\" is not a number",
            ),
            ("a, int, 3, 0, 2, 1, 0.1\n", "must lie in min..max"),
            ("a, int, 1, 0, 2, 0, 0.1\n", "must be positive"),
            (
                "a, int, 1, 0, 2, 1, 0.1\nA, int, 1, 0, 2, 1, 0.1\n",
                "line 2: A: the option is listed twice",
            ),
            ("# nothing\n", "no options"),
        ];
        for (text, expected) in bad {
            let e = parse_input(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
    }
}
