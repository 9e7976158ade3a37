//! The page's files, built into the binary: nothing is read from disk or fetched at run
//! time, and no other path is served.

/// The embedded files: URL path, content type, bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_bytes!("../../assets/serve/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../assets/serve/app.js"),
    ),
    (
        "/board.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../assets/serve/board.js"),
    ),
    (
        "/data.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../assets/serve/data.js"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_bytes!("../../assets/serve/style.css"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_bytes!("../../assets/serve/favicon.svg"),
    ),
    // DejaVu Sans has the chess glyphs the board draws its pieces with.
    (
        "/pieces.ttf",
        "font/ttf",
        include_bytes!("../../assets/fonts/DejaVuSans.ttf"),
    ),
];

/// The content type and bytes of the asset at `path` (`/index.html` is `/`).
pub fn get(path: &str) -> Option<(&'static str, &'static [u8])> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|&(_, t, b)| (t, b))
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_embedded_files() {
        assert!(super::get("/").unwrap().0.starts_with("text/html"));
        assert!(super::get("/index.html").is_some());
        assert!(super::get("/app.js").is_some());
        for bad in ["/../Cargo.toml", "/etc/passwd", "/app.js/", "//app.js", ""] {
            assert!(super::get(bad).is_none(), "{bad}");
        }
    }
}
