//! `chessgraph sql QUERY`: any SQL on the database with chessgraph's functions
//! (`board_fen`, `board_attacks`, …) registered, so every view reads; read-only unless
//! `--write`; rows as an aligned table, CSV, JSON or JSON lines.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use chessgraph_store::query::{self, Sink};
use rusqlite::types::ValueRef;

/// How the rows are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Columns aligned under a header (widths from the first rows).
    Table,
    /// RFC 4180 CSV with a header row.
    Csv,
    /// One JSON array of objects per statement.
    Json,
    /// One JSON object per row and line.
    Jsonl,
}

/// Arguments of `chessgraph sql`.
#[derive(clap::Args)]
pub struct Args {
    /// The SQL: one statement or several separated by `;`, or `-` to read it from standard input.
    query: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Allow statements that write (INSERT, UPDATE, DELETE, CREATE, …); without it the database is opened query-only.
    #[arg(long)]
    write: bool,
}

/// Runs `chessgraph sql`.
pub fn run(db_path: &Path, args: Args) -> anyhow::Result<()> {
    let sql = if args.query == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading the query from standard input")?;
        text
    } else {
        args.query
    };
    anyhow::ensure!(!sql.trim().is_empty(), "the query is empty");
    let conn = if args.write {
        super::open_existing(db_path, "`chessgraph import FILE`")?
    } else {
        super::open_reading(db_path, "`chessgraph import FILE`")?
    };
    let out = std::io::BufWriter::new(std::io::stdout().lock());
    let summary = match args.format {
        Format::Table => query::run(&conn, &sql, &mut Table::new(out))?,
        Format::Csv => query::run(&conn, &sql, &mut Csv::new(out))?,
        Format::Json => query::run(&conn, &sql, &mut Json::new(out, false))?,
        Format::Jsonl => query::run(&conn, &sql, &mut Json::new(out, true))?,
    };
    if summary.changed > 0 {
        warn!("chessgraph: {} rows changed", summary.changed);
    }
    Ok(())
}

/// A value as text: NULL empty, a blob as `x'…'` hex (SQLite's literal).
fn text(v: &ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            format!("x'{hex}'")
        }
    }
}

/// Rows of the first [`Table::SAMPLE`] are held to size the columns; later rows are
/// written as they come, at least as wide.
struct Table<W: Write> {
    out: W,
    header: Vec<String>,
    held: Vec<(Vec<String>, Vec<bool>)>,
    widths: Vec<usize>,
    flowing: bool,
}

impl<W: Write> Table<W> {
    const SAMPLE: usize = 1000;

    fn new(out: W) -> Self {
        Table {
            out,
            header: Vec::new(),
            held: Vec::new(),
            widths: Vec::new(),
            flowing: false,
        }
    }

    fn line(&mut self, cells: &[String], numeric: &[bool]) -> std::io::Result<()> {
        let mut line = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let w = self.widths[i];
            let padded = if numeric[i] {
                format!("{cell:>w$}")
            } else {
                format!("{cell:<w$}")
            };
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(&padded);
        }
        writeln!(self.out, "{}", line.trim_end())
    }

    /// Writes the header, the rule and the held rows.
    fn flow(&mut self) -> std::io::Result<()> {
        self.flowing = true;
        let header = std::mem::take(&mut self.header);
        let plain = vec![false; header.len()];
        // A numeric column's name is right-aligned over its numbers.
        let aligned = self
            .held
            .first()
            .map_or_else(|| plain.clone(), |(_, numeric)| numeric.clone());
        self.line(&header, &aligned)?;
        let rule: Vec<String> = self.widths.iter().map(|&w| "-".repeat(w)).collect();
        self.line(&rule, &plain)?;
        for (cells, numeric) in std::mem::take(&mut self.held) {
            self.line(&cells, &numeric)?;
        }
        Ok(())
    }
}

impl<W: Write> Sink for Table<W> {
    fn columns(&mut self, names: &[String]) -> std::io::Result<()> {
        self.header = names.to_vec();
        self.widths = names.iter().map(|n| n.chars().count()).collect();
        self.flowing = false;
        Ok(())
    }

