//! The library's modules form layers (docs/architecture.md, "layers"): no module imports from a
//! module that imports from it, directly or through others. Checked on the sources themselves:
//! every `crate::a::b` and `super::` path outside comments is an edge from the module that
//! writes it to the module it names, at the top level (`solver` -> `backend`) and one level
//! down (`solver::implicit` -> `solver::config`); the test fails on any cycle and names it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("readable entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The module path of a source file relative to `src/` (`backend/cpu/mod.rs` -> backend::cpu).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The text of `source` without line comments (doc comments included).
fn code_of(source: &str) -> String {
    source.lines().map(|l| l.find("//").map_or(l, |i| &l[..i])).collect::<Vec<_>>().join("\n")
}

/// The module paths `code` (written in `module`) refers to: `crate::a::b...` and `super::...`.
fn references(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (start, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        if start > 0 && code[..start].chars().next_back().is_some_and(|c| ident(c) || c == ':') {
            continue;
        }
        let rest = &code[start..];
        // Each segment's leading identifier; a segment with anything after it ends the path.
        let mut path: Vec<&str> = Vec::new();
        for segment in rest.split("::") {
            let name_len = segment.find(|c: char| !ident(c)).unwrap_or(segment.len());
            if name_len == 0 {
                break;
            }
            path.push(&segment[..name_len]);
            if name_len < segment.len() {
                break;
            }
        }
        let (base, tail) = if path[0] == "crate" {
            (Vec::new(), &path[1..])
        } else {
            let ups = path.iter().take_while(|s| **s == "super").count();
            // `super` of module a::foo is a, whether it lives in a/foo.rs or a/foo/mod.rs.
            let keep = module.len().saturating_sub(ups);
            (module[..keep].to_vec(), &path[ups..])
        };
        let target: Vec<String> = base.into_iter().chain(tail.iter().map(|s| s.to_string())).collect();
        if !target.is_empty() {
            out.push(target);
        }
    }
    out
}

/// Strongly connected components of more than one node (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        found: Vec<Vec<String>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: &str) {
            let n = self.index.len();
            self.index.insert(v.to_string(), n);
            self.low.insert(v.to_string(), n);
            self.stack.push(v.to_string());
            self.on_stack.insert(v.to_string());
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(&w);
                    let done = w == v;
                    component.push(w);
                    if done {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut t = Tarjan { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), found: Vec::new() };
    let nodes: Vec<String> = graph.keys().cloned().collect();
    for v in nodes {
        if !t.index.contains_key(&v) {
            t.visit(&v);
        }
    }
    t.found
}

/// Edges between modules cut to `depth` path components (within one parent at depth 2).
fn module_graph(depth: usize) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources(&src) {
        let relative = file.strip_prefix(&src).expect("under src").to_path_buf();
        // The command line is the binary's own tree, above every library module.
        if relative.starts_with("cli") || relative == Path::new("main.rs") {
            continue;
        }
        let module = module_of(&relative);
        if module.len() < depth {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        let from = module[..depth].join("::");
        for target in references(&module, &code_of(&text)) {
            if target.len() < depth || target[..depth - 1] != module[..depth - 1] {
                continue;
            }
            let to = target[..depth].join("::");
            if to != from {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

#[test]
fn library_modules_form_layers_without_import_cycles() {
    for depth in [1, 2] {
        let found = cycles(&module_graph(depth));
        assert!(found.is_empty(), "import cycles between modules (each group imports from each other, directly or not): {found:?}");
    }
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [("mesh", "report"), ("report", "post"), ("post", "mesh"), ("eval", "mesh")] {
        g.entry(a.into()).or_default().insert(b.into());
    }
    assert_eq!(cycles(&g), vec![vec!["mesh".to_string(), "post".to_string(), "report".to_string()]]);
    let refs = references(&["solver".into(), "implicit".into()], "use super::config::Case; let x = crate::backend::NVAR;");
    assert_eq!(refs, vec![vec!["backend".to_string(), "NVAR".to_string()], vec!["solver".to_string(), "config".to_string(), "Case".to_string()]]);
}
