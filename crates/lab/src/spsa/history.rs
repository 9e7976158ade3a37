//! A run's record, in its directory: `spsa.json` (the settings it was started with),
//! `history.csv` (a row an iteration: its number, the first engine's wins, draws and
//! losses, and every option's value after the update; row 0 holds the start values) and
//! `history.png` (each option's path over the iterations). A run started again in the
//! same directory with the same settings reads the CSV and goes on from its last row.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::Param;
use crate::plot::{FONT, register_fonts};
use chessgraph_core::Error as CoreError;
use chessgraph_store::Result;

/// One finished iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The iteration (0 for the start values).
    pub iteration: u64,
    /// The first engine's (`θ + c·δ`) wins, draws and losses.
    pub wdl: [u32; 3],
    /// Every option's value after the iteration's update.
    pub values: Vec<f64>,
}

/// The open `history.csv` of a run.
pub struct History {
    path: PathBuf,
    file: File,
    /// The rows read or written so far, in the order they finished.
    pub rows: Vec<Row>,
}

fn header(params: &[Param]) -> String {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    format!("iteration,wins,draws,losses,{}", names.join(","))
}

fn invalid(path: &Path, line: usize, why: impl std::fmt::Display) -> chessgraph_store::Error {
    CoreError::Invalid(format!("{}, line {line}: {why}", path.display())).into()
}

fn io(path: &Path, e: std::io::Error) -> chessgraph_store::Error {
    CoreError::Invalid(format!("{}: {e}", path.display())).into()
}

impl History {
    /// Opens the history at `path`, or starts it with the start values when there is none.
    pub fn open_or_create(path: &Path, params: &[Param]) -> Result<History> {
        let rows = if path.exists() {
            read(path, params)?
        } else {
            let start = Row {
                iteration: 0,
                wdl: [0; 3],
                values: params.iter().map(|p| p.start).collect(),
            };
            let mut f = File::create(path).map_err(|e| io(path, e))?;
            writeln!(f, "{}\n{}", header(params), line(&start)).map_err(|e| io(path, e))?;
            vec![start]
        };
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| io(path, e))?;
        Ok(History {
            path: path.to_owned(),
            file,
            rows,
        })
    }

    /// Iterations finished (row 0 is not one).
    pub fn finished(&self) -> u64 {
        self.rows.len() as u64 - 1
    }

    /// The values after the last finished iteration.
    pub fn values(&self) -> &[f64] {
        &self.rows[self.rows.len() - 1].values
    }

    /// Appends a finished iteration (written at once: an interrupted run loses only the
    /// iterations under way).
    pub fn push(&mut self, row: Row) -> Result<()> {
        writeln!(self.file, "{}", line(&row)).map_err(|e| io(&self.path, e))?;
        self.file.flush().map_err(|e| io(&self.path, e))?;
        self.rows.push(row);
        Ok(())
    }
}

fn line(row: &Row) -> String {
    let values: Vec<String> = row.values.iter().map(|v| format!("{v:.4}")).collect();
    format!(
        "{},{},{},{},{}",
        row.iteration,
        row.wdl[0],
        row.wdl[1],
        row.wdl[2],
        values.join(",")
    )
}

/// The rows of an existing history, which must be of these options.
fn read(path: &Path, params: &[Param]) -> Result<Vec<Row>> {
    let mut text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    if !text.ends_with('\n') {
        // A row cut by an interruption: dropped, and the file made whole again.
        text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
        std::fs::write(path, &text).map_err(|e| io(path, e))?;
    }
    let mut rows = Vec::new();
    for (i, text) in text.lines().enumerate() {
        if i == 0 {
            if text != header(params) {
                return Err(invalid(
                    path,
                    1,
                    format!(
                        "the columns are not those of the options to tune ({:?}); use another --out",
                        header(params)
                    ),
                ));
            }
            continue;
        }
        let fields: Vec<&str> = text.split(',').collect();
        let numbers: Option<Vec<f64>> = fields.iter().map(|f| f.parse::<f64>().ok()).collect();
        match numbers {
            Some(n) if n.len() == 4 + params.len() => rows.push(Row {
                iteration: n[0] as u64,
                wdl: [n[1] as u32, n[2] as u32, n[3] as u32],
                values: n[4..].to_vec(),
            }),
            _ => {
                return Err(invalid(
                    path,
                    i + 1,
                    format!("not a row of this run: {text:?}"),
                ));
            }
        }
    }
    if rows.is_empty() {
        return Err(invalid(path, 1, "no start row"));
    }
    Ok(rows)
}

/// Draws each option's value over the iterations, one panel an option, with the start
/// value dashed. A panel's scale is the option's path, at least a few final
/// perturbations wide and within its range: SPSA moves a constant by a few of its steps,
/// which its whole range would flatten to a line.
pub fn plot(path: &Path, params: &[Param], rows: &[Row]) -> Result<()> {
    register_fonts();
    let cols = (params.len() as f64).sqrt().ceil().max(1.0) as usize;
    let grid_rows = params.len().div_ceil(cols);
    let size = ((cols * 360) as u32, (grid_rows * 240) as u32);
    let root = BitMapBackend::new(path, size).into_drawing_area();
    let draw = |e: &dyn std::fmt::Display| -> chessgraph_store::Error {
        CoreError::Invalid(format!("{}: {e}", path.display())).into()
    };
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    // Rows in the order they finished: with several iterations at once, that is the
    // order the values moved in.
    let last = (rows.len() as u64).saturating_sub(1).max(1);
    for (i, (p, area)) in params
        .iter()
        .zip(root.split_evenly((grid_rows, cols)))
        .enumerate()
    {
        let mut chart = ChartBuilder::on(&area)
            .caption(&p.name, (FONT, 16))
            .margin(8)
            .x_label_area_size(24)
            .y_label_area_size(48)
            .build_cartesian_2d(0u64..last, panel_range(p, rows, i))
            .map_err(|e| draw(&e))?;
        chart
            .configure_mesh()
            .label_style((FONT, 11))
            .x_labels(4)
            .y_labels(5)
            .draw()
            .map_err(|e| draw(&e))?;
        let start = p.start;
        chart
            .draw_series(DashedLineSeries::new(
                [(0, start), (last, start)],
                4,
                4,
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(|e| draw(&e))?;
        let points: Vec<(u64, f64)> = rows
            .iter()
            .enumerate()
            .map(|(j, r)| (j as u64, r.values[i]))
            .collect();
        chart
            .draw_series(LineSeries::new(points, PATH.stroke_width(2)))
            .map_err(|e| draw(&e))?;
    }
    root.present().map_err(|e| draw(&e))?;
    Ok(())
}

/// The colour of every option's path (one option a panel: a colour each would say nothing).
const PATH: RGBColor = RGBColor(31, 78, 160);

/// The values a panel shows: the option's path and start, widened to at least four of its
/// last perturbations (`c_end`) around them, padded by a tenth and kept within the
/// option's range.
pub(super) fn panel_range(p: &Param, rows: &[Row], i: usize) -> std::ops::Range<f64> {
    let (lo, hi) = rows
        .iter()
        .map(|r| r.values[i])
        .fold((p.start, p.start), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let span = (hi - lo).max(4.0 * p.c_end).max(1.0);
    let mid = (lo + hi) / 2.0;
    let (lo, hi) = (mid - 0.55 * span, mid + 0.55 * span);
    lo.max(p.min)..hi.min(p.max)
}
