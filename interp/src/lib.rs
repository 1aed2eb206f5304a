//! rulebook-interp: the second backend. It runs any folder of rules straight from the compiler's
//! checked IR, with the same runtime (dice, traces, exact odds, simulation) and the same output,
//! byte for byte, as the Rust that `codegen` generates from the same text. Rules editors use it
//! through `rulebook ... --rules DIR`; applications load house rules with [`Rules::load`].
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod eval;
mod lower;
mod registry;
mod value;

use rulebook_compiler::diag::Diagnostic;
use rulebook_compiler::{check::SourceFile, driver, ir};
use rulebook_runtime as rt;
use std::fmt;
use std::path::Path;

/// Rule systems loaded at run time, registered exactly as compiled ones are.
///
/// Each load keeps its rules for the rest of the program (the registry hands out `'static`
/// references, as compiled code does), so load a folder once and keep the `Rules`.
#[derive(Debug, Clone)]
pub struct Rules {
    program: &'static ir::Program,
    /// The text the program was checked from (for showing the lines two versions differ in).
    sources: Vec<SourceFile>,
    systems: Vec<&'static rt::SystemInfo>,
    /// Warnings the check found (errors refuse the load).
    pub warnings: usize,
}

/// Why a rules folder could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The folder or a file could not be read.
    Io(Vec<String>),
    /// The rules have errors: every diagnostic, rendered (`file:line:col`, the line, a caret, help).
    Rules {
        rendered: String,
        errors: usize,
        diagnostics: Vec<Diagnostic>,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(problems) => f.write_str(&problems.join("\n")),
            LoadError::Rules { rendered, errors, .. } => {
                write!(f, "{rendered}the rules have {errors} error(s)")
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl Rules {
    /// Parses and checks every `<dir>/<system>/*.rules` file, then registers each system for the
    /// interpreter. Any error in the rules refuses the whole folder.
    pub fn load(dir: &Path) -> Result<Rules, LoadError> {
        let compiled = driver::check_dir(dir).map_err(LoadError::Io)?;
        Self::from_compiled(compiled)
    }

    /// The same, for sources already in memory (tests, editors, a web page).
    pub fn from_sources(sources: Vec<SourceFile>) -> Result<Rules, LoadError> {
        Self::from_compiled(driver::compile_sources(sources))
    }

    fn from_compiled(compiled: driver::Compiled) -> Result<Rules, LoadError> {
        let warnings = compiled.warnings();
        match compiled.program {
            Some(program) => Ok(Rules::from_program(program, compiled.sources, warnings)),
            None => Err(LoadError::Rules {
                rendered: compiled.render(),
                errors: compiled.errors(),
                diagnostics: compiled.diagnostics,
            }),
        }
    }

    fn from_program(program: ir::Program, sources: Vec<SourceFile>, warnings: usize) -> Rules {
        let program: &'static ir::Program = Box::leak(Box::new(program));
        Rules {
            program,
            sources,
            systems: program.systems.iter().map(registry::system_info).collect(),
            warnings,
        }
    }

    /// The checked program (for comparing two versions of the rules table by table).
    pub fn program(&self) -> &'static ir::Program {
        self.program
    }

    /// The rules text the program was checked from.
    pub fn sources(&self) -> &[SourceFile] {
        &self.sources
    }

    /// Every loaded system, in the order of their folders.
    pub fn systems(&self) -> &[&'static rt::SystemInfo] {
        &self.systems
    }
}
