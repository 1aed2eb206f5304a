//! `rulebook-wasm-bindgen --out-dir DIR FILE.wasm`: what `wasm-bindgen --target web --out-dir
//! DIR FILE.wasm` does, and nothing else. It writes the JavaScript glue of `rulebook-wasm`
//! (`NAME.js`, `NAME.d.ts`, `NAME_bg.wasm`, `NAME_bg.wasm.d.ts`) with wasm-bindgen's own library,
//! `wasm-bindgen-cli-support`, pinned to the `wasm-bindgen` version of the root Cargo.lock, so
//! `wasm/build.sh` needs no `cargo install wasm-bindgen-cli`.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: rulebook-wasm-bindgen --out-dir DIR FILE.wasm
       rulebook-wasm-bindgen --version

Writes the JavaScript glue of FILE.wasm into DIR as `wasm-bindgen --target web` does: an ES
module NAME.js with its TypeScript types NAME.d.ts, and NAME_bg.wasm (NAME is FILE's name).";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Generate { input: PathBuf, out_dir: PathBuf },
    Version,
    Help,
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match parse(args) {
        Ok(Command::Help) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Command::Version) => {
            println!("rulebook-wasm-bindgen {}", wasm_bindgen_shared::version());
            ExitCode::SUCCESS
        }
        Ok(Command::Generate { input, out_dir }) => match generate(&input, &out_dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("rulebook-wasm-bindgen: {message}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("rulebook-wasm-bindgen: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Reads the arguments: `--out-dir DIR` (or `--out-dir=DIR`) and one input file, in any order.
/// `--target web` is accepted too, so the line reads as wasm-bindgen's.
fn parse(args: Vec<OsString>) -> Result<Command, String> {
    let mut input: Option<PathBuf> = None;
    let mut out_dir: Option<PathBuf> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_str();
        match text {
            Some("--version" | "-V") => return Ok(Command::Version),
            Some("--help" | "-h") => return Ok(Command::Help),
            Some("--out-dir") => match args.next() {
                Some(dir) => out_dir = Some(dir.into()),
                None => return Err("--out-dir needs a folder".into()),
            },
            Some(t) if t.starts_with("--out-dir=") => out_dir = Some(t["--out-dir=".len()..].into()),
            Some("--target") => match args.next().as_deref().and_then(|t| t.to_str()) {
                Some("web") => {}
                Some(other) => return Err(format!("only `--target web` is supported, not `{other}`")),
                None => return Err("--target needs a value (web)".into()),
            },
            Some("--target=web") => {}
            Some(t) if t.starts_with('-') => return Err(format!("unknown option `{t}`")),
            _ => {
                if let Some(first) = &input {
                    return Err(format!(
                        "one input file only: `{}` and `{}`",
                        first.display(),
                        PathBuf::from(&arg).display()
                    ));
                }
                input = Some(arg.into());
            }
        }
    }
    match (input, out_dir) {
        (Some(input), Some(out_dir)) => Ok(Command::Generate { input, out_dir }),
        (None, _) => Err("no input file (FILE.wasm)".into()),
        (_, None) => Err("no output folder (--out-dir DIR)".into()),
    }
}

/// `wasm-bindgen --target web --out-dir OUT_DIR INPUT`, with the command line's defaults where
/// the library's differ (TypeScript types on, the default module path kept).
fn generate(input: &std::path::Path, out_dir: &std::path::Path) -> Result<(), String> {
    // The library names the output after the input's stem and would panic on a path without a
    // readable one: refuse it here, and name the output explicitly.
    let name = match input.file_stem().map(|s| s.to_str()) {
        Some(Some(name)) if !name.is_empty() => name.to_string(),
        _ => return Err(format!("`{}` is not a file name like NAME.wasm", input.display())),
    };
    if !input.is_file() {
        return Err(format!("no file `{}` (build the package first: wasm/build.sh)", input.display()));
    }
    // The library would say so with a dump of the first bytes.
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(input).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
    if read.is_err() || magic != *b"\0asm" {
        return Err(format!(
            "`{}` is not WebAssembly (a .wasm file starts with `\\0asm`)",
            input.display()
        ));
    }
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    bindgen.web(true).map_err(|e| format!("{e:#}"))?;
    bindgen
        .input_path(input)
        .out_name(&name)
        .typescript(true)
        .omit_default_module_path(false);
    bindgen.generate(out_dir).map_err(|e| {
        format!(
            "cannot generate the JavaScript glue of `{}` into `{}`: {e:#}",
            input.display(),
            out_dir.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_args(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from).collect())
    }

    #[test]
    fn reads_the_wasm_bindgen_command_line() {
        let generate = |input: &str, out: &str| {
            Ok(Command::Generate {
                input: input.into(),
                out_dir: out.into(),
            })
        };
        assert_eq!(
            parse_args(&["--target", "web", "--out-dir", "web/pkg", "a.wasm"]),
            generate("a.wasm", "web/pkg")
        );
        assert_eq!(parse_args(&["a.wasm", "--out-dir=out"]), generate("a.wasm", "out"));
        assert_eq!(parse_args(&["--version"]), Ok(Command::Version));
        assert_eq!(parse_args(&["-h"]), Ok(Command::Help));
    }

    #[test]
    fn refuses_what_it_does_not_do() {
        let refused = |args: &[&str], message: &str| assert_eq!(parse_args(args), Err(message.to_string()), "{args:?}");
        refused(
            &["--target", "nodejs", "--out-dir", "o", "a.wasm"],
            "only `--target web` is supported, not `nodejs`",
        );
        refused(&["--out-dir", "o"], "no input file (FILE.wasm)");
        refused(&["a.wasm"], "no output folder (--out-dir DIR)");
        refused(&["--out-dir"], "--out-dir needs a folder");
        refused(
            &["--out-dir", "o", "a.wasm", "b.wasm"],
            "one input file only: `a.wasm` and `b.wasm`",
        );
        refused(&["--debug", "a.wasm"], "unknown option `--debug`");
    }

    #[test]
    fn a_missing_input_is_a_message_not_a_panic() {
        let out = std::env::temp_dir().join("rulebook-wasm-bindgen-test");
        let e = generate(std::path::Path::new("no/such/file.wasm"), &out).unwrap_err();
        assert_eq!(e, "no file `no/such/file.wasm` (build the package first: wasm/build.sh)");
        let e = generate(std::path::Path::new(".."), &out).unwrap_err();
        assert_eq!(e, "`..` is not a file name like NAME.wasm");
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let e = generate(&manifest, &out).unwrap_err();
        assert_eq!(
            e,
            format!("`{}` is not WebAssembly (a .wasm file starts with `\\0asm`)", manifest.display())
        );
        // WebAssembly the library cannot read: its own reason.
        let broken = std::env::temp_dir().join(format!("rulebook-wasm-bindgen-test-{}.wasm", std::process::id()));
        std::fs::write(&broken, b"\0asm\x01\0\0\0broken").unwrap();
        let e = generate(&broken, &out).unwrap_err();
        let _ = std::fs::remove_file(&broken);
        assert!(e.starts_with("cannot generate the JavaScript glue of `"), "{e}");
        assert!(!out.exists(), "nothing written for a failed input");
    }
}
