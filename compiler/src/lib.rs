//! rulebook-compiler: rules text → checked IR → generated Rust.
//!
//! The pipeline reads as the module list: `parse` (text → AST), `check` (names, types, tables → IR),
//! `codegen` (IR → Rust). `driver` is the only module that touches the file system; `render` turns
//! diagnostics (plain data from `diag`) into text.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod ast;
pub mod changes;
pub mod check;
pub mod codegen;
pub mod diag;
pub mod driver;
pub mod fmt;
pub mod ir;
pub mod parse;
pub mod render;
pub mod syntax;
