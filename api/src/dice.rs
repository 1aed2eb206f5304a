//! Dice thrown at the table: a `Dice` that asks a function for the faces of every throw the
//! rules make (JavaScript's `ask({sides, count, label})` in the package), so physical dice, or
//! dice rolled by another program, drive the resolution. Faces are taken in the order seeded and
//! scripted dice use, so the trace's faces replay the same roll as `--dice`.

use rulebook_runtime as rt;
use rulebook_runtime::{Dice, DiceSpec, Error};

/// Why a throw is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The throw the rules make.
    Throw,
    /// The throw read a value in the reroll range: every die is thrown again.
    Reroll,
    /// A die of an exploding throw showed its highest face: that die is thrown again and added.
    Explosion,
}

impl Why {
    pub fn as_str(self) -> &'static str {
        match self {
            Why::Throw => "throw",
            Why::Reroll => "reroll",
            Why::Explosion => "explosion",
        }
    }
}

/// One throw to make: `count` dice of `sides` sides, for the roll the rules call `label`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The roll's label in the rules (`to-hit`), as its trace event will show it.
    pub label: String,
    /// The whole roll as the rules write it (`4d6`, `d100 (tens, units 0-9)`, `1d10 explode 10`).
    pub dice: String,
    pub sides: u16,
    /// Dice to throw now: the roll's dice, or 1 for an explosion.
    pub count: u16,
    /// The faces the dice show: `lowest..=highest` (0 to 9 on a zero-based d10).
    pub lowest: u16,
    pub highest: u16,
    pub why: Why,
}

impl Request {
    /// `{"label", "dice", "sides", "count", "lowest", "highest", "why"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "label": self.label,
            "dice": self.dice,
            "sides": self.sides,
            "count": self.count,
            "lowest": self.lowest,
            "highest": self.highest,
            "why": self.why.as_str(),
        })
    }
}

/// A `Dice` whose faces come from `ask`. An `Err` from `ask` stops the resolution; its message
/// is kept ([`AskingDice::stopped`]) for the caller to report as it is.
pub struct AskingDice<F> {
    ask: F,
    faces: Vec<u16>,
    stopped: Option<String>,
}

impl<F: FnMut(&Request) -> Result<Vec<i64>, String>> AskingDice<F> {
    pub fn new(ask: F) -> Self {
        AskingDice {
            ask,
            faces: Vec::new(),
            stopped: None,
        }
    }

    /// The message `ask` stopped the resolution with, if it did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// Asks for `count` faces and checks them; the faces are the dice's, in `lowest..=highest`.
    fn ask_faces(&mut self, spec: &DiceSpec, label: &str, count: u16, why: Why) -> Result<Vec<u16>, Error> {
        let req = Request {
            label: label.to_string(),
            dice: spec.notation(),
            sides: spec.sides,
            count,
            lowest: spec.lowest_face(),
            highest: spec.highest_face(),
            why,
        };
        let given = match (self.ask)(&req) {
            Ok(faces) => faces,
            Err(message) => {
                self.stopped = Some(message.clone());
                return Err(Error::internal(message));
            }
        };
        // The runtime's check of a given face, the one scripted dice (`--dice`) make.
        let faces: Option<Vec<u16>> = given.iter().map(|&f| spec.face_on_die(f)).collect();
        match faces {
            Some(faces) if faces.len() == usize::from(count) => Ok(faces),
            _ => {
                let shown: Vec<String> = given.iter().map(i64::to_string).collect();
                let named = if label.is_empty() { String::new() } else { format!(" `{label}`") };
                Err(Error::BadValue {
                    input: format!("the faces of roll{named} ({})", req.dice),
                    text: format!("[{}]", shown.join(", ")),
                    expected: format!("{count} face(s), each {} to {}", req.lowest, req.highest),
                })
            }
        }
    }
}

impl<F: FnMut(&Request) -> Result<Vec<i64>, String>> Dice for AskingDice<F> {
    fn roll(&mut self, spec: &DiceSpec) -> Result<i64, Error> {
        self.roll_for(spec, "")
    }

    fn roll_for(&mut self, spec: &DiceSpec, label: &str) -> Result<i64, Error> {
        spec.validate()?;
        self.faces.clear();
        let (highest, depth) = (spec.highest_face(), spec.explode_depth());
        for attempt in 0..rt::dice::MAX_REROLLS {
            let start = self.faces.len();
            if spec.count > 0 {
                let why = if attempt == 0 { Why::Throw } else { Why::Reroll };
                // Every die at once, then each die that explodes, its extra throws after it (the
                // order seeded and scripted dice keep).
                for f in self.ask_faces(spec, label, spec.count, why)? {
                    self.faces.push(f);
                    let (mut last, mut extra) = (f, 0);
                    while extra < depth && last == highest {
                        let more = self.ask_faces(spec, label, 1, Why::Explosion)?;
                        last = more.first().copied().unwrap_or(0);
                        self.faces.push(last);
                        extra += 1;
                    }
                }
            }
            let v = spec.read_faces(&self.faces[start..]);
            if !spec.in_reroll(v) {
                return Ok(v);
            }
        }
        Err(Error::RerollLimit)
    }

