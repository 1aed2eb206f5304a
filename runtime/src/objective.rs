//! What `rulebook best` maximizes, from its text (`--maximize`): a sum of terms, each a whole
//! coefficient times a yes/no output (1 or 0), a number output, or a test `FIELD OP VALUE` (1 when
//! it holds). `result == win`, `banked`, `working - ruined`, `2 * (result == win) + (result == draw)`.

use crate::error::Error;
use crate::registry::ResolverInfo;
use crate::value::Value;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objective {
    pub terms: Vec<Term>,
}

/// `coef * FIELD` or `coef * (FIELD OP VALUE)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub coef: i64,
    pub field: String,
    /// The comparison, with the value as the output's type reads it.
    pub test: Option<(Op, Value)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Objective {
    /// Terms joined by ` + ` and ` - ` (spaces around them, so that a value may hold a `-`), each
    /// `[N *] ATOM` with ATOM `FIELD`, `FIELD OP VALUE` or either in parentheses, OP one of `==`,
    /// `!=`, `<`, `<=`, `>`, `>=`; every field an output of `step`.
    pub fn parse(step: &ResolverInfo, text: &str) -> Result<Objective, String> {
        let mut terms = Vec::new();
        let mut sign = 1i64;
        let spaced = format!(" {} ", text.trim());
        let mut rest = spaced.as_str();
        if let Some(r) = rest.trim_start().strip_prefix('-') {
            sign = -1;
            rest = r;
        }
        loop {
            let cut = [" + ", " - "].iter().filter_map(|s| rest.find(s).map(|i| (i, *s))).min();
            let (part, next) = match cut {
                Some((i, s)) => (&rest[..i], Some((&rest[i + s.len()..], if s == " - " { -1 } else { 1 }))),
                None => (rest, None),
            };
            terms.push(term(step, text, part, sign)?);
            match next {
                Some((r, sgn)) => {
                    rest = r;
                    sign = sgn;
                }
                None => break,
            }
        }
        Ok(Objective { terms })
    }

    /// A probability: one term, coefficient 1, of a yes/no output or a test.
    pub fn is_probability(&self, step: &ResolverInfo) -> bool {
        match self.terms.as_slice() {
            [t] => {
                t.coef == 1
                    && (t.test.is_some()
                        || step
                            .outputs
                            .iter()
                            .any(|o| o.name == t.field && matches!(o.ty, crate::registry::Ty::Bool)))
            }
            _ => false,
        }
    }

    /// The objective's value for one outcome.
    pub(crate) fn value(&self, outcome: &Value) -> Result<BigRational, Error> {
        let mut sum = BigRational::zero();
        for t in &self.terms {
            sum += BigRational::from_integer(BigInt::from(t.coef)) * t.value(outcome)?;
        }
        Ok(sum)
    }
}

/// One term of `text`: `[N *] ATOM`, with `sign`.
fn term(step: &ResolverInfo, text: &str, part: &str, sign: i64) -> Result<Term, String> {
    let bad = |why: String| format!("--maximize {text}: {why}");
    let (coef, atom) = match part.split_once('*') {
        Some((n, a)) => (
            n.trim()
                .parse::<i64>()
                .map_err(|_| bad(format!("`{}` is not a whole number to multiply by", n.trim())))?,
            a,
        ),
        None => (1, part),
    };
    let atom = atom.trim();
    let atom = atom.strip_prefix('(').and_then(|a| a.strip_suffix(')')).unwrap_or(atom).trim();
    let ops = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
    ];
    let (field, test) = match ops.iter().find_map(|(s, op)| atom.split_once(s).map(|(a, b)| (a, b, *op))) {
        Some((a, b, op)) => (a.trim(), Some((op, b.trim().trim_matches('"').to_string()))),
        None => (atom, None),
    };
    if field.is_empty() {
        return Err(bad("a term without an output; write FIELD, FIELD OP VALUE, or N * either".into()));
    }
    let Some(output) = step.outputs.iter().find(|o| o.name == field) else {
        let names: Vec<&str> = step.outputs.iter().map(|o| o.name).collect();
        return Err(bad(format!(
            "`{}` has no output `{field}`; its outputs: {}",
            step.name,
            names.join(", ")
        )));
    };
    // The value compared with must be one the output can take (`maybe` is no yes/no).
    let test = match test {
        Some((op, want)) => {
            let value = crate::bind::parse_input(field, output.ty, &want).map_err(|e| bad(e.to_string()))?;
            if !matches!(op, Op::Eq | Op::Ne) && !matches!(value, Value::Int(_)) {
                return Err(bad(format!("`{field}` is not a whole number: compare it with == or !=")));
            }
            Some((op, value))
        }
        None => None,
    };
    Ok(Term {
        coef: sign * coef,
        field: field.to_string(),
        test,
    })
}

impl Term {
    fn value(&self, outcome: &Value) -> Result<BigRational, Error> {
        let v = outcome.field(&self.field).unwrap_or(&Value::None);
        let yes = |b: bool| if b { BigRational::one() } else { BigRational::zero() };
        let Some((op, want)) = &self.test else {
            return match v {
                Value::Bool(b) => Ok(yes(*b)),
                Value::Int(i) => Ok(BigRational::from_integer(BigInt::from(*i))),
                other => Err(Error::Domain {
                    what: format!(
                        "--maximize {}: its value {other} is neither yes/no nor a whole number; compare it (`{} == VALUE`)",
                        self.field, self.field
                    ),
                }),
            };
        };
        let order = match (v, want) {
            (Value::Int(i), Value::Int(w)) => Some(i.cmp(w)),
            _ => None,
        };
        let same = order.map_or_else(|| v == want, |o| o.is_eq());
        let holds = match (op, order) {
            (Op::Eq, _) => same,
            (Op::Ne, _) => !same,
            (Op::Lt, Some(o)) => o.is_lt(),
            (Op::Le, Some(o)) => o.is_le(),
            (Op::Gt, Some(o)) => o.is_gt(),
            (Op::Ge, Some(o)) => o.is_ge(),
            _ => {
                return Err(Error::Domain {
                    what: format!("--maximize: `{}` is {v}, which does not compare in order with {want}", self.field),
                })
            }
        };
        Ok(yes(holds))
    }
}
