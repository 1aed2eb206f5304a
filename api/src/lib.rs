//! rulebook-api: the rules as JSON text in, JSON text out, for the packages of other languages
//! (`rulebook-wasm` for JavaScript, `rulebook-python`). A [`api::Registry`] holds the built-in
//! systems (compiled with feature `compiled`, else their text run by the interpreter) or rules
//! given as text; every answer is the document `rulebook ... --json` prints, byte for byte, and
//! every failure the message the command line prints after `error: `.
#![forbid(unsafe_code)]

pub mod api;
pub mod best;
pub mod dice;
pub mod sweep;
