//! The declarations part of the `gen` fuzz target's generator (`genprog.rs`): element types,
//! defines, the launch, buffers with their references and checks, shared arrays.

use super::{Buf, Gen, Sh, T};
use std::fmt::Write;

/// Element types of buffers and shared arrays.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum E {
    I32,
    U32,
    F32,
    F64,
    U8,
    I8,
    U16,
    I16,
    F16,
    Bf16,
}

/// Element types to draw from (32-bit ones more often).
pub(super) const ELEMS: [E; 14] = [
    E::I32,
    E::U32,
    E::F32,
    E::F64,
    E::I32,
    E::U32,
    E::F32,
    E::U8,
    E::I8,
    E::U16,
    E::I16,
    E::F16,
    E::Bf16,
    E::F32,
];

impl E {
    pub(super) fn name(self) -> &'static str {
        match self {
            E::I32 => "I32",
            E::U32 => "U32",
            E::F32 => "F32",
            E::F64 => "F64",
            E::U8 => "U8",
            E::I8 => "I8",
            E::U16 => "U16",
            E::I16 => "I16",
            E::F16 => "F16",
            E::Bf16 => "BF16",
        }
    }
    /// The type of an element read into a register.
    pub(super) fn val(self) -> T {
        match self {
            E::I32 | E::I8 | E::I16 => T::I32,
            E::U32 | E::U8 | E::U16 => T::U32,
            E::F32 => T::F32,
            E::F64 => T::F64,
            E::F16 => T::F16,
            E::Bf16 => T::Bf16,
        }
    }
    pub(super) fn bytes(self) -> u32 {
        match self {
            E::F64 => 8,
            E::U8 | E::I8 => 1,
            E::U16 | E::I16 | E::F16 | E::Bf16 => 2,
            _ => 4,
        }
    }
    /// The atomic operations CUDA has on this element type.
    pub(super) fn atomics(self) -> &'static [&'static str] {
        match self {
            E::I32 => &[
                "add", "sub", "min", "max", "and", "or", "xor", "exch", "cas",
            ],
            E::U32 => &[
                "add", "sub", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec",
            ],
            E::F32 => &["add", "exch"],
            _ => &[],
        }
    }
}

/// Every atomic operation (a careless program may try any on any type).
pub(super) const ATOMICS: [&str; 11] = [
    "add", "sub", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec",
];

/// Shared memory a generated block uses at most (unless it goes over on purpose); the
/// loader's limit is 227 KiB.
const SHARED_BUDGET: u32 = 48 << 10;

/// Defines: up to two integers, and an expression of them (its value computed here too).
pub(super) fn defines(g: &mut Gen, s: &mut String) {
    s.push_str("defines: {");
    for name in ["N", "M"] {
        if g.u.flip() {
            let v = g.u.pick(&[4u32, 1, 2, 32, 64]);
            write!(s, "\"{name}\": {v}, ").unwrap();
            g.defines.push((name.to_owned(), v));
        }
    }
    if let Some((n, v)) = g.defines.first().cloned() {
        if g.u.flip() {
            let forms: [(String, u32); 6] = [
                (format!("{n} * 2"), v * 2),
                (format!("{n} / 2 + 1"), v / 2 + 1),
                (format!("max({n}, 8)"), v.max(8)),
                (format!("{n} > 2 ? {n} : 4"), if v > 2 { v } else { 4 }),
                (format!("({n} << 1) - 1"), 2 * v - 1),
                (format!("{n} % 3 + 1"), v % 3 + 1),
            ];
            let (e, k) = g.u.pick(&forms);
            let e = if g.rare() {
                g.u.pick(&[
                    format!("{n} - {n}"),
                    "1.5".into(),
                    "tid.x".into(),
                    "K".into(),
                ])
            } else {
                e
            };
            write!(s, "\"K\": \"{e}\", ").unwrap();
            g.defines.push(("K".into(), k));
        }
    }
    s.push_str("}, ");
}

/// A buffer's `expect` (a reference over `i` or a permutation) and `check` (a predicate over
/// the final contents), or neither.
fn buffer_checks(g: &mut Gen, s: &mut String, k: usize, e: E, len: u32) {
    let c = e.val().cast();
    let name = format!("b{k}");
    match g.u.below(6) {
        0 | 1 => {
            let l0 = g.buffers.first().map_or(len, |b| b.len);
            let r = match g.u.below(6) {
                0 => format!("{c}(0)"),
                1 => format!("{c}(i)"),
                2 => format!("{c}(f32(i) * 2.0)"),
                3 => format!("{c}(sum(k, 0, i % 8, k))"),
                4 => format!("{c}(b0[i % {l0}])"),
                _ => format!("i > 0 ? {c}(b0[(i - 1) % {l0}]) : {c}(0)"),
            };
            write!(s, ", expect: \"{r}\"").unwrap();
            if !e.val().int() && g.u.flip() {
                s.push_str(", tolerance: 0.01");
            }
        }
        2 => {
            // Another buffer of the same type and length, or itself (in place).
            let mut same: Vec<String> = g
                .buffers
                .iter()
                .filter(|b| (b.e == e && b.len == len) || g.careless)
                .map(|b| b.name.clone())
                .collect();
            same.push(name.clone());
            let src = g.u.pick(&same);
            write!(s, ", expect: \"permutation({src})\"").unwrap();
        }
        3 => {
            let p = match g.u.below(4) {
                0 => format!("i + 1 == {len} || {name}[i] <= {name}[i + 1]"),
                1 => format!("i % 2 == 0 || {name}[i] >= {c}(0)"),
                2 => format!("{name}[i] == {name}[i]"),
                _ => format!("i % 32 == 31 || {name}[i] != {c}(7)"),
            };
            write!(s, ", check: \"{p}\"").unwrap();
        }
        _ => {}
    }
}

