//! Checking the CPU reference expressions (`expect`) at load time.

use super::*;
use warpsim_kernel::expr::builtins::{self, Builtin, Context};

impl Loader<'_> {
    /// `expect: "permutation(src)"` on buffer `k`: `src` must be a buffer of the same type and
    /// length (possibly `k` itself: an in-place rearrangement).
    pub(super) fn check_permutation(
        &self,
        k: usize,
        src: Option<&str>,
        n: &Node,
        site: Site,
    ) -> R<()> {
        let me = &self.buffers[k];
        let Some(b) = src.and_then(|s| self.buffers.iter().find(|b| b.name == s)) else {
            return Err(self.err_node(
                site,
                n,
                "`permutation` takes the name of one buffer".to_owned(),
                Some(format!(
                    "write expect: \"permutation(src)\": the final `{}` must hold the initial \
                     elements of buffer `src`, in any order",
                    me.name
                )),
            ));
        };
        if b.elem != me.elem || b.len != me.len {
            return Err(self.err_node(
                site,
                n,
                format!(
                    "`{}` ({} x {}) cannot be a permutation of `{}` ({} x {})",
                    me.name, me.len, me.elem, b.name, b.len, b.elem
                ),
                Some("both buffers need the same type and length".to_owned()),
            ));
        }
        Ok(())
    }

    pub(super) fn check_host(&self, n: &Node, site: Site, vars: &mut Vec<String>) -> R<()> {
        match &n.kind {
            Kind::Int { .. } | Kind::Float(_) => Ok(()),
            Kind::Name(name) => {
                if vars.contains(name) || self.define(name).is_some() {
                    Ok(())
                } else {
                    let help = format!(
                        "the reference may use `i` (the element index), sum variables and the \
                         defines ({})",
                        self.define_list()
                    );
                    Err(self.err_node(
                        site,
                        n,
                        format!("unknown name `{name}` in the reference"),
                        Some(help),
                    ))
                }
            }
            Kind::Index(name, idx) => {
                if !self.buffers.iter().any(|b| &b.name == name) || idx.len() != 1 {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("`{name}` is not a buffer"),
                        Some(
                            "the reference reads buffers' initial contents: buf[index]".to_owned(),
                        ),
                    ));
                }
                self.check_host(&idx[0], site, vars)
            }
            Kind::Unary(_, a) => self.check_host(a, site, vars),
            Kind::Binary(_, a, b) => {
                self.check_host(a, site, vars)?;
                self.check_host(b, site, vars)
            }
            Kind::Cond(c, a, b) => {
                self.check_host(c, site, vars)?;
                self.check_host(a, site, vars)?;
                self.check_host(b, site, vars)
            }
            Kind::Call(f, args)
                if builtins::lookup(f, Context::Reference)
                    .is_some_and(|b| b.builtin == Builtin::Sum) =>
            {
                let [v, from, to, body] = args.as_slice() else {
                    return Err(self.err_node(
                        site,
                        n,
                        "sum takes 4 arguments: sum(k, from, to, term)".to_owned(),
                        None,
                    ));
                };
                let Kind::Name(var) = &v.kind else {
                    return Err(self.err_node(
                        site,
                        v,
                        "the first argument of sum names its variable".to_owned(),
                        None,
                    ));
                };
                self.check_host(from, site, vars)?;
                self.check_host(to, site, vars)?;
                vars.push(var.clone());
                let r = self.check_host(body, site, vars);
                vars.pop();
                r
            }
            Kind::Call(f, args) => {
                let Some(info) = builtins::lookup(f, Context::Reference) else {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("unknown function `{f}`"),
                        Some(format!(
                            "functions: {}",
                            builtins::names(Context::Reference)
                        )),
                    ));
                };
                let arity = info.arity;
                if args.len() != arity {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("`{f}` takes {arity} argument(s)"),
                        None,
                    ));
                }
                for a in args {
                    self.check_host(a, site, vars)?;
                }
                Ok(())
            }
        }
    }
}

impl Loader<'_> {
    /// The buffers' `check` predicates: names, buffers and functions as for `expect` (the
    /// buffers are read after the run); `permutation` belongs in `expect`.
    pub(super) fn checks(&mut self, p: &file::ProgramSource) -> R<()> {
        for (i, b) in p.buffers.iter().enumerate() {
            let Some(t) = &b.check else { continue };
            let (node, site) = self.parse_expr(t)?;
            if warpsim_kernel::expr::permutation_source(&node).is_some() {
                return Err(self.err_node(
                    site,
                    &node,
                    "`permutation` is a reference, not a predicate".to_owned(),
                    Some(format!(
                        "write it as `expect: \"{}\"`; `check` and `expect` may both be given",
                        t.text
                    )),
                ));
            }
            self.check_host(&node, site, &mut vec!["i".to_owned()])?;
            let line = self.line_of(t);
            self.buffers[i].check = Some(Expect {
                text: t.text.clone(),
                node,
                tolerance: 0.0,
                line,
                offset: t.span,
            });
        }
        Ok(())
    }
}
