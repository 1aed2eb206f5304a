//! Without the compiled rules (feature `compiled` off), embeds the text of `rules-src/` for the
//! interpreter: `RULES_SOURCES`, as the `rulebook` crate's build script writes it beside the code
//! it generates. With them, writes nothing the crate uses.

use std::path::Path;

fn main() {
    let out = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("rules_sources.rs");
    let mut text = String::from(
        "/// The rules text of `rules-src/`: (path under the rules folder, text).\npub static RULES_SOURCES: &[(&str, &str)] = &[\n",
    );
    if std::env::var_os("CARGO_FEATURE_COMPILED").is_none() {
        let root = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../rules-src");
        println!("cargo::rerun-if-changed={}", root.display());
        let mut files = Vec::new();
        for system in sorted(&root) {
            println!("cargo::rerun-if-changed={}", system.display());
            for file in sorted(&system) {
                if file.extension().is_some_and(|e| e == "rules") {
                    files.push(file);
                }
            }
        }
        for file in files {
            let rel = file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
            println!("cargo::rerun-if-changed={}", file.display());
            text.push_str(&format!("    ({rel:?}, include_str!({:?})),\n", file.display().to_string()));
        }
    }
    text.push_str("];\n");
    if std::fs::read_to_string(&out).ok().as_deref() != Some(text.as_str()) {
        if let Err(e) = std::fs::write(&out, text) {
            println!("cargo::error=cannot write {}: {e}", out.display());
        }
    }
}

/// The entries of a folder, sorted by name (none when it cannot be read).
fn sorted(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    entries.sort();
    entries
}
