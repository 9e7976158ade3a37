//! What every plot of the lab shares: text in the DejaVu Sans fonts embedded from
//! `assets/fonts/` through plotters' `ab_glyph` feature, so that drawing needs no system
//! fonts or fontconfig.

use std::sync::Once;

use plotters::style::FontStyle;

static REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

/// The family name the fonts are registered under.
pub const FONT: &str = "sans-serif";

/// Registers the embedded fonts with plotters (once; every plot calls this first).
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let ok = plotters::style::register_font(FONT, FontStyle::Normal, REGULAR).is_ok()
            && plotters::style::register_font(FONT, FontStyle::Bold, BOLD).is_ok();
        assert!(ok, "the embedded DejaVu fonts are valid TrueType");
    });
}
