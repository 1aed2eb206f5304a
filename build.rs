//! Build-script shim: compiles `rules-src/` into `$OUT_DIR/rules.rs` with `rulebook-compiler`.
//! All logic lives in the compiler crate; on any rules error the build fails with the diagnostics.

fn main() {
    let root = std::path::Path::new("rules-src");
    let out = std::path::Path::new(&std::env::var_os("OUT_DIR").unwrap_or_default()).join("rules.rs");
    let (read, result) = rulebook_compiler::driver::build(root, &out);
    println!("cargo::rerun-if-changed=build.rs");
    for path in read {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    if let Err(rendered) = result {
        eprintln!("{rendered}");
        std::process::exit(1);
    }
}
