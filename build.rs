//! Build-script shim: compiles `rules-src/` into `$OUT_DIR/rules.rs` with `rulebook-compiler`.
//! All logic lives in the compiler crate (`driver::build_script`); on any rules error the build
//! fails with the diagnostics, and nothing else, as cargo's report.

fn main() {
    let root = std::path::Path::new("rules-src");
    let out = std::path::Path::new(&std::env::var_os("OUT_DIR").unwrap_or_default()).join("rules.rs");
    let shown = rulebook_compiler::driver::build_script(root, &out);
    print!("{}", shown.stdout);
    eprint!("{}", shown.stderr);
    if !shown.ok {
        std::process::exit(1);
    }
}