    fn row(&mut self, values: &[ValueRef<'_>]) -> std::io::Result<()> {
        let cells: Vec<String> = values.iter().map(text).collect();
        let numeric: Vec<bool> = values
            .iter()
            .map(|v| matches!(v, ValueRef::Integer(_) | ValueRef::Real(_)))
            .collect();
        for (w, c) in self.widths.iter_mut().zip(&cells) {
            *w = (*w).max(c.chars().count());
        }
        if self.flowing {
            return self.line(&cells, &numeric);
        }
        self.held.push((cells, numeric));
        if self.held.len() >= Self::SAMPLE {
            self.flow()?;
        }
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        if !self.flowing {
            self.flow()?;
        }
        self.out.flush()
    }
}

/// CSV through the `csv` crate (quoting as RFC 4180).
struct Csv<W: Write> {
    out: csv::Writer<W>,
}

impl<W: Write> Csv<W> {
    fn new(out: W) -> Self {
        Csv {
            out: csv::WriterBuilder::new().flexible(true).from_writer(out),
        }
    }
}

impl<W: Write> Sink for Csv<W> {
    fn columns(&mut self, names: &[String]) -> std::io::Result<()> {
        self.out.write_record(names).map_err(std::io::Error::other)
    }

    fn row(&mut self, values: &[ValueRef<'_>]) -> std::io::Result<()> {
        self.out
            .write_record(values.iter().map(text))
            .map_err(std::io::Error::other)
    }

    fn end(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// JSON: numbers as numbers, NULL as null, blobs as their `x'…'` text.
struct Json<W: Write> {
    out: W,
    lines: bool,
    names: Vec<String>,
    rows: u64,
}

impl<W: Write> Json<W> {
    fn new(out: W, lines: bool) -> Self {
        Json {
            out,
            lines,
            names: Vec::new(),
            rows: 0,
        }
    }
}

impl<W: Write> Sink for Json<W> {
    fn columns(&mut self, names: &[String]) -> std::io::Result<()> {
        self.names = names.to_vec();
        self.rows = 0;
        if !self.lines {
            write!(self.out, "[")?;
        }
        Ok(())
    }

    fn row(&mut self, values: &[ValueRef<'_>]) -> std::io::Result<()> {
        let mut object = serde_json::Map::new();
        for (name, v) in self.names.iter().zip(values) {
            let value = match v {
                ValueRef::Null => serde_json::Value::Null,
                ValueRef::Integer(i) => (*i).into(),
                ValueRef::Real(f) => serde_json::Number::from_f64(*f)
                    .map_or(serde_json::Value::Null, serde_json::Value::Number),
                other => text(other).into(),
            };
            object.insert(name.clone(), value);
        }
        if !self.lines && self.rows > 0 {
            write!(self.out, ",")?;
        }
        if !self.lines {
            writeln!(self.out)?;
        }
        serde_json::to_writer(&mut self.out, &object)?;
        if self.lines {
            writeln!(self.out)?;
        }
        self.rows += 1;
        Ok(())
    }

    fn end(&mut self) -> std::io::Result<()> {
        if !self.lines {
            writeln!(self.out, "\n]")?;
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(sink: &mut dyn Sink) {
        sink.columns(&["n".into(), "fen".into()]).unwrap();
        sink.row(&[ValueRef::Integer(7), ValueRef::Text(b"a, \"b\"")])
            .unwrap();
        sink.row(&[ValueRef::Real(0.5), ValueRef::Null]).unwrap();
        sink.row(&[ValueRef::Integer(12345), ValueRef::Blob(&[1, 255])])
            .unwrap();
        sink.end().unwrap();
    }

    #[test]
    fn the_formats_write_each_value_as_their_readers_expect() {
        let mut out = Vec::new();
        rows(&mut Table::new(&mut out));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "    n  fen\n-----  -------\n    7  a, \"b\"\n  0.5\n12345  x'01ff'\n"
        );
        let mut out = Vec::new();
        rows(&mut Csv::new(&mut out));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "n,fen\n7,\"a, \"\"b\"\"\"\n0.5,\n12345,x'01ff'\n"
        );
        let mut out = Vec::new();
        rows(&mut Json::new(&mut out, false));
        let parsed: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!([
                {"n": 7, "fen": "a, \"b\""},
                {"n": 0.5, "fen": null},
                {"n": 12345, "fen": "x'01ff'"}
            ])
        );
        let mut out = Vec::new();
        rows(&mut Json::new(&mut out, true));
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 3);
    }
}
