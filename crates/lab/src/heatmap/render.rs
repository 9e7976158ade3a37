//! Drawing the heatmaps with plotters' bitmap backend.
//!
//! Text uses the embedded fonts of [`crate::plot`].

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, RGBColor};
use rayon::prelude::*;

use super::{Heatmap, PIECES, piece_name};
use crate::plot::{FONT, register_fonts};
use chessgraph_store::Error;
use chessgraph_store::Result;

/// ColorBrewer RdBu, from Black better (red) through white to White better (blue).
const RDBU: [(u8, u8, u8); 11] = [
    (0x67, 0x00, 0x1f),
    (0xb2, 0x18, 0x2b),
    (0xd6, 0x60, 0x4d),
    (0xf4, 0xa5, 0x82),
    (0xfd, 0xdb, 0xc7),
    (0xf7, 0xf7, 0xf7),
    (0xd1, 0xe5, 0xf0),
    (0x92, 0xc5, 0xde),
    (0x43, 0x93, 0xc3),
    (0x21, 0x66, 0xac),
    (0x05, 0x30, 0x61),
];

/// The diverging scale: 0 is near-white, `±range` and beyond the darkest red/blue.
pub fn color(value: f64, range: f64) -> RGBColor {
    let t = ((value / range).clamp(-1.0, 1.0) + 1.0) / 2.0 * 10.0;
    let i = (t.floor() as usize).min(9);
    let f = t - i as f64;
    let (a, b) = (RDBU[i], RDBU[i + 1]);
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Dark text on light cells, white text on dark ones.
fn text_color(bg: RGBColor) -> RGBColor {
    let lum = 0.2126 * f64::from(bg.0) + 0.7152 * f64::from(bg.1) + 0.0722 * f64::from(bg.2);
    if lum > 140.0 {
        RGBColor(0x1a, 0x1a, 0x1a)
    } else {
        WHITE
    }
}

const BLANK_LIGHT: RGBColor = RGBColor(0xee, 0xee, 0xee);
const BLANK_DARK: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x66, 0x66, 0x66);

/// A color-scale half-width from the data: the 95th percentile of the shown |means|,
/// rounded up to 1, 2, 2.5 or 5 × 10ⁿ (at least 10 cp), so a few thin outlier squares do
/// not wash out the rest (values beyond it get the end colors; the numbers stay exact).
pub fn auto_range(map: &Heatmap, min_samples: u64) -> f64 {
    let mut v: Vec<f64> = (0..12)
        .flat_map(|p| (0..64).map(move |s| (p, s)))
        .filter_map(|(p, s)| map.mean(p, s, min_samples))
        .map(f64::abs)
        .collect();
    if v.is_empty() {
        return 100.0;
    }
    v.sort_by(f64::total_cmp);
    let q = v[((v.len() - 1) as f64 * 0.95).round() as usize];
    nice_ceil(q.max(10.0))
}

fn nice_ceil(v: f64) -> f64 {
    let mag = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|&x| x >= v - 1e-9)
        .unwrap_or(10.0 * mag)
}

/// `+23`, `−7`, `0` (typographic minus).
fn fmt_cp(v: f64) -> String {
    let r = v.round() as i64;
    match r {
        0 => "0".to_string(),
        r if r > 0 => format!("+{r}"),
        r => format!("\u{2212}{}", -r),
    }
}

/// `171,024`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `n=840`, `n=12.3k`, `n=1.2M`.
fn fmt_n(n: u64) -> String {
    match n {
        0..=9_999 => format!("n={n}"),
        10_000..=999_999 => format!("n={:.1}k", n as f64 / 1e3),
        _ => format!("n={:.1}M", n as f64 / 1e6),
    }
}

/// Board, label and scale sizes of one layout.
#[derive(Copy, Clone)]
struct Geometry {
    cell: i32,
    value_size: f64,
    n_size: f64,
    label_size: f64,
}

const BIG: Geometry = Geometry {
    cell: 84,
    value_size: 24.0,
    n_size: 14.0,
    label_size: 18.0,
};

