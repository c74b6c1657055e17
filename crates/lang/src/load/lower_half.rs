//! Lowering half-precision (`f16`, `bf16`) arithmetic to [`Inst::Half`]: CUDA's native half
//! instructions (`__hadd`, `__hmul`, `__hfma`, `__hmin`, comparisons …), each rounding once.

use super::*;
use warpsim_kernel::fp16::HalfOp;

impl Loader<'_> {
    /// `x op y` on halves of type `t` (already unified and materialized), or `None` if the
    /// operator does not apply to them.
    pub(super) fn half_binary(
        &self,
        op: BinOp,
        t: KernelTy,
        dst: Reg,
        a: Reg,
        b: Reg,
    ) -> Option<Inst> {
        let fmt = t.half()?;
        let op = match op {
            BinOp::Add => HalfOp::Add,
            BinOp::Sub => HalfOp::Sub,
            BinOp::Mul => HalfOp::Mul,
            BinOp::Div => HalfOp::Div,
            BinOp::Eq => HalfOp::Eq,
            BinOp::Ne => HalfOp::Ne,
            // (`binary` has swapped the operands of `>` and `>=`.)
            BinOp::Lt | BinOp::Gt => HalfOp::Lt,
            BinOp::Le | BinOp::Ge => HalfOp::Le,
            _ => return None,
        };
        Some(Inst::Half {
            op,
            fmt,
            dst,
            a,
            b,
            c: a,
        })
    }

    /// A one- or three-operand half instruction (`-x`, `abs`, `min`, `max`, `fma`).
    pub(super) fn half_op(
        &self,
        op: HalfOp,
        t: KernelTy,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    ) -> Option<Inst> {
        Some(Inst::Half {
            op,
            fmt: t.half()?,
            dst,
            a,
            b,
            c,
        })
    }
}

/// A constant rounded to a half format (as a value that format holds exactly).
pub(super) fn round_const(x: f64, t: KernelTy) -> f64 {
    match t.half() {
        Some(h) => h.to_f64(h.from_f64(x)),
        None => x,
    }
}
