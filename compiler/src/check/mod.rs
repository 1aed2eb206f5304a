//! AST → IR: resolves names, checks types, bounds integer arithmetic, validates tables, and lowers
//! resolvers into typed statements. Every problem becomes a diagnostic; checking never stops early.
//!
//! This module is the entry point and runs the phases in order; each phase is a module that adds
//! its own `impl Checker` block and owns the diagnostics it reports: `names` (declarations),
//! `types`, `tables` (with `ranges` for range tables, `bands` for tables `by decimal` and
//! `matrices`), `resolvers` (signatures, options, outputs, cycles), then `stmt` and `expr`
//! (resolver bodies, with `access` for names and fields and `calls` for functions and lookups).
//! `bounds` (integer intervals) and `dice` serve them all; `ctx` holds the shared `Checker` state.

mod access;
mod bands;
mod bounds;
mod calls;
mod ctx;
mod depth;
mod dice;
mod expr;
mod matrices;
mod names;
mod ranges;
mod resolvers;
mod stmt;
mod tables;
mod types;

use crate::ast;
use crate::diag::Diagnostic;
use crate::ir::*;
use ctx::Checker;
use std::collections::BTreeMap;

pub use bounds::range_label;
pub use dice::runtime_spec;

/// One rules file as the checker sees it.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path shown to users, e.g. `rules-src/starleader/fire.rules`.
    pub path: String,
    pub text: String,
    /// The system folder the file belongs to.
    pub system: String,
}

/// Check every system. Returns the program (when there were no errors) and all diagnostics.
pub fn check(sources: &[SourceFile], files: &[(usize, ast::File)]) -> (Option<Program>, Vec<Diagnostic>) {
    let (systems, diags) = check_systems(sources, files);
    let ok = !diags.iter().any(|d| d.is_error());
    let systems = systems.into_iter().map(|(_, s)| s).collect();
    (if ok { Some(Program { systems }) } else { None }, diags)
}

/// Check every system and return each one checked, by its folder, whatever the diagnostics: a
/// system with errors is lowered as far as the checker got (an unknown name is a `Ty::Error`
/// expression), for tools that read a program while it is being written (the language server).
/// Only `check`'s `Program`, built when there are no errors, is for the backends.
pub fn check_systems(sources: &[SourceFile], files: &[(usize, ast::File)]) -> (Vec<(String, System)>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut by_system: BTreeMap<&str, Vec<(usize, &ast::File)>> = BTreeMap::new();
    for (fi, f) in files {
        by_system.entry(sources[*fi].system.as_str()).or_default().push((*fi, f));
    }
    let mut systems = Vec::new();
    let lines: Vec<Vec<usize>> = sources.iter().map(|s| crate::diag::line_starts(&s.text)).collect();
    for (folder, files) in by_system {
        let mut c = Checker::new(sources, &lines, &mut diags);
        // The files of this folder that failed to parse (they have no AST).
        for (i, s) in sources.iter().enumerate() {
            if s.system == folder && !files.iter().any(|(fi, _)| *fi == i) {
                c.unparsed.get_or_insert_with(Default::default).scan(&s.text);
            }
        }
        if let Some(sys) = c.system(folder, &files) {
            systems.push((folder.to_string(), sys));
        }
    }
    (systems, diags)
}

/// Normalised form of a table key for matching: case-insensitive, with runs of spaces, hyphens, dots
/// and underscores folded to one space.
pub fn normalize_key(s: &str) -> String {
    // The same matching the CLI uses for `--set` values, so a key that checks here binds there.
    rulebook_runtime::normalize(s)
}

impl<'a> Checker<'a> {
    /// One system, phase by phase. A phase works with whatever the earlier ones declared, so a
    /// mistake in one item does not hide the problems of the others.
    fn system(&mut self, folder: &str, files: &[(usize, &'a ast::File)]) -> Option<System> {
        let items: Vec<&'a ast::Item> = files.iter().flat_map(|(_, f)| f.items.iter()).collect();
        let (name, title) = self.declare_system(folder, files, &items)?;
        self.declare_items(&items);
        let tables_ast: Vec<&'a ast::TableDecl> = items
            .iter()
            .filter_map(|i| if let ast::Item::Table(t) = i { Some(t) } else { None })
            .collect();
        self.declare_keys(&tables_ast);
        self.record_fields(&items);
        self.record_depths(&items);
        self.constants(&items);
        self.lower_tables(&tables_ast);
        let res_ast: Vec<&'a ast::ResolverDecl> = items
            .iter()
            .filter_map(|i| if let ast::Item::Resolver(r) = i { Some(r) } else { None })
            .collect();
        self.signatures(&res_ast);
        self.add_option_inputs(&res_ast);
        self.outputs_set(&res_ast);
        self.lower_bodies(&res_ast);
        self.warn_unused_tables(&tables_ast);
        Some(System {
            name,
            title,
            cite_prefix: self.cite_prefix.clone(),
            options: std::mem::take(&mut self.options),
            enums: std::mem::take(&mut self.enums),
            tables: std::mem::take(&mut self.tables),
            resolvers: std::mem::take(&mut self.resolvers),
            records: std::mem::take(&mut self.records),
            consts: std::mem::take(&mut self.consts).into_iter().map(|(n, (c, _, _))| (n, c)).collect(),
        })
    }
}

#[cfg(test)]
mod testing;