const SMALL: Geometry = Geometry {
    cell: 54,
    value_size: 16.0,
    n_size: 10.5,
    label_size: 14.0,
};

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

fn centered(size: f64, style: FontStyle, color: RGBColor) -> TextStyle<'static> {
    // The style must go into the FontDesc constructor: `FontDesc::style` keeps the old face.
    (FONT, size, style)
        .into_font()
        .color(&color)
        .pos(Pos::new(HPos::Center, VPos::Center))
}

fn anchored(size: f64, style: FontStyle, color: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    (FONT, size, style)
        .into_font()
        .color(&color)
        .pos(Pos::new(h, v))
}

/// The bitmap backend's error (its type is not re-exported by plotters).
type BackendError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;
type DrawResult = std::result::Result<(), DrawingAreaErrorKind<BackendError>>;

/// Draws the board of piece `p` with its top-left corner at (x0, y0), with file labels
/// below and rank labels to the left.
#[allow(clippy::too_many_arguments)]
fn draw_board(
    area: &Area,
    (x0, y0): (i32, i32),
    g: Geometry,
    map: &Heatmap,
    p: usize,
    min_samples: u64,
    range: f64,
) -> DrawResult {
    let c = g.cell;
    for sq in 0..64usize {
        let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
        let (x, y) = (x0 + file * c, y0 + (7 - rank) * c);
        let mean = map.mean(p, sq, min_samples);
        let bg = match mean {
            Some(m) => color(m, range),
            None if (file + rank) % 2 == 0 => BLANK_DARK,
            None => BLANK_LIGHT,
        };
        area.draw(&Rectangle::new([(x, y), (x + c, y + c)], bg.filled()))?;
        if let Some(m) = mean {
            let ink = text_color(bg);
            let mid = x + c / 2;
            area.draw_text(
                &fmt_cp(m),
                &centered(g.value_size, FontStyle::Bold, ink),
                (mid, y + (c as f64 * 0.40) as i32),
            )?;
            area.draw_text(
                &fmt_n(map.n[p][sq]),
                &centered(g.n_size, FontStyle::Normal, ink),
                (mid, y + (c as f64 * 0.74) as i32),
            )?;
        }
    }
    // Thin white lines between cells, then a frame.
    for i in 1..8 {
        area.draw(&PathElement::new(
            vec![(x0 + i * c, y0), (x0 + i * c, y0 + 8 * c)],
            WHITE.stroke_width(1),
        ))?;
        area.draw(&PathElement::new(
            vec![(x0, y0 + i * c), (x0 + 8 * c, y0 + i * c)],
            WHITE.stroke_width(1),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x0, y0), (x0 + 8 * c, y0 + 8 * c)],
        INK.stroke_width(1),
    ))?;
    let label = centered(g.label_size, FontStyle::Normal, MUTED);
    for i in 0..8 {
        let file = ((b'a' + i as u8) as char).to_string();
        area.draw_text(
            &file,
            &label,
            (x0 + i * c + c / 2, y0 + 8 * c + (g.label_size * 0.9) as i32),
        )?;
        let rank = (8 - i).to_string();
        area.draw_text(
            &rank,
            &label,
            (x0 - (g.label_size * 0.9) as i32, y0 + i * c + c / 2),
        )?;
    }
    Ok(())
}

