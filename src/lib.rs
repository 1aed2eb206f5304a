//! rulebook: tabletop combat rules compiled from `rules-src/` into typed, exact, explainable resolvers.
//!
//! Each rule system is a module (`rulebook::starleader`, ...) of generated code: enums, table
//! statics and resolver functions generic over the dice source and the trace sink. [`SYSTEMS`]
//! lists them all for dynamic use (the CLI).
#![forbid(unsafe_code)]

pub use rulebook_runtime as runtime;

include!(concat!(env!("OUT_DIR"), "/rules.rs"));
