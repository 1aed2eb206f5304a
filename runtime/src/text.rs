//! `Text`, the rules language's `text`: borrowed from the static tables, or, when it comes from
//! input, kept once for the life of the process (interned) and borrowed from there. Copying a
//! text never copies its characters nor counts references, which matters in battles that copy
//! unit records every action; and the copies of one input text share one address, so comparing
//! two input names compares their addresses alone (`Text::Interned`): the same copy, or another
//! text, without reading a character.
//!
//! Interning keeps each distinct input text for good: at most [`INTERN_LIMIT`] bytes in all, so an
//! application that reads a stream of new names does not grow without end. Past the limit, texts
//! are shared by reference count instead (`Arc`), as every input text was before.
//!
//! Keeping short texts inline instead (as `smol_str` does) was measured and dropped: `sim
//! mercenary.battle` ran 11% slower with `smol_str`, 16% with an inline form of our own, as every
//! comparison of two names then reads their bytes where interned copies compare addresses.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

#[derive(Clone)]
pub enum Text {
    /// Text written in the rules (table cells, key names).
    Static(&'static str),
    /// Input text interned: the one kept copy of its characters, so two interned texts are equal
    /// exactly when they are the same copy (compared by address alone).
    Interned(Kept),
    /// Text from input past the interning limit, shared between copies.
    Shared(Arc<str>),
}

/// The one kept copy of an interned text. Only interning makes one (`Text::from`), so no two
/// copies of the same characters are ever both `Kept`: what makes comparing their addresses exact.
#[derive(Clone, Copy)]
pub struct Kept(&'static str);

/// The most bytes of input text the process keeps interned (1 MiB: some seventy thousand names).
pub const INTERN_LIMIT: usize = 1 << 20;

/// Every interned text, and their bytes in all.
static INTERNED: Mutex<(BTreeSet<&'static str>, usize)> = Mutex::new((BTreeSet::new(), 0));

thread_local! {
    /// The interned texts this thread has met: found again without taking the lock.
    static NEAR: RefCell<BTreeSet<&'static str>> = const { RefCell::new(BTreeSet::new()) };
}

/// `s` interned: the one kept copy of it, made now if need be while the texts kept stay within
/// `limit` bytes; `None` past it.
fn intern(s: &str, limit: usize) -> Option<&'static str> {
    if let Some(found) = NEAR.with(|n| n.borrow().get(s).copied()) {
        return Some(found);
    }
    let found = {
        // A poisoned lock holds a set that is still whole (an insert does not panic half-way).
        let mut kept = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
        match kept.0.get(s) {
            Some(k) => *k,
            None if kept.1 + s.len() <= limit => {
                let k: &'static str = Box::leak(Box::from(s));
                kept.0.insert(k);
                kept.1 += s.len();
                k
            }
            None => return None,
        }
    };
    NEAR.with(|n| n.borrow_mut().insert(found));
    Some(found)
}

impl Text {
    pub fn as_str(&self) -> &str {
        match self {
            Text::Static(s) | Text::Interned(Kept(s)) => s,
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
        match intern(s, INTERN_LIMIT) {
            Some(k) => Text::Interned(Kept(k)),
            None => Text::Shared(Arc::from(s)),
        }
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::from(s.as_str())
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
        // One kept copy per interned text: two interned names (units of a battle file) are equal
        // when they are the same copy, and differ otherwise, whatever their characters.
        if let (Text::Interned(Kept(a)), Text::Interned(Kept(b))) = (self, other) {
            return std::ptr::eq(a.as_ptr(), b.as_ptr());
        }
        let (a, b) = (self.as_str().as_bytes(), other.as_str().as_bytes());
        // Copies of one text, and input texts equal to it, share its characters: the same name
        // compared with itself (a unit looked up in a list of copies of the battle's units) needs
        // no comparison of bytes.
        a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || same_bytes(a, b))
    }
}

/// `a == b` for two byte strings of one length. Names of 8 to 16 bytes (`A 1st Platoon`,
/// `B 1st Platoon`, `A 2nd Platoon`) compare as their first and last eight bytes, two machine
/// words, without a call to compare them all; others, first by their last byte, which tells
/// apart most names of one length (`Fire Team 1`, `Fire Team 2`).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if (8..=16).contains(&n) {
        let word = |x: &[u8], at: usize| x.get(at..at + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()).map(u64::from_ne_bytes);
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    a.last() == b.last() && a == b
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

    #[test]
    fn equal_input_texts_share_one_copy_until_the_limit_and_are_shared_by_count_past_it() {
        let (a, b) = (Text::from("Interned Platoon"), Text::from(String::from("Interned Platoon")));
        assert!(matches!(a, Text::Interned(_)));
        assert_eq!(a.as_str().as_ptr(), b.as_str().as_ptr(), "one kept copy");
        // From another thread: found in the process's set, the same copy.
        let c = std::thread::spawn(|| Text::from("Interned Platoon").as_str().as_ptr() as usize)
            .join()
            .unwrap_or(0);
        assert_eq!(c, a.as_str().as_ptr() as usize);
        // A text already kept is found whatever the limit; a new one past the limit is not kept.
        assert_eq!(super::intern("Interned Platoon", 0).map(str::as_ptr), Some(a.as_str().as_ptr()));
        assert_eq!(super::intern("never kept: over the limit", 0), None);
        // Texts past the limit still compare, hash and order as text.
        let shared = Text::Shared(std::sync::Arc::from("Interned Platoon"));
        assert_eq!(shared, a);
        assert_eq!(shared.cmp(&a), std::cmp::Ordering::Equal);
    }

    #[test]
    fn interned_texts_are_equal_when_they_are_one_copy_and_equal_to_the_same_text_in_any_form() {
        // Of one length and sharing their first and last eight bytes, still two texts.
        let (a, b) = (Text::from("A 1st of the Platoon"), Text::from("A 1st in the Platoon"));
        assert!(matches!((&a, &b), (Text::Interned(_), Text::Interned(_))));
        assert_ne!(a, b);
        assert_eq!(a, Text::from(String::from("A 1st of the Platoon")));
        // Interned beside rules text or shared text: compared by characters.
        assert_eq!(a, Text::Static("A 1st of the Platoon"));
        assert_eq!(Text::Static("A 1st in the Platoon"), b);
        assert_eq!(Text::Shared(std::sync::Arc::from("A 1st in the Platoon")), b);
        assert_ne!(a, Text::Static("A 1st in the Platoon"));
    }

    #[test]
    fn texts_of_eight_to_sixteen_bytes_compare_every_byte() {
        // Every position of every length from 1 to 24 bytes: one byte changed is another text.
        for n in 1..=24 {
            let base: String = "ABCDEFGHIJKLMNOPQRSTUVWX".chars().take(n).collect();
            let a = Text::Shared(std::sync::Arc::from(base.as_str()));
            assert_eq!(a, Text::Shared(std::sync::Arc::from(base.as_str())), "{base}");
            for i in 0..n {
                let mut other = base.clone().into_bytes();
                other[i] = b'z';
                let other = String::from_utf8(other).unwrap_or_default();
                assert_ne!(a, Text::Shared(std::sync::Arc::from(other.as_str())), "{base} against {other}");
            }
        }
    }
}
