//! The repository stands alone: no tracked file refers to a path outside it. A clone has nothing
//! beside it that the code, the tests, the scripts or the documentation may rely on, while a CI
//! runner or a developer's machine may well have folders there that would hide such a reference.
//!
//! Every tracked text file (`git ls-files`; without git, the files under the repository root
//! except build output and the folders `.gitignore` names) is scanned for relative paths that go
//! up a folder (a `..` component) and for absolute paths into the development machine's work
//! folder. A relative path passes when, resolved from the file's own folder, it stays inside the
//! repository and names a file or folder of it (or build output under a `target` folder). It also
//! passes when what follows its leading `..` components names a file or folder of the repository:
//! an example of a file meant to sit in another folder, or a command run from a subfolder
//! (`cd runs` and then a path into the folder above). A path that names nothing in the repository
//! either way fails, with its file and line.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The absolute path prefix of the development machine's work folder, built so that this file
/// does not contain it.
fn machine_prefix() -> String {
    ["/", "work", "/"].concat()
}

/// Files of the repository, relative to its root with `/` separators: the tracked ones when git
/// answers, else every file under the root but build output and ignored root folders.
fn repository_files(root: &Path) -> Vec<String> {
    let git = Command::new("git").args(["ls-files", "-z"]).current_dir(root).output();
    match git {
        Ok(o) if o.status.success() && root.join(".git").exists() => {
            String::from_utf8_lossy(&o.stdout).split('\0').filter(|f| !f.is_empty()).map(str::to_string).collect()
        }
        _ => {
            let ignored: Vec<String> = std::fs::read_to_string(root.join(".gitignore"))
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.trim().strip_prefix('/'))
                .filter(|l| !l.is_empty() && !l.contains(['*', '?', '[']))
                .map(|l| l.trim_end_matches('/').to_string())
                .collect();
            let mut files = Vec::new();
            walk(root, "", &ignored, &mut files);
            files
        }
    }
}

fn walk(dir: &Path, prefix: &str, ignored: &[String], files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            if name == ".git" || name == "target" || ignored.contains(&rel) {
                continue;
            }
            walk(&entry.path(), &rel, ignored, files);
        } else if kind.is_file() {
            files.push(rel);
        }
    }
}

/// The files of the repository and every folder that holds one.
struct Repository {
    paths: BTreeSet<String>,
}

impl Repository {
    fn new(files: &[String]) -> Self {
        let mut paths = BTreeSet::new();
        for f in files {
            let mut end = f.len();
            paths.insert(f.clone());
            while let Some(slash) = f[..end].rfind('/') {
                paths.insert(f[..slash].to_string());
                end = slash;
            }
        }
        Repository { paths }
    }

    fn has(&self, path: &str) -> bool {
        path.is_empty() || self.paths.contains(path)
    }

    /// Whether some file or folder of the repository ends with `tail` (whole components).
    fn has_tail(&self, tail: &str) -> bool {
        let suffix = format!("/{tail}");
        self.paths.iter().any(|p| p == tail || p.ends_with(&suffix))
    }
}

/// Build output: a path with a `target` component (cargo's folder, absent from a clone).
fn is_build_output(path: &str) -> bool {
    path.split('/').any(|c| c == "target")
}

/// `path` resolved from folder `dir` (both relative to the root), or None when it goes above
/// the root.
fn resolve(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')
}

/// The runs of path characters in `line` with a `/` and a `..` component, each with the
/// character before it.
fn upward_paths(line: &str) -> Vec<(Option<char>, String)> {
    let mut out = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let inside = is_path_char(c);
        if inside && start.is_none() {
            start = Some((k, i));
        }
        let last = k + 1 == chars.len();
        if let Some((sk, si)) = start {
            if !inside || last {
                let end = if inside { line.len() } else { i };
                let token = &line[si..end];
                // A lone `..` (a Rust rest pattern, prose) names no path: a path has a `/` too.
                if token.contains('/') && token.split('/').any(|c| c == "..") {
                    let before = if sk == 0 { None } else { Some(chars[sk - 1].1) };
                    out.push((before, token.to_string()));
                }
                start = None;
            }
        }
    }
    out
}

/// What is wrong with `token`, a path going up a folder found in file `file`; None when it names
/// a file or folder of the repository.
fn upward_path_problem(repo: &Repository, file: &str, before: Option<char>, token: &str) -> Option<String> {
    // A URL's path is not the file system's.
    if before == Some(':') || token.starts_with("//") {
        return None;
    }
    // A path after a placeholder (`{}` in a format string, a shell variable) starts with `/`:
    // the folder it goes up from is taken as the file's own.
    let path = token.strip_prefix('/').unwrap_or(token);
    // A full stop after a path ends the sentence, not the path.
    let path = if path.ends_with('.') && !path.ends_with("..") { &path[..path.len() - 1] } else { path };
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    match resolve(dir, path) {
        Some(p) if repo.has(&p) || is_build_output(&p) => return None,
        _ => {}
    }
    let mut tail = path;
    while let Some(rest) = tail.strip_prefix("../").or_else(|| tail.strip_prefix("./")) {
        tail = rest;
    }
    let tail = tail.trim_end_matches('/');
    if tail.is_empty() || tail == ".." {
        return match resolve(dir, path) {
            Some(_) => None,
            None => Some("goes above the repository root".into()),
        };
    }
    match resolve("", tail) {
        Some(t) if !t.is_empty() && (repo.has_tail(&t) || is_build_output(&t)) => None,
        _ => Some(match resolve(dir, path) {
            None => "goes above the repository root and names nothing in the repository".into(),
            Some(p) => format!("names nothing in the repository (from {}: {p})", if dir.is_empty() { "the root" } else { dir }),
        }),
    }
}