pub(super) fn buffers(g: &mut Gen, s: &mut String) {
    s.push_str("buffers: [");
    let nb = g.u.range(0, 3);
    for k in 0..nb as usize {
        let e = g.u.pick(&ELEMS);
        let mut len = g.u.pick(&[64u32, 32, 256, 1024, 1, 4, 31]);
        let mut len_text = len.to_string();
        if g.u.flip() && !g.defines.is_empty() {
            let (name, v) = g.u.pick(&g.defines);
            let f = g.u.pick(&[1u32, 4, 32]);
            len = v * f;
            len_text = format!("\"{name} * {f}\"");
        }
        let init = g.u.pick(&["Zeros", "Iota", "Random(7)"]);
        write!(
            s,
            "(name: \"b{k}\", ty: {}, len: {len_text}, init: {init}",
            e.name()
        )
        .unwrap();
        buffer_checks(g, s, k, e, len);
        s.push_str("),");
        g.buffers.push(Buf {
            name: format!("b{k}"),
            e,
            len,
        });
    }
    s.push_str("], ");
}

pub(super) fn shared(g: &mut Gen, s: &mut String) {
    s.push_str("shared: [");
    let ns = g.u.range(0, 2);
    let mut used = 0u32;
    for k in 0..ns {
        let e = g.u.pick(&ELEMS);
        let rank = g.u.range(1, 3);
        let mut dims: Vec<u32> = (0..rank)
            .map(|_| g.u.pick(&[32u32, 1, 2, 4, 8, 16, 33, 64]))
            .collect();
        let pad = g.u.pick(&[0u32, 0, 0, 1, 2, 3, 4]);
        let bytes = |dims: &[u32]| {
            dims[..dims.len() - 1].iter().product::<u32>()
                * (dims[dims.len() - 1] + pad)
                * e.bytes()
        };
        // Over the budget: drop outer dimensions (but for a rare array kept too big).
        if !g.rare() {
            while dims.len() > 1 && used + bytes(&dims) > SHARED_BUDGET {
                dims.remove(0);
            }
        }
        used += bytes(&dims).next_multiple_of(16);
        // A swizzle group must leave a power-of-two number of groups in a row.
        let last = dims[dims.len() - 1];
        let swz = g.u.pick(&[0u32, 0, 1, 2, 4, 8]);
        let swz = if swz > 0 && last.is_multiple_of(swz) && (last / swz).is_power_of_two() {
            swz
        } else {
            0
        };
        let d: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        write!(
            s,
            "(name: \"s{k}\", ty: {}, dims: [{}], pad: {pad}, swizzle: {swz}),",
            e.name(),
            d.join(", ")
        )
        .unwrap();
        g.shared.push(Sh {
            name: format!("s{k}"),
            e,
            dims,
            pad,
            swizzle: swz,
        });
    }
    s.push_str("], ");
}

/// The launch: at most 1024 threads a block, 64 blocks and 2048 threads (the `run` target
/// skips bigger ones).
pub(super) fn launch(g: &mut Gen, s: &mut String) {
    let bx = g.u.pick(&[32u32, 64, 128, 1, 2, 3, 16, 33, 96, 256]);
    let by = g.u.pick(&[1u32, 1, 2, 3]);
    let bz = if bx * by <= 512 {
        g.u.pick(&[1u32, 1, 1, 2])
    } else {
        1
    };
    let threads = bx * by * bz;
    let gx = g.u.range(1, 4).min(2048 / threads).max(1);
    let gy = g.u.pick(&[1u32, 1, 2]).min(2048 / (threads * gx)).max(1);
    let block = if bz > 1 {
        format!("[{bx}, {by}, {bz}]")
    } else if by > 1 || g.u.flip() {
        format!("[{bx}, {by}]")
    } else {
        format!("[{bx}]")
    };
    let grid = if gy > 1 {
        format!("[{gx}, {gy}]")
    } else {
        match g.defines.iter().find(|d| d.1 == gx) {
            Some((name, _)) => format!("[\"{name}\"]"),
            None => format!("[{gx}]"),
        }
    };
    write!(s, "launch: (grid: {grid}, block: {block}), ").unwrap();
}
