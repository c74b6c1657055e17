//! Kernel arguments typed by the kernel's PTX parameter list: a `.f32`/`.f64` parameter takes
//! a float or an integer (`"1"` and `"1.0"` both give 1.0f, never the bits of 1), an integer
//! parameter an integer in the range of its width, a pointer (`.u64`) a buffer or an integer.

use super::Err;
use warpsim_kernel::KernelArg;

/// The error offset that names launch argument `i` (`lib.rs` turns it into the argument's
/// file:line:col).
fn at_arg(i: usize) -> usize {
    usize::MAX - 1 - i
}

/// The bits each scalar argument passes (`None` for a buffer), checked against its
/// parameter's type (`params`: name and PTX type, `.u32`, `.f32` …).
pub(super) fn arg_bits(
    args: &[KernelArg],
    params: &[(String, String)],
) -> Result<Vec<Option<u64>>, Err> {
    let mut out = Vec::with_capacity(args.len());
    for (i, (arg, (_, ty))) in args.iter().zip(params).enumerate() {
        let t = ty.trim_start_matches('.');
        let bits: u32 = t.get(1..).and_then(|b| b.parse().ok()).unwrap_or(0);
        let float = t.starts_with('f');
        let n = i + 1;
        let v = match *arg {
            KernelArg::TensorMap(_) if t != "b8" => {
                let msg = format!("parameter {n} is a {t}, not a CUtensorMap: pass a buffer or a number, not a tensor map");
                return Err((at_arg(i), msg));
            }
            KernelArg::TensorMap(_) => None,
            _ if t == "b8" => {
                let msg = format!(
                    "parameter {n} is a structure passed by value (`.b8` bytes): warpsim passes only \
                     tensor maps (`CUtensorMap`, from the launch file's `tensor_maps`) that way"
                );
                return Err((at_arg(i), msg));
            }
            KernelArg::Buffer { .. } if bits != 64 || float => {
                let msg = format!(
                    "parameter {n} is a {t}, not a pointer: pass {}, not a buffer",
                    if float {
                        "a number"
                    } else {
                        "an integer expression"
                    }
                );
                return Err((at_arg(i), msg));
            }
            KernelArg::Buffer { .. } => None,
            KernelArg::Int(v) if float && bits == 32 => Some(u64::from((v as f32).to_bits())),
            KernelArg::Int(v) if float => Some((v as f64).to_bits()),
            KernelArg::Float(x) if float && bits == 32 => {
                let f = x as f32;
                if x.is_finite() && !f.is_finite() {
                    let msg = format!("parameter {n} is a f32: {x} is out of its range");
                    return Err((at_arg(i), msg));
                }
                Some(u64::from(f.to_bits()))
            }
            KernelArg::Float(x) if float => Some(x.to_bits()),
            KernelArg::Float(x) => {
                let msg = format!(
                    "parameter {n} is a {t}, an integer: {x} is not an integer (the kernel's \
                     parameter list is the PTX's; a `float` parameter is `.f32`)"
                );
                return Err((at_arg(i), msg));
            }
            KernelArg::Int(v) if (1..64).contains(&bits) => {
                // NVRTC declares `int` and `unsigned` parameters alike (`.u32`): either
                // reading of the bits is accepted.
                // In i128: `.u63` (no PTX type, but parsed) must not overflow.
                let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
                if i128::from(v) < lo || i128::from(v) > hi {
                    let msg =
                        format!("parameter {n} is a {t}: {v} is out of its range ({lo} to {hi})");
                    return Err((at_arg(i), msg));
                }
                Some(v as u64 & ((1u64 << bits) - 1))
            }
            KernelArg::Int(v) => Some(v as u64),
        };
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parsed but non-PTX width (`.u63`, found by the `ptx` fuzz target) is range-checked
    /// without overflowing.
    #[test]
    fn odd_widths_do_not_overflow() {
        let p = |t: &str| vec![("n".to_owned(), t.to_owned())];
        assert_eq!(
            arg_bits(&[KernelArg::Int(i64::MAX)], &p(".u63")).unwrap(),
            [Some(i64::MAX as u64)]
        );
        assert!(arg_bits(&[KernelArg::Int(i64::MIN)], &p(".u63")).is_err());
        assert!(arg_bits(&[KernelArg::Int(2)], &p(".u1")).is_err());
        assert!(arg_bits(&[KernelArg::Int(-1)], &p(".u1")).is_ok());
    }
}
