//! An application with one book compiled in: a Starleader shot, resolved with a seed and traced.
#![forbid(unsafe_code)]

use rulebook::runtime as rt;
use rulebook::starleader::{fire, FireInputs};

fn main() -> Result<(), rt::Error> {
    let inputs = FireInputs::parse(&[("weapon", "Ghazi 10/7"), ("armor_rating", "8")])?;
    let mut trace = rt::Recorder::new();
    let outcome = fire(&mut rt::Seeded::new(7), &mut trace, &inputs)?;
    print!("{}", trace.render());
    println!("{outcome:?}");
    println!("compiled: {}", names(rulebook::SYSTEMS).join(", "));
    println!("left out: {}", rulebook::LEFT_OUT.join(", "));
    Ok(())
}

fn names(systems: &[&rt::SystemInfo]) -> Vec<&'static str> {
    systems.iter().map(|s| s.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_book_asked_for_is_compiled() {
        assert_eq!(names(rulebook::SYSTEMS), ["starleader"]);
        let mut left_out = rulebook::LEFT_OUT.to_vec();
        left_out.sort_unstable();
        assert_eq!(left_out, ["combat3000", "mercenary", "striker", "t5"]);
        // Its rules text alone is embedded, for the interpreter and `check`.
        assert!(rulebook::RULES_SOURCES.iter().all(|(path, _)| path.starts_with("starleader/")));
    }

    #[test]
    fn a_left_out_book_is_named_as_such() {
        let e = rt::find_resolver(rulebook::SYSTEMS, "striker.horizon").map(|_| ()).unwrap_err();
        let e = rt::left_out(e, rulebook::LEFT_OUT);
        assert!(matches!(&e, rt::Error::LeftOut { system } if system == "striker"), "{e}");
        assert!(e.to_string().contains("`--features striker`"), "{e}");
    }

    #[test]
    fn the_book_resolves_with_its_typed_api() {
        let inputs = FireInputs::parse(&[("weapon", "Ghazi 10/7")]).unwrap();
        let odds = rulebook::starleader::odds::fire(&inputs).unwrap();
        let total = odds.outcomes.iter().fold(rt::Prob::zero(), |t, (_, p)| t.add(p));
        assert_eq!(total, rt::Prob::one());
    }
}
