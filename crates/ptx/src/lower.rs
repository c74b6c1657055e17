//! PTX statements → the executor's code: registers, operands, one lowering per opcode, and
//! basic blocks whose branches reconverge at immediate post-dominators.

mod atomic;
mod bitops;
mod cfg;
mod compare;
pub(crate) mod constants;
mod convert;
mod decl;
mod half;
mod local;
mod mbarrier;
mod memory;
mod narrow;
mod ops;
mod params;
mod printf;
mod sync;
mod tensor;
mod unsupported;
mod wgmma;
mod wide;

use crate::parse::{Entry, Stmt, StmtKind};
use cfg::{Block, Term};
use std::collections::HashMap;
use warpsim_kernel::ir::{Inst, LaneMask, Mem, Reg, Space, Special};
use warpsim_kernel::Elem;
use warpsim_kernel::{KernelArg, KernelRequest};
use warpsim_kernel::{RegInit, SharedInfo};

/// An error at a byte offset of the PTX.
pub type Err = (usize, String);

/// One PTX instruction as every handler here and in `lower/*.rs` takes it: `(off, op, parts,
/// args)`, its byte offset in the file (where errors point), the whole opcode
/// (`cvt.rn.f16.f32`), the opcode's dot-separated parts (`["cvt", "rn", "f16", "f32"]`) and
/// the operands.
#[derive(Clone, Copy)]
pub(crate) struct Instr<'a>(usize, &'a str, &'a [&'a str], &'a [String]);

/// The lowered kernel.
pub struct Lowered {
    pub code: Vec<Inst>,
    pub info: Vec<(u32, u32, usize)>,
    pub init: Vec<(Reg, RegInit)>,
    pub nregs: usize,
    pub shared: Vec<SharedInfo>,
    pub shared_bytes: u32,
    /// Views of local memory and its bytes per thread (lower/local.rs).
    pub local: Vec<warpsim_kernel::LocalInfo>,
    pub local_bytes: u32,
    pub max_depth: usize,
    /// Texts of the statements the merge pass made, by their byte offset.
    pub texts: HashMap<usize, String>,
    /// The `printf` formats (`Program::formats`).
    pub formats: Vec<warpsim_kernel::printf::Format>,
    /// The `mma.sync` operands (`Program::mmas`).
    pub mmas: Vec<warpsim_kernel::ir::MmaOp>,
    /// The `wgmma.mma_async` operands (`Program::wgmmas`).
    pub wgmmas: Vec<warpsim_kernel::ir::WgmmaOp>,
}

struct Lower<'a> {
    req: &'a KernelRequest<'a>,
    entry: &'a Entry,
    regs: HashMap<String, (Reg, u8)>,
    /// The declared registers: by a name or a `%r<N>` family's base, each declaration's place
    /// in the body, width in words and the family's count (`None` for a single name). (A map:
    /// generated code declares a register per temporary, thousands in a large kernel.)
    classes: HashMap<String, Vec<(usize, u8, Option<u64>)>>,
    next: usize,
    init: Vec<(Reg, RegInit)>,
    consts: HashMap<(u64, u8), Reg>,
    /// Shared variables: name → (byte base, bytes).
    vars: Vec<(String, u32, u32)>,
    views: HashMap<(usize, Elem), u16>,
    shared: Vec<SharedInfo>,
    /// Which shared variable or buffer a register's value was computed from.
    prov: HashMap<String, Prov>,
    blocks: Vec<Block>,
    labels: HashMap<String, usize>,
    at: (u32, u32, usize),
    /// Facts about the entry's registers (a pre-pass): how often each is read, and the
    /// value of those written exactly once, by a `mov` of a constant.
    facts: Facts,
    /// `.local` variables (lower/local.rs).
    local: local::Locals,
    /// The bits of each scalar argument, typed by its parameter (lower/params.rs).
    arg_bits: Vec<Option<u64>>,
    /// The module's constant symbols (lower/constants.rs), buffers from
    /// `req.buffers.len()` on.
    cbank: &'a [warpsim_kernel::KernelConst],
    /// The module's string literals (lower/printf.rs).
    literals: std::collections::BTreeMap<String, Vec<u8>>,
    /// Registers holding a pointer to a string literal: the literal's name.
    str_regs: HashMap<String, String>,
    /// The `printf` formats ([`Lowered::formats`]).
    formats: Vec<warpsim_kernel::printf::Format>,
    /// The `mma.sync` operands ([`Lowered::mmas`]).
    mmas: Vec<warpsim_kernel::ir::MmaOp>,
    /// The `wgmma.mma_async` operands ([`Lowered::wgmmas`]).
    wgmmas: Vec<warpsim_kernel::ir::WgmmaOp>,
    /// The end of the kernel's own shared memory (static and dynamic), in bytes.
    shared_top: u32,
    /// A `%reserved_smem_offset_*` register was read: the block reserves its 1 KiB.
    reserved_used: bool,
}

