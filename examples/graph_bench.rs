//! Benchmark of `graph::analyze`: positions per second on the shared data set.
//!
//! `cargo run --release --example graph_bench -- [CSV.zst] [N]`
//!
//! Reads the first N FENs (default: all) of a chessData-style CSV (default: the shared
//! `positions-200k.csv.zst`), parses them (timed apart), then runs `analyze` over all of
//! them on one thread and with rayon on all cores, and `mobility_counts` alone.

use std::io::{BufRead, BufReader};
use std::time::Instant;

use chessgraph_core::graph::{self, Edge};
use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/positions-200k.csv.zst"
        )
        .to_owned()
    });
    let limit: usize = match args.next() {
        Some(n) => n.parse()?,
        None => usize::MAX,
    };

    let file = std::fs::File::open(&path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let reader = BufReader::new(zstd::Decoder::new(file)?);
    let mut fens = Vec::new();
    for line in reader.lines().skip(1).take(limit) {
        let line = line?;
        let fen = line.split(',').next().unwrap_or_default().to_owned();
        fens.push(fen);
    }

    let start = Instant::now();
    let positions: Vec<Chess> = fens
        .iter()
        .filter_map(|f| {
            f.parse::<Fen>()
                .ok()?
                .into_position(CastlingMode::Standard)
                .ok()
        })
        .collect();
    let parse = start.elapsed();
    let n = positions.len();
    report("parse FEN", n, parse.as_secs_f64());

    let mut edges: Vec<Edge> = Vec::with_capacity(64);
    let mut edge_count = 0usize;
    let mut checksum = 0i64;
    let start = Instant::now();
    for pos in &positions {
        let f = graph::analyze(pos, &mut edges);
        edge_count += edges.len();
        checksum += i64::from(f.mobility + f.connectivity);
    }
    report("analyze, 1 thread", n, start.elapsed().as_secs_f64());

    let start = Instant::now();
    let par_edges: usize = positions
        .par_iter()
        .map_init(Vec::new, |edges, pos| {
            graph::analyze(pos, edges);
            edges.len()
        })
        .sum();
    report(
        &format!("analyze, rayon ({} threads)", rayon::current_num_threads()),
        n,
        start.elapsed().as_secs_f64(),
    );
    assert_eq!(par_edges, edge_count);

    let start = Instant::now();
    for pos in &positions {
        let (w, b) = graph::mobility_counts(pos);
        checksum += i64::from(w - b);
    }
    report("mobility_counts alone", n, start.elapsed().as_secs_f64());

    println!(
        "{n} positions, {:.1} edges per position (checksum {checksum})",
        edge_count as f64 / n.max(1) as f64
    );
    Ok(())
}

fn report(what: &str, n: usize, secs: f64) {
    println!(
        "{what:<28} {:>10.0} positions/s  {:>6.2} µs/position",
        n as f64 / secs,
        secs * 1e6 / n.max(1) as f64
    );
}
