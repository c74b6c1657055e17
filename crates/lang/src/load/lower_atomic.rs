//! Lowering `Atomic(op: …, at: …, value: …, compare: …, old: …)` to [`Inst::Atomic`]: the
//! operand (and `cas`'s compare value) go to two consecutive registers, the atomic writes the
//! old value over the first, and `old` names a copy of it. A pair operand (`value: ["lo",
//! "hi"]`) is a 64-bit atomic on a `u32` array or a `__half2` add on an `f16` array: an
//! access of two elements (`vec` 2) at an even index, its words or halves in consecutive
//! registers; on an `i32` array it is a `long long` (`min`/`max`).
//!
//! [`ptxas_op`] is ptxas's choice of `ATOMS.POPC.INC` (README rule 9), shared with the PTX
//! front end.

use super::*;
use crate::file::Operand;
use warpsim_smem::{AtomOp, ATOM_OPS};

impl Loader<'_> {
    /// `Atomic(op, at, value, compare, old)`.
    pub(super) fn atomic(
        &mut self,
        op: &Text,
        at: &Text,
        value: &Operand,
        compare: Option<&Operand>,
        old: Option<&Operand>,
    ) -> R<()> {
        // `popc` (ATOMS.POPC.INC) is not written: it is picked below, as ptxas picks it.
        let written = || ATOM_OPS.iter().filter(|p| p.1 != AtomOp::PopcInc);
        let names = written().map(|p| p.0).collect::<Vec<_>>().join(" ");
        let Some(&(name, mut aop)) = written().find(|p| p.0 == op.text) else {
            return Err(self.err_text(
                op,
                format!("`{}` is not an atomic operation", op.text),
                Some(format!("use one of: {names}")),
            ));
        };
        let n = value.parts.len();
        for (field, o) in [("value", Some(value)), ("compare", compare), ("old", old)] {
            let Some(o) = o else { continue };
            let k = o.parts.len();
            if k != n || !(1..=2).contains(&k) {
                let parts = |k: usize| match k {
                    1 => "one string".to_owned(),
                    k => format!("{k} strings"),
                };
                return Err(self.err_text(
                    o.parts.first().unwrap_or(op),
                    if field == "value" {
                        format!("`value` is {}: it is one string, or a pair", parts(k))
                    } else {
                        format!(
                            "`{field}` is {}, and `value` {}: an atomic's value, compare and \
                             old are all one string, or all pairs",
                            parts(k),
                            parts(n)
                        )
                    },
                    Some(
                        "write one string, or a pair [\"lo\", \"hi\"] (64-bit atomics on a u32 \
                         array, __half2 adds on an f16 array)"
                            .to_owned(),
                    ),
                ));
            }
        }
        let pair = n == 2;
        let (tn, tsite) = self.parse_expr(at)?;
        let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
        let Kind::Index(_, idx) = &tn.kind else {
            unreachable!("array_of checks")
        };
        // CUDA's atomics on 32-bit elements: atomicAdd/Exch on float too; Inc/Dec on unsigned;
        // atomicAdd on a double and on a __half (README rules 8 and 10).
        if pair {
            return self.atomic_pair(op, at, value, compare, old, (name, aop));
        }
        let allowed = match (elem, aop) {
            (Elem::I32 | Elem::U32, AtomOp::Inc | AtomOp::Dec) => elem == Elem::U32,
            (Elem::I32 | Elem::U32, _) => true,
            (Elem::F32, AtomOp::Add | AtomOp::Exch) => true,
            (Elem::F64, AtomOp::Add) => true,
            (Elem::F16, AtomOp::Add) => true,
            _ => false,
        };
        if !allowed {
            let help = match elem {
                Elem::F32 => "f32 elements take `add` and `exch` (CUDA's float atomics)".to_owned(),
                Elem::F64 | Elem::F16 => {
                    "f64 and f16 elements take `add` only (CUDA's atomicAdd)".to_owned()
                }
                Elem::I32 => {
                    "`inc` and `dec` are unsigned (atomicInc/atomicDec): use a u32 array".to_owned()
                }
                _ => "atomics work on i32, u32 and f32 elements (4 bytes), and `add` on f64 \
                      and f16"
                    .to_owned(),
            };
            return Err(self.err_text(
                op,
                format!("there is no atomic `{name}` on {elem} elements"),
                Some(help),
            ));
        }
        match (aop == AtomOp::Cas, compare) {
            (true, None) => {
                return Err(self.err_text(
                    op,
                    "`cas` needs `compare:` (the value the element must hold) besides `value:` (the new one)",
                    Some("write Atomic(op: \"cas\", at: \"…\", compare: \"c\", value: \"v\", old: \"o\")".to_owned()),
                ))
            }
            (false, Some(c)) => {
                return Err(self.err_text(
                    &c.parts[0],
                    format!("only `cas` takes `compare:`, not `{name}`"),
                    Some("remove `compare:`".to_owned()),
                ))
            }
            _ => {}
        }
        let ty = KernelTy::of(elem);
        let data = self.alloc_temp(2)?;
        for (k, t) in std::iter::once(value).chain(compare).enumerate() {
            let t = &t.parts[0];
            let (vn, vsite) = self.parse_expr(t)?;
            let v = self.expr(&vn, vsite)?;
            // ptxas compiles a shared 32-bit integer `atomicAdd(&x, 1)` whose result is unused
            // to ATOMS.POPC.INC.32 (README rule 9).
            if k == 0 {
                let konst = match v {
                    Val::Const(Const::Int(x, _)) => Some(x),
                    _ => None,
                };
                aop = ptxas_op(aop, space, elem, old.is_some(), konst);
            }
            let v = self.coerce(v, ty, vsite, &vn, "the element type")?;
            // (A loaded or computed operand is written there directly; a variable or a
            // constant is moved.)
            self.write_to(Reg(data.0 + k as u16), ty, v, vsite, &vn)?;
        }
        let idx = self.indices(space, array, idx, tsite, 1)?;
        let m = Mem {
            space,
            array,
            rank,
            idx,
            vec: 1,
            data,
            elem: None,
        };
        let text = format!("atomic {name} {} {}", at.text, value.text);
        self.emit_at(Inst::Atomic { m, op: aop }, tsite, &tn, text);
        if let Some(o) = old {
            let reg = self.declare(&o.parts[0], ty)?;
            self.emit(if elem == Elem::F64 {
                Inst::Mov64 { dst: reg, a: data }
            } else {
                Inst::Mov { dst: reg, a: data }
            });
        }
        Ok(())
    }

    /// `Atomic` with a pair operand: `atomicAdd(unsigned long long*, …)` and the other 64-bit
    /// ones on a `u32` array (the pair is the low and high words), `atomicMin`/`Max(long
    /// long*, …)` on an `i32` array, or `atomicAdd(__half2*, …)` on an `f16` array (a `bf16`
    /// one: `__nv_bfloat162`; the pair
    /// is the two halves); shared or global.
    fn atomic_pair(
        &mut self,
        op: &Text,
        at: &Text,
        value: &Operand,
        compare: Option<&Operand>,
        old: Option<&Operand>,
        (name, aop): (&str, AtomOp),
    ) -> R<()> {
        let (tn, tsite) = self.parse_expr(at)?;
        let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
        let Kind::Index(_, idx) = &tn.kind else {
            unreachable!("array_of checks")
        };
        use AtomOp::*;
        // CUDA (sm_90): atomicAdd/Min/Max/And/Or/Xor/Exch/CAS on unsigned long long,
        // atomicMin/Max on long long; atomicAdd on __half2 and __nv_bfloat162.
        let allowed = matches!(
            (elem, aop),
            (Elem::U32, Add | Min | Max | And | Or | Xor | Exch | Cas)
                | (Elem::I32, Min | Max)
                | (Elem::F16 | Elem::BF16, Add)
        );
        if !allowed {
            let help = match elem {
                Elem::U32 => {
                    "64-bit atomics (unsigned long long) are add min max and or xor exch cas"
                }
                Elem::I32 => {
                    "a pair of i32 words is a long long, which CUDA gives atomicMin and \
                     atomicMax only; for the other 64-bit atomics (unsigned long long) use a u32 \
                     array"
                }
                Elem::F16 | Elem::BF16 => {
                    "a pair of halves (__half2, __nv_bfloat162) takes `add` only (CUDA's \
                     atomicAdd)"
                }
                Elem::F64 => {
                    "an atomicAdd on a double takes one value, not a pair: write value: \"x\" \
                     with an f64 x"
                }
                _ => {
                    "a pair operand is a 64-bit atomic on a u32 (unsigned long long) or i32 \
                     (long long) array, or a __half2 (__nv_bfloat162) add on an f16 (bf16) array"
                }
            };
            return Err(self.err_text(
                op,
                format!("there is no pair atomic `{name}` on {elem} elements"),
                Some(help.to_owned()),
            ));
        }
        match (aop == Cas, compare) {
            (true, None) => {
                return Err(self.err_text(
                    op,
                    "`cas` needs `compare:` (the value the element must hold) besides `value:` (the new one)",
                    Some("write compare: [\"lo\", \"hi\"]".to_owned()),
                ))
            }
            (false, Some(c)) => {
                return Err(self.err_text(
                    &c.parts[0],
                    format!("only `cas` takes `compare:`, not `{name}`"),
                    Some("remove `compare:`".to_owned()),
                ))
            }
            _ => {}
        }
        // An index known here must be even (8-byte / 4-byte alignment); at run time a
        // misaligned one is the misaligned-access error.
        let last = idx.len() - 1;
        let even_rows = match space {
            Space::Shared => self.shared[array as usize].dims[last].is_multiple_of(2),
            // (RON kernels have no local memory.)
            Space::Global | Space::Local | Space::Const => true,
        };
        if let Ok(x) = self.fold_int(&idx[last], tsite, "the index") {
            if x % 2 != 0 && (last == 0 || even_rows) {
                let what = match elem {
                    Elem::F16 => "a __half2 (4 bytes)",
                    Elem::BF16 => "a __nv_bfloat162 (4 bytes)",
                    Elem::I32 => "a long long (8 bytes)",
                    _ => "an unsigned long long (8 bytes)",
                };
                return Err(self.err_text(
                    at,
                    format!(
                        "a pair atomic on {what} needs an even index, and `{}` is element {x}",
                        at.text
                    ),
                    Some(
                        "start the pair at an even element, as CUDA's alignment requires"
                            .to_owned(),
                    ),
                ));
            }
        }
        let ty = KernelTy::of(elem);
        let data = self.alloc_temp(4)?;
        for (j, o) in std::iter::once(value).chain(compare).enumerate() {
            for (k, t) in o.parts.iter().enumerate() {
                let (vn, vsite) = self.parse_expr(t)?;
                let v = self.expr(&vn, vsite)?;
                let v = self.coerce(v, ty, vsite, &vn, "the element type")?;
                self.write_to(Reg(data.0 + 2 * j as u16 + k as u16), ty, v, vsite, &vn)?;
            }
        }
        let idx = self.indices(space, array, idx, tsite, 2)?;
        let m = Mem {
            space,
            array,
            rank,
            idx,
            vec: 2,
            data,
            elem: None,
        };
        let text = format!("atomic {name} {} ({})", at.text, value.text);
        self.emit_at(Inst::Atomic { m, op: aop }, tsite, &tn, text);
        if let Some(o) = old {
            for (k, p) in o.parts.iter().enumerate() {
                let reg = self.declare(p, ty)?;
                self.emit(Inst::Mov {
                    dst: reg,
                    a: Reg(data.0 + k as u16),
                });
            }
        }
        Ok(())
    }
}
