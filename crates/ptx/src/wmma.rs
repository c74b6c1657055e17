//! WMMA (`wmma.load`, `wmma.mma`, `wmma.store`; issue 41) rewritten into the instructions
//! ptxas makes of it on sm_90, a PTX-to-PTX pass after `inline.rs` and before `generic.rs`.
//! What they are was measured (`calibration/probes/wmma_layout/RESULT.md`): WMMA's fragments
//! are `mma.sync`'s, so
//!
//! * `wmma.mma` of m16n16k16 (f16, bf16, s8, u8) is two `mma.sync.m16n8k16`, of m16n16k8
//!   (tf32) four `mma.sync.m16n8k4`, two (k 0-3, then 4-7) for columns 0-7 and two for 8-15,
//!   as ptxas makes them (`HMMA.1684`);
//! * `wmma.load.a`/`.b` of 16-bit elements from shared memory is one `ldmatrix.x4` (`LDSM`,
//!   `.trans` for a col-major A and a row-major B) whose row addresses the lanes compute from
//!   the pointer and the stride (`warpsim.fragaddr.rows`, [`FragAt::Rows`]);
//! * every other `wmma.load`/`wmma.store` is one ordinary access per register (or per pair of
//!   contiguous registers, `ld.v2`, as `LDS.64`/`STG.E.64`) at the lane's element address
//!   (`warpsim.fragaddr.e`, [`FragAt::Elem`]); 16-bit elements that are not contiguous in
//!   memory move one by one and are packed (`mov.b32 %r, {lo, hi}`).
//!
//! A 16-bit A or B fragment names 8 registers of which the last 4 repeat the first 4 (the
//! measured layout); `mma` reads only the first 4, so the copies are made only when another
//! instruction names those registers. Shapes m32n8k16, m8n32k16 and the sub-byte and f64
//! forms are refused at their line: their accumulators were not measured.
//!
//! [`FragAt::Rows`]: warpsim_kernel::ir::FragAt::Rows
//! [`FragAt::Elem`]: warpsim_kernel::ir::FragAt::Elem

use crate::lower::{int, reg_list, Err};
use crate::parse::{Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

/// Which matrix a fragment holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    A,
    B,
    C,
}

/// A fragment's element type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    F32,
    S8,
    U8,
    S32,
}

impl Ty {
    fn of(p: &str) -> Option<Ty> {
        Some(match p {
            "f16" => Ty::F16,
            "bf16" => Ty::Bf16,
            "tf32" => Ty::Tf32,
            "f32" => Ty::F32,
            "s8" => Ty::S8,
            "u8" => Ty::U8,
            "s32" => Ty::S32,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::Tf32 => "tf32",
            Ty::F32 => "f32",
            Ty::S8 => "s8",
            Ty::U8 => "u8",
            Ty::S32 => "s32",
        }
    }

    fn bytes(self) -> u8 {
        match self {
            Ty::F16 | Ty::Bf16 => 2,
            Ty::S8 | Ty::U8 => 1,
            Ty::Tf32 | Ty::F32 | Ty::S32 => 4,
        }
    }
}

/// A fragment: matrix, `k` of the shape (16 for m16n16k16, 8 for m16n16k8) and element type.
#[derive(Clone, Copy, Debug)]
struct Frag {
    kind: Kind,
    k: u8,
    ty: Ty,
}

impl Frag {
    /// The fragment of `kind` with elements `ty` in shape `shape`, if warpsim runs it.
    fn new(kind: Kind, shape: &str, ty: Ty) -> Result<Frag, String> {
        let k = match (shape, kind, ty) {
            ("m16n16k16", Kind::A | Kind::B, Ty::F16 | Ty::Bf16 | Ty::S8 | Ty::U8) => 16,
            ("m16n16k16", Kind::C, Ty::F16 | Ty::F32 | Ty::S32) => 16,
            ("m16n16k8", Kind::A | Kind::B, Ty::Tf32) => 8,
            ("m16n16k8", Kind::C, Ty::F32) => 8,
            ("m32n8k16" | "m8n32k16" | "m8n8k32" | "m8n8k128" | "m8n8k4", ..) => {
                return Err(format!(
                    "the .{shape} shape (warpsim runs WMMA's m16n16k16 and m16n16k8: the \
                     others' accumulator layouts were not measured)"
                ))
            }
            _ => {
                return Err(format!(
                    "a .{shape} fragment of .{} (warpsim runs m16n16k16 with .f16, .bf16, .s8 \
                     or .u8 inputs and .f16, .f32 or .s32 accumulators, and m16n16k8 .tf32)",
                    ty.name()
                ))
            }
        };
        Ok(Frag { kind, k, ty })
    }

