//! Build-script shim: compiles `rules-src/` into `$OUT_DIR/rules.rs` with `rulebook-compiler`.
//! All logic lives in the compiler crate (`driver::build_script_for`); on any rules error the
//! build fails with the diagnostics, and nothing else, as cargo's report.
//!
//! Each folder of `rules-src/` is compiled when the Cargo feature of the same name is on (all of
//! them by default): `--no-default-features --features starleader` builds one book.

fn main() {
    let root = std::path::Path::new("rules-src");
    let out = std::path::Path::new(&std::env::var_os("OUT_DIR").unwrap_or_default()).join("rules.rs");
    let feature_on = |system: &str| {
        let name = format!("CARGO_FEATURE_{}", system.to_uppercase().replace('-', "_"));
        std::env::var_os(name).is_some()
    };
    let shown = rulebook_compiler::driver::build_script_for(root, &out, &feature_on);
    print!("{}", shown.stdout);
    eprint!("{}", shown.stderr);
    if !shown.ok {
        std::process::exit(1);
    }
}
