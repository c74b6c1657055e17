//! Defines and constant integer expressions (launch geometry, sizes, indices), folded at
//! load time.

use super::*;

impl Loader<'_> {
    /// Declared defines in order, each an integer or an expression folded over the defines
    /// before it; a `--define` override replaces the value (later defines follow it).
    pub(super) fn fold_defines(&mut self, defs: &[(Text, file::DefineValue)]) -> R<()> {
        for (name, v) in &self.opts.defines {
            if !defs.iter().any(|(n, _)| &n.text == name) {
                let names: Vec<_> = defs.iter().map(|(n, _)| n.text.as_str()).collect();
                let list = if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                };
                return Err(Diag::file(
                    Phase::Check,
                    self.path,
                    format!("--define {name}={v}: the program has no define `{name}`"),
                    Some(format!("its defines are: {list}")),
                ));
            }
        }
        for (k, (name, v)) in defs.iter().enumerate() {
            self.check_define_name(name)?;
            let over = self
                .opts
                .defines
                .iter()
                .rev()
                .find(|(n, _)| n == &name.text);
            let value = match (over, v) {
                (Some((_, o)), _) => *o,
                (None, file::DefineValue::Int(i)) => *i,
                (None, file::DefineValue::Expr(t)) => {
                    let (node, site) = self.parse_expr(t)?;
                    self.check_order(&node, site, &name.text, &defs[k..])?;
                    self.fold_int(&node, site, &format!("`defines.{}`", name.text))?
                }
            };
            self.defines.push((name.text.clone(), value));
        }
        Ok(())
    }

    fn check_define_name(&self, name: &Text) -> R<()> {
        if !is_ident(&name.text) {
            return Err(self.err_text(
                name,
                format!("`{}` is not a valid define name", name.text),
                Some("use letters, digits and _, starting with a letter".to_owned()),
            ));
        }
        if special(&name.text).is_some()
            || expr::builtins::lookup(&name.text, expr::Context::Kernel).is_some()
        {
            return Err(self.err_text(
                name,
                format!(
                    "`{}` is a built-in name (a special register or function) and cannot \
                     name a define: it would hide the built-in",
                    name.text
                ),
                Some("choose another name, e.g. in capitals".to_owned()),
            ));
        }
        if self.define(&name.text).is_some() {
            return Err(self.err_text(
                name,
                format!("define `{}` is declared twice", name.text),
                None,
            ));
        }
        Ok(())
    }

    /// Refuses a name in define `this`'s expression that is declared at or after it
    /// (`rest[0]` is `this`): a use before the definition, or a cycle.
    fn check_order(
        &self,
        n: &Node,
        site: Site,
        this: &str,
        rest: &[(Text, file::DefineValue)],
    ) -> R<()> {
        let mut names = Vec::new();
        names_in(n, &mut names);
        for m in names {
            let Kind::Name(used) = &m.kind else { continue };
            if self.define(used).is_some() || !rest.iter().any(|(d, _)| &d.text == used) {
                continue;
            }
            let msg = if used == this {
                format!("`defines.{this}` uses itself: a cycle")
            } else if let Some(path) = cycle_path(used, this, rest, &mut Vec::new()) {
                format!(
                    "`defines.{this}` is part of a cycle: {this} -> {}",
                    path.join(" -> ")
                )
            } else {
                format!("`defines.{this}` uses `{used}` before it is defined (defines are folded in order)")
            };
            return Err(self.err_node(
                site,
                m,
                msg,
                Some(format!(
                    "a define may use only the defines above it: define `{used}` above `{this}`, \
                     or write its value here"
                )),
            ));
        }
        Ok(())
    }

    pub(super) fn define(&self, name: &str) -> Option<i64> {
        self.defines
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// Evaluates an expression of defines to an integer.
    pub(super) fn const_int(&self, e: &Expr, what: &str) -> R<i64> {
        let (n, site) = self.parse_expr(&e.0)?;
        self.fold_int(&n, site, what)
    }

    pub(super) fn fold_int(&self, n: &Node, site: Site, what: &str) -> R<i64> {
        let over = || {
            self.err_node(
                site,
                n,
                format!("{what}: this overflows 64-bit arithmetic"),
                Some("check the defines' values (`--define`)".to_owned()),
            )
        };
        Ok(match &n.kind {
            Kind::Int { value, .. } => *value,
            Kind::Name(name) => self.define(name).ok_or_else(|| {
                self.err_node(
                    site,
                    n,
                    format!("{what} must be a constant, but `{name}` is not a define"),
                    Some(format!("defines: {}", self.define_list())),
                )
            })?,
            Kind::Unary(UnOp::Neg, a) => self
                .fold_int(a, site, what)?
                .checked_neg()
                .ok_or_else(over)?,
            Kind::Unary(UnOp::BitNot, a) => !self.fold_int(a, site, what)?,
            Kind::Unary(UnOp::Not, a) => (self.fold_int(a, site, what)? == 0) as i64,
            Kind::Binary(op, a, b) => {
                let x = self.fold_int(a, site, what)?;
                let y = self.fold_int(b, site, what)?;
                fold_i64(*op, x, y)
                    .map_err(|m| self.err_node(site, n, format!("{what}: {m}"), None))?
            }
            Kind::Cond(c, a, b) => {
                if self.fold_int(c, site, what)? != 0 {
                    self.fold_int(a, site, what)?
                } else {
                    self.fold_int(b, site, what)?
                }
            }
            Kind::Call(f, args)
                if expr::builtins::lookup(f, expr::Context::Constant)
                    .is_some_and(|b| b.arity == args.len()) =>
            {
                let x = self.fold_int(&args[0], site, what)?;
                let y = self.fold_int(&args[1], site, what)?;
                if f == "min" {
                    x.min(y)
                } else {
                    x.max(y)
                }
            }
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("{what} must be an integer expression of defines"),
                    Some(
                        "use integer literals, defines, + - * / % << >> & | ^, min and max"
                            .to_owned(),
                    ),
                ))
            }
        })
    }

    pub(super) fn define_list(&self) -> String {
        if self.defines.is_empty() {
            "none".into()
        } else {
            self.defines
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    pub(super) fn line_of(&self, t: &Text) -> u32 {
        self.lines
            .line_col(&self.src, t.span.unwrap_or(self.cursor))
            .0
    }
}

pub(super) fn fold_i64(op: BinOp, x: i64, y: i64) -> Result<i64, String> {
    use BinOp::*;
    let over = || "this overflows 64-bit arithmetic".to_owned();
    Ok(match op {
        Add => x.checked_add(y).ok_or_else(over)?,
        Sub => x.checked_sub(y).ok_or_else(over)?,
        Mul => x.checked_mul(y).ok_or_else(over)?,
        Div | Rem if y == 0 => return Err("division by zero".into()),
        Div => x.checked_div(y).ok_or_else(over)?,
        Rem => x.checked_rem(y).ok_or_else(over)?,
        And => x & y,
        Or => x | y,
        Xor => x ^ y,
        Shl => {
            if !(0..63).contains(&y) {
                return Err(format!("shift by {y} is out of range"));
            }
            x.checked_mul(1 << y).ok_or_else(over)?
        }
        Shr => {
            if !(0..64).contains(&y) {
                return Err(format!("shift by {y} is out of range"));
            }
            x >> y
        }
        Eq => (x == y) as i64,
        Ne => (x != y) as i64,
        Lt => (x < y) as i64,
        Le => (x <= y) as i64,
        Gt => (x > y) as i64,
        Ge => (x >= y) as i64,
        LAnd => (x != 0 && y != 0) as i64,
        LOr => (x != 0 || y != 0) as i64,
    })
}

/// [`fold_i64`] for u32 constants: wrapping, with the executor's shifts (0 from 32 on).
pub(super) fn fold_u32(op: BinOp, x: u32, y: u32) -> Result<i64, String> {
    use BinOp::*;
    Ok(match op {
        Add => x.wrapping_add(y) as i64,
        Sub => x.wrapping_sub(y) as i64,
        Mul => x.wrapping_mul(y) as i64,
        Div | Rem if y == 0 => return Err("division by zero".into()),
        Div => (x / y) as i64,
        Rem => (x % y) as i64,
        Shl => x.checked_shl(y).unwrap_or(0) as i64,
        Shr => x.checked_shr(y).unwrap_or(0) as i64,
        _ => return fold_i64(op, x as i64, y as i64),
    })
}

/// The name nodes of an expression, left to right.
fn names_in<'n>(n: &'n Node, out: &mut Vec<&'n Node>) {
    match &n.kind {
        Kind::Name(_) => out.push(n),
        Kind::Int { .. } | Kind::Float(_) => {}
        Kind::Index(_, v) | Kind::Call(_, v) => v.iter().for_each(|a| names_in(a, out)),
        Kind::Unary(_, a) => names_in(a, out),
        Kind::Binary(_, a, b) => {
            names_in(a, out);
            names_in(b, out);
        }
        Kind::Cond(c, a, b) => {
            names_in(c, out);
            names_in(a, out);
            names_in(b, out);
        }
    }
}

/// The chain of later defines from `from` back to `target`, if `from`'s expression reaches it.
fn cycle_path(
    from: &str,
    target: &str,
    defs: &[(Text, file::DefineValue)],
    seen: &mut Vec<String>,
) -> Option<Vec<String>> {
    if seen.iter().any(|s| s == from) {
        return None;
    }
    seen.push(from.to_owned());
    let (_, file::DefineValue::Expr(t)) = defs.iter().find(|(d, _)| d.text == from)? else {
        return None;
    };
    let node = expr::parse(&t.text).ok()?;
    let mut names = Vec::new();
    names_in(&node, &mut names);
    for m in names {
        let Kind::Name(u) = &m.kind else { continue };
        if u == target {
            return Some(vec![from.to_owned(), target.to_owned()]);
        }
        if let Some(mut p) = cycle_path(u, target, defs, seen) {
            p.insert(0, from.to_owned());
            return Some(p);
        }
    }
    None
}
