//! rulebook: tabletop combat rules compiled from `rules-src/` into typed, exact, explainable resolvers.
//!
//! The front page below is `docs/library.md`; its examples run as doc tests.
#![doc = include_str!("../docs/library.md")]
#![forbid(unsafe_code)]

/// Rules loaded from a folder at run time and run by the interpreter (house rules, editors;
/// feature `interp`).
#[cfg(feature = "interp")]
pub use rulebook_interp::{LoadError, Rules};
pub use rulebook_runtime as runtime;

include!(concat!(env!("OUT_DIR"), "/rules.rs"));

/// The built-in rules text (the `rules-src/` this crate was built from), loaded for the
/// interpreter: the same resolvers as the compiled ones, for comparing against an edited copy
/// (feature `interp`).
#[cfg(feature = "interp")]
pub fn builtin_rules() -> Result<Rules, LoadError> {
    Rules::from_sources(rulebook_compiler::driver::sources_from_pairs("rules-src", RULES_SOURCES))
}