/// Every reference to a path outside the repository in `text`, the content of `file`:
/// "file:line: path: why".
fn problems(repo: &Repository, file: &str, text: &str) -> Vec<String> {
    let machine = machine_prefix();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (before, token) in upward_paths(line) {
            if let Some(why) = upward_path_problem(repo, file, before, &token) {
                out.push(format!("{file}:{}: {token}: {why}", n + 1));
            }
        }
        for (i, _) in line.match_indices(&machine) {
            if !line[..i].chars().next_back().is_some_and(is_path_char) {
                let end = line[i..].find(|c: char| !is_path_char(c)).map_or(line.len(), |e| i + e);
                out.push(format!("{file}:{}: {}: an absolute path on the development machine", n + 1, &line[i..end]));
            }
        }
    }
    out
}

#[test]
fn no_tracked_file_refers_to_a_path_outside_the_repository() {
    let root = Path::new(ROOT);
    let files = repository_files(root);
    assert!(files.iter().any(|f| f == "Cargo.toml"), "the file list lacks Cargo.toml: {} files", files.len());
    let repo = Repository::new(&files);
    let mut found = Vec::new();
    let mut scanned = 0;
    for file in &files {
        let Ok(bytes) = std::fs::read(root.join(file)) else { continue };
        // Binary files (pictures, archives) are not text: skipped.
        let Ok(text) = String::from_utf8(bytes) else { continue };
        scanned += 1;
        found.extend(problems(&repo, file, &text));
    }
    assert!(scanned > 10, "only {scanned} text files scanned");
    assert!(found.is_empty(), "{} references to paths outside the repository:\n{}", found.len(), found.join("\n"));
}

/// The scan itself, on made-up files: paths into the repository pass, paths beside or above it
/// fail. The forbidden examples are assembled at run time so that this file holds none.
#[test]
fn the_scan_tells_paths_inside_from_paths_outside() {
    let files: Vec<String> =
        ["Cargo.toml", "src/gpu/mod.rs", "cuda/arena.cuh", "tests/common/mod.rs", "tests/gpu_parity/main.rs", "blades/ls89.ron", "benchmarks/bbob/peers.py", "data/ls89/gas.csv"]
            .map(String::from)
            .to_vec();
    let repo = Repository::new(&files);
    let up = "..";
    let check = |file: &str, line: &str| problems(&repo, file, line);

    // Inside the repository.
    assert!(check("src/gpu/mod.rs", &format!("include_str!(\"{up}/{up}/cuda/arena.cuh\"),")).is_empty());
    assert!(check("tests/gpu_parity/main.rs", &format!("#[path = \"{up}/common/mod.rs\"]")).is_empty());
    assert!(check("benchmarks/bbob/Cargo.toml", &format!("turbopt = {{ path = \"{up}/{up}\" }}")).is_empty());
    assert!(check("scripts/x", &format!("cd \"$(dirname \"$0\")/{up}\"")).is_empty());
    // A command run from a subfolder, an example of a file in another folder, build output.
    assert!(check("benchmarks/bbob/README.md", &format!("python3 {up}/peers.py --solver scipy-de")).is_empty());
    assert!(check("src/eval/cfd_config.rs", &format!("//!     blade: \"{up}/blades/ls89.ron\",")).is_empty());
    assert!(check("benchmarks/bbob/README.md", &format!("{up}/target/release/turbopt-bbob --optimizer jde")).is_empty());
    // Not paths: ranges, ellipses, URLs.
    assert!(check("src/a.rs", "for k in 0..n { v[..k].len(); } // LOG=.../evaluations.jsonl").is_empty());
    assert!(check("README.md", "`DeSettings::variant(Variant::Jde, ..)`; `Point { x: 1.0, ..p }`").is_empty());
    assert!(check("README.md", &format!("see https://example.org/a/{up}/b")).is_empty());

    // Beside the repository: from the root, from a subfolder, after a placeholder folder.
    let beside = format!("{up}/shared/DESIGN.md");
    assert_eq!(check("src/lib.rs", &format!("//! See README.md and {beside} for the layout")).len(), 1);
    assert_eq!(check("README.md", &format!("--compare {up}/shared/data/ls89/gas.csv")).len(), 1);
    let placeholder = format!("let path = format!(\"{{}}/{up}/shared/data/ls89/gas.csv\", env!(\"CARGO_MANIFEST_DIR\"));");
    assert_eq!(check("tests/geometry_ls89.rs", &placeholder).len(), 1);
    assert_eq!(check("scripts/x", &format!("cp {up}/shared/data/ls89/gas.csv .gpu/data/ && {up}/shared/tools/gpu-stage")).len(), 2);
    // Above the root.
    let above = check("README.md", &format!("cd {up}/{up}"));
    assert!(above.len() == 1 && above[0].contains("above the repository root"), "{above:?}");
    // The development machine's folders.
    let machine = check("scripts/x", &format!("cp {}shared/data/a.csv .", machine_prefix()));
    assert!(machine.len() == 1 && machine[0].starts_with("scripts/x:1:"), "{machine:?}");
}
