//! `chessgraph eval FEN`: one position's evaluation, term by term, as Stockfish's `eval`
//! prints it (`eval` without a FEN, its former meaning, is `chessgraph rate evaluator`).

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use chessgraph_store::evaluators;

/// The rating options, which `eval` takes (hidden) when no FEN is given; with a FEN they
/// are refused.
const RATING_ONLY: [&str; 10] = [
    "input", "format", "pov", "part", "sample", "k", "quiet", "labels", "depth", "output",
];

/// Arguments of `chessgraph eval`: a position, or (without one) the options of
/// `rate evaluator`.
#[derive(clap::Args)]
#[command(
    mut_args(|a| if RATING_ONLY.contains(&a.get_id().as_str()) { a.hide(true) } else { a }),
    after_help = "Without a FEN, `eval` rates evaluators against the labels, as `chessgraph rate evaluator` does (with its options)."
)]
pub struct EvalArgs {
    /// The position: a FEN, quoted or as its separate fields, or `startpos`.
    #[arg(value_name = "FEN", num_args = 1.., conflicts_with_all = RATING_ONLY)]
    fen: Vec<String>,
    #[command(flatten)]
    rating: super::rate::evaluator::Args,
}

/// Runs `chessgraph eval`: one position's breakdown, or the rating without a FEN.
pub fn run_eval(db_path: &Path, args: EvalArgs) -> anyhow::Result<()> {
    if args.fen.is_empty() {
        // Someone who types `eval` alone most likely wants a position evaluated.
        anyhow::ensure!(
            args.rating.input.is_some() || db_path.exists(),
            "no database at {}: `chessgraph eval FEN` evaluates one position; without a FEN, \
             `eval` rates evaluators on a database's positions (run `chessgraph import FILE` \
             first, or give --input FILE)",
            db_path.display()
        );
        return super::rate::evaluator::run(db_path, args.rating);
    }
    let fen = args.fen.join(" ");
    let pos = if fen == "startpos" {
        shakmaty::Chess::default()
    } else {
        chessgraph_core::chess::fen::parse_position(&fen).with_context(|| format!("FEN {fen:?}"))?
    };
    let mut views = Vec::new();
    for name in &args.rating.evaluator {
        let e =
            evaluators::resolve(db_path, name).with_context(|| format!("--evaluator {name}"))?;
        let breakdown = chessgraph_engine::eval::breakdown::breakdown(&e, &pos);
        let total = breakdown
            .as_ref()
            .map_or_else(|| e.evaluate(&pos), |b| b.total);
        views.push((name.as_str(), total, breakdown));
    }
    let mut out = std::io::stdout().lock();
    if args.rating.json {
        let json: Vec<_> = views
            .iter()
            .map(|(name, total, b)| match b {
                Some(b) => serde_json::json!({
                    "evaluator": name, "kind": "linear", "total": total, "phase": b.phase, "terms": b.terms,
                }),
                None => serde_json::json!({
                    "evaluator": name, "kind": "network", "total": total, "terms": null,
                }),
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "{}", chessgraph_core::chess::fen::to_fen(&pos))?;
    for (name, total, b) in &views {
        writeln!(out)?;
        match b {
            Some(b) => write_breakdown(&mut out, name, b)?,
            None => writeln!(
                out,
                "{name}: a network evaluator, which has no terms to show"
            )?,
        }
        writeln!(out, "{name}: final evaluation {total:+} cp (White's side)")?;
    }
    Ok(())
}

/// One linear evaluator's terms, grouped by family (largest family first), each family's
/// sum above its terms.
fn write_breakdown(
    out: &mut dyn Write,
    name: &str,
    b: &chessgraph_engine::eval::breakdown::Breakdown,
) -> anyhow::Result<()> {
    let mut groups: Vec<(&str, f64)> = Vec::new();
    for t in &b.terms {
        match groups.iter_mut().find(|(g, _)| *g == t.group) {
            Some((_, cp)) => *cp += t.cp,
            None => groups.push((&t.group, t.cp)),
        }
    }
    groups.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(b.0)));
    writeln!(
        out,
        "{name}: phase {} of 24 (24: middlegame, 0: ending); cp = coef × (mg × phase + eg × (24 − phase)) / 24, White's side{}",
        b.phase,
        if b.terms.is_empty() {
            "; every term is balanced"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "{:<28} {:>5} {:>6} {:>6} {:>9}",
        "term", "coef", "mg", "eg", "cp"
    )?;
    for (group, cp) in &groups {
        // `+ 0.0` shows a zero contribution (a zero weight times -1) as +0.00, not -0.00.
        let cp = cp + 0.0;
        writeln!(out, "{group:<28} {:>5} {:>6} {:>6} {cp:>+9.2}", "", "", "")?;
        for t in b.terms.iter().filter(|t| t.group == *group) {
            writeln!(
                out,
                "  {:<26} {:>5} {:>6} {:>6} {:>+9.2}",
                t.name,
                t.coefficient,
                t.mg,
                t.eg,
                t.cp + 0.0
            )?;
        }
    }
    let sum = b.terms.iter().map(|t| t.cp).sum::<f64>() + 0.0;
    writeln!(
        out,
        "{:<28} {:>5} {:>6} {:>6} {sum:>+9.2}",
        "sum of terms", "", "", ""
    )?;
    Ok(())
}
