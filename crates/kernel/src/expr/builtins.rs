//! The one table of built-in functions: their names, arities, result types and where each may
//! be called. Kernel lowering, the load-time checks of references, define folding and the
//! host reference compiler all look functions up here.

use crate::elem::Elem;

/// Where an expression is written, which decides the functions it may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// A kernel statement, lowered to instructions.
    Kernel,
    /// A buffer's `expect`, evaluated on the CPU.
    Reference,
    /// A constant integer expression of defines (sizes, launch geometry), folded at load time.
    Constant,
}

/// A built-in function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `sum(k, from, to, term)`: the sum of `term` for `k` = `from` … `to − 1`.
    Sum,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `abs(x)`.
    Abs,
    /// `sqrt(x)`.
    Sqrt,
    /// `fma(a, b, c)`: `a · b + c`, rounded once.
    Fma,
    /// `select(c, a, b)`: `a` where `c` is non-zero, else `b`.
    Select,
    /// `i32(x)`: conversion to `i32`.
    I32,
    /// `u32(x)`: conversion to `u32`.
    U32,
    /// `f32(x)`: conversion to `f32`.
    F32,
    /// `f64(x)`: conversion to `f64`.
    F64,
    // Warp-level operations (kernel only; lowered in `load/warpops.rs`).
    /// `shfl_sync(mask, v, lane, width)`: `v` of lane `lane` (modulo `width`) of the segment
    /// (`__shfl_sync`); `width` (a constant 1, 2, 4, …, 32) may be left out for 32.
    ShflSync,
    /// `shfl_up_sync(mask, v, delta, width)`: `v` of lane `laneid − delta` (`__shfl_up_sync`).
    ShflUpSync,
    /// `shfl_down_sync(mask, v, delta, width)`: `v` of lane `laneid + delta`
    /// (`__shfl_down_sync`).
    ShflDownSync,
    /// `shfl_xor_sync(mask, v, lanemask, width)`: `v` of lane `laneid ^ lanemask`
    /// (`__shfl_xor_sync`).
    ShflXorSync,
    /// `ballot_sync(mask, p)`: a u32 with bit `l` set where lane `l` is active and `p` holds.
    BallotSync,
    /// `any_sync(mask, p)`: 1 if `p` holds in some active lane, else 0 (i32).
    AnySync,
    /// `all_sync(mask, p)`: 1 if `p` holds in every active lane, else 0 (i32).
    AllSync,
    // Math and bit functions the classic kernels need (lowered in `load/builtins.rs`).
    /// `exp(x)`: e to the power `x`, in `x`'s float type (`__expf`/`exp`).
    Exp,
    /// `popc(x)`: the number of set bits of a 32-bit integer, an i32 (`__popc`).
    Popc,
    /// `activemask()`: the lanes executing it, as a u32.
    ActiveMask,
    /// `f16(x)`: conversion to IEEE half, rounding to nearest even (`__float2half_rn`).
    F16,
    /// `bf16(x)`: conversion to bfloat16, rounding to nearest even (`__float2bfloat16_rn`).
    Bf16,
}

impl Builtin {
    /// Whether it is a warp-level operation (a shuffle, a vote, `activemask`).
    pub fn is_warp(self) -> bool {
        matches!(
            self,
            Builtin::ShflSync
                | Builtin::ShflUpSync
                | Builtin::ShflDownSync
                | Builtin::ShflXorSync
                | Builtin::BallotSync
                | Builtin::AnySync
                | Builtin::AllSync
                | Builtin::ActiveMask
        )
    }
}

/// The type of a built-in's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// The common type of the value arguments (all of them, or all but `select`'s condition).
    Common,
    /// The type of the argument.
    Same,
    /// A float (integer arguments are converted).
    Float,
    /// The element type it converts to.
    Convert(Elem),
    /// The type of the summed term.
    Term,
    /// A warp-level operation: a shuffle gives its value's type, `ballot_sync` and
    /// `activemask` a u32, `any_sync` and `all_sync` an i32.
    Warp,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinInfo {
    /// The function.
    pub builtin: Builtin,
    /// Its name in expressions.
    pub name: &'static str,
    /// How many arguments it takes.
    pub arity: usize,
    /// Its result type.
    pub returns: Returns,
    /// Callable in kernel statements.
    pub kernel: bool,
    /// Callable in references (`expect`).
    pub reference: bool,
    /// Callable in constant expressions of defines.
    pub constant: bool,
}

const fn row(
    builtin: Builtin,
    name: &'static str,
    arity: usize,
    returns: Returns,
    [kernel, reference, constant]: [bool; 3],
) -> BuiltinInfo {
    BuiltinInfo {
        builtin,
        name,
        arity,
        returns,
        kernel,
        reference,
        constant,
    }
}