/// A vertical color bar for `±range` at (x, y) of the given size, with ticks and captions.
fn draw_colorbar(
    area: &Area,
    (x, y): (i32, i32),
    (w, h): (i32, i32),
    range: f64,
    size: f64,
) -> DrawResult {
    for i in 0..h {
        let v = range * (1.0 - 2.0 * (f64::from(i) + 0.5) / f64::from(h));
        area.draw(&Rectangle::new(
            [(x, y + i), (x + w, y + i + 1)],
            color(v, range).filled(),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x, y), (x + w, y + h)],
        INK.stroke_width(1),
    ))?;
    let tick = anchored(size, FontStyle::Normal, INK, HPos::Left, VPos::Center);
    for k in 0..=4 {
        let v = range * (1.0 - 0.5 * f64::from(k));
        let ty = y + (f64::from(h) * f64::from(k) / 4.0).round() as i32;
        area.draw(&PathElement::new(
            vec![(x + w, ty), (x + w + 6, ty)],
            INK.stroke_width(1),
        ))?;
        let text = match k {
            0 => format!("{} or more", fmt_cp(v)),
            4 => format!("{} or less", fmt_cp(v)),
            _ => fmt_cp(v),
        };
        area.draw_text(&text, &tick, (x + w + 10, ty))?;
    }
    let cap = anchored(size, FontStyle::Bold, INK, HPos::Left, VPos::Bottom);
    area.draw_text("White better", &cap, (x - 2, y - 10))?;
    let cap = anchored(size, FontStyle::Bold, INK, HPos::Left, VPos::Top);
    area.draw_text("Black better", &cap, (x - 2, y + h + 10))?;
    Ok(())
}

/// The chess symbol of a FEN piece letter (U+2654..U+265F).
fn symbol(piece: char) -> char {
    let base = match piece.to_ascii_lowercase() {
        'k' => 0,
        'q' => 1,
        'r' => 2,
        'b' => 3,
        'n' => 4,
        _ => 5,
    };
    let black = if piece.is_ascii_lowercase() { 6 } else { 0 };
    char::from_u32(0x2654 + base + black).expect("chess symbols are valid chars")
}

/// `White knight` for `N`.
fn title_name(piece: char) -> String {
    let name = piece_name(piece).replace('_', " ");
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Two lines describing the data behind a picture.
fn subtitle(map: &Heatmap, min_samples: u64) -> [String; 2] {
    let filter: String = if map.filter.chars().count() > 80 {
        map.filter.chars().take(77).collect::<String>() + "..."
    } else {
        map.filter.clone()
    };
    [
        format!(
            "{} positions where {filter}; overall mean {} cp",
            thousands(map.positions),
            fmt_cp(map.overall_mean())
        ),
        format!(
            "Each cell: mean evaluation (centipawns, White's point of view) and number of \
             positions; blank: fewer than {min_samples}"
        ),
    ]
}

fn draw_err(path: &Path) -> impl Fn(DrawingAreaErrorKind<BackendError>) -> Error + '_ {
    move |e| Error::io(path, std::io::Error::other(e.to_string()))
}

/// The picture of one piece: title, board, color bar.
fn render_piece(path: &Path, map: &Heatmap, p: usize, min_samples: u64, range: f64) -> Result<()> {
    let g = BIG;
    let board = 8 * g.cell;
    let (left, top) = (44, 124);
    let (w, h) = ((left + board + 200) as u32, (top + board + 52) as u32);
    let area = BitMapBackend::new(path, (w, h)).into_drawing_area();
    let piece = PIECES[p];
    let draw = || -> DrawResult {
        area.fill(&WHITE)?;
        area.draw_text(
            &symbol(piece).to_string(),
            &anchored(48.0, FontStyle::Normal, INK, HPos::Left, VPos::Center),
            (left - 28, 38),
        )?;
        area.draw_text(
            &format!("{}: mean evaluation by square", title_name(piece)),
            &anchored(28.0, FontStyle::Bold, INK, HPos::Left, VPos::Center),
            (left + 20, 38),
        )?;
        for (i, line) in subtitle(map, min_samples).iter().enumerate() {
            area.draw_text(
                line,
                &anchored(14.0, FontStyle::Normal, MUTED, HPos::Left, VPos::Top),
                (left - 24, 70 + 20 * i as i32),
            )?;
        }
        draw_board(&area, (left, top), g, map, p, min_samples, range)?;
        draw_colorbar(
            &area,
            (left + board + 34, top + 40),
            (26, board - 80),
            range,
            15.0,
        )?;
        area.present()
    };
    draw().map_err(draw_err(path))
}

