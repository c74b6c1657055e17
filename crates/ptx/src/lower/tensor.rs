//! `ldmatrix`, `stmatrix` and `cp.async` (issue 41): the forms NVRTC emits for inline
//! `asm` and for `__pipeline_memcpy_async` / `cuda::memcpy_async`, which lower to
//! `cp.async.ca.shared.global [d], [s], n, n;`.
//!
//! * `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared[::cta].b16 {r..}, [a]` and
//!   `stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared[::cta].b16 [a], {r..}` →
//!   [`Inst::Matrix`];
//! * `cp.async.{ca,cg}.shared[::cta].global[.L2::{64,128,256}B] [d], [s], n[, size]` →
//!   [`Inst::CpAsync`] (a `cache_hint` policy operand is dropped; an `.ignore-src` predicate is
//!   refused);
//! * `cp.async.commit_group`, `cp.async.wait_group n`, `cp.async.wait_all`;
//! * `mma.sync.aligned.{shape}.row.col[.satfinite].{d}.{a}.{b}.{c} {d..}, {a..}, {b..}, {c..}`
//!   → [`Inst::Mma`] (its operands in `Lowered::mmas`).
//!
//! Addresses may carry a constant displacement (`[%r1+16]`): it is added first.

use super::{Err, Instr, Lower, Prov};
use warpsim_kernel::ir::{CopyOp, FragAt, Inst, MatrixOp, MmaOp, MmaShape, MmaType, Reg};

/// Whether `parts` is one of this module's instructions.
pub(super) fn applies(parts: &[&str]) -> bool {
    matches!(
        parts.first(),
        Some(&"ldmatrix" | &"stmatrix" | &"mma" | &"warpsim")
    ) || (parts.first() == Some(&"cp")
        && parts.get(1) == Some(&"async")
        && !parts.contains(&"bulk"))
}

