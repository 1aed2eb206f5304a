//! lossless tree → text in the one layout (`rulebook fmt`): docs/dsl.md, "Layout", says what it is.
//!
//! Three steps, each a module: `tokens` flattens the tree (`syntax`) into the significant tokens
//! with what the layout needs to know of each (the construct it starts, the block it is in, the
//! newlines the author put before it); `lines` breaks them into lines and indents them; `align`
//! lines up the cells of table rows and the comments at the ends of neighbouring lines.
//!
//! The layout keeps the author's line breaks inside a statement, as gofmt does, and what it
//! changes never changes meaning: the checked program before and after is the same
//! (`tests/fmt.rs`), and formatting twice gives what formatting once gave.

mod align;
mod lines;
mod spacing;
mod tokens;

use crate::diag::Diagnostic;

/// `src` laid out, or the parser's diagnostics (for file number `file`) if it does not parse.
pub fn format(file: usize, src: &str) -> Result<String, Vec<Diagnostic>> {
    let tree = crate::syntax::parse(file, src)?;
    let toks = tokens::flatten(&tree);
    let lines = lines::lines(&toks);
    Ok(align::render(&toks, &lines))
}

#[cfg(test)]
mod tests;

/// A unified diff from `old` to `new` of the file `path` (`fmt --check`), three lines of context.
pub fn diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(path, &format!("{path} (formatted)"))
        .to_string()
}