/// All 12 boards: White's pieces in the top two rows, Black's below, and one color bar.
fn render_grid(path: &Path, map: &Heatmap, min_samples: u64, range: f64) -> Result<()> {
    let g = SMALL;
    let board = 8 * g.cell;
    let (panel_w, panel_h) = (board + 56, board + 84);
    let (left, top) = (40, 124);
    let (w, h) = (
        (left + 3 * panel_w + 190) as u32,
        (top + 4 * panel_h) as u32,
    );
    let area = BitMapBackend::new(path, (w, h)).into_drawing_area();
    let draw = || -> DrawResult {
        area.fill(&WHITE)?;
        area.draw_text(
            "Mean evaluation by piece and square",
            &anchored(32.0, FontStyle::Bold, INK, HPos::Left, VPos::Top),
            (left - 16, 20),
        )?;
        for (i, line) in subtitle(map, min_samples).iter().enumerate() {
            area.draw_text(
                line,
                &anchored(16.0, FontStyle::Normal, MUTED, HPos::Left, VPos::Top),
                (left - 16, 66 + 22 * i as i32),
            )?;
        }
        for (p, &piece) in PIECES.iter().enumerate() {
            let (row, col) = ((p / 3) as i32, (p % 3) as i32);
            let (x, y) = (left + col * panel_w + 16, top + row * panel_h + 40);
            area.draw_text(
                &format!("{} {}", symbol(piece), title_name(piece)),
                &anchored(20.0, FontStyle::Bold, INK, HPos::Left, VPos::Bottom),
                (x - 16, y - 8),
            )?;
            draw_board(&area, (x, y), g, map, p, min_samples, range)?;
        }
        let bar_h = 2 * panel_h;
        draw_colorbar(
            &area,
            (left + 3 * panel_w + 30, top + panel_h),
            (28, bar_h),
            range,
            16.0,
        )?;
        area.present()
    };
    draw().map_err(draw_err(path))
}

/// Draws `<color>_<kind>.png` for each piece and `grid.png` into `out_dir` (in parallel);
/// returns the paths written.
pub fn render(map: &Heatmap, out_dir: &Path, min_samples: u64, range: f64) -> Result<Vec<PathBuf>> {
    register_fonts();
    let jobs: Vec<Option<usize>> = (0..12).map(Some).chain([None]).collect();
    jobs.par_iter()
        .map(|job| match *job {
            Some(p) => {
                let path = out_dir.join(format!("{}.png", piece_name(PIECES[p])));
                render_piece(&path, map, p, min_samples, range).map(|()| path)
            }
            None => {
                let path = out_dir.join("grid.png");
                render_grid(&path, map, min_samples, range).map(|()| path)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_is_centered_and_clamped() {
        assert_eq!(color(0.0, 100.0), RGBColor(0xf7, 0xf7, 0xf7));
        assert_eq!(color(100.0, 100.0), RGBColor(0x05, 0x30, 0x61));
        assert_eq!(color(1e6, 100.0), RGBColor(0x05, 0x30, 0x61));
        assert_eq!(color(-100.0, 100.0), RGBColor(0x67, 0x00, 0x1f));
        // Symmetric steps land on the matching palette entries.
        assert_eq!(color(20.0, 100.0), RGBColor(0xd1, 0xe5, 0xf0));
        assert_eq!(color(-20.0, 100.0), RGBColor(0xfd, 0xdb, 0xc7));
    }

    #[test]
    fn labels_and_ranges() {
        assert_eq!(fmt_cp(23.4), "+23");
        assert_eq!(fmt_cp(-6.6), "\u{2212}7");
        assert_eq!(fmt_cp(0.2), "0");
        assert_eq!(fmt_n(840), "n=840");
        assert_eq!(thousands(171_024), "171,024");
        assert_eq!(thousands(999), "999");
        assert_eq!(fmt_n(12_345), "n=12.3k");
        assert_eq!(fmt_n(1_500_000), "n=1.5M");
        assert_eq!(nice_ceil(37.0), 50.0);
        assert_eq!(nice_ceil(50.0), 50.0);
        assert_eq!(nice_ceil(120.0), 200.0);
        assert_eq!(nice_ceil(21.0), 25.0);
        assert_eq!(symbol('N'), '♘');
        assert_eq!(symbol('p'), '♟');
        assert_eq!(title_name('q'), "Black queen");
    }
}