/// Every built-in function, in the order messages list them.
pub const BUILTINS: [BuiltinInfo; 23] = [
    row(Builtin::Sum, "sum", 4, Returns::Term, [false, true, false]),
    row(Builtin::Min, "min", 2, Returns::Common, [true, true, true]),
    row(Builtin::Max, "max", 2, Returns::Common, [true, true, true]),
    row(Builtin::Abs, "abs", 1, Returns::Same, [true, true, false]),
    row(
        Builtin::Sqrt,
        "sqrt",
        1,
        Returns::Float,
        [true, true, false],
    ),
    row(Builtin::Fma, "fma", 3, Returns::Float, [true, true, false]),
    row(
        Builtin::Select,
        "select",
        3,
        Returns::Common,
        [true, true, false],
    ),
    row(
        Builtin::I32,
        "i32",
        1,
        Returns::Convert(Elem::I32),
        [true, true, false],
    ),
    row(
        Builtin::U32,
        "u32",
        1,
        Returns::Convert(Elem::U32),
        [true, true, false],
    ),
    row(
        Builtin::F32,
        "f32",
        1,
        Returns::Convert(Elem::F32),
        [true, true, false],
    ),
    row(
        Builtin::F64,
        "f64",
        1,
        Returns::Convert(Elem::F64),
        [true, true, false],
    ),
    // Warp-level operations. A shuffle's `width` may be left out (3 or 4 arguments).
    row(Builtin::ShflSync, "shfl_sync", 4, WARP_OP.0, WARP_OP.1),
    row(Builtin::ShflUpSync, "shfl_up_sync", 4, WARP_OP.0, WARP_OP.1),
    row(
        Builtin::ShflDownSync,
        "shfl_down_sync",
        4,
        WARP_OP.0,
        WARP_OP.1,
    ),
    row(
        Builtin::ShflXorSync,
        "shfl_xor_sync",
        4,
        WARP_OP.0,
        WARP_OP.1,
    ),
    row(Builtin::BallotSync, "ballot_sync", 2, WARP_OP.0, WARP_OP.1),
    row(Builtin::AnySync, "any_sync", 2, WARP_OP.0, WARP_OP.1),
    row(Builtin::AllSync, "all_sync", 2, WARP_OP.0, WARP_OP.1),
    row(Builtin::ActiveMask, "activemask", 0, WARP_OP.0, WARP_OP.1),
    // Math and bit functions of the classic kernels.
    row(Builtin::Exp, "exp", 1, Returns::Float, [true, true, false]),
    row(
        Builtin::Popc,
        "popc",
        1,
        Returns::Convert(Elem::I32),
        [true, false, false],
    ),
    row(
        Builtin::F16,
        "f16",
        1,
        Returns::Convert(Elem::F16),
        [true, true, false],
    ),
    row(
        Builtin::Bf16,
        "bf16",
        1,
        Returns::Convert(Elem::BF16),
        [true, true, false],
    ),
];

/// What every warp-level operation's row says: its result type, and callable in kernels only.
const WARP_OP: (Returns, [bool; 3]) = (Returns::Warp, [true, false, false]);

impl BuiltinInfo {
    /// Whether it may be called in `ctx`.
    pub fn callable_in(&self, ctx: Context) -> bool {
        match ctx {
            Context::Kernel => self.kernel,
            Context::Reference => self.reference,
            Context::Constant => self.constant,
        }
    }
}

/// The built-in called `name` that `ctx` may call.
pub fn lookup(name: &str, ctx: Context) -> Option<&'static BuiltinInfo> {
    BUILTINS
        .iter()
        .find(|b| b.name == name && b.callable_in(ctx))
}

/// The names `ctx` may call, comma-separated, for messages.
pub fn names(ctx: Context) -> String {
    let names: Vec<&str> = BUILTINS
        .iter()
        .filter(|b| b.callable_in(ctx))
        .map(|b| b.name)
        .collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_listed_per_context() {
        for (i, b) in BUILTINS.iter().enumerate() {
            assert!(BUILTINS[..i]
                .iter()
                .all(|c| c.name != b.name && c.builtin != b.builtin));
        }
        assert_eq!(
            names(Context::Kernel),
            "min, max, abs, sqrt, fma, select, i32, u32, f32, f64, shfl_sync, shfl_up_sync, \
             shfl_down_sync, shfl_xor_sync, ballot_sync, any_sync, all_sync, activemask, exp, popc, f16, bf16"
        );
        assert_eq!(names(Context::Constant), "min, max");
        assert!(lookup("sum", Context::Kernel).is_none());
        assert_eq!(lookup("sum", Context::Reference).map(|b| b.arity), Some(4));
    }
}
