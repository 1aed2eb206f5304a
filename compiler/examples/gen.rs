//! Prints the Rust generated for one rules file (a debugging aid): `cargo run -p rulebook-compiler --example gen -- FILE`.
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let src = rulebook_compiler::check::SourceFile {
        path: path.clone(),
        text,
        system: "corpus".into(),
    };
    let c = rulebook_compiler::driver::compile_sources(vec![src]);
    print!("{}", c.render());
    if let Some(p) = &c.program {
        println!("{}", rulebook_compiler::codegen::generate_unformatted(p));
    }
}
