//! Text and places: LSP positions (lines from 0, UTF-16 columns) to byte offsets and back, the
//! word or quoted string at a position, and `file://` URIs to paths and back.

use lsp_types::{Position, Range, Uri};
use rulebook_compiler::ast::Span;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The text of the quoted string around `pos`, if it is in one (quotes counted from the line's
/// start; a rules string does not span lines).
pub fn string_at(text: &str, pos: Position) -> Option<String> {
    let line = text.split('\n').nth(pos.line as usize)?;
    let at = byte_of(line, pos.character);
    let quotes: Vec<usize> = line.match_indices('"').map(|(i, _)| i).collect();
    quotes
        .chunks(2)
        .find(|q| q.len() == 2 && q[0] < at && at <= q[1])
        .and_then(|q| line.get(q[0] + 1..q[1]))
        .map(str::to_string)
}

/// The name (letters, digits, `_`) around `pos`.
pub fn word_at(text: &str, pos: Position) -> Option<String> {
    let line = text.split('\n').nth(pos.line as usize)?;
    let at = byte_of(line, pos.character);
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = line[..at].rfind(|c: char| !is_word(c)).map_or(0, |i| i + 1);
    let end = line[at..].find(|c: char| !is_word(c)).map_or(line.len(), |i| at + i);
    (start < end).then(|| line[start..end].to_string())
}

/// The byte of a line at UTF-16 column `col` (LSP's default position encoding); past the end,
/// the line's end.
pub fn byte_of(line: &str, col: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= col {
            return i;
        }
        units += c.len_utf16() as u32;
    }
    line.len()
}

/// The byte offset of `pos` in `text`; `None` past the last line (a column past a line's end is
/// that line's end).
pub fn offset_of(text: &str, pos: Position) -> Option<usize> {
    let mut start = 0usize;
    for (n, line) in text.split('\n').enumerate() {
        if n == pos.line as usize {
            return Some(start + byte_of(line, pos.character));
        }
        start += line.len() + 1;
    }
    None
}

/// A span of `text` as an LSP range (lines from 0, columns in UTF-16 code units).
pub fn range(text: &str, span: Span) -> Range {
    Range {
        start: position(text, span.start),
        end: position(text, span.end.max(span.start)),
    }
}

/// The LSP position of a byte offset (clamped to the text, and back to a character's start).
pub fn position(text: &str, offset: usize) -> Position {
    let offset = offset.min(text.len());
    let mut at = offset;
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(character).unwrap_or(u32::MAX),
    }
}

/// `file://` URI of a path, and back (percent-encoding the few characters paths need).
pub fn uri_of(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => s.push_str("%20"),
            '%' => s.push_str("%25"),
            '#' => s.push_str("%23"),
            '?' => s.push_str("%3F"),
            c => s.push(c),
        }
    }
    Uri::from_str(&s).ok()
}

pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str().strip_prefix("file://")?;
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(b) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8_lossy(&out).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_utf16_columns() {
        let text = "ab\n\u{e9}x y";
        assert_eq!(position(text, 5), Position { line: 1, character: 1 });
        assert_eq!(word_at(text, Position { line: 1, character: 1 }).as_deref(), Some("\u{e9}x"));
        assert_eq!(word_at(text, Position { line: 1, character: 3 }).as_deref(), Some("y"));
        assert_eq!(offset_of(text, Position { line: 1, character: 1 }), Some(5));
        assert_eq!(offset_of(text, Position { line: 1, character: 99 }), Some(text.len()));
        assert_eq!(offset_of(text, Position { line: 2, character: 0 }), None);
    }

    #[test]
    fn paths_go_to_uris_and_back() {
        let p = PathBuf::from("/home/me/my rules/a#1.rules");
        let u = uri_of(&p).unwrap();
        assert_eq!(path_of(&u), Some(p));
    }
}