    /// The registers a PTX fragment names, and how many hold distinct elements (the rest
    /// repeat the first ones).
    fn regs(self) -> (usize, usize) {
        match (self.kind, self.ty) {
            (Kind::A | Kind::B, Ty::F16) => (8, 4),
            (Kind::A | Kind::B, Ty::S8 | Ty::U8) => (2, 2),
            (Kind::A | Kind::B, _) => (4, 4),
            (Kind::C, Ty::F16) => (4, 4),
            (Kind::C, _) => (8, 8),
        }
    }

    /// The matrix's rows and columns.
    fn dims(self) -> (u8, u8) {
        match self.kind {
            Kind::A => (16, self.k),
            Kind::B => (self.k, 16),
            Kind::C => (16, 16),
        }
    }

    /// Each distinct element in register order, at matrix coordinates (`rg g + rt t + r0`,
    /// `cg g + ct t + c0`) for lane `4 g + t`: `[rg, rt, r0, cg, ct, c0]`. These are the
    /// `mma.sync` fragments (wmma_layout/RESULT.md; the s8/u8 ones are `mma.sync`'s too, not
    /// measured through WMMA).
    fn elems(self) -> Vec<[u8; 6]> {
        let mut v = Vec::new();
        match (self.kind, self.ty.bytes()) {
            (Kind::A, 2) => {
                for r in 0..4 {
                    for h in 0..2 {
                        v.push([1, 0, 8 * (r & 1), 0, 2, 8 * (r >> 1) + h]);
                    }
                }
            }
            (Kind::B, 2) => {
                for r in 0..4 {
                    for h in 0..2 {
                        v.push([0, 2, 8 * (r & 1) + h, 1, 0, 8 * (r >> 1)]);
                    }
                }
            }
            (Kind::A, 4) => {
                for e in 0..4 {
                    v.push([1, 0, 8 * (e & 1), 0, 1, 4 * (e >> 1)]);
                }
            }
            (Kind::B, 4) => {
                for e in 0..4 {
                    v.push([0, 1, 4 * (e & 1), 1, 0, 8 * (e >> 1)]);
                }
            }
            (Kind::A, _) => {
                for r in 0..2 {
                    for b in 0..4 {
                        v.push([1, 0, 8 * r, 0, 4, b]);
                    }
                }
            }
            (Kind::B, _) => {
                for r in 0..2 {
                    for b in 0..4 {
                        v.push([0, 4, b, 1, 0, 8 * r]);
                    }
                }
            }
            (Kind::C, _) => {
                for e in 0..8u8 {
                    let (p, h) = (e / 2, e % 2);
                    v.push([1, 0, 8 * (p & 1), 0, 2, 8 * (p >> 1) + h]);
                }
            }
        }
        v
    }
}

/// Rewrites every `wmma.*` of `body`.
pub fn expand(body: &mut Vec<Stmt>) -> Result<(), Err> {
    let is_wmma =
        |s: &Stmt| matches!(&s.kind, StmtKind::Inst { op, .. } if op.starts_with("wmma."));
    if !body.iter().any(is_wmma) {
        return Ok(());
    }
    let mut x = Expand::new(body);
    let mut out = Vec::with_capacity(body.len() + 16);
    for s in body.drain(..) {
        match &s.kind {
            StmtKind::Inst { guard, op, args } if op.starts_with("wmma.") => {
                x.at = (s.off, s.loc, guard.clone());
                x.stmt(op, args)?;
                out.append(&mut x.out);
            }
            _ => out.push(s),
        }
    }
    // The temporaries' declarations first.
    let first = out.first().map_or(0, |s| s.off);
    let decls = x.decls.iter().map(|(ty, name)| Stmt {
        off: first,
        loc: (0, 0),
        kind: StmtKind::Directive(vec![".reg".into(), (*ty).into(), name.clone()]),
    });
    *body = decls.chain(out).collect();
    Ok(())
}

struct Expand {
    /// Register name base (`%rd`) or name → bytes, from the `.reg` declarations.
    widths: HashMap<String, u8>,
    /// Registers named by some instruction other than a `wmma.*`.
    named_outside: HashSet<String>,
    /// Registers written once, by a `mov` of a constant (NVRTC's strides: `mov.u32 %r36, 32`;
    /// `lower::Facts`).
    consts: HashMap<String, i64>,
    /// The temporaries made: their type and name.
    decls: Vec<(&'static str, String)>,
    /// The statement being rewritten: offset, `.loc` and guard.
    at: (usize, (u32, u32), Option<(String, bool)>),
    out: Vec<Stmt>,
}

impl Expand {
    fn new(body: &[Stmt]) -> Expand {
        let mut widths = HashMap::new();
        let mut named_outside = HashSet::new();
        let consts = crate::lower::Facts::of(body).consts;
        for s in body {
            match &s.kind {
                StmtKind::Directive(w) if w.first().is_some_and(|d| d == ".reg") => {
                    let bytes = w.iter().find_map(|t| match t.as_str() {
                        ".b64" | ".u64" | ".s64" | ".f64" => Some(8),
                        ".b32" | ".u32" | ".s32" | ".f32" => Some(4),
                        _ => None,
                    });
                    if let (Some(b), Some(n)) = (bytes, w.last()) {
                        let n = n.trim_end_matches(';');
                        widths.insert(n.split('<').next().unwrap_or(n).to_owned(), b);
                    }
                }
                StmtKind::Inst { op, args, .. } if !op.starts_with("wmma.") => {
                    for a in args {
                        for t in
                            a.split(|c: char| !(c.is_ascii_alphanumeric() || "%_$.".contains(c)))
                        {
                            if t.starts_with('%') {
                                named_outside.insert(t.to_owned());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Expand {
            widths,
            named_outside,
            consts,
            decls: Vec::new(),
            at: (0, (0, 0), None),
            out: Vec::new(),
        }
    }

    fn emit(&mut self, op: String, args: Vec<String>) {
        self.out.push(Stmt {
            off: self.at.0,
            loc: self.at.1,
            kind: StmtKind::Inst {
                guard: self.at.2.clone(),
                op,
                args,
            },
        });
    }

    /// A new temporary of PTX type `ty`.
    fn temp(&mut self, ty: &'static str) -> String {
        let name = format!("%wmma${}", self.decls.len());
        self.decls.push((ty, name.clone()));
        name
    }

    /// Whether register `name` is 64 bits wide (by its declaration; an undeclared one is
    /// taken as a 64-bit pointer, and lowering says what is wrong with it).
    fn wide(&self, name: &str) -> bool {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        self.widths
            .get(name)
            .or_else(|| self.widths.get(base))
            .is_none_or(|&b| b == 8)
    }

    fn stmt(&mut self, op: &str, args: &[String]) -> Result<(), Err> {
        let off = self.at.0;
        let unsup = |why: String| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let parts: Vec<&str> = op.split('.').collect();
        match parts.get(1).copied() {
            Some("load") | Some("store") => {
                let store = parts[1] == "store";
                let kind = match (parts.get(2).copied(), store) {
                    (Some("a"), false) => Kind::A,
                    (Some("b"), false) => Kind::B,
                    (Some("c"), false) | (Some("d"), true) => Kind::C,
                    _ => return Err(unsup("write wmma.load.{a,b,c} or wmma.store.d".into())),
                };
                let (mut layout, mut shape, mut space, mut ty) = (None, None, None, None);
                for p in &parts[3..] {
                    match *p {
                        "sync" | "aligned" => {}
                        "row" | "col" => layout = Some(*p == "col"),
                        "shared" | "shared::cta" => space = Some("shared"),
                        "global" => space = Some("global"),
                        p if p.starts_with('m') && p.contains('n') && p.contains('k') => {
                            shape = Some(p)
                        }
                        p if Ty::of(p).is_some() => ty = Ty::of(p),
                        other => return Err(unsup(format!("`.{other}`"))),
                    }
                }
                let (Some(col), Some(shape), Some(ty)) = (layout, shape, ty) else {
                    return Err(unsup(
                        "it needs a layout (.row or .col), a shape and a type".into(),
                    ));
                };
                let frag = Frag::new(kind, shape, ty).map_err(unsup)?;
                let (regs, addr, stride) = match (store, args) {
                    (false, [r, a]) | (true, [a, r]) => (r, a, None),
                    (false, [r, a, s]) | (true, [a, r, s]) => (r, a, Some(s.as_str())),
                    _ => {
                        return Err(unsup(format!(
                            "it takes {}, an address and an optional stride",
                            if store {
                                "an address, registers"
                            } else {
                                "registers"
                            }
                        )))
                    }
                };
                let regs: Vec<String> = reg_list(regs).iter().map(|s| s.to_string()).collect();
                let (n, _) = frag.regs();
                if regs.len() != n {
                    return Err((
                        off,
                        format!(
                            "PTX instruction `{op}`: a {:?} fragment of .{} is {n} registers, \
                             but this one names {}",
                            frag.kind,
                            ty.name(),
                            regs.len()
                        ),
                    ));
                }
                self.access(frag, store, col, space, &regs, addr, stride)
            }
            Some("mma") => self.mma(op, &parts, args),
            _ => Err(unsup(
                "warpsim runs wmma.load, wmma.store and wmma.mma".into(),
            )),
        }
    }

    /// A `wmma.load` (or, `store`, `wmma.store`) of `frag` in registers `regs` at `[addr]`.
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        frag: Frag,
        store: bool,
        col: bool,
        space: Option<&'static str>,
        regs: &[String],
        addr: &str,
        stride: Option<&str>,
    ) -> Result<(), Err> {
        let off = self.at.0;
        let a = addr.trim();
        let inner = a
            .strip_prefix('[')
            .and_then(|x| x.strip_suffix(']'))
            .ok_or((
                off,
                format!("`{a}` is not an address: write `[%rd]` or `[%rd+16]`"),
            ))?;
        let (base, disp) = match inner.rsplit_once('+') {
            Some((b, d)) => (
                b.trim(),
                int(d.trim()).ok_or((off, format!("bad address `{a}`")))?,
            ),
            None => (inner.trim(), 0),
        };
        if base.is_empty() {
            return Err((
                off,
                format!("`{a}` is not an address: write `[%rd]` or `[%rd+16]`"),
            ));
        }
        // A symbol's address into a register first.
        let base = if base.starts_with('%') {
            base.to_owned()
        } else {
            let t = self.temp(".b64");
            self.emit("mov.u64".into(), vec![t.clone(), base.to_owned()]);
            t
        };
        let wide = self.wide(&base);
        let bits = if wide { "b64" } else { "b32" };
        let (rows, cols) = frag.dims();
        let stride = match stride {
            Some(s) => s.trim().to_owned(),
            None => (if col { rows } else { cols }).to_string(),
        };
        let at = |t: &str| match disp {
            0 => format!("[{t}]"),
            d => format!("[{t}+{d}]"),
        };
        let ss = space.map_or(String::new(), |s| format!(".{s}"));
        // A constant stride: one lane address for the fragment, the other elements at constant
        // offsets from it (as ptxas folds them into the accesses' immediates).
        let fixed = int(&stride)
            .or_else(|| self.consts.get(&stride).copied())
            .and_then(|v| u64::try_from(v).ok());
        let mut first_addr: Option<(String, [u8; 6])> = None;
        let (_, distinct) = frag.regs();
        let sixteen = frag.ty.bytes() == 2;
        if !store && space == Some("shared") && frag.kind != Kind::C && sixteen {
            // One ldmatrix.x4 (LDSM.16.M88.4 / .MT88.4).
            let (swap, trans) = match (frag.kind, col) {
                (Kind::A, false) => (false, false),
                (Kind::A, true) => (true, true),
                (_, true) => (true, false),
                (_, false) => (false, true),
            };
            let t = self.temp(if wide { ".b64" } else { ".b32" });
            self.emit(
                format!("warpsim.fragaddr.rows.{}.{bits}", swap as u8),
                vec![t.clone(), base.clone(), stride.clone()],
            );
            let op = format!(
                "ldmatrix.sync.aligned.m8n8.x4{}.shared.b16",
                if trans { ".trans" } else { "" }
            );
            self.emit(op, vec![format!("{{{}}}", regs[..4].join(", ")), at(&t)]);
        } else {
            let elems = frag.elems();
            let per = (4 / frag.ty.bytes()) as usize;
            let es = frag.ty.bytes();
            // Whether element `j` follows element `i` in memory.
            let next = |i: [u8; 6], j: [u8; 6]| {
                let (maj, min) = if col { (3, 0) } else { (0, 3) };
                i[maj..maj + 3] == j[maj..maj + 3]
                    && i[min..min + 2] == j[min..min + 2]
                    && j[min + 2] == i[min + 2] + 1
            };
            let contiguous =
                |from: usize, n: usize| (from..from + n - 1).all(|e| next(elems[e], elems[e + 1]));
            let mut r = 0;
            while r < distinct {
                let first = elems[r * per];
                let minor = if col { &first[0..3] } else { &first[3..6] };
                let aligned = |bytes: usize| {
                    minor
                        .iter()
                        .all(|&m| (m as usize * es as usize).is_multiple_of(bytes))
                };
                if contiguous(r * per, per) {
                    // Whole registers: as many as are contiguous and aligned (at most 16 bytes).
                    let mut n = 1;
                    while r + n < distinct
                        && [2, 4].contains(&(n * 2))
                        && contiguous(r * per, (n * 2) * per)
                        && aligned(n * 2 * 4)
                    {
                        n *= 2;
                    }
                    let a = self.elem_operand(
                        first,
                        (col, es, fixed, disp),
                        (&base, &stride, wide),
                        &mut first_addr,
                    );
                    let ty = match frag.ty {
                        Ty::F32 => "f32",
                        _ => "b32",
                    };
                    let v = match n {
                        1 => String::new(),
                        n => format!(".v{n}"),
                    };
                    let data = match n {
                        1 => regs[r].clone(),
                        _ => format!("{{{}}}", regs[r..r + n].join(", ")),
                    };
                    let (op, args) = if store {
                        (format!("st{ss}{v}.{ty}"), vec![a, data])
                    } else {
                        (format!("ld{ss}{v}.{ty}"), vec![data, a])
                    };
                    self.emit(op, args);
                    r += n;
                } else if sixteen {
                    // Two 16-bit accesses and a pack (or an unpack and two stores).
                    let halves = [self.temp(".b16"), self.temp(".b16")];
                    let pair = format!("{{{}, {}}}", halves[0], halves[1]);
                    if store {
                        self.emit("mov.b32".into(), vec![pair.clone(), regs[r].clone()]);
                    }
                    for (h, half) in halves.iter().enumerate() {
                        let e = elems[r * per + h];
                        let a = self.elem_operand(
                            e,
                            (col, es, fixed, disp),
                            (&base, &stride, wide),
                            &mut first_addr,
                        );
                        let (op, args) = if store {
                            (format!("st{ss}.b16"), vec![a, half.clone()])
                        } else {
                            (format!("ld{ss}.b16"), vec![half.clone(), a])
                        };
                        self.emit(op, args);
                    }
                    if !store {
                        self.emit("mov.b32".into(), vec![regs[r].clone(), pair]);
                    }
                    r += 1;
                } else {
                    return Err((
                        off,
                        format!(
                            "PTX instruction `wmma`: a {} {:?} fragment of .{} is not modelled \
                             (its bytes are not contiguous in memory; use the other layout)",
                            if col { "col-major" } else { "row-major" },
                            frag.kind,
                            frag.ty.name()
                        ),
                    ));
                }
            }
        }
        // The repeated registers of a 16-bit A or B fragment, where something else reads them.
        if !store {
            for k in distinct..regs.len() {
                if self.named_outside.contains(&regs[k]) {
                    let src = regs[k - distinct].clone();
                    self.emit("mov.b32".into(), vec![regs[k].clone(), src]);
                }
            }
        }
        Ok(())
    }

    /// The address operand of element `e` (`[t+d]`): with a constant stride (`fixed`) an offset
    /// from the fragment's first lane address (`first`, made on the first call), else a lane
    /// address of its own. `disp` is the `wmma` operand's displacement.
    fn elem_operand(
        &mut self,
        e: [u8; 6],
        (col, es, fixed, disp): (bool, u8, Option<u64>, i64),
        (base, stride, wide): (&str, &str, bool),
        first: &mut Option<(String, [u8; 6])>,
    ) -> String {
        let operand = |t: &str, d: i64| match d {
            0 => format!("[{t}]"),
            d => format!("[{t}+{d}]"),
        };
        if let (Some(s), Some((t, e0))) = (fixed, first.as_ref()) {
            // The same lane terms (g and t coefficients): a constant apart.
            if [e[0], e[1], e[3], e[4]] == [e0[0], e0[1], e0[3], e0[4]] {
                let (dr, dc) = (e[2] as i64 - e0[2] as i64, e[5] as i64 - e0[5] as i64);
                let (major, minor) = if col { (dc, dr) } else { (dr, dc) };
                let delta = (major * s as i64 + minor) * es as i64;
                return operand(t, disp + delta);
            }
        }
        let t = self.elem_addr(e, col, es, base, stride, wide);
        if fixed.is_some() && first.is_none() {
            *first = Some((t.clone(), e));
        }
        operand(&t, disp)
    }

    /// A temporary holding the lane's address of element `e` (`[rg, rt, r0, cg, ct, c0]`).
    fn elem_addr(
        &mut self,
        e: [u8; 6],
        col: bool,
        es: u8,
        base: &str,
        stride: &str,
        wide: bool,
    ) -> String {
        let t = self.temp(if wide { ".b64" } else { ".b32" });
        let [rg, rt, r0, cg, ct, c0] = e;
        self.emit(
            format!(
                "warpsim.fragaddr.e.{rg}.{rt}.{r0}.{cg}.{ct}.{c0}.{}.{es}.{}",
                col as u8,
                if wide { "b64" } else { "b32" }
            ),
            vec![t.clone(), base.to_owned(), stride.to_owned()],
        );
        t
    }

    /// `wmma.mma.sync.aligned.{alayout}.{blayout}.{shape}.{dtype}.{ctype}` (f16) or
    /// `….{dtype}.{atype}.{btype}.{ctype}[.satfinite]`: two `mma.sync`.
    fn mma(&mut self, op: &str, parts: &[&str], args: &[String]) -> Result<(), Err> {
        let off = self.at.0;
        let unsup = |why: String| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let (mut shape, mut types, mut satfinite) = (None, Vec::new(), false);
        for p in &parts[2..] {
            match *p {
                "sync" | "aligned" | "row" | "col" => {}
                "satfinite" => satfinite = true,
                p if Ty::of(p).is_some() => types.extend(Ty::of(p)),
                p if p.starts_with('m') && p.contains('n') && p.contains('k') => shape = Some(p),
                other => return Err(unsup(format!("`.{other}`"))),
            }
        }
        let Some(shape) = shape else {
            return Err(unsup("it needs a shape".into()));
        };
        let (d, a, b, c) = match types[..] {
            [d, c] => (d, Ty::F16, Ty::F16, c),
            [d, a, b, c] => (d, a, b, c),
            _ => {
                return Err(unsup(
                    "it needs its types (`.f32.f32`, `.f32.bf16.bf16.f32` …)".into(),
                ))
            }
        };
        let fa = Frag::new(Kind::A, shape, a).map_err(unsup)?;
        let fb = Frag::new(Kind::B, shape, b).map_err(unsup)?;
        let fc = Frag::new(Kind::C, shape, c).map_err(unsup)?;
        let fd = Frag::new(Kind::C, shape, d).map_err(unsup)?;
        let [ds, as_, bs, cs] = args else {
            return Err(unsup("it takes 4 operands ({d}, {a}, {b}, {c})".into()));
        };
        let list = |s: &str, f: Frag, what: &str| -> Result<Vec<String>, Err> {
            let v: Vec<String> = reg_list(s).iter().map(|x| x.to_string()).collect();
            if v.len() != f.regs().0 {
                return Err((
                    off,
                    format!(
                        "PTX instruction `{op}`: {what} is {} registers, but this one names {}",
                        f.regs().0,
                        v.len()
                    ),
                ));
            }
            Ok(v)
        };
        let (dr, ar, br, cr) = (
            list(ds, fd, "D")?,
            list(as_, fa, "A")?,
            list(bs, fb, "B")?,
            list(cs, fc, "C")?,
        );
        let half = |v: &[String], k: usize| -> String {
            let n = v.len().min(8) / 2;
            format!("{{{}}}", v[k * n..(k + 1) * n].join(", "))
        };
        // The distinct A registers, and B's per 8 columns.
        let a_used = format!("{{{}}}", ar[..fa.regs().1].join(", "));
        let b_half = |k: usize| {
            let n = fb.regs().1 / 2;
            format!("{{{}}}", br[k * n..(k + 1) * n].join(", "))
        };
        // The first mma must not write what the second reads.
        let second_reads: HashSet<&String> =
            ar.iter().chain(&br).chain(&cr[cr.len() / 2..]).collect();
        if dr[..dr.len() / 2].iter().any(|r| second_reads.contains(r)) {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}`: D's first registers are also A, B or C's: warpsim \
                     runs it as two mma.sync, which needs them apart"
                ),
            ));
        }
        let sat = if satfinite { ".satfinite" } else { "" };
        let form = |k: &str| {
            format!(
                "mma.sync.aligned.{k}.row.col{sat}.{}.{}.{}.{}",
                d.name(),
                a.name(),
                b.name(),
                c.name()
            )
        };
        for h in 0..2 {
            if fa.k == 8 {
                // tf32: ptxas makes each half two `HMMA.1684` (k 0-3, then 4-7 onto its
                // result; the H200's SASS, calibration/probes/wmma_numerics/raw), each
                // rounding its sum: A's registers 0-1 then 2-3, B's half's first then second.
                let bh = &br[h * 2..h * 2 + 2];
                let a_k = |k: usize| format!("{{{}, {}}}", ar[2 * k], ar[2 * k + 1]);
                self.emit(
                    form("m16n8k4"),
                    vec![half(&dr, h), a_k(0), format!("{{{}}}", bh[0]), half(&cr, h)],
                );
                self.emit(
                    form("m16n8k4"),
                    vec![half(&dr, h), a_k(1), format!("{{{}}}", bh[1]), half(&dr, h)],
                );
                continue;
            }
            self.emit(
                form("m16n8k16"),
                vec![half(&dr, h), a_used.clone(), b_half(h), half(&cr, h)],
            );
        }
        Ok(())
    }
}
