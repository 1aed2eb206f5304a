//! Helpers the fuzz targets share: fuzz bytes as rules sources (several files in one input,
//! separated by `//== SYSTEM/FILE.rules` lines, a comment to the rules language), as a source of
//! choices for the rules generator and random inputs (`tests/rulegen/`, included from the main
//! crate's tests), and as `--set` pairs plus YAML.
#![forbid(unsafe_code)]

#[path = "../../tests/rulegen/mod.rs"]
pub mod rulegen;

use rulebook_compiler::check::SourceFile;
use rulebook_runtime as rt;
use std::sync::OnceLock;

/// The built-in rules (`rules-src/`) loaded into the interpreter, once per process.
pub fn interpreted() -> &'static [&'static rt::SystemInfo] {
    static RULES: OnceLock<rulebook_interp::Rules> = OnceLock::new();
    RULES
        .get_or_init(|| {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules-src");
            rulebook_interp::Rules::load(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        })
        .systems()
}

/// The compiled built-in rules, when this build has them (feature `compiled`, on by default).
pub fn compiled() -> Option<&'static [&'static rt::SystemInfo]> {
    #[cfg(feature = "compiled")]
    return Some(rulebook::SYSTEMS);
    #[cfg(not(feature = "compiled"))]
    return None;
}

/// The line that starts a new file inside one fuzz input.
pub const FILE_MARK: &str = "//== ";

/// The system an unmarked text declares (`system NAME ...`), so seed files check as they would
/// in their own folder; `fuzz` when there is none.
fn declared_system(text: &str) -> String {
    let name = text.split("system ").nth(1).map(|rest| {
        rest.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
    });
    match name {
        Some(n) if !n.is_empty() => n,
        _ => "fuzz".into(),
    }
}

/// Splits a fuzz input into rules files: text before the first `//== PATH` line is one file of
/// the system it declares; each `//== SYSTEM/FILE.rules` line starts a file of that system.
pub fn sources(text: &str) -> Vec<SourceFile> {
    let mut chunks: Vec<(Option<String>, String)> = vec![(None, String::new())];
    for line in text.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix(FILE_MARK) {
            chunks.push((Some(path.trim().to_string()), String::new()));
        } else if let Some(last) = chunks.last_mut() {
            last.1.push_str(line);
        }
    }
    let mut out = Vec::new();
    for (i, (path, text)) in chunks.into_iter().enumerate() {
        let path = match path {
            Some(p) if p.contains('/') && !p.starts_with('/') => p,
            Some(_) => format!("fuzz/file{i}.rules"),
            None if text.trim().is_empty() => continue,
            None => format!("{}/main.rules", declared_system(&text)),
        };
        let system = path.split('/').next().unwrap_or("").to_string();
        out.push(SourceFile {
            path: format!("rules/{path}"),
            text,
            system,
        });
    }
    out
}

/// Fuzz bytes as a source of choices: four bytes per choice, zeros once they run out.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    /// The next eight bytes as a number (a dice seed).
    pub fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        for x in b.iter_mut() {
            *x = self.data.get(self.pos).copied().unwrap_or(0);
            self.pos += 1;
        }
        u64::from_le_bytes(b)
    }
}

impl rulegen::Entropy for Bytes<'_> {
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut b = [0u8; 4];
        for x in b.iter_mut() {
            *x = self.data.get(self.pos).copied().unwrap_or(0);
            self.pos += 1;
        }
        u64::from(u32::from_le_bytes(b)) % n
    }
}

/// A bind input: the first line names the resolver (`system.resolver`), the lines up to a `---`
/// line are `--set NAME=VALUE` arguments (split at the first `=` as the CLI does), and the rest
/// is the `--input` YAML.
pub struct BindCase<'a> {
    pub path: &'a str,
    pub sets: Vec<(String, String)>,
    pub yaml: Option<&'a str>,
}

pub fn bind_case(text: &str) -> BindCase<'_> {
    let (head, yaml) = match text.split_once("\n---\n") {
        Some((h, y)) => (h, Some(y)),
        None => (text, None),
    };
    let mut lines = head.lines();
    let path = lines.next().unwrap_or("").trim();
    let sets = lines
        .filter_map(|l| l.split_once('='))
        .map(|(n, v)| (n.trim().to_string(), v.to_string()))
        .collect();
    BindCase { path, sets, yaml }
}
