//! Constant memory (PTX `.const`, CUDA `__constant__`) and device variables (PTX `.global`,
//! CUDA `__device__`): the module's symbols, each with its bytes as the module initialises
//! them, and the launch's buffers they become (a device variable is written like a buffer).
//!
//! NVRTC declares an array as `.const .align A .b8 name[N]` (the element type is not in the
//! PTX) and a scalar as `.const .align 4 .f32 name`, each with an optional initialiser
//! (`= {0, 0, 128, 63}`, bytes little-endian for `.b8`; `= 5` or `= 0f3F800000` for a
//! scalar). ptxas lays bank 3 out in declaration order, each symbol at its alignment from
//! byte 0 (`calibration/probes/cuda_coverage`, spec C-1); more than 64 KiB in all is refused,
//! as ptxas refuses it.
//!
//! Each symbol becomes one read-only buffer of the program, after the launch file's buffers,
//! in declaration order ([`super::Lower::const_index`]): `mov.u64 %rd, sym` gives a pointer
//! into it (the global pointer form, `Mem::GLOBAL_BASE_SHIFT`), and `ld.const` reads it
//! per lane ([`Space::Const`](warpsim_kernel::ir::Space::Const)), so a read past the symbol
//! is a fault at the instruction, as a global read past its buffer is. Its element type is
//! the launch file's `ty` for the symbol, else the scalar's PTX type, else `u32` (or `u8`
//! when the size is not a multiple of 4).

use super::decl::scalar_bytes;
use super::Err;
use warpsim_kernel::{Elem, KernelConst};

/// The most bytes of constant memory a module may declare (bank 3 of sm_90).
pub const BANK_BYTES: u64 = 65_536;

/// The most bytes one device variable may have (its initial bytes are held in the program).
pub const MAX_DEVICE_BYTES: u64 = 1 << 28;

/// The module's symbols, in declaration order: its constant symbols and its device variables
/// (`.global`, CUDA `__device__`: writable, not in the constant bank; NVRTC's string literals
/// `$str…` and `.extern` declarations are not among them). `types`: the launch file's element
/// type per symbol name.
pub fn symbols(
    globals: &[(usize, Vec<String>)],
    types: &[(String, Elem)],
) -> Result<Vec<KernelConst>, Err> {
    let mut out = Vec::new();
    let mut top = 0u64;
    for (off, w) in globals {
        let space = |s: &str| {
            w.first().map(String::as_str) == Some(s)
                || (w.len() > 1 && w[1] == s && w[0].starts_with('.') && w[0] != ".extern")
        };
        let device = space(".global");
        if !device && !space(".const") {
            continue;
        }
        let what = if device {
            "device variable"
        } else {
            "constant"
        };
        let text = w.join(" ");
        let (decl, init) = match text.split_once('=') {
            Some((d, i)) => (d.trim(), Some(i.trim())),
            None => (text.trim(), None),
        };
        let words: Vec<&str> = decl.split_whitespace().collect();
        let align = words
            .iter()
            .position(|x| *x == ".align")
            .and_then(|i| words.get(i + 1))
            .and_then(|a| a.parse::<u64>().ok())
            .unwrap_or(1)
            .max(1);
        let ty = words
            .iter()
            .copied()
            .find(|x| scalar_bytes(x).is_some())
            .unwrap_or(".b8");
        let eb = scalar_bytes(ty).unwrap_or(1);
        let last = words.last().copied().unwrap_or("");
        let (name, count) = super::decl::name_and_count(last, what).map_err(|m| (*off, m))?;
        if device && super::printf::is_literal(name) {
            continue;
        }
        let count = count.ok_or_else(|| (*off, format!("{what} array `{last}` without a size")))?;
        let name = name.to_owned();
        if name.is_empty() || name.starts_with('.') {
            return Err((*off, format!("a declaration without a name: `{text}`")));
        }
        let bytes = count.saturating_mul(eb);
        if bytes > MAX_DEVICE_BYTES {
            return Err((
                *off,
                format!(
                    "{what} `{name}` has {bytes} bytes: warpsim takes at most {MAX_DEVICE_BYTES}"
                ),
            ));
        }
        if !device {
            top = top
                .div_ceil(align)
                .saturating_mul(align)
                .saturating_add(bytes);
        }
        if top > BANK_BYTES {
            return Err((
                *off,
                format!(
                    "the module's constant memory ends at byte {top} with `{name}`: more than \
                     the {BANK_BYTES} bytes of a constant bank (ptxas refuses it too)"
                ),
            ));
        }
        let mut data = vec![0u8; bytes as usize];
        if let Some(init) = init {
            for (k, v) in init_items(init).enumerate() {
                let bits = literal(v, ty).ok_or_else(|| {
                    (
                        *off,
                        format!("`{name}`'s initialiser: `{v}` is not a {ty} value warpsim reads"),
                    )
                })?;
                for b in 0..eb {
                    if let Some(d) = data.get_mut(k * eb as usize + b as usize) {
                        *d = (bits >> (8 * b)) as u8;
                    }
                }
            }
        }
        let short = super::super::lower::demangle_var(&name);
        let given = types
            .iter()
            .find(|(n, _)| *n == name || *n == short)
            .map(|t| t.1);
        let elem = given
            .filter(|e| bytes % e.bytes() as u64 == 0)
            .or_else(|| ptx_elem(ty))
            .unwrap_or(if bytes % 4 == 0 { Elem::U32 } else { Elem::U8 });
        out.push(KernelConst {
            name,
            short,
            elem,
            len: bytes / elem.bytes() as u64,
            bytes: data,
            off: *off,
            device,
        });
    }
    Ok(out)
}

