//! A grammar-aware generator of valid rules texts: random systems with enums, options, keyed,
//! range and matrix tables, and resolvers with rolls, modifiers, `if`, `match`, `call`, loops and
//! `require`, built so that every one checks with zero diagnostics (no error, no warning).
//!
//! It shares nothing with the compiler: it tracks the types and the integer interval of every
//! expression it writes, so it only writes what the language accepts (table indexes proved in
//! range, no possible overflow, every table and option used). Its randomness comes from an
//! [`Entropy`], so `tests/generated_rules.rs` drives it with a seeded ChaCha8 and the fuzz target
//! `fuzz/fuzz_targets/generated.rs` with libFuzzer's bytes (that file includes this one).

#![allow(dead_code)]

pub mod inputs;

/// A source of choices.
pub trait Entropy {
    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64;
}

/// The largest magnitude an interval may reach before the generator clamps it back.
const BIG: i128 = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    /// A whole number with a known interval (`None`: unknown to the checker).
    Int(Option<(i128, i128)>),
    Bool,
    Enum(usize),
    Key(usize),
    /// A list of rows of a keyed table.
    List(usize),
}

struct Enum {
    name: String,
    variants: Vec<String>,
}

#[derive(Clone, Copy)]
enum ColTy {
    Int(i128, i128),
    Bool,
    Enum(usize),
}

struct Keyed {
    name: String,
    cols: Vec<(String, ColTy)>,
    keys: Vec<String>,
}

enum Index {
    /// A dice expression with its interval: the rolls of the same dice index it directly.
    Dice(String, i128, i128),
    Int(i128, i128),
}

enum Result_ {
    Int(i128, i128),
    Enum(usize),
}

struct Range {
    name: String,
    by: Index,
    result: Result_,
}

enum Axis {
    Enum(usize),
    Int(i128, i128),
}

struct Matrix {
    name: String,
    row: usize,
    col: Axis,
    /// The cells' interval; `optional` when some cells are `-`.
    lo: i128,
    hi: i128,
    optional: bool,
}

#[derive(Clone)]
struct Input {
    name: String,
    ty: Ty,
}

struct Resolver {
    name: String,
    inputs: Vec<Input>,
    /// (name, type): `total: int`, `flag: bool`, and `kind: <enum 0>` when there is an enum.
    outputs: Vec<(String, Ty)>,
}

struct Gen<'e> {
    e: &'e mut dyn Entropy,
    enums: Vec<Enum>,
    options: Vec<String>,
    keyed: Vec<Keyed>,
    ranges: Vec<Range>,
    matrices: Vec<Matrix>,
    resolvers: Vec<Resolver>,
    /// Names in scope in the resolver being written, innermost block last.
    scopes: Vec<Vec<(String, Ty)>>,
    /// Fresh-name counter within a resolver.
    fresh: usize,
    /// Statements still allowed in the resolver being written.
    budget: usize,
    /// Loops around the statement being written.
    loops: usize,
    /// Citations written so far (each citation is a new number).
    cite: usize,
}

/// One random valid rules system named `name` (a lowercase identifier, the folder name), as
/// (path under the rules folder, text) pairs: the declarations in `NAME/decls.rules`, the
/// resolvers in `NAME/resolvers.rules`.
pub fn system(e: &mut dyn Entropy, name: &str) -> Vec<(String, String)> {
    let mut g = Gen {
        e,
        enums: Vec::new(),
        options: Vec::new(),
        keyed: Vec::new(),
        ranges: Vec::new(),
        matrices: Vec::new(),
        resolvers: Vec::new(),
        scopes: Vec::new(),
        fresh: 0,
        budget: 0,
        loops: 0,
        cite: 0,
    };
    let decls = g.declarations(name);
    let resolvers = g.resolvers();
    vec![
        (format!("{name}/decls.rules"), decls),
        (format!("{name}/resolvers.rules"), resolvers),
    ]
}

