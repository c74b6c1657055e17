//! The launch file's `tensor_maps` (TMA, issue 41): each checked as `cuTensorMapEncodeTiled`
//! checks its arguments, against the buffer it describes, into a
//! [`TensorMap`](warpsim_kernel::tensormap::TensorMap) that `CUtensorMap` parameters name.

use super::{Loader, R};
use crate::file::{self, Expr, FillSource, SwizzleSource};
use warpsim_kernel::tensormap::{TensorMap, TmaSwizzle};
use warpsim_kernel::Elem;

impl Loader<'_> {
    /// Checks and keeps the program's tensor maps (`self.tensor_maps`).
    pub(super) fn tensor_maps(&mut self, p: &file::ProgramSource) -> R<()> {
        for t in &p.tensor_maps {
            if self.tensor_maps.iter().any(|m| m.name == t.name.text) {
                return Err(self.err_text(&t.name, "a second tensor map of this name", None));
            }
            let Some(k) = self.buffers.iter().position(|b| b.name == t.buffer.text) else {
                let names: Vec<&str> = self.buffers.iter().map(|b| b.name.as_str()).collect();
                return Err(self.err_text(
                    &t.buffer,
                    format!("no buffer named `{}`", t.buffer.text),
                    Some(format!("buffers: {}", names.join(", "))),
                ));
            };
            let (elem, len) = (self.buffers[k].elem, self.buffers[k].len);
            let esize = elem.bytes() as u64;
            let rank = t.dims.len();
            if !(1..=5).contains(&rank) {
                return Err(self.err_text(
                    &t.name,
                    format!("a tensor map of {rank} dimensions"),
                    Some("give `dims` 1 to 5 sizes, innermost first".into()),
                ));
            }
            let ints = |l: &Self, es: &[Expr], what: &str, lo: i64, hi: i64| -> R<Vec<u64>> {
                es.iter()
                    .map(|e| {
                        let v = l.const_int(e, what)?;
                        if v < lo || v > hi {
                            return Err(l.err_text(
                                &e.0,
                                format!("{what} {v} is not between {lo} and {hi}"),
                                None,
                            ));
                        }
                        Ok(v as u64)
                    })
                    .collect()
            };
            let dims = ints(self, &t.dims, "a tensor dimension", 1, 1 << 32)?;
            let boxes = ints(self, &t.boxes, "a box dimension", 1, 256)?;
            if boxes.len() != rank {
                return Err(self.err_text(
                    &t.name,
                    format!("`box` has {} sizes for {rank} dimensions", boxes.len()),
                    None,
                ));
            }
            let mut strides = vec![esize];
            if t.strides.is_empty() {
                for i in 1..rank {
                    // (Saturating: a tensor past 2^64 bytes is refused below.)
                    strides.push(strides[i - 1].saturating_mul(dims[i - 1]));
                }
            } else if t.strides.len() + 1 != rank {
                return Err(self.err_text(
                    &t.name,
                    format!(
                        "`strides` has {} entries; a {rank}-D map takes {} (bytes, for dimensions \
                         1 and up)",
                        t.strides.len(),
                        rank - 1
                    ),
                    None,
                ));
            } else {
                let given = ints(self, &t.strides, "a stride in bytes", 16, 1 << 40)?;
                for (e, s) in t.strides.iter().zip(&given) {
                    if !s.is_multiple_of(16) {
                        return Err(self.err_text(
                            &e.0,
                            format!("a stride of {s} bytes is not a multiple of 16"),
                            None,
                        ));
                    }
                }
                strides.extend(given);
            }
            let span = dims
                .iter()
                .zip(&strides)
                .map(|(&d, &s)| (d as u128 - 1) * s as u128)
                .sum::<u128>()
                + esize as u128;
            if span > (len as u128) * esize as u128 {
                return Err(self.err_text(
                    &t.name,
                    format!(
                        "the tensor reaches byte {span} of `{}`, which has {} bytes",
                        t.buffer.text,
                        len * esize
                    ),
                    Some("make the buffer longer or the dims smaller".into()),
                ));
            }
            let swizzle = match t.swizzle {
                SwizzleSource::None => TmaSwizzle::None,
                SwizzleSource::B32 => TmaSwizzle::B32,
                SwizzleSource::B64 => TmaSwizzle::B64,
                SwizzleSource::B128 => TmaSwizzle::B128,
            };
            let inner = boxes[0] * esize;
            if !inner.is_multiple_of(16) || (swizzle.bytes() > 0 && inner > swizzle.bytes() as u64)
            {
                let want = match swizzle.bytes() {
                    0 => "a multiple of 16 bytes".to_string(),
                    s => format!("a multiple of 16 bytes, at most the swizzle's {s}"),
                };
                return Err(self.err_text(
                    &t.name,
                    format!("the box's inner dimension is {inner} bytes; it must be {want}"),
                    None,
                ));
            }
            let float = matches!(elem, Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16);
            if matches!(t.fill, FillSource::Nan) && !float {
                return Err(self.err_text(
                    &t.name,
                    "`fill: Nan` is for float elements",
                    Some("use `fill: Zeros`".into()),
                ));
            }
            let mut m = TensorMap {
                name: t.name.text.clone(),
                buffer: k as u16,
                esize: esize as u32,
                rank: rank as u8,
                dims: [1; 5],
                strides: [0; 5],
                boxes: [1; 5],
                swizzle,
                fill_nan: matches!(t.fill, FillSource::Nan),
            };
            for i in 0..rank {
                m.dims[i] = dims[i];
                m.strides[i] = strides[i];
                m.boxes[i] = boxes[i] as u32;
            }
            self.tensor_maps.push(m);
        }
        Ok(())
    }
}
