//! Lowering the tensor-core statements (issue 41): `LoadMatrix`/`StoreMatrix` (`ldmatrix`/
//! `stmatrix` at a shared element's address, `Inst::AddrOf` then `Inst::Matrix`), `CopyAsync`
//! (`cp.async` between a buffer element and a shared one), `Mma` (`mma.sync`) and the barrier
//! object's statements (`BarrierInit`, `BarrierArrive`, `BarrierArriveCopies`, `BarrierWait`:
//! `mbarrier`).

use super::*;

impl Loader<'_> {
    /// `Inst::AddrOf` of element `t` (parsed: `n` at `site`) of an array, `vec` elements from
    /// there inside it: a temporary holding its shared byte address (or, of a buffer, a 64-bit
    /// global pointer).
    fn address_of(
        &mut self,
        t: &Text,
        (n, site): (&Node, Site),
        (space, array, rank): (Space, u16, u8),
        vec: u8,
    ) -> R<Reg> {
        let Kind::Index(_, idx) = &n.kind else {
            unreachable!("array_of checks")
        };
        let idx = self.indices(space, array, idx, site, vec)?;
        let data = self.alloc_temp(1 + (space == Space::Global) as u16)?;
        let m = Mem {
            space,
            array,
            rank,
            idx,
            vec,
            data,
            elem: None,
        };
        self.emit_at(Inst::AddrOf(m), site, n, format!("&{}", t.text));
        Ok(data)
    }

    /// `LoadMatrix` / `StoreMatrix` (`store`): the lane's row address (`Inst::AddrOf`, through
    /// the array's padding and swizzle), then one `Inst::Matrix`.
    pub(super) fn matrix(&mut self, store: bool, regs: &[Text], at: &Text, trans: bool) -> R<()> {
        let what = if store { "StoreMatrix" } else { "LoadMatrix" };
        let (an, site) = self.parse_expr(at)?;
        let (space, array, elem, rank) = self.array_of(&an, site)?;
        if space != Space::Shared || elem.bytes() != 2 {
            return Err(self.err_text(
                at,
                format!(
                    "{what} reads rows of 8 16-bit elements of a shared array, not `{}` ({elem})",
                    at.text
                ),
                Some("declare the tile in `shared` with ty: F16, BF16, U16 or I16".to_owned()),
            ));
        }
        let n = regs.len();
        if !matches!(n, 1 | 2 | 4) {
            return Err(self.err_text(
                at,
                format!("{what} moves 1, 2 or 4 matrices (one register each), not {n}"),
                Some("name 1, 2 or 4 registers in `regs`".to_owned()),
            ));
        }
        let addr = self.address_of(at, (&an, site), (space, array, rank), 8)?;
        let mut r = [addr; 4];
        for (k, t) in regs.iter().enumerate() {
            r[k] = if store {
                let (vn, vsite) = self.parse_expr(t)?;
                let v = self.expr(&vn, vsite)?;
                let v = self.coerce(v, KernelTy::U32, vsite, &vn, "a matrix register (u32)")?;
                self.materialize(v, KernelTy::U32)?
            } else {
                self.declare(t, KernelTy::U32)?
            };
        }
        let first = r[0];
        for x in r.iter_mut().skip(n) {
            *x = first;
        }
        let op = warpsim_kernel::ir::MatrixOp {
            store,
            n: n as u8,
            trans,
            addr,
            regs: r,
            array,
        };
        let text = match store {
            true => format!("stmatrix {} = ({})", at.text, join(regs)),
            false => format!("({}) = ldmatrix {}", join(regs), at.text),
        };
        self.emit_at(Inst::Matrix(op), site, &an, text);
        Ok(())
    }

    /// A barrier-object statement: the barrier's address (`Inst::AddrOf` of 8 bytes of a shared
    /// array), the operand `arg` as a `u32`, then one `Inst::Mbar`.
    pub(super) fn barrier_op(&mut self, at: &Text, arg: Option<&Text>, s: BarrierStmt) -> R<()> {
        use warpsim_kernel::ir::{MbarKind, MbarOp};
        let (an, site) = self.parse_expr(at)?;
        let (space, array, elem, rank) = self.array_of(&an, site)?;
        if space != Space::Shared || !8u32.is_multiple_of(elem.bytes()) {
            return Err(self.err_text(
                at,
                format!(
                    "a barrier object is 8 bytes of a shared array, from an element of at most 8 \
                     bytes: not `{}` ({elem})",
                    at.text
                ),
                Some("declare it in `shared`, e.g. (name: \"bar\", ty: F64, len: 2)".to_owned()),
            ));
        }
        let vec = (8 / elem.bytes()) as u8;
        let addr = self.address_of(at, (&an, site), (space, array, rank), vec)?;
        let a = match arg {
            Some(t) => {
                let (vn, vsite) = self.parse_expr(t)?;
                let v = self.expr(&vn, vsite)?;
                let v = self.coerce(v, KernelTy::U32, vsite, &vn, "a barrier operand (u32)")?;
                Some(self.materialize(v, KernelTy::U32)?)
            }
            None => None,
        };
        let (kind, dst) = match s {
            BarrierStmt::Init => (MbarKind::Init, None),
            BarrierStmt::Arrive | BarrierStmt::ArriveTx => (
                MbarKind::Arrive {
                    drop: false,
                    no_complete: false,
                    tx: s == BarrierStmt::ArriveTx,
                },
                None,
            ),
            BarrierStmt::Copies => (MbarKind::AsyncArrive { noinc: true }, None),
            BarrierStmt::Wait => (
                MbarKind::Wait {
                    parity: true,
                    block: true,
                },
                Some(self.alloc_temp(1)?),
            ),
        };
        let op = MbarOp { kind, addr, dst, a };
        self.emit_at(
            Inst::Mbar(op),
            site,
            &an,
            format!("mbarrier.{kind} {}", at.text),
        );
        Ok(())
    }

    /// `CopyAsync`: the two addresses (`Inst::AddrOf`), then one `Inst::CpAsync`.
    pub(super) fn copy_async(&mut self, to: &Text, from: &Text, bytes: u8, bypass: bool) -> R<()> {
        if !matches!(bytes, 4 | 8 | 16) || (bypass && bytes != 16) {
            return Err(self.err_text(
                to,
                format!("CopyAsync copies 4, 8 or 16 bytes a lane (16 with bypass), not {bytes}"),
                None,
            ));
        }
        let addr = |this: &mut Self, t: &Text, want: Space| -> R<(Reg, u16)> {
            let (n, site) = this.parse_expr(t)?;
            let (space, array, elem, rank) = this.array_of(&n, site)?;
            if space != want || !(bytes as u32).is_multiple_of(elem.bytes()) {
                let (kind, what) = match want {
                    Space::Shared => ("to", "a shared array"),
                    _ => ("from", "a buffer"),
                };
                return Err(this.err_text(
                    t,
                    format!("CopyAsync's `{kind}` is an element of {what} whose elements divide {bytes} bytes, not `{}`", t.text),
                    None,
                ));
            }
            let vec = (bytes as u32 / elem.bytes()) as u8;
            let data = this.address_of(t, (&n, site), (space, array, rank), vec)?;
            Ok((data, array))
        };
        let (dst, array) = addr(self, to, Space::Shared)?;
        let (src, _) = addr(self, from, Space::Global)?;
        let (n, site) = self.parse_expr(to)?;
        let op = warpsim_kernel::ir::CopyOp {
            bypass,
            width: bytes,
            dst,
            src,
            size: None,
            array,
        };
        let text = format!("cp.async {} = {} ({bytes} bytes)", to.text, from.text);
        self.emit_at(Inst::CpAsync(op), site, &n, text);
        Ok(())
    }

    /// `Mma`: one `Inst::Mma` ([`MmaOp`](warpsim_kernel::ir::MmaOp) in `Program::mmas`).
    pub(super) fn mma(
        &mut self,
        shape: &Text,
        types: &Text,
        [d, a, b, c]: [&Vec<Text>; 4],
        satfinite: bool,
    ) -> R<()> {
        use warpsim_kernel::ir::{MmaOp, MmaShape, MmaType};
        let Some(sh) = MmaShape::of(shape.text.trim()) else {
            return Err(self.err_text(
                shape,
                format!("`{}` is not an mma shape", shape.text),
                Some("m16n8k16, m16n8k8, m16n8k4, m16n8k32, m8n8k16 or m8n8k4".to_owned()),
            ));
        };
        let tys: Vec<Option<MmaType>> = types
            .text
            .split('.')
            .map(|t| MmaType::of(t.trim()))
            .collect();
        let [Some(d_ty), Some(a_ty), Some(b_ty), Some(c_ty)] = tys[..] else {
            return Err(self.err_text(
                types,
                format!("`{}` is not four mma types", types.text),
                Some("D, A, B and C's, dot-separated: `f32.f16.f16.f32`".to_owned()),
            ));
        };
        let z = Reg(0);
        let mut m = MmaOp {
            shape: sh,
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            satfinite,
            d: [z; 4],
            a: [z; 4],
            b: [z; 2],
            c: [z; 4],
        };
        m.check().map_err(|e| self.err_text(shape, e, None))?;
        // A register's type in the kernel language: packed narrow elements are u32 bits.
        let kty = |t: MmaType| match t {
            MmaType::F32 | MmaType::Tf32 => KernelTy::F32,
            MmaType::F64 => KernelTy::F64,
            MmaType::S32 => KernelTy::I32,
            _ => KernelTy::U32,
        };
        let [na, nb, nc, nd] = m.counts();
        for (list, n, what) in [(a, na, "a"), (b, nb, "b"), (c, nc, "c"), (d, nd, "d")] {
            if list.len() != n {
                return Err(self.err_text(
                    shape,
                    format!(
                        "{} takes {n} registers in `{what}`, not {}",
                        m.ptx_name(),
                        list.len()
                    ),
                    None,
                ));
            }
        }
        let value = |this: &mut Self, t: &Text, ty: MmaType| -> R<Reg> {
            let (vn, vsite) = this.parse_expr(t)?;
            let v = this.expr(&vn, vsite)?;
            let v = this.coerce(v, kty(ty), vsite, &vn, "an mma operand")?;
            this.materialize(v, kty(ty))
        };
        for (k, t) in a.iter().enumerate() {
            m.a[k] = value(self, t, a_ty)?;
        }
        for (k, t) in b.iter().enumerate() {
            m.b[k] = value(self, t, b_ty)?;
        }
        for (k, t) in c.iter().enumerate() {
            m.c[k] = value(self, t, c_ty)?;
        }
        for (k, t) in d.iter().enumerate() {
            m.d[k] = self.declare(t, kty(d_ty))?;
        }
        let Ok(op) = u16::try_from(self.mmas.len()) else {
            return Err(self.err_text(shape, "more than 65,535 Mma statements", None));
        };
        self.mmas.push(m);
        let (n, site) = self.parse_expr(shape)?;
        let text = format!(
            "({}) = mma.{} ({}) x ({}) + ({})",
            join(d),
            types.text,
            join(a),
            join(b),
            join(c)
        );
        self.emit_at(Inst::Mma { op }, site, &n, text);
        Ok(())
    }
}

/// Which barrier-object statement [`Loader::barrier_op`] lowers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum BarrierStmt {
    Init,
    Arrive,
    ArriveTx,
    Copies,
    Wait,
}
