//! The tests' look into an SVG: parsed as XML (so it is well-formed), its elements counted and
//! its texts listed.

use roxmltree::Document;

/// What the tests check of an SVG document.
pub(crate) struct SvgSummary {
    /// Every `<text>`'s content, in document order.
    pub(crate) texts: Vec<String>,
    /// Each `<polyline>`'s stroke colour and its points.
    pub(crate) polylines: Vec<(String, Vec<(f64, f64)>)>,
    /// Each `<circle>`'s fill colour.
    pub(crate) circles: Vec<String>,
    /// Each `<rect>`'s fill colour, width and height.
    pub(crate) rects: Vec<(String, f64, f64)>,
    /// Each `<polygon>`'s fill colour.
    pub(crate) polygons: Vec<String>,
    /// Each opaque `<line>`'s stroke colour (the mesh's lines are translucent).
    pub(crate) lines: Vec<String>,
}

impl SvgSummary {
    /// Whether some text is exactly `text`.
    pub(crate) fn has_text(&self, text: &str) -> bool {
        self.texts.iter().any(|t| t == text)
    }

    /// The points' counts of the polylines stroked in `colour` (`#0072B2`), smallest first
    /// (legends' two-point samples first).
    pub(crate) fn polylines_of(&self, colour: &str) -> Vec<usize> {
        let mut counts: Vec<usize> = self
            .polylines
            .iter()
            .filter(|(c, _)| c.eq_ignore_ascii_case(colour))
            .map(|(_, p)| p.len())
            .collect();
        counts.sort_unstable();
        counts
    }

    /// The x of each vertical polyline stroked in `colour`, left to right.
    pub(crate) fn verticals_of(&self, colour: &str) -> Vec<f64> {
        let mut xs: Vec<f64> = self
            .polylines
            .iter()
            .filter(|(c, p)| {
                c.eq_ignore_ascii_case(colour)
                    && p.len() == 2
                    && p[0].0 == p[1].0
                    && p[0].1 != p[1].1
            })
            .map(|(_, p)| p[0].0)
            .collect();
        xs.sort_by(f64::total_cmp);
        xs
    }

    /// The lines stroked in `colour`.
    pub(crate) fn lines_of(&self, colour: &str) -> usize {
        self.lines
            .iter()
            .filter(|c| c.eq_ignore_ascii_case(colour))
            .count()
    }

    /// The rectangles filled with `colour`.
    pub(crate) fn rects_of(&self, colour: &str) -> usize {
        self.rects
            .iter()
            .filter(|(c, _, _)| c.eq_ignore_ascii_case(colour))
            .count()
    }

    /// The polygons filled with `colour`.
    pub(crate) fn polygons_of(&self, colour: &str) -> usize {
        self.polygons
            .iter()
            .filter(|c| c.eq_ignore_ascii_case(colour))
            .count()
    }

    /// The circles filled with `colour`.
    pub(crate) fn circles_of(&self, colour: &str) -> usize {
        self.circles
            .iter()
            .filter(|c| c.eq_ignore_ascii_case(colour))
            .count()
    }
}

/// Parses `svg` (panics, failing the test, if it is not well-formed XML with an `<svg>` root).
pub(crate) fn summary(svg: &str) -> SvgSummary {
    let doc = Document::parse(svg).unwrap_or_else(|e| panic!("not XML: {e}\n{svg}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let attr = |n: &roxmltree::Node<'_, '_>, a: &str| n.attribute(a).unwrap_or("").to_owned();
    let num = |n: &roxmltree::Node<'_, '_>, a: &str| {
        n.attribute(a).and_then(|v| v.parse().ok()).unwrap_or(0.0)
    };
    let mut s = SvgSummary {
        texts: Vec::new(),
        polylines: Vec::new(),
        circles: Vec::new(),
        rects: Vec::new(),
        lines: Vec::new(),
        polygons: Vec::new(),
    };
    for n in doc.descendants().filter(roxmltree::Node::is_element) {
        match n.tag_name().name() {
            "text" => s.texts.push(n.text().unwrap_or("").trim().to_owned()),
            "polyline" => s.polylines.push((
                attr(&n, "stroke"),
                attr(&n, "points")
                    .split_whitespace()
                    .filter_map(|xy| {
                        let (x, y) = xy.split_once(',')?;
                        Some((x.parse().ok()?, y.parse().ok()?))
                    })
                    .collect(),
            )),
            "circle" => s.circles.push(attr(&n, "fill")),
            "polygon" => s.polygons.push(attr(&n, "fill")),
            "rect" => s
                .rects
                .push((attr(&n, "fill"), num(&n, "width"), num(&n, "height"))),
            "line" if attr(&n, "opacity") == "1" => s.lines.push(attr(&n, "stroke")),
            _ => {}
        }
    }
    s
}