/// The values of an initialiser (`{1, 2, 3}` or one value), trimmed.
pub(super) fn init_items(init: &str) -> impl Iterator<Item = &str> {
    init.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The element a scalar's PTX type names (none for `.b*`: untyped bits).
fn ptx_elem(t: &str) -> Option<Elem> {
    Some(match t {
        ".f32" => Elem::F32,
        ".f64" => Elem::F64,
        ".u32" => Elem::U32,
        ".s32" => Elem::I32,
        ".u8" => Elem::U8,
        ".s8" => Elem::I8,
        ".u16" => Elem::U16,
        ".s16" => Elem::I16,
        _ => return None,
    })
}

/// The bits of an initialiser's value of PTX type `ty`: an integer, `0fXXXXXXXX`,
/// `0dXXXXXXXXXXXXXXXX` or a decimal float.
fn literal(v: &str, ty: &str) -> Option<u64> {
    if let Some(h) = v.strip_prefix("0f").or_else(|| v.strip_prefix("0F")) {
        return u32::from_str_radix(h, 16).ok().map(u64::from);
    }
    if let Some(h) = v.strip_prefix("0d").or_else(|| v.strip_prefix("0D")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(i) = super::int(v) {
        return Some(i as u64);
    }
    let x: f64 = v.parse().ok()?;
    match ty {
        ".f32" => Some((x as f32).to_bits() as u64),
        ".f64" => Some(x.to_bits()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(s: &str) -> (usize, Vec<String>) {
        (0, s.split_whitespace().map(str::to_owned).collect())
    }

    #[test]
    fn layout_types_and_initialisers() {
        let globals = [
            g(".const .align 4 .b8 c_f[12] = {0, 0, 128, 63, 0, 0, 0, 64}"),
            g(".const .align 4 .u32 c_n = 5"),
            g(".const .align 4 .f32 c_x = 0f3FC00000"),
            g(".shared .align 4 .b8 s[16]"),
            g(".const .align 8 .b8 c_t[6]"),
        ];
        let types = [("c_f".to_owned(), Elem::F32)];
        let c = symbols(&globals, &types).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!((c[0].elem, c[0].len), (Elem::F32, 3));
        assert_eq!(c[0].bytes, vec![0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 0, 0]);
        assert_eq!(
            (c[1].elem, c[1].len, c[1].bytes.clone()),
            (Elem::U32, 1, vec![5, 0, 0, 0])
        );
        assert_eq!(c[2].elem, Elem::F32);
        assert_eq!(c[2].bytes, 1.5f32.to_bits().to_le_bytes().to_vec());
        assert_eq!((c[3].elem, c[3].len), (Elem::U8, 6));
    }

    #[test]
    fn device_variables_are_symbols_outside_the_bank() {
        let globals = [
            g(".visible .global .align 4 .u32 counter"),
            g(".const .align 4 .b8 c[8]"),
            g(".global .align 4 .b8 lut[8] = {1, 0, 0, 0, 2, 0, 0, 0}"),
            g(".global .align 1 .b8 $str[3] = {104, 105, 0}"),
            g(".extern .global .align 4 .u32 elsewhere"),
            g(".global .align 4 .b8 big[70000]"),
        ];
        let c = symbols(&globals, &[]).unwrap();
        let names: Vec<(&str, bool)> = c.iter().map(|s| (s.name.as_str(), s.device)).collect();
        assert_eq!(
            names,
            [
                ("counter", true),
                ("c", false),
                ("lut", true),
                ("big", true)
            ]
        );
        assert_eq!(c[2].bytes, vec![1, 0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn more_than_a_bank_is_refused() {
        let globals = [
            g(".const .align 4 .b8 a[40000]"),
            g(".const .align 4 .b8 b[40000]"),
        ];
        let e = symbols(&globals, &[]).unwrap_err();
        assert!(e.1.contains("80000") && e.1.contains("`b`"), "{}", e.1);
    }
}
