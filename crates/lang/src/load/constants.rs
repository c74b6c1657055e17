//! A `cuda:`/`ptx:` program's constant memory: the launch file's `constants:` fills of the
//! kernel's `__constant__` symbols, checked against the module's `.const` declarations.
//!
//! Every constant symbol of the module becomes a read-only buffer after the launch's buffers
//! (named by its unmangled name, so that `expect`/`check` read it like a buffer's initial
//! contents), holding the module's initialiser and then the fills in order, as
//! `cudaMemcpyToSymbol` calls before the launch would write them (spec C-1 of
//! `calibration/probes/cuda_coverage`).

use super::{Loader, R};
use crate::file::{self, ConstInit};
use warpsim_kernel::expr::{Kind, Node, UnOp};
use warpsim_kernel::{BufferInfo, ConstData, ConstFill, Elem, FillSrc, KernelConst};

impl Loader<'_> {
    /// The launch's element type per constant symbol it fills (the first fill's), for the
    /// front end.
    pub(super) fn const_types(p: &file::ProgramSource) -> Vec<(String, Elem)> {
        let mut out: Vec<(String, Elem)> = Vec::new();
        for c in &p.constants {
            if !out.iter().any(|(n, _)| *n == c.name.text) {
                out.push((c.name.text.clone(), c.ty));
            }
        }
        out
    }

    /// One buffer per constant symbol of the module, filled as the launch file says.
    pub(super) fn const_buffers(&mut self, p: &file::ProgramSource, syms: &[KernelConst]) -> R<()> {
        let list = || {
            let all: Vec<String> = syms
                .iter()
                .map(|s| format!("{} ({} bytes)", s.short, s.bytes.len()))
                .collect();
            match all.is_empty() {
                true => "the kernel's module declares no `__constant__` symbol".to_owned(),
                false => format!("the module's constant symbols: {}", all.join(", ")),
            }
        };
        let mut data: Vec<ConstData> = syms
            .iter()
            .map(|s| ConstData {
                bytes: s.bytes.clone(),
                fills: Vec::new(),
                device: s.device,
            })
            .collect();
        for c in &p.constants {
            let name = &c.name.text;
            let Some(k) = syms
                .iter()
                .position(|s| s.name == *name || s.short == *name)
            else {
                return Err(self.err_text(
                    &c.name,
                    format!("`{name}` is not a constant symbol of the kernel's module"),
                    Some(list()),
                ));
            };
            let size = syms[k].bytes.len() as u64;
            let tb = c.ty.bytes() as u64;
            let offset = match &c.offset {
                Some(e) => {
                    let v = self.const_int(e, "a constant's byte offset")?;
                    u64::try_from(v)
                        .map_err(|_| self.err_text(&e.0, format!("offset {v} is negative"), None))?
                }
                None => 0,
            };
            let values = match &c.init {
                Some(ConstInit::Values(v)) => Some(v),
                _ => None,
            };
            let len = match (&c.len, values) {
                (Some(e), _) => {
                    let v = self.const_int(e, "a constant's length")?;
                    u64::try_from(v).ok().filter(|&v| v >= 1).ok_or_else(|| {
                        self.err_text(&e.0, format!("length {v}: give at least 1 element"), None)
                    })?
                }
                (None, Some(v)) => v.len() as u64,
                (None, None) => size.saturating_sub(offset) / tb,
            };
            let end = offset.saturating_add(len.saturating_mul(tb));
            if end > size {
                return Err(self.err_text(
                    &c.name,
                    format!(
                        "this fill writes bytes {offset}..{end} of `{name}`, which has {size} \
                         bytes ({len} {} elements of {tb} bytes from byte {offset})",
                        c.ty
                    ),
                    Some(list()),
                ));
            }
            let src = match (&c.init, &c.from) {
                (Some(_), Some(f)) => {
                    return Err(self.err_text(
                        f,
                        "a constant fill has `init` or `from`, not both",
                        None,
                    ))
                }
                (None, None) => {
                    return Err(self.err_text(
                        &c.name,
                        format!("the fill of `{name}` has neither `init` nor `from`"),
                        Some(
                            "give `init: Values([...])`, `Random(seed)`, `Iota`, `Zeros`, \
                             or `from: \"buffer\"`"
                                .to_owned(),
                        ),
                    ))
                }
                (None, Some(f)) => {
                    let b = self
                        .buffers
                        .iter()
                        .find(|b| b.name == f.text)
                        .ok_or_else(|| {
                            self.err_text(f, format!("no buffer named `{}`", f.text), None)
                        })?;
                    if b.elem != c.ty {
                        return Err(self.err_text(
                            f,
                            format!(
                                "buffer `{}` holds {} elements, the fill of `{name}` {}",
                                b.name, b.elem, c.ty
                            ),
                            None,
                        ));
                    }
                    if b.len < len {
                        return Err(self.err_text(
                            f,
                            format!(
                                "buffer `{}` has {} elements; the fill of `{name}` copies {len}",
                                b.name, b.len
                            ),
                            None,
                        ));
                    }
                    FillSrc::Init(b.init)
                }
                (Some(ConstInit::Zeros), None) => FillSrc::Init(warpsim_kernel::Init::Zeros),
                (Some(ConstInit::Iota), None) => FillSrc::Init(warpsim_kernel::Init::Iota),
                (Some(ConstInit::Random(s)), None) => {
                    FillSrc::Init(warpsim_kernel::Init::Random(*s))
                }
                (Some(ConstInit::Values(v)), None) => {
                    if v.len() as u64 != len {
                        return Err(self.err_text(
                            &c.name,
                            format!(
                                "the fill of `{name}` has {len} elements but {} values",
                                v.len()
                            ),
                            None,
                        ));
                    }
                    let mut bits = Vec::with_capacity(v.len());
                    for t in v {
                        bits.push(self.value_bits(t, c.ty)?);
                    }
                    FillSrc::Values(bits)
                }
            };
            data[k].fills.push(ConstFill {
                offset,
                elem: c.ty,
                len,
                src,
            });
        }
        for (s, d) in syms.iter().zip(data) {
            if let Some(b) = self.buffers.iter().find(|b| b.name == s.short) {
                let m = format!(
                    "buffer `{}` has the name of the kernel's constant symbol `{}`",
                    b.name, s.short
                );
                let at = p.buffers.iter().find(|x| x.name.text == b.name);
                return Err(match at {
                    Some(x) => self.err_text(&x.name, m, Some("rename the buffer".into())),
                    None => self.err_text(&p.name, m, None),
                });
            }
            let line = p
                .constants
                .iter()
                .find(|c| c.name.text == s.name || c.name.text == s.short)
                .map_or(0, |c| self.line_of(&c.name));
            self.buffers.push(BufferInfo {
                name: s.short.clone(),
                elem: s.elem,
                len: s.len.max(1),
                init: warpsim_kernel::Init::Zeros,
                expect: None,
                check: None,
                line,
                constant: Some(d),
            });
        }
        Ok(())
    }

    /// The bits of one `Values` element of type `ty`.
    fn value_bits(&self, t: &file::Text, ty: Elem) -> R<[u32; 2]> {
        let (n, site) = self.parse_expr(t)?;
        let float = float_literal(&n);
        let x = match float {
            Some(x) => x,
            None => {
                let v = self.fold_int(&n, site, "a constant's value")?;
                if is_float(ty) {
                    v as f64
                } else {
                    return Ok([
                        v as u32 & warpsim_kernel::narrow::mask(ty.bytes()),
                        (v >> 32) as u32,
                    ]);
                }
            }
        };
        if !is_float(ty) {
            return Err(self.err_text(
                t,
                format!(
                    "`{}` is not an integer, but the fill's type is {ty}",
                    t.text
                ),
                None,
            ));
        }
        Ok(match ty {
            Elem::F64 => {
                let b = x.to_bits();
                [b as u32, (b >> 32) as u32]
            }
            Elem::F32 => [(x as f32).to_bits(), 0],
            _ => [ty.half().map_or(0, |h| h.from_f64(x) as u32), 0],
        })
    }
}

/// A float literal, or its negation.
fn float_literal(n: &Node) -> Option<f64> {
    match &n.kind {
        Kind::Float(x) => Some(*x),
        Kind::Unary(UnOp::Neg, a) => float_literal(a).map(|x| -x),
        _ => None,
    }
}

/// Whether `e` is a floating-point element.
fn is_float(e: Elem) -> bool {
    matches!(e, Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16)
}
