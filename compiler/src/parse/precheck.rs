//! The raw text's checks before pest runs: control characters, and brackets nested past
//! `MAX_NESTING` (pest recurses on the machine stack, so hostile nesting is refused first).

use super::MAX_NESTING;

/// The first control character in the text, with its byte offset: anything but a tab, a newline,
/// or a carriage return just before a newline (a Windows line end).
pub(super) fn control_char(src: &str) -> Option<(usize, char)> {
    let mut chars = src.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let allowed = match c {
            '\t' | '\n' => true,
            '\r' => chars.peek().is_some_and(|&(_, n)| n == '\n'),
            c => !c.is_control(),
        };
        if !allowed {
            return Some((i, c));
        }
    }
    None
}

/// Byte offset of the first bracket that opens past the nesting limit, skipping strings and comments.
pub(super) fn too_deep(src: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}
