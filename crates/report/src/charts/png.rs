//! PNG export with resvg (pure Rust, no browser or C library): a chart in
//! a blog post or an issue needs a picture, not an SVG some sites refuse.
//!
//! resvg draws text only with a font it can load, and a chart without its
//! labels is worse than no chart, so the system fonts are loaded (once per
//! process), the generic `sans-serif` points at a family that exists
//! (DejaVu Sans first), and a probe text is laid out before any chart:
//! without a usable font the export fails and says which package to
//! install, instead of writing a picture with no words in it.

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{fontdb, Node, Options, Tree};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Families tried, in order, for the charts' text and for `sans-serif`.
const PREFERRED: [&str; 4] = ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"];
/// The largest picture made: 16k x 16k pixels.
const MAX_SIDE: f32 = 16_384.0;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PngError {
    /// No system font could be loaded, or none can draw the charts' text.
    NoFont(String),
    /// The SVG is not valid.
    Svg(String),
    /// The picture would be empty or too large.
    Size(String),
    Encode(String),
}

impl fmt::Display for PngError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PngError::NoFont(why) => write!(
                f,
                "cannot draw the charts' text: {why}; install a font \
                 (Debian/Ubuntu: apt-get install fonts-dejavu-core) or export SVG instead"
            ),
            PngError::Svg(why) => write!(f, "the chart is not valid SVG: {why}"),
            PngError::Size(why) => write!(f, "cannot make the picture: {why}"),
            PngError::Encode(why) => write!(f, "cannot encode the PNG: {why}"),
        }
    }
}

impl std::error::Error for PngError {}

/// The system fonts, with `sans-serif` set to a family present; loaded once.
fn fonts() -> &'static Result<Arc<fontdb::Database>, PngError> {
    static FONTS: OnceLock<Result<Arc<fontdb::Database>, PngError>> = OnceLock::new();
    FONTS.get_or_init(|| {
        let mut db = fontdb::Database::new();
        db.load_system_fonts();
        if db.is_empty() {
            return Err(PngError::NoFont("no system font found".into()));
        }
        let has = |name: &str| {
            db.faces()
                .any(|f| f.families.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)))
        };
        let family = PREFERRED
            .iter()
            .find(|n| has(n))
            .map(|n| n.to_string())
            .or_else(|| {
                db.faces()
                    .next()
                    .and_then(|f| f.families.first())
                    .map(|f| f.0.clone())
            });
        if let Some(family) = family {
            db.set_sans_serif_family(family);
        }
        let db = Arc::new(db);
        probe(&db)?;
        Ok(db)
    })
}

fn options(db: &Arc<fontdb::Database>) -> Options<'static> {
    Options {
        fontdb: db.clone(),
        font_family: "sans-serif".into(),
        ..Options::default()
    }
}

/// Lays out a text in the charts' font stack: an error if no glyph came out.
fn probe(db: &Arc<fontdb::Database>) -> Result<(), PngError> {
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"20\">\
         <text x=\"1\" y=\"15\" font-family=\"{}, sans-serif\">IOPS 99 ±</text></svg>",
        PREFERRED.join(", ")
    );
    let tree = Tree::from_str(&svg, &options(db)).map_err(|e| PngError::Svg(e.to_string()))?;
    if drew_text(tree.root()) {
        Ok(())
    } else {
        Err(PngError::NoFont(format!(
            "{} font faces found, none could lay out text",
            db.len()
        )))
    }
}

fn drew_text(g: &resvg::usvg::Group) -> bool {
    g.children().iter().any(|n| match n {
        Node::Text(t) => t.flattened().has_children(),
        Node::Group(g) => drew_text(g),
        _ => false,
    })
}

/// The chart as a PNG at its own size (1 SVG pixel = 1 pixel).
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PngError> {
    svg_to_png_scaled(svg, 1.0)
}

/// The chart as a PNG, `scale` pixels per SVG pixel (2 for high-density screens).
pub fn svg_to_png_scaled(svg: &str, scale: f32) -> Result<Vec<u8>, PngError> {
    let db = fonts().as_ref().map_err(Clone::clone)?;
    let tree = Tree::from_str(svg, &options(db)).map_err(|e| PngError::Svg(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (size.width() * scale, size.height() * scale);
    if !(w >= 1.0 && h >= 1.0 && w <= MAX_SIDE && h <= MAX_SIDE) {
        return Err(PngError::Size(format!(
            "{w:.0} x {h:.0} pixels is outside 1..{MAX_SIDE}"
        )));
    }
    let mut pixmap = Pixmap::new(w.ceil() as u32, h.ceil() as u32)
        .ok_or_else(|| PngError::Size(format!("{w:.0} x {h:.0} pixels")))?;
    resvg::render(
        &tree,
        Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| PngError::Encode(e.to_string()))
}
