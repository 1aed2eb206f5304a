//! Compiles the benchmark fixtures (`benches/fixtures/`, the RISK attack) into
//! `$OUT_DIR/fixtures.rs` with `rulebook-compiler`, as the root's build.rs compiles `rules-src/`.

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let out = std::path::Path::new(&std::env::var_os("OUT_DIR").unwrap_or_default()).join("fixtures.rs");
    let shown = rulebook_compiler::driver::build_script(&root, &out);
    print!("{}", shown.stdout);
    eprint!("{}", shown.stderr);
    if !shown.ok {
        std::process::exit(1);
    }
}
