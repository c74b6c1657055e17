//! Lowering `exp(x)` and `popc(x)`, the math and bit functions the classic kernels
//! (`programs/classic/`) need: `__expf` in a softmax, `__popc` of a ballot in a radix split.

use super::*;
use warpsim_kernel::expr::builtins::{Builtin, BuiltinInfo};

impl Loader<'_> {
    /// `exp(x)` on a float (an integer argument must be converted), `popc(x)` on a 32-bit
    /// integer (an i32 result, as CUDA's `__popc`). Constants fold.
    pub(super) fn exp_popc(&mut self, info: &BuiltinInfo, v: Val, site: Site, n: &Node) -> R<Val> {
        let f = info.name;
        let exp = info.builtin == Builtin::Exp;
        if let Val::Const(c) = v {
            return Ok(Val::Const(match (exp, c) {
                (true, Const::Float(x, Some(KernelTy::F32))) => {
                    Const::Float((x as f32).exp() as f64, Some(KernelTy::F32))
                }
                (true, Const::Float(x, t)) => Const::Float(x.exp(), t),
                (false, Const::Int(x, _)) => {
                    Const::Int((x as u32).count_ones() as i64, Some(KernelTy::I32))
                }
                _ => return Err(self.bad_arg(f, exp, "a constant of another kind", site, n)),
            }));
        }
        let Val::Reg(a, t) = v else { unreachable!() };
        let rt = match (exp, t) {
            (true, KernelTy::F32 | KernelTy::F64) => t,
            (false, KernelTy::I32 | KernelTy::U32) => KernelTy::I32,
            _ => return Err(self.bad_arg(f, exp, t.name(), site, n)),
        };
        let dst = self.alloc_temp(rt.words())?;
        self.emit(match t {
            KernelTy::F32 => Inst::FExp { dst, a },
            KernelTy::F64 => Inst::DExp { dst, a },
            _ => Inst::Popc { dst, a },
        });
        Ok(Val::Reg(dst, rt))
    }

    fn bad_arg(&self, f: &str, exp: bool, what: &str, site: Site, n: &Node) -> Diag {
        let (want, help) = if exp {
            ("a float", "convert the argument: f32(…)")
        } else {
            ("a 32-bit integer", "convert the argument: u32(…)")
        };
        self.err_node(
            site,
            n,
            format!("`{f}` takes {want}, not {what}"),
            Some(help.to_owned()),
        )
    }
}