impl Lower<'_> {
    /// Lowers an `ldmatrix`, `stmatrix` or `cp.async` instruction.
    pub(super) fn tensor(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let unsup = |why: &str| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        match parts {
            ["cp", "async", "commit_group"] if args.is_empty() => {
                self.emit(Inst::AsyncCommit);
                Ok(())
            }
            ["cp", "async", "wait_all"] if args.is_empty() => {
                self.emit(Inst::AsyncWait { n: 0, all: true });
                Ok(())
            }
            ["cp", "async", "wait_group"] => {
                let n = match args {
                    [a] => self.const_of(a),
                    _ => None,
                };
                match n.and_then(|n| u8::try_from(n).ok()) {
                    Some(n) => {
                        self.emit(Inst::AsyncWait { n, all: false });
                        Ok(())
                    }
                    None => Err(unsup("its operand must be one constant from 0 to 255")),
                }
            }
            ["cp", "async", kind @ ("ca" | "cg"), rest @ ..] => {
                self.cp_async(i, *kind == "cg", rest)
            }
            ["mma", rest @ ..] => self.mma(i, rest),
            ["warpsim", "fragaddr", rest @ ..] => self.frag_addr(i, rest),
            [name @ ("ldmatrix" | "stmatrix"), rest @ ..] => {
                self.matrix(i, *name == "stmatrix", rest)
            }
            _ => Err(unsup(
                "warpsim runs cp.async.{ca,cg}.shared.global, commit_group, wait_group and \
                 wait_all (bulk and tensor copies are not modelled)",
            )),
        }
    }

    /// The register holding `[reg+disp]`'s address (an add when `disp` is not 0), and the
    /// shared variable it points into (for reports).
    pub(super) fn address(&mut self, operand: &str, off: usize) -> Result<(Reg, u16), Err> {
        let a = operand.trim();
        let Some(inner) = a.strip_prefix('[').and_then(|x| x.strip_suffix(']')) else {
            return Err((
                off,
                format!("`{a}` is not an address: write `[%r]` or `[%r+16]`"),
            ));
        };
        let (base, disp) = match inner.rsplit_once('+') {
            Some((b, d)) => (
                b.trim(),
                super::int(d.trim()).ok_or((off, format!("bad address `{a}`")))?,
            ),
            None => (inner.trim(), 0),
        };
        let var = match self.prov.get(base).copied() {
            Some(Prov::Shared(k)) => k,
            _ => self.vars.iter().position(|v| v.0 == base).unwrap_or(0),
        };
        let array = self.view(var, "b32", 4);
        let r = self.val(base, 1, off)?;
        if disp == 0 {
            return Ok((r, array));
        }
        let d = self.konst(disp as u64 & 0xffff_ffff, 1);
        let t = self.alloc(1);
        self.emit(Inst::Add { dst: t, a: r, b: d });
        Ok((t, array))
    }

    fn matrix(&mut self, i: Instr, store: bool, rest: &[&str]) -> Result<(), Err> {
        let Instr(off, op, _, args) = i;
        let mut n = None;
        let mut trans = false;
        for p in rest {
            match *p {
                "sync" | "aligned" | "m8n8" | "shared" | "shared::cta" | "b16" => {}
                "x1" => n = Some(1u8),
                "x2" => n = Some(2),
                "x4" => n = Some(4),
                "trans" => trans = true,
                other => {
                    return Err((
                        off,
                        format!(
                            "PTX instruction `{op}` is not supported: `.{other}` (warpsim runs the \
                             .m8n8 .x1/.x2/.x4 [.trans] .shared .b16 forms)"
                        ),
                    ))
                }
            }
        }
        let Some(n) = n.filter(|_| rest.contains(&"b16") && rest.contains(&"m8n8")) else {
            return Err((
                off,
                format!("PTX instruction `{op}` needs .m8n8, .x1/.x2/.x4 and .b16"),
            ));
        };
        let [first, second] = args else {
            return Err((off, format!("PTX instruction `{op}` takes 2 operands")));
        };
        let (regs_s, addr_s) = if store {
            (second, first)
        } else {
            (first, second)
        };
        let names = super::reg_list(regs_s);
        if names.len() != n as usize {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` moves {n} matrices, but `{}` names {} registers",
                    regs_s.trim(),
                    names.len()
                ),
            ));
        }
        let (addr, array) = self.address(addr_s, off)?;
        let mut regs = [Reg(0); 4];
        for (k, name) in names.iter().enumerate() {
            regs[k] = match *name {
                "_" if !store => self.alloc(1),
                _ if store => self.val(name, 1, off)?,
                _ => self.reg(name, off)?.0,
            };
        }
        let first = regs[0];
        for r in regs.iter_mut().skip(n as usize) {
            *r = first;
        }
        self.emit(Inst::Matrix(MatrixOp {
            store,
            n,
            trans,
            addr,
            regs,
            array,
        }));
        Ok(())
    }

    /// `warpsim.fragaddr.rows.{swap}.{b32,b64} d, base, stride` and
    /// `warpsim.fragaddr.e.{rg}.{rt}.{r0}.{cg}.{ct}.{c0}.{trans}.{esize}.{b32,b64} d, base,
    /// stride`: a WMMA fragment's lane address, as `wmma.rs` writes it.
    fn frag_addr(&mut self, i: Instr, rest: &[&str]) -> Result<(), Err> {
        let Instr(off, op, _, args) = i;
        let bad = || {
            (
                off,
                format!("`{op}` is not a fragment address warpsim knows"),
            )
        };
        let n = |s: &str| s.parse::<u8>().map_err(|_| bad());
        let (at, wide) = match rest {
            ["rows", swap, w] => (FragAt::Rows { swap: *swap == "1" }, *w),
            ["e", rg, rt, r0, cg, ct, c0, trans, esize, w] => (
                FragAt::Elem {
                    rg: n(rg)?,
                    rt: n(rt)?,
                    r0: n(r0)?,
                    cg: n(cg)?,
                    ct: n(ct)?,
                    c0: n(c0)?,
                    trans: *trans == "1",
                    esize: n(esize)?,
                },
                *w,
            ),
            _ => return Err(bad()),
        };
        let wide = wide == "b64";
        let [d, b, s] = args else { return Err(bad()) };
        let base = self.val(b, 1 + wide as u8, off)?;
        let stride = self.val(s, 1, off)?;
        let dst = self.reg(d.trim(), off)?.0;
        if let Some(p) = self.prov.get(b.trim()).copied() {
            self.prov.insert(d.trim().to_owned(), p);
        }
        self.emit(Inst::FragAddr {
            dst,
            base,
            stride,
            at,
            wide,
        });
        Ok(())
    }

    fn cp_async(&mut self, i: Instr, bypass: bool, rest: &[&str]) -> Result<(), Err> {
        let Instr(off, op, _, args) = i;
        for p in rest {
            match *p {
                "shared" | "shared::cta" | "global" | "L2::64B" | "L2::128B" | "L2::256B"
                | "L2::cache_hint" => {}
                other => {
                    return Err((
                        off,
                        format!(
                            "PTX instruction `{op}` is not supported: `.{other}` (warpsim runs \
                             cp.async.{{ca,cg}}.shared.global[.L2::NB][.L2::cache_hint] [dst], [src], n[, src-size][, policy])"
                        ),
                    ))
                }
            }
        }
        if !(rest.contains(&"global") && rest.iter().any(|p| p.starts_with("shared"))) {
            return Err((
                off,
                format!("PTX instruction `{op}` needs .shared and .global"),
            ));
        }
        // `.L2::cache_hint` takes the cache policy as a last operand, which warpsim drops as it
        // does for `ld`/`st` (the timing model has no L2 eviction priorities).
        let args = match args {
            _ if !rest.contains(&"L2::cache_hint") => args,
            [kept @ .., _policy] if kept.len() >= 3 => kept,
            _ => {
                return Err((
                    off,
                    format!(
                        "PTX instruction `{op}` takes a cache policy as its last operand \
                         ([dst], [src], n[, src-size], policy)"
                    ),
                ))
            }
        };
        let (d, s, n, size) = match args {
            [d, s, n] => (d, s, n, None),
            [d, s, n, z] => (d, s, n, Some(z)),
            _ => {
                return Err((
                    off,
                    format!(
                        "PTX instruction `{op}` takes 3 or 4 operands ([dst], [src], n[, \
                         src-size]), but this one has {}",
                        args.len()
                    ),
                ))
            }
        };
        let width = match super::int(n.trim()) {
            Some(w @ (4 | 8 | 16)) if !bypass || w == 16 => w as u8,
            _ => {
                let what = if bypass { "16" } else { "4, 8 or 16" };
                return Err((
                    off,
                    format!(
                        "PTX instruction `{op}` copies {what} bytes a lane, not `{}`",
                        n.trim()
                    ),
                ));
            }
        };
        let (dst, array) = self.address(d, off)?;
        // The source: a 64-bit global (or generic) address.
        let src_s = s.trim();
        let Some(inner) = src_s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) else {
            return Err((off, format!("`{src_s}` is not an address: write `[%rd]`")));
        };
        let (base, disp) = match inner.rsplit_once('+') {
            Some((b, x)) => (
                b.trim(),
                super::int(x.trim()).ok_or((off, format!("bad address `{src_s}`")))?,
            ),
            None => (inner.trim(), 0),
        };
        let mut src = self.val(base, 2, off)?;
        if disp != 0 {
            let k = self.konst(disp as u64, 2);
            let t = self.alloc(2);
            self.emit(Inst::Add64 {
                dst: t,
                a: src,
                b: k,
            });
            src = t;
        }
        let size = match size {
            Some(z) => Some(self.val(z, 1, off)?),
            None => None,
        };
        self.emit(Inst::CpAsync(CopyOp {
            bypass,
            width,
            dst,
            src,
            size,
            array,
        }));
        Ok(())
    }

    fn mma(&mut self, i: Instr, rest: &[&str]) -> Result<(), Err> {
        let Instr(off, op, _, args) = i;
        let unsup = |why: String| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let (mut form, mut types, mut layout) = (None, Vec::new(), Vec::new());
        let mut satfinite = false;
        for p in rest {
            match *p {
                "sync" | "aligned" => {}
                "row" | "col" => layout.push(*p),
                "satfinite" => satfinite = true,
                p if MmaShape::of(p).is_some() => form = MmaShape::of(p),
                p if MmaType::of(p).is_some() => types.extend(MmaType::of(p)),
                other => {
                    return Err(unsup(format!(
                        "`.{other}` (sparse, block-scaled and \
                    other mma forms are not modelled)"
                    )))
                }
            }
        }
        let (Some(shape), &[d_ty, a_ty, b_ty, c_ty]) = (form, &types[..]) else {
            return Err(unsup(
                "mma.sync needs a shape and four types (`.m16n8k16.row.col.f32.f16.f16.f32`)"
                    .into(),
            ));
        };
        if !rest.contains(&"sync") || !rest.contains(&"aligned") || layout != ["row", "col"] {
            return Err(unsup(
                "warpsim runs mma.sync.aligned with `.row.col`".into(),
            ));
        }
        let mut m = MmaOp {
            shape,
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            satfinite,
            d: [Reg(0); 4],
            a: [Reg(0); 4],
            b: [Reg(0); 2],
            c: [Reg(0); 4],
        };
        m.check().map_err(|e| (off, e))?;
        let [d_s, a_s, b_s, c_s] = args else {
            return Err((
                off,
                format!("PTX instruction `{op}` takes 4 operands ({{d}}, {{a}}, {{b}}, {{c}})"),
            ));
        };
        let [na, nb, nc, nd] = m.counts();
        let read =
            |this: &mut Self, s: &str, n: usize, ty: MmaType, out: &mut [Reg], what: &str| {
                let names = super::reg_list(s);
                if names.len() != n {
                    return Err((
                        off,
                        format!(
                        "PTX instruction `{op}` takes {n} registers for {what}, but `{}` names {}",
                        s.trim(),
                        names.len()
                    ),
                    ));
                }
                for (k, name) in names.iter().enumerate() {
                    out[k] = this.val(name, ty.words(), off)?;
                }
                Ok(())
            };
        read(self, a_s, na, a_ty, &mut m.a, "A")?;
        read(self, b_s, nb, b_ty, &mut m.b, "B")?;
        read(self, c_s, nc, c_ty, &mut m.c, "C")?;
        let names = super::reg_list(d_s);
        if names.len() != nd {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` writes {nd} registers of D, but `{}` names {}",
                    d_s.trim(),
                    names.len()
                ),
            ));
        }
        for (k, name) in names.iter().enumerate() {
            m.d[k] = self.reg(name, off)?.0;
        }
        let k = u16::try_from(self.mmas.len()).map_err(|_| {
            (
                off,
                "more than 65,535 mma.sync instructions in one kernel".to_owned(),
            )
        })?;
        self.mmas.push(m);
        self.emit(Inst::Mma { op: k });
        Ok(())
    }
}
