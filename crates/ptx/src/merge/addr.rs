//! ptxas's view of a shared address: which accesses share a base (rule 1 and spec M-a of
//! calibration/probes/cuda_coverage/README.md).
//!
//! ptxas merges accesses whose addresses are one base plus constants *after its own folding*:
//! a symbol plus immediates, a register plus immediates, registers made from one another by
//! adding constants (an immediate, or one moved to a register first; chains `p1 = p0 + 4`),
//! and sums that differ only by constants (`(p + 8) + q` and `p + q`: the trips of an unrolled
//! loop). It does not see through a 32-bit value widened to 64 bits (`mul.wide`, `cvt`: the
//! 32-bit wrap hides the constant, families `or32`, `add32u`, `add32s`, `mad`), nor through
//! `cvta` (family `cvta`), nor through any other arithmetic: such a register is a base of its
//! own, and two registers holding the same address by different arithmetic are two bases
//! (`ld_two_regs`).
//!
//! [`Forms::pform`] is that view as a linear form (atoms: shared variables, special registers
//! and registers ptxas does not look into); [`Forms::keyed`] keys a candidate on it.

use super::{Cand, Forms, Lin};

impl Forms {
    /// `c` keyed on its address's form: the key is the form without its constant, the
    /// constant goes into the offset.
    pub(super) fn keyed(&self, mut c: Cand) -> Cand {
        let f = self.pform(&c.base);
        c.base_k = f.k;
        c.off = c.off.wrapping_add(f.k);
        c.key = f
            .terms
            .iter()
            .map(|(a, k)| format!("{k}*{a}"))
            .collect::<Vec<_>>()
            .join("+");
        for a in f.terms.keys() {
            if a.starts_with('%') && !c.deps.contains(a) {
                c.deps.push(a.clone());
            }
        }
        c
    }

    /// ptxas's linear form of an address operand (see the module's overview).
    pub(super) fn pform(&self, a: &str) -> Lin {
        let a = a.trim();
        if let Some(v) = crate::lower::int(a) {
            return Lin::konst(v);
        }
        if self.vars.contains(a) || self.special(a) || !a.starts_with('%') {
            return Lin::atom(a);
        }
        if let Some(l) = self.pmemo.borrow().get(a) {
            return l.clone();
        }
        // A cycle stays an atom.
        self.pmemo.borrow_mut().insert(a.to_owned(), Lin::atom(a));
        let l = self.pdef(a).unwrap_or_else(|| Lin::atom(a));
        self.pmemo.borrow_mut().insert(a.to_owned(), l.clone());
        l
    }

    /// The form of register `r`'s only definition, where ptxas folds it.
    fn pdef(&self, r: &str) -> Option<Lin> {
        let (op, srcs) = self.defs.get(r)?;
        let p: Vec<&str> = op.split('.').collect();
        if p.iter().any(|t| t.starts_with('f') || *t == "pred") {
            return None;
        }
        let x = |i: usize| srcs.get(i).map(|s| self.pform(s));
        let konst = |l: &Lin| l.terms.is_empty().then_some(l.k);
        let scaled = |a: Lin, b: Lin| match (konst(&a), konst(&b)) {
            (_, Some(f)) => Some(a.scale(f)),
            (Some(f), _) => Some(b.scale(f)),
            _ => None,
        };
        Some(match (p[0], p.get(1).copied()) {
            ("mov", _) if srcs.len() == 1 => x(0)?,
            ("add", _) if srcs.len() == 2 => x(0)?.add(&x(1)?, 1),
            ("sub", _) if srcs.len() == 2 => x(0)?.add(&x(1)?, -1),
            ("shl", _) => {
                let k = konst(&x(1)?)?;
                if !(0..62).contains(&k) {
                    return None;
                }
                x(0)?.scale(1 << k)
            }
            ("mul", Some("lo")) => scaled(x(0)?, x(1)?)?,
            ("mad", Some("lo")) => scaled(x(0)?, x(1)?)?.add(&x(2)?, 1),
            // A 32-bit value widened: only a constant goes through.
            ("mul", Some("wide")) => Lin::konst(konst(&x(0)?)?.wrapping_mul(konst(&x(1)?)?)),
            ("cvt", _) if srcs.len() == 1 => Lin::konst(konst(&x(0)?)?),
            _ => return None,
        })
    }
}
