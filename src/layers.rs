//! The layering check: every `crate::MODULE` path in a module's files (code and doc links
//! alike) names a module before it in [`crate::LAYERS`], and no files of one module
//! import each other in a circle. It reads the sources, so it holds for code that is not
//! compiled in a given build too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::LAYERS;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of module `name` (its file, or its folder), with paths relative to
/// the module's folder.
fn files(name: &str) -> Vec<(String, String)> {
    let root = src();
    let single = root.join(format!("{name}.rs"));
    if single.exists() {
        return vec![("mod.rs".into(), std::fs::read_to_string(single).unwrap())];
    }
    let mut out = Vec::new();
    let mut stack = vec![root.join(name)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
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
    out
}

/// The module names after each `crate::` in `text`, `crate::{a, b::c}` groups included.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `$crate::` in macros and `chessgraph_crate::`-like names are not paths here.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

#[test]
fn every_module_is_in_the_declared_order() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    let listed: BTreeSet<&str> = LAYERS.iter().copied().collect();
    assert_eq!(declared, listed, "lib.rs's modules and LAYERS differ");
    assert_eq!(listed.len(), LAYERS.len(), "a module twice in LAYERS");
}

#[test]
fn no_module_uses_a_later_one() {
    let mut wrong = Vec::new();
    for (rank, name) in LAYERS.iter().enumerate() {
        for (file, text) in files(name) {
            for used in crate_paths(&text) {
                // `crate::Error` / `crate::Result` are the error module's re-exports.
                let used = match used.as_str() {
                    "Error" | "Result" => "error".to_owned(),
                    "LAYERS" => continue,
                    _ => used,
                };
                if used == *name {
                    continue;
                }
                match LAYERS.iter().position(|m| *m == used) {
                    Some(r) if r < rank => {}
                    Some(_) => {
                        wrong.push(format!("{name}/{file} uses crate::{used}, a later module"))
                    }
                    None => wrong.push(format!("{name}/{file}: crate::{used} is not a module")),
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
    for name in LAYERS {
        let files = files(name);
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
                circles.extend(found.into_iter().map(|c| format!("{name}: {c}")));
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
    let text = "use crate::{chess::fen, data::Row};\nlet x = crate::search::Searcher::new();\n$crate::util";
    let found: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(found, ["chess", "data", "search"]);
}
