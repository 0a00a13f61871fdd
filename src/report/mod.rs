//! Pictures and tables. Plots are drawn with plotters on a bitmap; fonts are embedded
//! (DejaVu Sans from the `dejavu` crate) so plotting works on machines without system fonts.

pub mod import;
pub mod plots;

pub use import::{report_json, write_import, ImportFiles};

use std::sync::Once;

static FONTS: Once = Once::new();

/// Register the embedded fonts with plotters' ab_glyph text renderer. Call before drawing text;
/// cheap after the first call. Use the family name "sans-serif" in styles.
pub fn ensure_fonts() {
    FONTS.call_once(|| {
        use plotters::style::FontStyle;
        // Registration only fails for a malformed font file, which an embedded DejaVu is not.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Italic, dejavu::sans::oblique());
        let _ = plotters::style::register_font("sans-serif", FontStyle::Oblique, dejavu::sans::oblique());
    });
}

#[cfg(test)]
mod tests {
    use plotters::prelude::*;

    #[test]
    fn draws_text_without_system_fonts() {
        super::ensure_fonts();
        let dir = std::env::temp_dir().join("turbopt_font_test.png");
        {
            let root = BitMapBackend::new(&dir, (200, 100)).into_drawing_area();
            root.fill(&WHITE).unwrap();
            let mut chart = ChartBuilder::on(&root)
                .caption("Mis", ("sans-serif", 20))
                .x_label_area_size(20)
                .y_label_area_size(20)
                .build_cartesian_2d(0.0..1.0, 0.0..1.0)
                .unwrap();
            chart.configure_mesh().draw().unwrap();
            root.present().unwrap();
        }
        let bytes = std::fs::read(&dir).unwrap();
        assert!(bytes.len() > 100, "PNG written");
    }
}