impl Gen<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.e.below(n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn between(&mut self, lo: i128, hi: i128) -> i128 {
        lo + self.e.below((hi - lo + 1) as u64) as i128
    }
    fn cite(&mut self) -> String {
        self.cite += 1;
        format!("[{}.{}]", 1 + self.cite / 10, self.cite % 10)
    }

    // ---------- declarations ----------

    fn declarations(&mut self, name: &str) -> String {
        let mut out = format!("system {name} \"Generated {name}\" cite \"Gen\"\n");
        for i in 0..1 + self.below(3) {
            let variants: Vec<String> = (0..2 + self.below(3)).map(|j| format!("e{i}v{j}")).collect();
            out.push_str(&format!(
                "enum e{i} \"Enum {i}\" {{ {} }}\n",
                variants
                    .iter()
                    .map(|v| if self.chance(30) { format!("{v} \"the {v}\"") } else { v.clone() })
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            self.enums.push(Enum {
                name: format!("e{i}"),
                variants,
            });
        }
        for i in 0..self.below(3) {
            let c = self.cite();
            out.push_str(&format!("option o{i} \"Option {i}\" {c}\n"));
            self.options.push(format!("o{i}"));
        }
        if self.chance(50) {
            let c = self.cite();
            out.push_str(&format!("const k0 = {} \"a constant\" {c}\n", self.between(-5, 9)));
        }
        for i in 0..self.below(3) {
            out.push_str(&self.keyed_table(i));
        }
        for i in 0..self.below(4) {
            out.push_str(&self.range_table(i));
        }
        for i in 0..self.below(3) {
            out.push_str(&self.matrix(i));
        }
        out
    }

    fn keyed_table(&mut self, i: usize) -> String {
        let ncols = 1 + self.below(3);
        let mut kinds = Vec::new();
        for _ in 0..ncols {
            kinds.push(match self.below(3) {
                0 => 0,
                1 => 1,
                _ => 2,
            });
        }
        let nrows = 1 + self.below(4);
        let keys: Vec<String> = (0..nrows).map(|j| format!("K{i} {j}")).collect();
        let mut cells: Vec<Vec<String>> = vec![Vec::new(); nrows];
        let mut cols = Vec::new();
        for (c, &kind) in kinds.iter().enumerate() {
            let name = format!("c{c}");
            match kind {
                0 => {
                    let vals: Vec<i128> = (0..nrows).map(|_| self.between(-5, 12)).collect();
                    let (lo, hi) = (*vals.iter().min().unwrap_or(&0), *vals.iter().max().unwrap_or(&0));
                    for (r, v) in vals.iter().enumerate() {
                        cells[r].push(v.to_string());
                    }
                    cols.push((name, ColTy::Int(lo, hi)));
                }
                1 => {
                    for row in cells.iter_mut() {
                        row.push(if self.e.below(2) == 0 { "yes".into() } else { "no".into() });
                    }
                    cols.push((name, ColTy::Bool));
                }
                _ => {
                    let en = self.below(self.enums.len());
                    for row in cells.iter_mut() {
                        let v = self.below(self.enums[en].variants.len());
                        row.push(self.enums[en].variants[v].clone());
                    }
                    cols.push((name, ColTy::Enum(en)));
                }
            }
        }
        let c = self.cite();
        let mut out = format!("table t{i} \"Keyed {i}\" {c} {{\n  key name\n  columns ");
        out.push_str(
            &cols
                .iter()
                .map(|(n, t)| match t {
                    ColTy::Int(..) => format!("{n}: int"),
                    ColTy::Bool => format!("{n}: bool"),
                    ColTy::Enum(e) => format!("{n}: {}", self.enums[*e].name),
                })
                .collect::<Vec<_>>()
                .join(", "),
        );
        out.push('\n');
        for (k, row) in keys.iter().zip(&cells) {
            out.push_str(&format!("  \"{k}\" | {}\n", row.join(" | ")));
        }
        if self.chance(30) {
            out.push_str(&format!("  alias \"Other {i}\" => \"{}\"\n", keys[0]));
        }
        out.push_str("}\n");
        self.keyed.push(Keyed {
            name: format!("t{i}"),
            cols,
            keys,
        });
        out
    }

    /// Fixed dice for a table index: (text, lo, hi).
    fn fixed_dice(&mut self) -> (String, i128, i128) {
        match self.below(6) {
            0 => ("1d6".into(), 1, 6),
            1 => ("2d6".into(), 2, 12),
            2 => ("2d6 flux".into(), -5, 5),
            3 => ("3d6 keep highest 2".into(), 2, 12),
            4 => ("1d10 zero_based".into(), 0, 9),
            _ => {
                let s = [4, 8, 12, 20][self.below(4)];
                (format!("1d{s}"), 1, s)
            }
        }
    }

    /// Cut `lo..hi` into consecutive rows: (text of the row's range, its lo, its hi).
    fn partition(&mut self, lo: i128, hi: i128) -> Vec<String> {
        let mut rows = Vec::new();
        let mut start = lo;
        while start <= hi {
            let end = if self.chance(40) || rows.len() >= 6 {
                hi
            } else {
                self.between(start, hi)
            };
            let first = start == lo && self.chance(20);
            let last = end == hi && self.chance(20);
            rows.push(match (first, last) {
                (true, true) => "..".into(),
                (true, false) => format!("..{end}"),
                (false, true) => format!("{start}.."),
                _ if start == end => format!("{start}"),
                _ => format!("{start}..{end}"),
            });
            start = end + 1;
        }
        rows
    }

    fn range_table(&mut self, i: usize) -> String {
        let by = if self.chance(50) {
            let (d, lo, hi) = self.fixed_dice();
            Index::Dice(d, lo, hi)
        } else {
            let lo = self.between(-10, 5);
            Index::Int(lo, lo + self.between(0, 15))
        };
        let (lo, hi, by_text) = match &by {
            Index::Dice(d, lo, hi) => (*lo, *hi, d.clone()),
            Index::Int(lo, hi) => (*lo, *hi, format!("int {lo}..{hi}")),
        };
        let rows = self.partition(lo, hi);
        let result = if !self.enums.is_empty() && self.chance(40) {
            Result_::Enum(self.below(self.enums.len()))
        } else {
            Result_::Int(0, 0)
        };
        let c = self.cite();
        let mut out;
        let result = match result {
            Result_::Enum(en) => {
                out = format!("table r{i} \"Range {i}\" {c} by {by_text} -> {} {{\n", self.enums[en].name);
                for r in &rows {
                    let v = self.below(self.enums[en].variants.len());
                    out.push_str(&format!("  {r} => {}\n", self.enums[en].variants[v]));
                }
                Result_::Enum(en)
            }
            Result_::Int(..) => {
                out = format!("table r{i} \"Range {i}\" {c} by {by_text} -> int {{\n");
                let vals: Vec<i128> = rows.iter().map(|_| self.between(-6, 10)).collect();
                for (r, v) in rows.iter().zip(&vals) {
                    out.push_str(&format!("  {r} => {v}\n"));
                }
                Result_::Int(*vals.iter().min().unwrap_or(&0), *vals.iter().max().unwrap_or(&0))
            }
        };
        out.push_str("}\n");
        self.ranges.push(Range {
            name: format!("r{i}"),
            by,
            result,
        });
        out
    }

    fn matrix(&mut self, i: usize) -> String {
        let row = self.below(self.enums.len());
        let col = if self.chance(50) {
            Axis::Enum(self.below(self.enums.len()))
        } else {
            let lo = self.between(-2, 3);
            Axis::Int(lo, lo + self.between(0, 3))
        };
        let optional = self.chance(30);
        let labels: Vec<String> = match &col {
            Axis::Enum(e) => self.enums[*e].variants.clone(),
            Axis::Int(lo, hi) => (*lo..=*hi).map(|n| n.to_string()).collect(),
        };
        let col_text = match &col {
            Axis::Enum(e) => self.enums[*e].name.clone(),
            Axis::Int(lo, hi) => format!("int {lo}..{hi}"),
        };
        let c = self.cite();
        let mut out = format!(
            "table m{i} \"Matrix {i}\" {c} matrix a: {} x b: {col_text} -> int{} {{\n  | {}\n",
            self.enums[row].name,
            if optional { "?" } else { "" },
            labels.join(" | ")
        );
        let (mut lo, mut hi) = (i128::MAX, i128::MIN);
        for v in self.enums[row].variants.clone() {
            let cells: Vec<String> = labels
                .iter()
                .map(|_| {
                    if optional && self.chance(30) {
                        "-".to_string()
                    } else {
                        let x = self.between(-4, 6);
                        lo = lo.min(x);
                        hi = hi.max(x);
                        x.to_string()
                    }
                })
                .collect();
            out.push_str(&format!("  {v} | {}\n", cells.join(" | ")));
        }
        out.push_str("}\n");
        if lo > hi {
            (lo, hi) = (0, 0);
        }
        self.matrices.push(Matrix {
            name: format!("m{i}"),
            row,
            col,
            lo,
            hi,
            optional,
        });
        out
    }

    // ---------- resolvers ----------

    fn resolvers(&mut self) -> String {
        let mut out = String::new();
        let n = 1 + self.below(4);
        for i in 0..n {
            out.push_str(&self.resolver(format!("res{i}"), false));
        }
        // One more that consults every table and option, so none is unused (W0001, W0004).
        out.push_str(&self.resolver("touch_all".into(), true));
        out
    }

    fn input_ty(&mut self) -> Ty {
        match self.below(5) {
            0 | 1 => {
                let lo = self.between(-5, 5);
                Ty::Int(Some((lo, lo + self.between(0, 12))))
            }
            2 => Ty::Bool,
            3 if !self.keyed.is_empty() => {
                let t = self.below(self.keyed.len());
                if self.chance(40) {
                    Ty::List(t)
                } else {
                    Ty::Key(t)
                }
            }
            _ => Ty::Enum(self.below(self.enums.len())),
        }
    }

    fn ty_text(&self, ty: Ty) -> String {
        match ty {
            Ty::Int(Some((lo, hi))) => format!("int {lo}..{hi}"),
            Ty::Int(None) => "int".into(),
            Ty::Bool => "bool".into(),
            Ty::Enum(e) => self.enums[e].name.clone(),
            Ty::Key(t) => self.keyed[t].name.clone(),
            Ty::List(t) => format!("list {}", self.keyed[t].name),
        }
    }

    /// A literal of `ty` as a default or a cell.
    fn literal(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Int(Some((lo, hi))) => self.between(lo, hi).to_string(),
            Ty::Int(None) => self.between(-3, 3).to_string(),
            Ty::Bool => if self.chance(50) { "yes" } else { "no" }.into(),
            Ty::Enum(e) => {
                let v = self.below(self.enums[e].variants.len());
                self.enums[e].variants[v].clone()
            }
            Ty::Key(t) => {
                let k = self.below(self.keyed[t].keys.len());
                format!("\"{}\"", self.keyed[t].keys[k])
            }
            Ty::List(t) => {
                let items: Vec<String> = (0..self.below(3)).map(|_| self.literal(Ty::Key(t))).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }

    fn resolver(&mut self, name: String, touch_all: bool) -> String {
        self.fresh = 0;
        self.scopes = vec![Vec::new()];
        self.loops = 0;
        let c = self.cite();
        let mut out = format!("resolver {name} \"Resolver {name}\" {c} {{\n");
        let mut inputs = Vec::new();
        for i in 0..self.below(4) {
            let ty = self.input_ty();
            let n = format!("i{i}");
            let default = if self.chance(80) {
                format!(" = {}", self.literal(ty))
            } else {
                String::new()
            };
            let desc = if self.chance(30) { " \"an input\"" } else { "" };
            out.push_str(&format!("  in {n}: {}{default}{desc}\n", self.ty_text(ty)));
            self.scopes[0].push((n.clone(), ty));
            inputs.push((Input { name: n, ty }, !default.is_empty()));
        }
        let mut outputs = vec![("total".to_string(), Ty::Int(None)), ("flag".to_string(), Ty::Bool)];
        out.push_str("  out total: int = 0\n  out flag: bool = no\n");
        if !self.enums.is_empty() {
            out.push_str(&format!("  out kind: {} = {}\n", self.enums[0].name, self.enums[0].variants[0]));
            outputs.push(("kind".to_string(), Ty::Enum(0)));
        }
        let mut body = String::new();
        if touch_all {
            body.push_str(&self.touch_everything());
        } else {
            self.budget = 4 + self.below(10);
            while self.budget > 0 {
                body.push_str(&self.stmt(1, &outputs));
            }
        }
        out.push_str(&body);
        out.push_str("}\n");
        // Calls pass every input, so whether one has a default does not matter to them.
        self.resolvers.push(Resolver {
            name,
            inputs: inputs.into_iter().map(|(i, _)| i).collect(),
            outputs,
        });
        out
    }

    fn touch_everything(&mut self) -> String {
        let mut body = String::new();
        for o in self.options.clone() {
            body.push_str(&format!("  if option {o} {{\n    set flag = yes\n  }}\n"));
        }
        for t in 0..self.keyed.len() {
            let k = self.literal(Ty::Key(t));
            let col = self.keyed[t].cols[0].0.clone();
            let name = self.fresh_name();
            body.push_str(&format!("  let {name} = {}({k}).{col}\n", self.keyed[t].name));
        }
        for r in 0..self.ranges.len() {
            let (idx, _) = self.range_index(r);
            let name = self.fresh_name();
            body.push_str(&format!("  let {name} = {}({idx})\n", self.ranges[r].name));
        }
        for m in 0..self.matrices.len() {
            let (text, _) = self.matrix_lookup(m);
            let name = self.fresh_name();
            body.push_str(&format!("  let {name} = {text}\n"));
        }
        body
    }

    fn fresh_name(&mut self) -> String {
        self.fresh += 1;
        format!("x{}", self.fresh)
    }

    fn visible(&self, want: impl Fn(&Ty) -> bool) -> Vec<(String, Ty)> {
        self.scopes.iter().flatten().filter(|(_, t)| want(t)).cloned().collect()
    }

    fn indent(depth: usize) -> String {
        "  ".repeat(depth)
    }

    fn stmt(&mut self, depth: usize, outputs: &[(String, Ty)]) -> String {
        self.budget = self.budget.saturating_sub(1);
        let ind = Self::indent(depth);
        let deep = depth >= 4;
        match self.below(13) {
            0 | 1 => {
                let (d, lo, hi) = self.dice();
                let n = self.fresh_name();
                let label = if self.chance(50) { format!(" \"{n} roll\"") } else { String::new() };
                let c = if self.chance(50) {
                    format!(" {}", self.cite())
                } else {
                    String::new()
                };
                self.scopes.last_mut().map(|s| s.push((n.clone(), Ty::Int(Some((lo, hi))))));
                format!("{ind}roll {n} = {d}{label}{c}\n")
            }
            2 | 3 => {
                let n = self.fresh_name();
                let (e, iv) = self.int_expr(2);
                let mut text = format!("{ind}let {n} = {e}");
                let mut iv = iv;
                if self.chance(50) {
                    text.push_str(&format!(" {}", self.cite()));
                }
                if self.chance(50) {
                    text.push_str(" {\n");
                    let (mut add_lo, mut add_hi) = (0i128, 0i128);
                    for _ in 0..1 + self.below(3) {
                        let v = self.between(-4, 4);
                        let sign = if v >= 0 { "+" } else { "" };
                        let cond = self.bool_expr(1, true);
                        let c = self.cite();
                        text.push_str(&format!("{ind}  {sign}{v} \"modifier {v}\" when {cond} {c}\n"));
                        add_lo += v.min(0);
                        add_hi += v.max(0);
                    }
                    if self.chance(30) {
                        text.push_str(&format!("{ind}  highest \"best\" {{\n"));
                        let mut best = (0i128, 0i128);
                        for _ in 0..1 + self.below(3) {
                            let v = self.between(1, 3);
                            let cond = self.bool_expr(1, true);
                            let c = self.cite();
                            text.push_str(&format!("{ind}    +{v} \"best {v}\" when {cond} {c}\n"));
                            best.1 = best.1.max(v);
                        }
                        text.push_str(&format!("{ind}  }}\n"));
                        add_hi += best.1;
                    }
                    text.push_str(&format!("{ind}}}"));
                    iv = iv.map(|(lo, hi)| (lo + add_lo, hi + add_hi));
                }
                if let Some((lo, hi)) = iv {
                    if self.chance(40) {
                        let (a, b) = (self.between(lo, hi), self.between(lo, hi));
                        let (a, b) = (a.min(b), a.max(b));
                        text.push_str(&format!(" clamp {a}..{b}"));
                        iv = Some((a, b));
                    }
                }
                text.push('\n');
                self.scopes.last_mut().map(|s| s.push((n, Ty::Int(iv))));
                text
            }
            4 => {
                let n = self.fresh_name();
                let (l, _) = self.int_expr(2);
                let (r, _) = self.int_expr(2);
                let op = ["<=", "<", ">=", ">", "==", "!="][self.below(6)];
                let c = if self.chance(50) {
                    format!(" {}", self.cite())
                } else {
                    String::new()
                };
                self.scopes.last_mut().map(|s| s.push((n.clone(), Ty::Bool)));
                format!("{ind}check {n} = {l} {op} {r}{c}\n")
            }
            5 | 6 => {
                let (name, ty) = outputs[self.below(outputs.len())].clone();
                let e = self.expr_of(ty, 2);
                let c = if self.chance(50) {
                    format!(" {}", self.cite())
                } else {
                    String::new()
                };
                format!("{ind}set {name} = {e}{c}\n")
            }
            7 if !deep => {
                let cond = self.bool_expr(2, false);
                let mut text = format!("{ind}if {cond} {{\n");
                text.push_str(&self.block(depth + 1, outputs));
                text.push_str(&format!("{ind}}}"));
                if self.chance(30) {
                    let cond = self.bool_expr(2, false);
                    text.push_str(&format!(" else if {cond} {{\n"));
                    text.push_str(&self.block(depth + 1, outputs));
                    text.push_str(&format!("{ind}}}"));
                }
                if self.chance(50) {
                    text.push_str(" else {\n");
                    text.push_str(&self.block(depth + 1, outputs));
                    text.push_str(&format!("{ind}}}"));
                }
                text.push('\n');
                text
            }
            8 if !deep => {
                let mut text;
                if self.chance(50) {
                    let en = self.below(self.enums.len());
                    let e = self.expr_of(Ty::Enum(en), 1);
                    text = format!("{ind}match {e} {{\n");
                    let vs = self.enums[en].variants.clone();
                    let take = 1 + self.below(vs.len());
                    for chunk in vs[..take].chunks(1 + self.below(2)) {
                        text.push_str(&format!("{ind}  {} => {{\n", chunk.join(", ")));
                        text.push_str(&self.block(depth + 2, outputs));
                        text.push_str(&format!("{ind}  }}\n"));
                    }
                } else {
                    let (e, _) = self.int_expr(1);
                    text = format!("{ind}match {e} {{\n");
                    let cut = self.between(-3, 6);
                    text.push_str(&format!("{ind}  ..{cut} => {{\n"));
                    text.push_str(&self.block(depth + 2, outputs));
                    text.push_str(&format!("{ind}  }}\n"));
                    text.push_str(&format!("{ind}  {}..{}, {} => {{\n", cut + 1, cut + 3, cut + 5));
                    text.push_str(&self.block(depth + 2, outputs));
                    text.push_str(&format!("{ind}  }}\n"));
                }
                if self.chance(50) {
                    text.push_str(&format!("{ind}  _ => {{\n"));
                    text.push_str(&self.block(depth + 2, outputs));
                    text.push_str(&format!("{ind}  }}\n"));
                }
                text.push_str(&format!("{ind}}}\n"));
                text
            }
            9 if !self.resolvers.is_empty() && self.chance(70) => self.call(depth),
            9 if !deep => match self.some_list() {
                Some((list, t)) => {
                    let x = self.fresh_name();
                    let mut text = format!("{ind}for {x} in {list} {{\n");
                    self.scopes.push(vec![(x, Ty::Key(t))]);
                    self.loops += 1;
                    text.push_str(&self.block(depth + 1, outputs));
                    self.loops -= 1;
                    self.scopes.pop();
                    text.push_str(&format!("{ind}}}\n"));
                    text
                }
                None => format!("{ind}note \"no list\"\n"),
            },
            10 if !deep => {
                // A bounded loop with a counter, clamped before any use.
                let v = self.fresh_name();
                let n = 1 + self.below(4);
                let limit = self.between(0, 5);
                let mut text = format!("{ind}var {v} = 0\n{ind}repeat up to {n} {{\n");
                text.push_str(&format!("{ind}  {v} = {v} + 1\n"));
                text.push_str(&format!("{ind}  if {v} > {limit} {{\n{ind}    break\n{ind}  }}\n"));
                self.loops += 1;
                text.push_str(&self.block(depth + 1, outputs));
                self.loops -= 1;
                text.push_str(&format!("{ind}}}\n"));
                self.scopes
                    .last_mut()
                    .map(|s| s.push((format!("clamp({v}, 0, 9)"), Ty::Int(Some((0, 9))))));
                text
            }
            11 => {
                let cond = self.bool_expr(2, false);
                let c = self.cite();
                let shown = self
                    .visible(|t| matches!(t, Ty::Int(_)))
                    .into_iter()
                    .map(|(n, _)| n)
                    .find(|n| !n.contains('('));
                let msg = match shown {
                    Some(n) => format!("refused with {{{n}}}"),
                    None => "refused".into(),
                };
                format!("{ind}require {cond} else \"{msg}\" {c}\n")
            }
            12 => {
                // A statement after `break` or `return` in the same block is E0203, so each goes
                // alone in an `if`.
                if self.loops > 0 && self.chance(30) {
                    let cond = self.bool_expr(1, false);
                    format!("{ind}if {cond} {{\n{ind}  break\n{ind}}}\n")
                } else if self.chance(20) {
                    let cond = self.bool_expr(1, false);
                    format!("{ind}if {cond} {{\n{ind}  return\n{ind}}}\n")
                } else {
                    let c = if self.chance(50) {
                        format!(" {}", self.cite())
                    } else {
                        String::new()
                    };
                    format!("{ind}note \"a note\"{c}\n")
                }
            }
            _ => {
                let (name, ty) = outputs[self.below(outputs.len())].clone();
                let e = self.expr_of(ty, 1);
                format!("{ind}set {name} = {e}\n")
            }
        }
    }

    fn block(&mut self, depth: usize, outputs: &[(String, Ty)]) -> String {
        self.scopes.push(Vec::new());
        let mut text = String::new();
        for _ in 0..1 + self.below(3) {
            if self.budget == 0 {
                break;
            }
            text.push_str(&self.stmt(depth, outputs));
        }
        self.scopes.pop();
        text
    }

    fn call(&mut self, depth: usize) -> String {
        let ind = Self::indent(depth);
        let callee = self.below(self.resolvers.len());
        let inputs = self.resolvers[callee].inputs.clone();
        let mut args = Vec::new();
        for inp in inputs {
            // Inputs are given half the time; a required one always (see `resolver`: every input
            // of a callee is passed when it has no default, which the generator does not track,
            // so all are passed).
            let e = match inp.ty {
                Ty::Int(Some((lo, hi))) => self.int_in(lo, hi, 1),
                ty => self.expr_of(ty, 1),
            };
            args.push(format!("{}: {e}", inp.name));
        }
        let n = self.fresh_name();
        let outs = self.resolvers[callee].outputs.clone();
        let c = if self.chance(50) {
            format!(" {}", self.cite())
        } else {
            String::new()
        };
        let text = format!("{ind}call {n} = {}({}){c}\n", self.resolvers[callee].name, args.join(", "));
        if let Some(s) = self.scopes.last_mut() {
            for (o, ty) in outs {
                // An `int` output has no bounds: clamp it where it is read.
                let shown = match ty {
                    Ty::Int(_) => format!("clamp({n}.{o}, -20, 20)"),
                    _ => format!("{n}.{o}"),
                };
                let ty = match ty {
                    Ty::Int(_) => Ty::Int(Some((-20, 20))),
                    t => t,
                };
                s.push((shown, ty));
            }
        }
        text
    }

    /// Dice for a roll: (text, lo, hi).
    fn dice(&mut self) -> (String, i128, i128) {
        match self.below(10) {
            0 | 1 => {
                let n = 1 + self.between(0, 3);
                let s = [2, 3, 4, 6, 8, 10, 12, 20][self.below(8)];
                (format!("{n}d{s}"), n, n * s)
            }
            2 => ("d100".into(), 1, 100),
            3 => ("2d6 bad_flux".into(), -5, 0),
            4 => ("4d6 drop lowest 1".into(), 3, 18),
            5 => {
                let m = self.between(-2, 2);
                (format!("3d6 each {m} floor 0"), 3 * (1 + m).max(0), 3 * (6 + m).max(0))
            }
            6 => ("2d6 reroll 12".into(), 2, 11),
            7 => {
                // A computed count.
                let (e, _) = self.int_expr(1);
                ("(clamp(".to_string() + &e + ", 0, 3))d6", 0, 18)
            }
            8 => {
                let (e, _) = self.int_expr(1);
                (format!("1d6 reroll (clamp({e}, 2, 7))..6"), 1, 6)
            }
            _ => self.fixed_dice(),
        }
    }

    // ---------- expressions ----------

    fn expr_of(&mut self, ty: Ty, depth: usize) -> String {
        match ty {
            Ty::Int(Some((lo, hi))) => self.int_in(lo, hi, depth),
            Ty::Int(None) => self.int_expr(depth).0,
            Ty::Bool => self.bool_expr(depth, false),
            Ty::Enum(e) => self.enum_expr(e, depth),
            Ty::Key(t) => {
                let vars = self.visible(|x| *x == Ty::Key(t));
                if !vars.is_empty() && self.chance(60) {
                    vars[self.below(vars.len())].0.clone()
                } else {
                    self.literal(Ty::Key(t))
                }
            }
            Ty::List(t) => {
                let vars = self.visible(|x| *x == Ty::List(t));
                if !vars.is_empty() && self.chance(60) {
                    vars[self.below(vars.len())].0.clone()
                } else {
                    self.literal(Ty::List(t))
                }
            }
        }
    }

    /// A list in scope and its table, if any.
    fn some_list(&mut self) -> Option<(String, usize)> {
        let lists: Vec<(String, usize)> = self
            .visible(|t| matches!(t, Ty::List(_)))
            .into_iter()
            .filter_map(|(n, t)| match t {
                Ty::List(k) => Some((n, k)),
                _ => None,
            })
            .collect();
        if lists.is_empty() {
            None
        } else {
            Some(lists[self.below(lists.len())].clone())
        }
    }

    /// An aggregate over a list in scope: `count`, `sum`, `max`, `min` of an int column, or
    /// `len`; the checker may not bound it, so it comes clamped.
    fn aggregate_int(&mut self) -> Option<String> {
        let (list, t) = self.some_list()?;
        self.fresh += 1;
        let x = format!("y{}", self.fresh);
        let ints: Vec<String> = self.keyed[t]
            .cols
            .iter()
            .filter(|(_, c)| matches!(c, ColTy::Int(..)))
            .map(|(n, _)| n.clone())
            .collect();
        let text = match (self.below(4), ints.is_empty()) {
            (0, _) | (_, true) => format!("len({list})"),
            (1, false) => format!("count({x} in {list}: {x}.{} > 0)", ints[0]),
            (2, false) => format!("sum({x} in {list}: {x}.{})", ints[self.below(ints.len())]),
            _ => {
                let f = if self.chance(50) { "max" } else { "min" };
                format!("{f}({x} in {list}: {x}.{})", ints[self.below(ints.len())])
            }
        };
        Some(format!("clamp({text}, 0, 30)"))
    }

    /// An int expression proved to stay in `lo..hi`.
    fn int_in(&mut self, lo: i128, hi: i128, depth: usize) -> String {
        if self.chance(30) {
            return self.between(lo, hi).to_string();
        }
        let (e, _) = self.int_expr(depth);
        format!("clamp({e}, {lo}, {hi})")
    }

    fn enum_expr(&mut self, en: usize, depth: usize) -> String {
        let vars = self.visible(|x| *x == Ty::Enum(en));
        let cols: Vec<(usize, String)> = self
            .visible(|x| matches!(x, Ty::Key(_)))
            .into_iter()
            .filter_map(|(n, t)| match t {
                Ty::Key(k) => self.keyed[k]
                    .cols
                    .iter()
                    .find(|(_, c)| matches!(c, ColTy::Enum(e) if *e == en))
                    .map(|(c, _)| (k, format!("{n}.{c}"))),
                _ => None,
            })
            .collect();
        let ranges: Vec<usize> = (0..self.ranges.len())
            .filter(|&r| matches!(self.ranges[r].result, Result_::Enum(e) if e == en))
            .collect();
        match self.below(5) {
            0 if !vars.is_empty() => vars[self.below(vars.len())].0.clone(),
            1 if !cols.is_empty() => cols[self.below(cols.len())].1.clone(),
            2 if !ranges.is_empty() => {
                let r = ranges[self.below(ranges.len())];
                let (idx, _) = self.range_index(r);
                format!("{}({idx})", self.ranges[r].name)
            }
            3 if depth > 0 => {
                let c = self.bool_expr(depth - 1, false);
                let a = self.enum_expr(en, depth - 1);
                let b = self.enum_expr(en, depth - 1);
                format!("(if {c} then {a} else {b})")
            }
            _ => self.literal(Ty::Enum(en)),
        }
    }

    /// The index of a range table, proved in its domain, and its interval.
    fn range_index(&mut self, r: usize) -> (String, (i128, i128)) {
        let (lo, hi) = match &self.ranges[r].by {
            Index::Dice(_, lo, hi) | Index::Int(lo, hi) => (*lo, *hi),
        };
        let fits = self.visible(|t| matches!(t, Ty::Int(Some((a, b))) if *a >= lo && *b <= hi));
        if !fits.is_empty() && self.chance(60) {
            return (fits[self.below(fits.len())].0.clone(), (lo, hi));
        }
        (self.int_in(lo, hi, 1), (lo, hi))
    }

    fn matrix_lookup(&mut self, m: usize) -> (String, (i128, i128)) {
        let row = self.enum_expr(self.matrices[m].row, 1);
        let col = match self.matrices[m].col {
            Axis::Enum(e) => self.enum_expr(e, 1),
            Axis::Int(lo, hi) => self.int_in(lo, hi, 1),
        };
        let mx = &self.matrices[m];
        if mx.optional {
            let (lo, hi) = (mx.lo.min(0), mx.hi.max(0));
            (format!("({}({row}, {col}) ?? 0)", mx.name), (lo, hi))
        } else {
            (format!("{}({row}, {col})", mx.name), (mx.lo, mx.hi))
        }
    }

    /// A whole-number expression and its interval (None: unknown to the checker; only `let`
    /// of such a value keeps it, and every use that needs bounds clamps it).
    fn int_expr(&mut self, depth: usize) -> (String, Option<(i128, i128)>) {
        let leaf = depth == 0 || self.chance(35);
        if leaf {
            let vars = self.visible(|t| matches!(t, Ty::Int(Some(_))));
            let cols: Vec<(String, (i128, i128))> = self
                .visible(|x| matches!(x, Ty::Key(_)))
                .into_iter()
                .flat_map(|(n, t)| match t {
                    Ty::Key(k) => self.keyed[k]
                        .cols
                        .iter()
                        .filter_map(|(c, ct)| match ct {
                            ColTy::Int(lo, hi) => Some((format!("{n}.{c}"), (*lo, *hi))),
                            _ => None,
                        })
                        .collect::<Vec<_>>(),
                    _ => Vec::new(),
                })
                .collect();
            return match self.below(4) {
                0 | 1 if !vars.is_empty() => {
                    let (n, t) = vars[self.below(vars.len())].clone();
                    match t {
                        Ty::Int(iv) => (n, iv),
                        _ => ("0".into(), Some((0, 0))),
                    }
                }
                2 if !cols.is_empty() => {
                    let (n, iv) = cols[self.below(cols.len())].clone();
                    (n, Some(iv))
                }
                3 if self.chance(50) => match self.aggregate_int() {
                    Some(text) => (text, Some((0, 30))),
                    None => ("1".into(), Some((1, 1))),
                },
                _ => {
                    let v = self.between(-5, 9);
                    let text = if v < 0 { format!("({v})") } else { v.to_string() };
                    (text, Some((v, v)))
                }
            };
        }
        let d = depth - 1;
        let (text, iv) = match self.below(12) {
            0 | 1 => {
                let (a, ia) = self.int_expr(d);
                let (b, ib) = self.int_expr(d);
                let minus = self.chance(50);
                let iv = ia
                    .zip(ib)
                    .map(|((al, ah), (bl, bh))| if minus { (al - bh, ah - bl) } else { (al + bl, ah + bh) });
                (format!("{a} {} {b}", if minus { "-" } else { "+" }), iv)
            }
            2 => {
                let (a, ia) = self.int_expr(d);
                let (b, ib) = self.int_expr(d);
                let iv = ia.zip(ib).map(|((al, ah), (bl, bh))| {
                    let ps = [al * bl, al * bh, ah * bl, ah * bh];
                    (*ps.iter().min().unwrap_or(&0), *ps.iter().max().unwrap_or(&0))
                });
                (format!("({a}) * ({b})"), iv)
            }
            3 => {
                let (a, ia) = self.int_expr(d);
                let (b, ib) = self.int_expr(d);
                let f = if self.chance(50) { "min" } else { "max" };
                let iv = ia.zip(ib).map(|((al, ah), (bl, bh))| {
                    if f == "min" {
                        (al.min(bl), ah.min(bh))
                    } else {
                        (al.max(bl), ah.max(bh))
                    }
                });
                (format!("{f}({a}, {b})"), iv)
            }
            4 => {
                let (a, ia) = self.int_expr(d);
                let k = self.between(1, 4);
                let f = ["floor", "ceil", "round"][self.below(3)];
                // Division by a positive constant: the interval shrinks (rounding widens it by 1).
                let iv = ia.map(|(lo, hi)| (lo / k - 1, hi / k + 1));
                (format!("{f}(({a}) / {k})"), iv)
            }
            5 => {
                let (a, ia) = self.int_expr(d);
                let k = self.between(1, 6);
                let _ = ia;
                // Never negative, but the checker need not know that: keep it wide.
                (format!("({a}) % {k}"), Some((-k, k)))
            }
            6 => {
                let (a, ia) = self.int_expr(d);
                let iv = ia.map(|(lo, hi)| {
                    if lo >= 0 {
                        (lo, hi)
                    } else if hi <= 0 {
                        (-hi, -lo)
                    } else {
                        (0, hi.max(-lo))
                    }
                });
                (format!("abs({a})"), iv)
            }
            7 => {
                let c = self.bool_expr(d, false);
                let (a, ia) = self.int_expr(d);
                let (b, ib) = self.int_expr(d);
                let iv = ia.zip(ib).map(|((al, ah), (bl, bh))| (al.min(bl), ah.max(bh)));
                (format!("(if {c} then {a} else {b})"), iv)
            }
            8 if !self.ranges.is_empty() => {
                let ints: Vec<usize> = (0..self.ranges.len())
                    .filter(|&r| matches!(self.ranges[r].result, Result_::Int(..)))
                    .collect();
                if ints.is_empty() {
                    let v = self.between(0, 3);
                    (v.to_string(), Some((v, v)))
                } else {
                    let r = ints[self.below(ints.len())];
                    let (idx, _) = self.range_index(r);
                    let iv = match self.ranges[r].result {
                        Result_::Int(lo, hi) => (lo, hi),
                        Result_::Enum(_) => (0, 0),
                    };
                    (format!("{}({idx})", self.ranges[r].name), Some(iv))
                }
            }
            9 if !self.matrices.is_empty() => {
                let m = self.below(self.matrices.len());
                let (t, iv) = self.matrix_lookup(m);
                (t, Some(iv))
            }
            10 if !self.keyed.is_empty() => {
                let t = self.below(self.keyed.len());
                let ints: Vec<(String, i128, i128)> = self.keyed[t]
                    .cols
                    .iter()
                    .filter_map(|(c, ct)| match ct {
                        ColTy::Int(lo, hi) => Some((c.clone(), *lo, *hi)),
                        _ => None,
                    })
                    .collect();
                if ints.is_empty() {
                    ("1".into(), Some((1, 1)))
                } else {
                    let (c, lo, hi) = ints[self.below(ints.len())].clone();
                    let k = self.literal(Ty::Key(t));
                    (format!("{}({k}).{c}", self.keyed[t].name), Some((lo, hi)))
                }
            }
            _ => {
                let (a, _) = self.int_expr(d);
                let lo = self.between(-6, 3);
                let hi = lo + self.between(0, 8);
                (format!("clamp({a}, {lo}, {hi})"), Some((lo, hi)))
            }
        };
        match iv {
            Some((lo, hi)) if lo.abs() > BIG || hi.abs() > BIG => (format!("clamp({text}, -100, 100)"), Some((-100, 100))),
            None => (format!("clamp({text}, -50, 50)"), Some((-50, 50))),
            iv => (text, iv),
        }
    }

    /// A yes/no expression; `modifier` keeps out literal yes/no (a modifier whose condition is
    /// literally `no` is warning W0003).
    fn bool_expr(&mut self, depth: usize, modifier: bool) -> String {
        let leaf = depth == 0 || self.chance(40);
        if leaf {
            let vars = self.visible(|t| *t == Ty::Bool);
            return match self.below(5) {
                0 if !vars.is_empty() => vars[self.below(vars.len())].0.clone(),
                1 if !self.options.is_empty() => {
                    let o = self.below(self.options.len());
                    format!("option {}", self.options[o])
                }
                2 if !modifier => if self.chance(50) { "yes" } else { "no" }.into(),
                3 if self.chance(50) => match self.some_list() {
                    Some((list, t)) => {
                        if self.chance(50) {
                            let k = self.literal(Ty::Key(t));
                            format!("{k} in {list}")
                        } else {
                            self.fresh += 1;
                            let x = format!("y{}", self.fresh);
                            let col = &self.keyed[t].cols[0];
                            let cond = match col.1 {
                                ColTy::Int(..) => format!("{x}.{} > 1", col.0),
                                ColTy::Bool => format!("{x}.{}", col.0),
                                ColTy::Enum(e) => format!("{x}.{} == {}", col.0, self.enums[e].variants[0]),
                            };
                            let f = if self.chance(50) { "any" } else { "all" };
                            format!("{f}({x} in {list}: {cond})")
                        }
                    }
                    None => "1 > 0".into(),
                },
                _ => {
                    let (a, _) = self.int_expr(1);
                    let (b, _) = self.int_expr(1);
                    let op = ["<=", "<", ">=", ">", "==", "!="][self.below(6)];
                    format!("{a} {op} {b}")
                }
            };
        }
        let d = depth - 1;
        match self.below(5) {
            0 => {
                let a = self.bool_expr(d, modifier);
                let b = self.bool_expr(d, modifier);
                format!("({a} and {b})")
            }
            1 => {
                let a = self.bool_expr(d, modifier);
                let b = self.bool_expr(d, modifier);
                format!("({a} or {b})")
            }
            2 => format!("not ({})", self.bool_expr(d, modifier)),
            3 => {
                let en = self.below(self.enums.len());
                let a = self.enum_expr(en, d);
                let v = self.literal(Ty::Enum(en));
                format!("{a} {} {v}", if self.chance(50) { "==" } else { "!=" })
            }
            _ => {
                let cols: Vec<String> = self
                    .visible(|x| matches!(x, Ty::Key(_)))
                    .into_iter()
                    .flat_map(|(n, t)| match t {
                        Ty::Key(k) => self.keyed[k]
                            .cols
                            .iter()
                            .filter(|(_, ct)| matches!(ct, ColTy::Bool))
                            .map(|(c, _)| format!("{n}.{c}"))
                            .collect::<Vec<_>>(),
                        _ => Vec::new(),
                    })
                    .collect();
                if cols.is_empty() {
                    let (a, _) = self.int_expr(d);
                    format!("{a} >= 0")
                } else {
                    cols[self.below(cols.len())].clone()
                }
            }
        }
    }
}
