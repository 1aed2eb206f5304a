//! `Text`, the rules language's `text`: borrowed from the static tables, or shared when it comes
//! from input. Cloning never copies the characters, which matters in battles that copy unit records
//! every action.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

#[derive(Clone)]
pub enum Text {
    /// Text written in the rules (table cells, key names).
    Static(&'static str),
    /// Text from input, shared between copies.
    Shared(Arc<str>),
}

impl Text {
    pub fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            Text::Shared(s) => s,
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::Static("")
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::Shared(Arc::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::Shared(Arc::from(s))
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.as_str(), other.as_str());
        // Copies of one text share its characters: the same name compared with itself (a unit
        // looked up in a list of copies of the battle's units) needs no comparison of bytes.
        // Names of one length often differ only at the end (`Fire Team 1`, `Fire Team 2`): their
        // last bytes tell them apart without a call to compare them all.
        a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || (a.as_bytes().last() == b.as_bytes().last() && a == b))
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::Text;

    #[test]
    fn static_and_shared_text_compare_as_text() {
        assert_eq!(Text::Static("Alpha"), Text::from("Alpha"));
        assert!(Text::Static("Alpha") < Text::from("Bravo"));
        assert_eq!(Text::from(String::from("x")).to_string(), "x");
    }

    #[test]
    fn copies_are_equal_and_texts_of_one_length_still_compare_their_characters() {
        let a = Text::from("Able");
        assert_eq!(a, a.clone());
        assert_ne!(a, Text::from("Abel"));
        assert_ne!(a, Text::Static("Ab"));
        assert_eq!(Text::Static(""), Text::from(""));
        // Two static texts from one string: the prefix shares the pointer, not the length.
        let whole = "Baker";
        assert_ne!(Text::Static(whole), Text::Static(&whole[..3]));
    }
}