/// What a pre-pass over the body knows of the registers (also `wmma.rs`'s constant strides).
#[derive(Default)]
pub(crate) struct Facts {
    reads: HashMap<String, u32>,
    /// Registers written exactly once, by a `mov` of a constant: their value.
    pub(crate) consts: HashMap<String, i64>,
    /// Registers written exactly once, by an unguarded instruction whose first operand is the
    /// register alone: that statement's index in the body.
    pub(crate) defined_once: HashMap<String, usize>,
}

impl Facts {
    pub(crate) fn of(body: &[Stmt]) -> Facts {
        let mut f = Facts::default();
        // Per register: definitions, a `mov`'s constant, the last one's index and whether it
        // is unguarded and whole.
        let mut defs: HashMap<&str, (u32, Option<i64>, usize, bool)> = HashMap::new();
        for (index, s) in body.iter().enumerate() {
            let StmtKind::Inst { guard, op, args } = &s.kind else {
                continue;
            };
            if let Some((g, _)) = guard {
                *f.reads.entry(g.clone()).or_default() += 1;
            }
            let store = op.starts_with("st.")
                || op.starts_with("red.")
                || op.starts_with("bra")
                || op.starts_with("stmatrix")
                || op.starts_with("wmma.store")
                || op.starts_with("cp.");
            for (i, a) in args.iter().enumerate() {
                for w in a.split(|c: char| !(c.is_ascii_alphanumeric() || "%_$.".contains(c))) {
                    if !w.starts_with('%') {
                        continue;
                    }
                    if i == 0 && !store {
                        let d = defs.entry(w).or_default();
                        d.0 += 1;
                        d.1 = match op.starts_with("mov.") {
                            true => args.get(1).and_then(|v| int(v.trim())),
                            false => None,
                        };
                        d.2 = index;
                        d.3 = guard.is_none() && a.trim() == w;
                    } else {
                        *f.reads.entry(w.to_owned()).or_default() += 1;
                    }
                }
            }
        }
        for (r, (n, v, index, whole)) in defs {
            if let (1, Some(v)) = (n, v) {
                f.consts.insert(r.to_owned(), v);
            }
            if n == 1 && whole {
                f.defined_once.insert(r.to_owned(), index);
            }
        }
        f
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Prov {
    Shared(usize),
    Buffer(u16),
    /// A generic pointer from `cvta.local`.
    Local,
}

fn words_of(ty: &str) -> u8 {
    match ty {
        ".b64" | ".u64" | ".s64" | ".f64" => 2,
        _ => 1,
    }
}

/// How many operands an instruction takes (those with a fixed count), so that a malformed
/// one is refused before its operands are read.
fn operands(name: &str) -> Option<usize> {
    Some(match name {
        "ld" | "st" | "mov" | "cvta" | "cvt" | "neg" | "not" | "abs" | "sqrt" => 2,
        "setp" | "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
        | "shl" | "shr" => 3,
        "selp" | "mad" | "fma" => 4,
        _ => return None,
    })
}

/// Lowers `entry`.
pub fn lower(
    req: &KernelRequest,
    entry: &Entry,
    globals: &[(usize, Vec<String>)],
    cbank: &[warpsim_kernel::KernelConst],
) -> Result<Lowered, Err> {
    let mut l = Lower {
        req,
        entry,
        regs: HashMap::new(),
        classes: HashMap::new(),
        next: 0,
        init: Vec::new(),
        consts: HashMap::new(),
        vars: Vec::new(),
        views: HashMap::new(),
        shared: Vec::new(),
        prov: HashMap::new(),
        blocks: vec![Block {
            code: Vec::new(),
            term: Term::Fall,
            term_at: (0, 0, 0),
        }],
        labels: HashMap::new(),
        at: (0, 0, 0),
        facts: Facts::of(&entry.body),
        local: local::Locals::of(globals, entry)?,
        arg_bits: Vec::new(),
        cbank,
        literals: printf::literals(globals),
        str_regs: HashMap::new(),
        formats: Vec::new(),
        mmas: Vec::new(),
        wgmmas: Vec::new(),
        shared_top: 0,
        reserved_used: false,
    };
    let (vars, top) = shared_layout(globals, entry, req.dynamic_shared)?;
    l.vars = vars;
    l.shared_top = top;
    if top > req.shared_limit {
        return Err((
            entry.off,
            format!(
                "the kernel uses {top} bytes of shared memory, more than the block's {}",
                req.shared_limit
            ),
        ));
    }
    if req.args.len() != entry.params.len() {
        return Err((
            usize::MAX,
            format!(
                "the kernel takes {} parameters ({}); the launch gives {} args",
                entry.params.len(),
                entry
                    .params
                    .iter()
                    .map(|p| p.1.trim_start_matches('.'))
                    .collect::<Vec<_>>()
                    .join(", "),
                req.args.len()
            ),
        ));
    }
    l.arg_bits = params::arg_bits(&req.args, &entry.params)?;
    // ptxas's merging of shared accesses (merge.rs), unless the launch asks for the PTX as
    // written.
    let merged = req.merge.then(|| crate::merge::merge(&entry.body, &l.vars));
    let body = merged.as_ref().map_or(&entry.body, |m| &m.body);
    // The declared registers (of the merged body: the merge model's unrolling declares the
    // registers it makes up).
    // (Each declaration's place, in order.)
    let mut place = 0usize;
    for s in body {
        let StmtKind::Directive(w) = &s.kind else {
            continue;
        };
        if w.first().map(String::as_str) == Some(".reg") {
            let ty = w.get(1).cloned().unwrap_or_default();
            let known = matches!(ty.as_str(), ".pred" | ".f16x2" | ".bf16x2")
                || decl::scalar_bytes(&ty).is_some();
            if !known {
                return Err((
                    s.off,
                    format!(
                        "`.reg {ty}`: `{ty}` is not a register type warpsim knows (.pred, .b8 \
                         to .b64, .u8 to .u64, .s8 to .s64, .f16, .bf16, .f16x2, .bf16x2, \
                         .f32, .f64)"
                    ),
                ));
            }
            for name in w.get(2..).unwrap_or_default().join(" ").split(',') {
                let name = name.trim();
                let (base, count) = match name.split_once('<') {
                    Some((b, n)) => (b, n.trim_end_matches('>').trim().parse().ok()),
                    None => (name, None),
                };
                place += 1;
                l.classes.entry(base.to_owned()).or_default().push((
                    place,
                    if ty == ".pred" { 1 } else { words_of(&ty) },
                    count,
                ));
            }
        }
    }
    if let Some(m) = &merged {
        // The merge model unrolls constant-trip loops (new registers): its facts.
        l.facts = Facts::of(&m.body);
    }
    for s in body {
        l.stmt(s)?;
    }
    let top = match l.reserved_used {
        true => top.div_ceil(128) * 128 + memory::RESERVED_SMEM,
        false => top,
    };
    if top > req.shared_limit {
        return Err((
            entry.off,
            format!(
                "the kernel uses {top} bytes of shared memory with the block's reserved {} \
                 (cooperative groups' scratch), more than the block's {}",
                memory::RESERVED_SMEM,
                req.shared_limit
            ),
        ));
    }
    let mut low = l.finish(top)?;
    low.texts = merged.map(|m| m.texts).unwrap_or_default();
    Ok(low)
}

impl Lower<'_> {
    /// Whether register `name` is read anywhere in the entry.
    fn uses(&self, name: &str) -> bool {
        self.facts.reads.contains_key(name)
    }

    /// An operand's constant value: a literal, or a register written once by `mov` of one.
    fn const_of(&self, a: &str) -> Option<i64> {
        let a = a.trim();
        int(a).or_else(|| self.facts.consts.get(a).copied())
    }

    fn alloc(&mut self, w: u8) -> Reg {
        let r = Reg(self.next as u16);
        self.next += w as usize;
        r
    }

    fn reg(&mut self, name: &str, off: usize) -> Result<(Reg, u8), Err> {
        if let Some(&r) = self.regs.get(name) {
            return Ok(r);
        }
        let base: String = name
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .to_owned();
        // The first declaration of the name, or of a family of its base.
        let exact = self.classes.get(name).and_then(|v| v.first());
        let family = (self.classes.get(&base).into_iter().flatten()).find(|c| c.2.is_some());
        let w = [exact, family]
            .into_iter()
            .flatten()
            .min_by_key(|c| c.0)
            .map(|c| c.1)
            .ok_or_else(|| (off, unsupported::register(name)))?;
        // `%r<N>` declares `%r0` to `%r{N-1}` (ptxas refuses the others).
        let index: Option<u64> = name.get(base.len()..).and_then(|d| d.parse().ok());
        let most = (self.classes.get(&base).into_iter().flatten())
            .filter_map(|c| c.2)
            .max();
        if let (Some(i), Some(n), false) = (index, most, self.classes.contains_key(name)) {
            if i >= n {
                return Err((
                    off,
                    format!(
                        "register `{name}` is not declared: `.reg … {base}<{n}>` declares \
                         {base}0 to {base}{}",
                        n.saturating_sub(1)
                    ),
                ));
            }
        }
        let r = self.alloc(w);
        self.regs.insert(name.to_owned(), (r, w));
        Ok((r, w))
    }

    fn konst(&mut self, v: u64, w: u8) -> Reg {
        if let Some(&r) = self.consts.get(&(v, w)) {
            return r;
        }
        let r = self.alloc(w);
        self.init.push((r, RegInit::Const(v as u32)));
        if w == 2 {
            self.init
                .push((Reg(r.0 + 1), RegInit::Const((v >> 32) as u32)));
        }
        self.consts.insert((v, w), r);
        r
    }

    fn special(&mut self, s: Special) -> Reg {
        let r = self.alloc(1);
        self.init.push((r, RegInit::Special(s)));
        r
    }

    /// An operand as a register (constants and special registers become registers).
    fn val(&mut self, a: &str, w: u8, off: usize) -> Result<Reg, Err> {
        let a = a.trim();
        if a.starts_with('%') {
            let axis = |s: &str| match s {
                "x" => Some(0u8),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            };
            if let Some((base, d)) = a.split_once('.') {
                if let Some(d) = axis(d) {
                    let s = match base {
                        "%tid" => Some(Special::Tid(d)),
                        "%ntid" => Some(Special::Ntid(d)),
                        "%ctaid" => Some(Special::Ctaid(d)),
                        "%nctaid" => Some(Special::Nctaid(d)),
                        _ => None,
                    };
                    if let Some(s) = s {
                        return Ok(self.special(s));
                    }
                }
            }
            if a == "%laneid" {
                return Ok(self.special(Special::LaneId));
            }
            // `%warpid` is the warp's slot on its SM, which may change while it runs; the warp's
            // index in its block is one value it can have.
            if a == "%warpid" {
                return Ok(self.special(Special::WarpId));
            }
            if let Some(k) = a.strip_prefix("%reserved_smem_offset_") {
                if let Some(v) = self.reserved_smem(k) {
                    return Ok(self.konst(v as u64, w));
                }
            }
            if let Some(m) = a.strip_prefix("%lanemask_") {
                if let Some(m) = LaneMask::ALL.into_iter().find(|k| k.suffix() == m) {
                    return Ok(self.special(Special::LaneMask(m)));
                }
            }
            return Ok(self.reg(a, off)?.0);
        }
        if let Some(h) = a.strip_prefix("0f").or_else(|| a.strip_prefix("0F")) {
            let v = u32::from_str_radix(h, 16).map_err(|_| (off, format!("bad float `{a}`")))?;
            return Ok(self.konst(v as u64, 1));
        }
        if let Some(h) = a.strip_prefix("0d").or_else(|| a.strip_prefix("0D")) {
            let v = u64::from_str_radix(h, 16).map_err(|_| (off, format!("bad double `{a}`")))?;
            return Ok(self.konst(v, 2));
        }
        if let Some(v) = int(a) {
            return Ok(self.konst(v as u64, w));
        }
        if a == "WARP_SZ" {
            // PTX's constant for `warpSize` (the CUDA samples' reductions read it).
            return Ok(self.konst(32, w));
        }
        if let Some(k) = self.vars.iter().position(|v| v.0 == a) {
            let base = self.vars[k].1 as u64;
            return Ok(self.konst(base, w));
        }
        if let Some(o) = self.local.offset(a) {
            return Ok(self.konst(o as u64, w));
        }
        if printf::is_literal(a) {
            // NVRTC's string literals (`printf`'s `%s` arguments; an `assert`'s message, file
            // and function, which inline.rs turns into a `trap`): not in any buffer, so a read
            // through a pointer to one is a fault; `%s` prints it (printf::STRING_BASE).
            let k = printf::literal_index(&self.literals, a).unwrap_or(0) as u64;
            let p = warpsim_kernel::printf::STRING_BASE + (k << 24);
            return Ok(self.konst(p, w));
        }
        if let Some(b) = self.const_index(a) {
            return Ok(self.konst(((b as u64) + 1) << Mem::GLOBAL_BASE_SHIFT, w));
        }
        // A `CUtensorMap` parameter's address (`mov.b64 %rd, kernel_param_0`): its tensor map.
        if let Some(k) = (self.entry.params.iter()).position(|p| p.0.split('[').next() == Some(a)) {
            if let Some(KernelArg::TensorMap(m)) = self.req.args.get(k) {
                let p = warpsim_kernel::tensormap::TENSORMAP_BASE + 128 * *m as u64;
                return Ok(self.konst(p, w));
            }
        }
        // A register declared without `%` (inline assembly's scoped `.reg .f16 low, high;`).
        if (self.classes.get(a).into_iter().flatten()).any(|c| c.2.is_none()) {
            return Ok(self.reg(a, off)?.0);
        }
        Err((off, format!("operand `{a}` is not supported")))
    }

    fn emit(&mut self, i: Inst) {
        let at = self.at;
        self.blocks.last_mut().expect("a block").code.push((i, at));
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), Err> {
        self.at = (s.loc.0, s.loc.1, s.off);
        match &s.kind {
            StmtKind::Directive(_) => Ok(()),
            StmtKind::Label(name) => {
                if !self.blocks.last().expect("a block").code.is_empty() {
                    self.end_block(Term::Fall);
                }
                self.labels.insert(name.clone(), self.blocks.len() - 1);
                Ok(())
            }
            StmtKind::Inst { guard, op, args } => {
                let parts: Vec<&str> = op.split('.').collect();
                if parts[0] == "bra" {
                    let target = args.first().cloned().unwrap_or_default();
                    let t = match guard {
                        None => Term::Jump(target),
                        Some((p, neg)) => Term::Branch(self.reg(p, s.off)?.0, *neg, target),
                    };
                    self.end_block(t);
                    return Ok(());
                }
                let body = |l: &mut Self| match parts[0] {
                    "ret" | "exit" => {
                        l.end_block(Term::Ret);
                        Ok(())
                    }
                    _ => l.inst(Instr(s.off, op, &parts, args)),
                };
                match guard {
                    Some((p, neg)) => self.predicated(s, (p, *neg), op, body),
                    None => body(self),
                }
            }
        }
    }

    fn inst(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let ty = parts.last().copied().unwrap_or("");
        let w = words_of(&format!(".{ty}"));
        let float = ty.starts_with('f');
        let signed = ty.starts_with('s');
        let unsup = || (off, format!("PTX instruction `{op}` is not supported"));
        let a = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
        let name = parts[0];
        // (`cvt.rn.f16x2.f32 d, a, b` packs two: lower/half.rs counts its operands.)
        let pair_cvt = name == "cvt" && op.contains("x2.");
        // (`setp.CMP.and.TYPE p, a, b, c` combines with a predicate: lower/compare.rs counts.)
        let combined = name == "setp" && args.len() == 4;
        // (`ld`/`st` with `.L2::cache_hint` take the cache policy as a last operand, which
        // warpsim drops: the timing model has no L2 eviction priorities.)
        let hinted = parts.contains(&"L2::cache_hint") && matches!(name, "ld" | "st");
        let args = if hinted && args.len() == 3 {
            &args[..2]
        } else {
            args
        };
        let i = Instr(off, op, parts, args);
        if let Some(n) = operands(name).filter(|&n| n != args.len() && !pair_cvt && !combined) {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` takes {n} operands, but this one has {}",
                    args.len()
                ),
            ));
        }
        if let Some(r) = self.extra(i) {
            return r;
        }
        match name {
            "vprintf" => return self.printf(i),
            "ld" | "st" => return self.mem(i),
            // `ldu.global`: a load of an address the same in every lane (a hint; ordinary).
            "ldu" if args.len() == 2 => {
                let mut ld = parts.to_vec();
                ld[0] = "ld";
                return self.mem(Instr(off, op, &ld, args));
            }
            // `prefetch`/`prefetchu`/`applypriority`: cache hints; no value changes, and the
            // timing model does not model caches.
            "prefetch" | "prefetchu" | "applypriority" if args.len() == 1 => return Ok(()),
            // `createpolicy`: a cache policy, which `.L2::cache_hint` accesses take as an extra
            // operand and warpsim's ignore (no L2 eviction priorities in the timing model): any
            // value will do, 0.
            "createpolicy" if args.len() >= 2 && parts.last() == Some(&"b64") => {
                let dst = self.reg(args[0].trim(), off)?.0;
                let zero = self.konst(0, 2);
                self.emit(Inst::Mov64 { dst, a: zero });
                return Ok(());
            }
            // `discard.global.L2 [a], 128`: the line's contents become undefined; keeping them
            // is one of the values allowed.
            "discard" if args.len() == 2 => return Ok(()),
            // `bar.warp.sync m` (`__syncwarp`, cooperative groups' tile syncs): the warp's
            // own lanes, which run in lockstep; the mask is checked as `SyncWarp`'s. (Not the
            // block's barrier: warps sync apart, and one may spin on what another writes.)
            "bar" if op.starts_with("bar.warp.sync") && args.len() == 1 => {
                let mask = self.val(a(0), 1, off)?;
                self.emit(Inst::SyncWarp { mask });
                return Ok(());
            }
            "bar" | "barrier" => {
                self.emit(Inst::Barrier);
                return Ok(());
            }
            "trap" | "brkpt" if args.is_empty() => {
                self.emit(Inst::Trap {
                    brkpt: name == "brkpt",
                });
                return Ok(());
            }
            // `__nanosleep(t)`: a thread may sleep up to `t` ns; no value changes. The timing
            // model does not charge the sleep.
            "nanosleep" if args.len() == 1 => return Ok(()),
            // `__threadfence*()`, `fence.acq_rel.gpu` …: the executor's memory is sequentially
            // consistent (each warp instruction completes before the next), so a fence orders
            // nothing more; the merge model already ends a group at one. `fence.proxy.async`
            // is kept for the race checker: without it the async proxy (wgmma, TMA) may read
            // a thread's earlier shared stores' old values.
            "fence" if args.is_empty() && op.starts_with("fence.proxy.async") => {
                self.emit(Inst::FenceProxyAsync);
                return Ok(());
            }
            "membar" | "fence" if args.is_empty() => return Ok(()),
            _ => {}
        }
        if let Some(m) = unsupported::instruction(name, op) {
            return Err((off, m));
        }
        let dst_name = a(0).to_owned();
        let dst = self.reg(&dst_name, off)?.0;
        let srcs = args.get(1..).unwrap_or_default();
        let src_prov = srcs.iter().find_map(|x| self.prov.get(x.trim()).copied());
        let sym_prov = srcs
            .iter()
            .find_map(|x| self.vars.iter().position(|v| v.0 == x.trim()));
        let const_prov = srcs.iter().find_map(|x| self.const_index(x.trim()));
        match (src_prov, sym_prov, const_prov) {
            (Some(p), _, _) => {
                self.prov.insert(dst_name.clone(), p);
            }
            (None, Some(k), _) => {
                self.prov.insert(dst_name.clone(), Prov::Shared(k));
            }
            (None, None, Some(b)) => {
                self.prov.insert(dst_name.clone(), Prov::Buffer(b));
            }
            _ => {}
        }
        if matches!(name, "mov" | "cvta") {
            if let Some(lit) = srcs.first().and_then(|x| self.string_of(x.trim())) {
                self.str_regs.insert(dst_name.clone(), lit);
            }
        }
        use Inst::*;
        let inst = match (name, parts.get(1).copied()) {
            ("mov", _) | ("cvta", _) => {
                let x = self.val(a(1), w, off)?;
                if w == 2 {
                    Mov64 { dst, a: x }
                } else {
                    Mov { dst, a: x }
                }
            }
            ("cvt", _) => {
                let to = match parts.len() {
                    3.. => parts[parts.len() - 2],
                    _ => return Err(unsup()),
                };
                let from = ty;
                let x = self.val(a(1), words_of(&format!(".{from}")), off)?;
                let elem = |t: &str| match t {
                    "f32" => Some(Elem::F32),
                    "f64" => Some(Elem::F64),
                    "s32" => Some(Elem::I32),
                    "u32" => Some(Elem::U32),
                    _ => None,
                };
                match (to, from) {
                    ("u32" | "s32" | "b32", "u64" | "s64" | "b64") => Mov { dst, a: x },
                    ("u64" | "s64", "u32") => Ext64 {
                        dst,
                        a: x,
                        signed: false,
                    },
                    ("u64" | "s64", "s32") => Ext64 {
                        dst,
                        a: x,
                        signed: true,
                    },
                    _ => match (elem(from), elem(to)) {
                        (Some(f), Some(t)) if f != t => Cvt {
                            dst,
                            a: x,
                            from: f,
                            to: t,
                        },
                        (Some(_), Some(_)) => Mov { dst, a: x },
                        _ => return Err(unsup()),
                    },
                }
            }
            ("selp", _) => {
                let x = self.val(a(1), w, off)?;
                let y = self.val(a(2), w, off)?;
                let c = self.val(a(3), 1, off)?;
                if w == 2 {
                    Select64 { dst, c, a: x, b: y }
                } else {
                    Select { dst, c, a: x, b: y }
                }
            }
            ("mul", Some("wide")) => {
                let x = self.val(a(1), 1, off)?;
                let y = self.val(a(2), 1, off)?;
                MulWide {
                    dst,
                    a: x,
                    b: y,
                    signed,
                }
            }
            ("mad" | "fma", _) => {
                let x = self.val(a(1), w, off)?;
                let y = self.val(a(2), w, off)?;
                let z = self.val(a(3), w, off)?;
                match ty {
                    "f32" => FFma {
                        dst,
                        a: x,
                        b: y,
                        c: z,
                    },
                    "f64" => DFma {
                        dst,
                        a: x,
                        b: y,
                        c: z,
                    },
                    "s32" | "u32" if parts.get(1) == Some(&"lo") => Mad {
                        dst,
                        a: x,
                        b: y,
                        c: z,
                    },
                    _ => return Err(unsup()),
                }
            }
            ("neg" | "not" | "abs" | "sqrt", _) => {
                let x = self.val(a(1), w, off)?;
                match (name, ty) {
                    ("neg", "f32") => FNeg { dst, a: x },
                    ("neg", "f64") => DNeg { dst, a: x },
                    ("neg", "s32") => Neg { dst, a: x },
                    ("not", "b32" | "pred") => {
                        if ty == "pred" {
                            let one = self.konst(1, 1);
                            Xor { dst, a: x, b: one }
                        } else {
                            Not { dst, a: x }
                        }
                    }
                    ("abs", "f32") => FAbs { dst, a: x },
                    ("abs", "f64") => DAbs { dst, a: x },
                    ("abs", "s32") => AbsS { dst, a: x },
                    ("sqrt", "f32") => FSqrt { dst, a: x },
                    ("sqrt", "f64") => DSqrt { dst, a: x },
                    _ => return Err(unsup()),
                }
            }
            _ => {
                let known = [
                    "add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "shl",
                    "shr",
                ];
                if args.len() != 3 || !known.contains(&name) {
                    return Err(unsup());
                }
                let bw = if matches!(name, "shl" | "shr") { 1 } else { w };
                let x = self.val(a(1), w, off)?;
                let y = self.val(a(2), bw, off)?;
                let (d, x, y) = (dst, x, y);
                match (name, ty, float) {
                    ("add", "f32", _) => FAdd { dst: d, a: x, b: y },
                    ("sub", "f32", _) => FSub { dst: d, a: x, b: y },
                    ("mul", "f32", _) => FMul { dst: d, a: x, b: y },
                    ("div", "f32", _) => FDiv { dst: d, a: x, b: y },
                    ("min", "f32", _) => FMin { dst: d, a: x, b: y },
                    ("max", "f32", _) => FMax { dst: d, a: x, b: y },
                    ("add", "f64", _) => DAdd { dst: d, a: x, b: y },
                    ("sub", "f64", _) => DSub { dst: d, a: x, b: y },
                    ("mul", "f64", _) => DMul { dst: d, a: x, b: y },
                    ("div", "f64", _) => DDiv { dst: d, a: x, b: y },
                    ("add", "s64" | "u64", _) => Add64 { dst: d, a: x, b: y },
                    ("sub", "s64" | "u64", _) => Sub64 { dst: d, a: x, b: y },
                    ("mul", "s64" | "u64", _) => Mul64 { dst: d, a: x, b: y },
                    ("shl", "b64", _) => Shl64 { dst: d, a: x, b: y },
                    ("shr", "u64" | "b64", _) => Shr64 {
                        dst: d,
                        a: x,
                        b: y,
                        signed: false,
                    },
                    ("shr", "s64", _) => Shr64 {
                        dst: d,
                        a: x,
                        b: y,
                        signed: true,
                    },
                    ("add", _, false) if w == 1 => Add { dst: d, a: x, b: y },
                    ("sub", _, false) if w == 1 => Sub { dst: d, a: x, b: y },
                    ("mul", _, false) if w == 1 => Mul { dst: d, a: x, b: y },
                    ("div", "s32", _) => DivS { dst: d, a: x, b: y },
                    ("div", "u32", _) => DivU { dst: d, a: x, b: y },
                    ("rem", "s32", _) => RemS { dst: d, a: x, b: y },
                    ("rem", "u32", _) => RemU { dst: d, a: x, b: y },
                    ("and", "b32" | "pred", _) => And { dst: d, a: x, b: y },
                    ("or", "b32" | "pred", _) => Or { dst: d, a: x, b: y },
                    ("xor", "b32" | "pred", _) => Xor { dst: d, a: x, b: y },
                    ("shl", "b32", _) => Shl { dst: d, a: x, b: y },
                    ("shr", "s32", _) => ShrS { dst: d, a: x, b: y },
                    ("shr", "u32" | "b32", _) => ShrU { dst: d, a: x, b: y },
                    ("min", "s32", _) => MinS { dst: d, a: x, b: y },
                    ("min", "u32", _) => MinU { dst: d, a: x, b: y },
                    ("max", "s32", _) => MaxS { dst: d, a: x, b: y },
                    ("max", "u32", _) => MaxU { dst: d, a: x, b: y },
                    _ => return Err(unsup()),
                }
            }
        };
        self.emit(inst);
        Ok(())
    }
}

/// A shared variable: name, byte address in the block's shared window, bytes.
pub type Var = (String, u32, u32);

/// The shared variables of `entry` (module-level ones first, then the entry's, then the
/// dynamic ones, each at its `.align`, at least 4; dynamic ones at 16): (name, byte address,
/// bytes), and the bytes in all.
pub fn shared_layout(
    globals: &[(usize, Vec<String>)],
    entry: &Entry,
    dynamic_shared: u32,
) -> Result<(Vec<Var>, u32), Err> {
    let mut vars = Vec::new();
    let mut top = 0u32;
    let mut dynamic = Vec::new();
    let decls = globals
        .iter()
        .map(|(o, w)| (*o, w.clone()))
        .chain(entry.body.iter().filter_map(|s| match &s.kind {
            StmtKind::Directive(w) => Some((s.off, w.clone())),
            _ => None,
        }));
    for (off, w) in decls {
        if !w.contains(&".shared".to_owned()) {
            continue;
        }
        let align = w
            .iter()
            .position(|x| x == ".align")
            .and_then(|i| w.get(i + 1))
            .and_then(|a| a.parse::<u32>().ok())
            .unwrap_or(4)
            .max(4);
        let decl = w.last().map_or("", String::as_str);
        let (name, count) = decl::name_and_count(decl, "shared variable").map_err(|m| (off, m))?;
        let name = name.to_owned();
        let elem = decl::elem_bytes(&w) as u32;
        let Some(n) = count.filter(|_| !w.iter().any(|x| x == ".extern")) else {
            dynamic.push((name, align));
            continue;
        };
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        // Sizes and alignments come from the text: added up without overflow, and any
        // total past the limit is refused by the caller.
        let bytes = n.saturating_mul(elem);
        top = top.div_ceil(align).saturating_mul(align);
        vars.push((name, top, bytes));
        top = top.saturating_add(bytes);
    }
    for (name, align) in dynamic {
        top = top.div_ceil(align.max(16)).saturating_mul(align.max(16));
        vars.push((name, top, dynamic_shared));
        top = top.saturating_add(dynamic_shared);
    }
    Ok((vars, top))
}

/// The registers of a vector operand (`{%r1, %r2, _}`, or one register), trimmed, in order.
pub(crate) fn reg_list(s: &str) -> Vec<&str> {
    s.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .map(str::trim)
        .collect()
}

/// An integer literal (decimal, hex, negative), as its 64 bits: the magnitude may take all
/// 64 (`-9223372036854775808`, which Numba emits for `i64::MIN`, and `0xFFFFFFFFFFFFFFFF`).
pub(crate) fn int(s: &str) -> Option<i64> {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s),
    };
    let t = t.trim_end_matches('U');
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => t.parse::<u64>().ok()?,
    } as i64;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `_ZZ9transposeILi0ELb0EEvPKfPfiE4tile` → `tile` (the last length-prefixed name).
pub fn demangle_var(name: &str) -> String {
    if let Some(e) = name.rfind('E') {
        let tail = &name[e + 1..];
        let digits: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse::<usize>() {
            if let Some(s) = tail.get(digits.len()..digits.len() + n) {
                return s.to_owned();
            }
        }
    }
    name.to_owned()
}
