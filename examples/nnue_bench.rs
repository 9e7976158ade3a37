//! NNUE inference speed: full refreshes and incremental updates per second, on positions
//! from random games. `cargo run --release --example nnue_bench`.

use std::time::Instant;

use chessgraph_engine::eval::Evaluator;
use chessgraph_engine::nnue::AccumulatorStack;
use shakmaty::{Chess, Position};

fn main() {
    let e = Evaluator::builtin("nnue").expect("built-in network");
    let net = e.network().expect("a network").clone();
    // 2,000 random games of 60 plies: positions and the moves between them.
    let mut seed = 1u64;
    let mut games = Vec::new();
    for _ in 0..2000 {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for _ in 0..60 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = legal[(seed >> 33) as usize % legal.len()];
            moves.push((pos.clone(), m));
            pos.play_unchecked(m);
        }
        games.push(moves);
    }
    let n: usize = games.iter().map(Vec::len).sum();

    let t = Instant::now();
    let mut sum = 0i64;
    for g in &games {
        for (pos, _) in g {
            sum += i64::from(net.evaluate(pos));
        }
    }
    let refresh = n as f64 / t.elapsed().as_secs_f64();

    let mut stack = AccumulatorStack::new(&net, 128);
    let t = Instant::now();
    let mut sum2 = 0i64;
    for g in &games {
        stack.refresh(&net, 0, &g[0].0);
        for (ply, (pos, m)) in g.iter().enumerate() {
            // Every feature of the child, threats included, as the search evaluates it.
            let mut child = pos.clone();
            child.play_unchecked(*m);
            stack.push_evaluated(&net, ply, pos.turn(), Some(m), child.board());
            let pieces = child.board().occupied().count() as u32;
            sum2 += i64::from(stack.evaluate(&net, ply + 1, child.turn(), pieces));
        }
    }
    let incremental = n as f64 / t.elapsed().as_secs_f64();

    // The threat inputs: recomputing a position's list from its attack maps.
    let t = Instant::now();
    let mut count = 0usize;
    for g in &games {
        for (pos, _) in g {
            count += chessgraph_engine::nnue::threats::threats(pos.board())
                .as_slice()
                .len();
        }
    }
    let threats = n as f64 / t.elapsed().as_secs_f64();
    println!(
        "threat lists: {:.2} M positions/s ({:.1} threat features per position)",
        threats / 1e6,
        count as f64 / n as f64
    );
    println!(
        "{n} positions: full refresh + output {:.2} M/s, incremental update + output {:.2} M/s (checksums {sum} {sum2})",
        refresh / 1e6,
        incremental / 1e6
    );
}
