//! Reading a resolver's typed inputs out of bound dynamic inputs, as generated `from_values` does.

use super::{default_of, Res, Sys, V};
use rt::{Error, Value};
use rulebook_compiler::ir::Ty;
use rulebook_runtime as rt;

impl Sys {
    /// Reads a resolver's typed inputs out of bound dynamic inputs, as generated `from_values` does
    /// (the same checks, the same errors; an input the map leaves out takes its default), giving
    /// them in declaration order.
    pub fn read_inputs(&self, rid: usize, m: &rt::Inputs) -> Res<Vec<V>> {
        let r = &self.ir.resolvers[rid];
        let defaults = self.code.get(rid).map(|c| c.input_defaults.as_slice()).unwrap_or(&[]);
        r.inputs
            .iter()
            .enumerate()
            .map(|(i, p)| match (defaults.get(i).and_then(Option::as_ref), m.get(&p.name)) {
                (Some(d), None) => Ok(d.clone()),
                _ => Ok(V::from_value(&self.read_input(m, &p.name, &p.ty)?)),
            })
            .collect()
    }

    fn read_input(&self, m: &rt::Inputs, name: &str, t: &Ty) -> Res<Value> {
        match t {
            Ty::Int => Ok(Value::Int(rt::get_int(m, name)?)),
            Ty::Dec => Ok(Value::Dec(rt::get_dec(m, name)?)),
            Ty::Bool => Ok(Value::Bool(rt::get_bool(m, name)?)),
            Ty::Key(_) => Ok(Value::Key(rt::get_key(m, name)?)),
            Ty::Text => Ok(Value::Text(rt::get_text(m, name)?.to_string())),
            Ty::Enum(e) => {
                let en = &self.ir.enums[*e];
                let v = m.get(name).ok_or_else(|| Error::MissingInput {
                    input: name.to_string(),
                    ty: en.name.clone(),
                })?;
                self.read_value(v, name, t)
            }
            Ty::Opt(i) => match m.get(name) {
                None | Some(Value::None) => Ok(Value::None),
                Some(v) => self.read_from(v, name, i),
            },
            Ty::List(i) => Ok(Value::List(
                rt::get_list(m, name)?
                    .iter()
                    .map(|v| self.read_from(v, name, i))
                    .collect::<Result<Vec<_>, _>>()?,
            )),
            Ty::Rec(r) => {
                let v = m.get(name).ok_or_else(|| Error::MissingInput {
                    input: name.to_string(),
                    ty: self.ir.records[*r].name.clone(),
                })?;
                self.record_from_value(*r, v, name)
            }
            _ => Ok(default_of(self.ir, t).to_value()),
        }
    }

    fn read_from(&self, v: &Value, name: &str, t: &Ty) -> Res<Value> {
        match t {
            Ty::Opt(i) => match v {
                Value::None => Ok(Value::None),
                x => self.read_from(x, name, i),
            },
            Ty::List(i) => match v {
                Value::List(xs) => Ok(Value::List(
                    xs.iter().map(|x| self.read_from(x, name, i)).collect::<Result<Vec<_>, _>>()?,
                )),
                x => Err(Error::BadValue {
                    input: name.to_string(),
                    text: x.to_string(),
                    expected: "a list".to_string(),
                }
                .into()),
            },
            Ty::Rec(r) => self.record_from_value(*r, v, name),
            _ => self.read_value(v, name, t),
        }
    }

    fn read_value(&self, v: &Value, name: &str, t: &Ty) -> Res<Value> {
        match t {
            Ty::Int => Ok(Value::Int(rt::value_as_int(v, name)?)),
            Ty::Dec => Ok(Value::Dec(rt::value_as_dec(v, name)?)),
            Ty::Bool => Ok(Value::Bool(rt::value_as_bool(v, name)?)),
            Ty::Key(_) => Ok(Value::Key(rt::value_as_key(v, name)?)),
            Ty::Text => Ok(Value::Text(rt::value_as_text(v, name)?.to_string())),
            Ty::Enum(e) => {
                let en = &self.ir.enums[*e];
                let found = match v {
                    Value::Enum(_, s) => en.variants.iter().position(|(x, _)| x == s),
                    _ => None,
                };
                match found {
                    Some(i) => Ok(Value::Enum(i as u16, en.variants[i].0.as_str())),
                    None => Err(Error::BadValue {
                        input: name.to_string(),
                        text: v.to_string(),
                        expected: en.name.clone(),
                    }
                    .into()),
                }
            }
            _ => Ok(default_of(self.ir, t).to_value()),
        }
    }

    fn record_from_value(&self, rid: usize, v: &Value, name: &str) -> Res<Value> {
        let r = &self.ir.records[rid];
        let Value::Record(fields) = v else {
            return Err(Error::BadValue {
                input: name.to_string(),
                text: v.to_string(),
                expected: format!("a {} record", r.name),
            }
            .into());
        };
        let mut out = Vec::with_capacity(r.fields.len());
        for (f, t, _) in &r.fields {
            let got = fields
                .iter()
                .find(|(k, _)| *k == f.as_str())
                .map(|(_, v)| v)
                .ok_or_else(|| Error::MissingInput {
                    input: format!("{name}.{f}"),
                    ty: self.ir.ty_text(t),
                })?;
            out.push((f.as_str(), self.read_from(got, &format!("{}.{f}", r.name), t)?));
        }
        Ok(Value::Record(out))
    }
}
