//! The layering check inside each crate of the workspace (between crates the compiler
//! enforces it: a crate cannot use one that depends on it). Every `crate::MODULE` path in
//! a module's files (code and doc links alike) names a module before it in its crate's
//! `LAYERS`, and no files of one module import each other in a circle. It reads the
//! sources, so it holds for code that is not compiled in a given build too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each crate's sources and its modules in order. The binary's `serve` comes before
/// `cli`, which may use anything.
const CRATES: &[(&str, &[&str])] = &[
    ("crates/core/src", chessgraph_core::LAYERS),
    #[cfg(feature = "cnn")]
    ("crates/cnn/src", chessgraph_cnn::LAYERS),
    ("crates/engine/src", chessgraph_engine::LAYERS),
    ("crates/store/src", chessgraph_store::LAYERS),
    ("crates/arrow/src", chessgraph_arrow::LAYERS),
    ("crates/learn/src", chessgraph_learn::LAYERS),
    ("crates/lab/src", chessgraph_lab::LAYERS),
    ("src", &["serve", "cli"]),
];

fn root() -> PathBuf {
    chessgraph_testkit::repo_root()
}

/// Every `.rs` file of module `name` of the crate in `src` (its file, or its folder), with
/// paths relative to the module's folder, and whether it is a single file at the crate's
/// top (where `super::` names the crate's root).
fn files(src: &str, name: &str) -> (Vec<(String, String)>, bool) {
    let root = root().join(src);
    let single = root.join(format!("{name}.rs"));
    let mut out = Vec::new();
    if single.exists() {
        out.push(("mod.rs".into(), std::fs::read_to_string(&single).unwrap()));
    }
    let mut stack = vec![root.join(name)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root.join(name)).unwrap();
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((rel.to_string_lossy().into_owned(), text));
            }
        }
    }
    out.sort();
    (out, single.exists())
}

/// The names after each `prefix` (`crate::`) in `text`, `crate::{a, b::c}` groups
/// included.
fn paths_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        // `$crate::` in macros and `chessgraph_crate::`-like names are not paths here.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':') {
            continue;
        }
        let ident = |s: &str| -> String {
            s.trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            found.extend(group[..end].split(',').map(ident).filter(|n| !n.is_empty()));
        } else {
            found.insert(ident(rest));
        }
    }
    found
}

#[test]
fn every_module_is_in_the_declared_order() {
    for (src, layers) in CRATES {
        let face = if *src == "src" { "main.rs" } else { "lib.rs" };
        let lib = std::fs::read_to_string(root().join(src).join(face)).unwrap();
        let declared: BTreeSet<&str> = lib
            .lines()
            .filter_map(|l| l.strip_prefix("pub mod ").or(l.strip_prefix("mod ")))
            .map(|l| l.trim_end_matches(';'))
            .filter(|m| !m.starts_with("tests"))
            .collect();
        let listed: BTreeSet<&str> = layers.iter().copied().collect();
        assert_eq!(
            declared, listed,
            "{src}/{face}'s modules and its LAYERS differ"
        );
        assert_eq!(
            listed.len(),
            layers.len(),
            "{src}: a module twice in LAYERS"
        );
    }
}

#[test]
fn no_module_uses_a_later_one() {
    let mut wrong = Vec::new();
    for (src, layers) in CRATES {
        for (rank, name) in layers.iter().enumerate() {
            let (files, top) = files(src, name);
            for (file, text) in files {
                let mut used = paths_after(&text, "crate::");
                if top && file == "mod.rs" {
                    used.extend(paths_after(&text, "super::"));
                }
                for used in used {
                    // `Error` and `Result` are the error module's; other names that are not
                    // modules are the crate root's own items (`lib.rs`), which any module
                    // may use.
                    let used = match used.as_str() {
                        "Error" | "Result" if layers.contains(&"error") => "error".to_owned(),
                        _ => used,
                    };
                    if used == *name {
                        continue;
                    }
                    if let Some(r) = layers.iter().position(|m| *m == used)
                        && r > rank
                    {
                        wrong.push(format!(
                            "{src}/{name}/{file} uses crate::{used}, a later module"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the order:\n{}",
        wrong.join("\n")
    );
}

/// The sibling files `file` (of module `name`) imports: `super::x`, `self::x` from a
/// `mod.rs`, or `crate::name::x`, where `x` is a file of the same folder.
fn sibling_imports(name: &str, file: &str, text: &str, all: &BTreeSet<String>) -> Vec<String> {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let is_mod = file.ends_with("mod.rs");
    let mut out = Vec::new();
    let full = format!("crate::{name}::");
    for (prefix, base) in [
        ("super::", if is_mod { None } else { Some(dir) }),
        (full.as_str(), Some(Path::new(""))),
    ] {
        let Some(base) = base else { continue };
        let mut rest = text;
        while let Some(at) = rest.find(prefix) {
            rest = &rest[at + prefix.len()..];
            let names: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                group[..end]
                    .split(',')
                    .map(|i| {
                        i.trim()
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect()
                    })
                    .collect()
            } else {
                vec![
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect(),
                ]
            };
            for n in names {
                for candidate in [base.join(format!("{n}.rs")), base.join(&n).join("mod.rs")] {
                    let c = candidate.to_string_lossy().into_owned();
                    if all.contains(&c) && c != file && !c.ends_with("mod.rs") {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let mut circles = Vec::new();
    for (src, layers) in CRATES {
        for name in *layers {
            let (files, _) = files(src, name);
            let all: BTreeSet<String> = files.iter().map(|(f, _)| f.clone()).collect();
            // A folder's mod.rs is its face: it declares and hands on its files' names.
            // Tests may share helpers both ways: only the code before `#[cfg(test)]` counts.
            let edges: BTreeMap<String, Vec<String>> = files
                .iter()
                .filter(|(f, _)| !f.ends_with("mod.rs"))
                .map(|(f, t)| {
                    let code = t.split("#[cfg(test)]").next().unwrap_or("");
                    (f.clone(), sibling_imports(name, f, code, &all))
                })
                .collect();
            // Depth-first search for a back edge.
            fn visit(
                f: &str,
                edges: &BTreeMap<String, Vec<String>>,
                state: &mut BTreeMap<String, u8>,
                path: &mut Vec<String>,
                found: &mut Vec<String>,
            ) {
                state.insert(f.to_owned(), 1);
                path.push(f.to_owned());
                for g in edges.get(f).into_iter().flatten() {
                    match state.get(g).copied().unwrap_or(0) {
                        0 => visit(g, edges, state, path, found),
                        1 => {
                            let start = path.iter().position(|p| p == g).unwrap();
                            found.push(format!("{} -> {g}", path[start..].join(" -> ")));
                        }
                        _ => {}
                    }
                }
                path.pop();
                state.insert(f.to_owned(), 2);
            }
            let mut state = BTreeMap::new();
            for f in edges.keys() {
                if !state.contains_key(f) {
                    let mut found = Vec::new();
                    visit(f, &edges, &mut state, &mut Vec::new(), &mut found);
                    circles.extend(found.into_iter().map(|c| format!("{src}/{name}: {c}")));
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "files in a circle:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_check_sees_paths_and_groups() {
    let text = "use crate::{chess::fen, data::Row};\nlet x = crate::search::Searcher::new();\n$crate::util; other_crate::x; ::crate::y";
    let found: Vec<String> = paths_after(text, "crate::").into_iter().collect();
    assert_eq!(found, ["chess", "data", "search"]);
}
