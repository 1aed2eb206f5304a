//! The registry of an interpreted system: the same `rt::SystemInfo` the generated code declares
//! as statics, built at run time from the IR. Loaded rules live as long as the program (their
//! descriptions are leaked once per load), so the CLI and `bind_inputs` treat both backends alike.

use crate::eval::Sys;
use rulebook_compiler::ir::{self, TableKind, Ty};
use rulebook_runtime as rt;

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn leak_one<T>(v: T) -> &'static T {
    Box::leak(Box::new(v))
}

/// One interpreted resolver, as the registry runs it.
struct Interpreted {
    sys: &'static Sys,
    rid: usize,
}

impl rt::Runner for Interpreted {
    fn run_traced(&self, dice: &mut dyn rt::Dice, trace: &mut rt::Recorder, inputs: &rt::Inputs) -> Result<rt::Value, rt::Error> {
        let typed = self.sys.read_inputs(self.rid, inputs).map_err(|e| *e)?;
        // A resolution starts: no steps taken yet (`rt::steps`), as a generated entry point begins.
        rt::steps::begin();
        Ok(self.sys.run(self.rid, dice, trace, &typed).map_err(|e| *e)?.to_value())
    }

    fn run_quiet(&self, dice: &mut dyn rt::Dice, trace: &mut rt::NoTrace, inputs: &rt::Inputs) -> Result<rt::Value, rt::Error> {
        let typed = self.sys.read_inputs(self.rid, inputs).map_err(|e| *e)?;
        rt::steps::begin();
        Ok(self.sys.run(self.rid, dice, trace, &typed).map_err(|e| *e)?.to_value())
    }

    fn odds(&self, inputs: &rt::Inputs) -> Result<rt::Distribution<rt::Value>, rt::Error> {
        // Inputs are read once, not once per dice branch, as the generated `odds_*` do.
        let typed = self.sys.read_inputs(self.rid, inputs).map_err(|e| *e)?;
        let d = rt::enumerate(|dice| self.sys.run(self.rid, dice, &mut rt::NoTrace, &typed).map_err(|e| *e))?;
        // `V` orders and compares as `rt::Value` does, so the order and the merging carry over.
        Ok(rt::Distribution {
            outcomes: d.outcomes.into_iter().map(|(o, p)| (o.to_value(), p)).collect(),
        })
    }
}