    fn last_faces(&self) -> &[u16] {
        &self.faces
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rulebook_runtime::{Read, Scripted};

    /// Asks from a list, recording every request.
    fn from_list(faces: Vec<i64>) -> impl FnMut(&Request) -> Result<Vec<i64>, String> {
        let mut at = 0;
        move |r: &Request| {
            let n = usize::from(r.count);
            let out = faces.get(at..at + n).ok_or("out of faces")?.to_vec();
            at += n;
            Ok(out)
        }
    }

    /// Reads `faces` as asked dice and checks the throw against scripted dice fed the faces the
    /// asked ones report (the trace's faces): the same value, the same faces. Returns those faces.
    fn same_as_scripted(spec: DiceSpec, faces: Vec<i64>) -> Vec<u16> {
        let mut asked = AskingDice::new(from_list(faces));
        let a = asked.roll_for(&spec, "x").unwrap();
        let shown = asked.last_faces().to_vec();
        let mut scripted = Scripted::new(shown.iter().map(|&f| i64::from(f)).collect());
        assert_eq!(scripted.roll(&spec), Ok(a));
        assert_eq!(scripted.last_faces(), shown.as_slice());
        shown
    }

    #[test]
    fn reads_as_scripted_dice_do() {
        assert_eq!(same_as_scripted(DiceSpec::new(3, 6), vec![1, 5, 6]), [1, 5, 6]);
        let keep = DiceSpec {
            read: Read::KeepHighest(2),
            ..DiceSpec::new(3, 6)
        };
        same_as_scripted(keep, vec![1, 5, 6]);
        let d100 = DiceSpec {
            count: 2,
            sides: 10,
            zero_based: true,
            read: Read::Percentile,
            reroll: None,
        };
        same_as_scripted(d100, vec![0, 0]);
        let explode = DiceSpec {
            read: Read::Explode(3),
            ..DiceSpec::new(2, 10)
        };
        // Both dice first, then the first die's extra throws: traced after their die.
        assert_eq!(same_as_scripted(explode, vec![10, 10, 4, 3]), [10, 4, 10, 3]);
        let reroll = DiceSpec {
            reroll: Some((10, 12)),
            ..DiceSpec::new(2, 6)
        };
        assert_eq!(same_as_scripted(reroll, vec![6, 5, 2, 2]), [6, 5, 2, 2]);
        assert!(same_as_scripted(DiceSpec::new(0, 6), vec![]).is_empty());
    }

    #[test]
    fn requests_say_what_to_throw_and_why() {
        let mut seen = Vec::new();
        let explode = DiceSpec {
            read: Read::Explode(2),
            ..DiceSpec::new(2, 10)
        };
        let mut faces = vec![vec![10, 3], vec![10], vec![2]].into_iter();
        let mut dice = AskingDice::new(|r: &Request| {
            seen.push((r.count, r.why, r.label.clone(), r.dice.clone(), r.lowest, r.highest));
            faces.next().ok_or_else(|| "no more".to_string())
        });
        assert_eq!(dice.roll_for(&explode, "damage"), Ok(25));
        assert_eq!(dice.last_faces(), &[10, 10, 2, 3]);
        drop(dice);
        assert_eq!(
            seen,
            vec![
                (2, Why::Throw, "damage".into(), "2d10 explode 2".into(), 1, 10),
                (1, Why::Explosion, "damage".into(), "2d10 explode 2".into(), 1, 10),
                (1, Why::Explosion, "damage".into(), "2d10 explode 2".into(), 1, 10),
            ]
        );
    }

    #[test]
    fn wrong_faces_name_the_roll_and_what_it_takes() {
        let mut dice = AskingDice::new(|_: &Request| Ok(vec![3, 7]));
        let e = dice.roll_for(&DiceSpec::new(2, 6), "to-hit").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid value `[3, 7]` for the faces of roll `to-hit` (2d6): expected 2 face(s), each 1 to 6"
        );
        assert!(e.is_input_error());
        let mut dice = AskingDice::new(|_: &Request| Ok(vec![3]));
        assert!(dice.roll_for(&DiceSpec::new(2, 6), "to-hit").is_err());
        let mut dice = AskingDice::new(|_: &Request| Err("cancelled".to_string()));
        assert!(dice.roll(&DiceSpec::new(2, 6)).is_err());
        assert_eq!(dice.stopped(), Some("cancelled"));
    }
}