/// Builds the registry entry of `sys` (mirrors `codegen`'s `registry()`).
pub fn system_info(ir: &'static ir::System) -> &'static rt::SystemInfo {
    let sys: &'static Sys = leak_one(Sys::new(ir));
    let tables: &'static [rt::TableInfo] = leak(
        ir.tables
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let kind = t.kind.label();
                let columns: Vec<(&'static str, &'static str)> = match &t.result {
                    Some(r) => vec![("value", &*ir.ty_text(r).leak())],
                    None => t.columns.iter().map(|(n, ct)| (n.as_str(), &*ir.ty_text(ct).leak())).collect(),
                };
                let keys: Vec<&'static str> = if matches!(t.kind, TableKind::Keyed) {
                    t.rows.iter().map(|r| r.label.as_str()).collect()
                } else {
                    Vec::new()
                };
                rt::TableInfo {
                    id: i as u16,
                    name: t.name.as_str(),
                    title: t.title.as_str(),
                    cite: t.cite.as_str(),
                    kind,
                    columns: leak(columns),
                    keys: leak(keys),
                    aliases: leak(t.aliases.iter().map(|(a, r)| (a.as_str(), *r as u16)).collect()),
                    rows: t.rows.len(),
                }
            })
            .collect(),
    );
    let enums: &'static [&'static rt::EnumInfo] = leak(
        ir.enums
            .iter()
            .map(|e| {
                leak_one(rt::EnumInfo {
                    name: e.name.as_str(),
                    variants: leak(e.variants.iter().map(|(v, _)| v.as_str()).collect()),
                })
            })
            .collect(),
    );
    let types = Types { ir, tables, enums };
    let resolvers: Vec<rt::ResolverInfo> = ir
        .resolvers
        .iter()
        .enumerate()
        .map(|(rid, r)| rt::ResolverInfo {
            name: r.name.as_str(),
            title: r.title.as_str(),
            cite: r.cite.as_str(),
            doc: format!("{}:{}", r.source, r.line).leak(),
            inputs: leak(
                r.inputs
                    .iter()
                    .map(|p| rt::InputInfo {
                        name: p.name.as_str(),
                        ty: types.ty(&p.ty, p.bounds),
                        default: p.default.as_ref().map(|d| &*ir.const_text(d).leak()),
                        doc: p.doc.as_str(),
                        optional_rule: p.is_option,
                        cite: p.cite.as_str(),
                    })
                    .collect(),
            ),
            outputs: leak(
                r.outputs
                    .iter()
                    .map(|p| rt::FieldInfo {
                        name: p.name.as_str(),
                        ty: types.ty(&p.ty, None),
                        doc: p.doc.as_str(),
                    })
                    .collect(),
            ),
            choices: leak(r.inputs.iter().filter(|p| p.choice).map(|p| p.name.as_str()).collect()),
            exec: rt::Exec::Interpreted(leak_one(Interpreted { sys, rid })),
        })
        .collect();
    leak_one(rt::SystemInfo {
        name: ir.name.as_str(),
        title: ir.title.as_str(),
        cite_prefix: ir.cite_prefix.as_str(),
        resolvers: leak(resolvers),
        tables,
        enums,
        options: leak(
            ir.options
                .iter()
                .map(|o| rt::OptionInfo {
                    name: o.name.as_str(),
                    title: o.title.as_str(),
                    cite: o.cite.as_str(),
                })
                .collect(),
        ),
    })
}

struct Types {
    ir: &'static ir::System,
    tables: &'static [rt::TableInfo],
    enums: &'static [&'static rt::EnumInfo],
}

impl Types {
    /// A registry type (mirrors `codegen`'s `inline_registry_ty`).
    fn ty(&self, t: &Ty, bounds: Option<(i64, i64)>) -> &'static rt::Ty {
        leak_one(self.ty_value(t, bounds))
    }

    fn ty_value(&self, t: &Ty, bounds: Option<(i64, i64)>) -> rt::Ty {
        match t {
            Ty::Int => {
                let (min, max) = bounds.unwrap_or((i64::MIN, i64::MAX));
                rt::Ty::Int { min, max }
            }
            Ty::Dec => rt::Ty::Dec,
            Ty::Bool => rt::Ty::Bool,
            Ty::Text => rt::Ty::Text,
            Ty::Enum(e) => match self.enums.get(*e) {
                Some(info) => rt::Ty::Enum(info),
                None => rt::Ty::Text,
            },
            Ty::Key(ts) => rt::Ty::Key(leak(ts.iter().filter_map(|t| self.tables.get(*t)).collect())),
            Ty::Opt(i) => rt::Ty::Opt(self.ty(i, bounds)),
            Ty::List(i) => rt::Ty::List(self.ty(i, bounds)),
            Ty::Rec(r) => {
                let rec = &self.ir.records[*r];
                rt::Ty::Struct(leak_one(rt::RecordInfo {
                    name: rec.name.as_str(),
                    fields: leak(
                        rec.fields
                            .iter()
                            .map(|(f, ft, b)| rt::FieldInfo {
                                name: f.as_str(),
                                ty: self.ty(ft, *b),
                                doc: "",
                            })
                            .collect(),
                    ),
                }))
            }
            Ty::Outcome(r) => rt::Ty::Record(self.ir.resolvers[*r].name.as_str()),
            Ty::Row(t) => rt::Ty::Record(self.ir.tables[*t].name.as_str()),
            _ => rt::Ty::Text,
        }
    }
}
