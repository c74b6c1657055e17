//! Validation of a program against its configuration, once per run ([`Validated`]): checks
//! everything the executor indexes with (registers, jump targets, memory operands, layouts,
//! the geometry), so that running even a malformed [`Program`] faults instead of panicking.
//!
//! [`Validated`]: crate::Validated

use super::api::{Config, Global};
use super::fault::{Fault, FaultKind};
use super::LOADER_BUG;
use warpsim_kernel::ir::{Inst, Pc, Reg, Space, Special};
use warpsim_kernel::Elem;
use warpsim_kernel::{Program, RegInit, SharedInfo};

/// Checks everything the executor indexes with, so that running cannot panic.
pub(super) fn check(
    prog: &Program,
    cfg: &Config,
    ctaid: [u32; 3],
    global: &Global,
) -> Result<(), Fault> {
    let bad = |pc: Option<usize>, m: String| {
        Fault::new(pc, ctaid, FaultKind::Malformed(m), Some(LOADER_BUG.into()))
    };
    cfg.geometry.validate().map_err(|e| {
        Fault::new(
            None,
            ctaid,
            FaultKind::InvalidGeometry {
                geometry: cfg.geometry,
                reason: e.to_string(),
            },
            None,
        )
    })?;
    let threads: u64 = prog.block.iter().map(|&d| d as u64).product();
    if threads > u32::MAX as u64 / 2 {
        return Err(Fault::new(
            None,
            ctaid,
            FaultKind::BlockTooLarge { threads },
            Some("use at most 1024 threads per block, as on the GPU".into()),
        ));
    }
    if prog.shared_bytes > 1 << 31 {
        return Err(bad(
            None,
            format!("{} bytes of shared memory is too much", prog.shared_bytes),
        ));
    }
    for (i, s) in prog.shared.iter().enumerate() {
        check_shared(s, prog.shared_bytes)
            .map_err(|m| bad(None, format!("shared array {i}: {m}")))?;
    }
    for (i, b) in prog.buffers.iter().enumerate() {
        let need = b
            .len
            .checked_mul(b.elem.bytes() as u64)
            .map(|n| n.div_ceil(4));
        let have = global.buffers.get(i).map_or(0, |g| g.len() as u64);
        if need.is_none_or(|n| have < n) {
            return Err(Fault::new(
                None,
                ctaid,
                FaultKind::GlobalMismatch {
                    buffer: b.name.clone(),
                    need,
                    have,
                },
                Some("create global memory with `Global::new` for this program".into()),
            ));
        }
    }
    for &(reg, init) in &prog.init {
        if reg.0 as usize >= prog.nregs {
            return Err(bad(
                None,
                format!(
                    "initialised register {reg} is outside the program's {} registers",
                    prog.nregs
                ),
            ));
        }
        if let RegInit::Special(
            Special::Tid(d) | Special::Ctaid(d) | Special::Ntid(d) | Special::Nctaid(d),
        ) = init
        {
            if d >= 3 {
                return Err(bad(None, format!("special register of dimension {d}")));
            }
        }
    }
    for (pc, inst) in prog.code.iter().enumerate() {
        check_inst(prog, pc, inst).map_err(|m| bad(Some(pc), m))?;
    }
    Ok(())
}

/// Checks a shared array's layout enough that [`SharedInfo::physical`] cannot overflow or
/// divide by zero. (Whether an address lands inside the array is checked at every access.)
fn check_shared(s: &SharedInfo, shared_bytes: u32) -> Result<(), String> {
    let Some((&last, outer)) = s.dims.split_last() else {
        return Err("no dimensions".into());
    };
    if s.dims.len() > 3 {
        return Err(format!("{} dimensions (at most 3)", s.dims.len()));
    }
    let rows: u64 = outer.iter().map(|&d| d as u64).product();
    let span = rows
        .checked_mul(s.row_len.max(last) as u64)
        .and_then(|n| n.checked_add(2 * last as u64));
    if span.is_none_or(|n| n > u32::MAX as u64 / 16) {
        return Err("too large".into());
    }
    if s.swizzle > 0 && last / s.swizzle == 0 {
        return Err(format!(
            "swizzle group {} is larger than its rows ({last} elements)",
            s.swizzle
        ));
    }
    if s.base as u64 + s.bytes as u64 > shared_bytes as u64 {
        return Err(format!(
            "it ends at byte {}, beyond the block's {shared_bytes} bytes of shared memory",
            s.base as u64 + s.bytes as u64
        ));
    }
    Ok(())
}

pub(super) fn elem_words(e: Elem) -> usize {
    e.regs() as usize
}

/// Checks one instruction's registers, jump targets and memory operands.
///
/// Only `LoopBack` and `ForNext` may jump backwards (where the step limit is checked), so
/// every run ends.
fn check_inst(prog: &Program, pc: usize, inst: &Inst) -> Result<(), String> {
    let n = prog.nregs;
    let reg = |r: Reg, w: usize| {
        if r.0 as usize + w <= n {
            Ok(())
        } else {
            Err(format!(
                "register {r} ({w} word{}) is outside the program's {n} registers",
                if w == 1 { "" } else { "s" }
            ))
        }
    };
    let target = |p: Pc| {
        if (p as usize) < prog.code.len() {
            Ok(())
        } else {
            Err(format!(
                "jump target {p} is outside the program's {} instructions",
                prog.code.len()
            ))
        }
    };
    let forward = |p: Pc| {
        if (p as usize) <= pc {
            Err(format!("a forward jump goes back to {p}"))
        } else {
            target(p)
        }
    };
    use Inst::*;
    if let Some(ops) = inst.operands() {
        reg(ops.dst.0, ops.dst.1 as usize)?;
        for &(r, w) in ops.srcs() {
            reg(r, w as usize)?;
        }
    }
    match *inst {
        DivS2 { k, .. } | RemS2 { k, .. } if !(1..=30).contains(&k) => {
            Err(format!("a division by 2^{k}"))
        }
        Store(m) if m.space == Space::Const => Err("a store to constant memory".into()),
        Load(m) | Store(m) if m.byte_addressed() => {
            let elem = prog.access_elem(&m).ok_or_else(|| {
                format!(
                    "array {} of a byte-addressed access does not exist",
                    m.array
                )
            })?;
            // (A global vector of narrow elements moves whole words: `ld.global.v4.u32` of an
            // f16 buffer is 8 elements.)
            if !matches!(m.vec, 1 | 2 | 4 | 8 | 16) || elem.bytes() * m.vec as u32 > 16 {
                return Err(format!("a vector of {} {elem} elements", m.vec));
            }
            let addr_words = if matches!(m.space, Space::Global | Space::Const) {
                2
            } else {
                1
            };
            reg(m.idx[0], addr_words)?;
            reg(m.idx[1], 1)?;
            reg(m.data, m.words(elem) as usize)
        }
        Branch {
            c, target: t, join, ..
        } => {
            reg(c, 1)?;
            target(t)?;
            target(join)
        }
        Jump { target: t } => target(t),
        Join | Ret => Ok(()),
        AddrOf(m) if m.byte_addressed() || !matches!(m.space, Space::Shared | Space::Global) => {
            Err("the address of something not a shared array or buffer element".into())
        }
        AddrOf(m) | Load(m) | Store(m) => {
            let (elem, rank) = match m.space {
                Space::Shared => {
                    let s = prog
                        .shared
                        .get(m.array as usize)
                        .ok_or_else(|| format!("shared array {} does not exist", m.array))?;
                    (s.elem, s.dims.len())
                }
                Space::Global => {
                    let b = prog
                        .buffers
                        .get(m.array as usize)
                        .ok_or_else(|| format!("buffer {} does not exist", m.array))?;
                    (b.elem, 1)
                }
                Space::Local => return Err("a local access that is not byte-addressed".into()),
                Space::Const => return Err("a constant access that is not byte-addressed".into()),
            };
            if m.rank as usize != rank || !(1..=3).contains(&rank) {
                return Err(format!(
                    "an access with {} indices to an array of {rank} dimensions",
                    m.rank
                ));
            }
            if !matches!(m.vec, 1 | 2 | 4 | 8 | 16)
                || !matches!(elem.bytes() * m.vec as u32, 1 | 2 | 4 | 8 | 16)
                || (m.vec > 1 && elem.bytes() * (m.vec as u32) < 4)
            {
                return Err(format!("a vector of {} {elem} elements", m.vec));
            }
            for &r in &m.idx[..rank] {
                reg(r, 1)?;
            }
            // (`AddrOf` writes one address, not the elements: a global one in two words.)
            let words = match inst {
                AddrOf(_) => 1 + (m.space == Space::Global) as usize,
                _ => m.words(elem) as usize,
            };
            reg(m.data, words)
        }
        Atomic { m, .. } => {
            let (elem, rank) = match m.space {
                Space::Shared => prog
                    .shared
                    .get(m.array as usize)
                    .map(|s| (s.elem, s.dims.len())),
                Space::Global => prog.buffers.get(m.array as usize).map(|b| (b.elem, 1)),
                Space::Local => return Err("an atomic on local memory".into()),
                Space::Const => return Err("an atomic on constant memory".into()),
            }
            .ok_or_else(|| format!("array {} of an atomic does not exist", m.array))?;
            if !matches!(
                elem,
                Elem::I32 | Elem::U32 | Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16
            ) {
                return Err(format!("an atomic on {elem} elements"));
            }
            // A pair (vec 2): a 64-bit atomic on 32-bit integer words, or a __half2 or
            // __nv_bfloat162 add.
            let pair = m.vec == 2 && matches!(elem, Elem::F16 | Elem::BF16 | Elem::U32 | Elem::I32);
            if m.rank as usize != rank || !(1..=3).contains(&rank) || m.vec != 1 && !pair {
                return Err("an atomic with the wrong number of indices or a vector".into());
            }
            for &r in &m.idx[..rank] {
                reg(r, 1)?;
            }
            reg(m.data, if pair { 4 } else { 2 })
        }
        If { c, else_pc, end_pc } => {
            reg(c, 1)?;
            forward(else_pc)?;
            forward(end_pc)
        }
        Else { end_pc } => forward(end_pc),
        LoopTest { c, exit_pc } => {
            reg(c, 1)?;
            forward(exit_pc)
        }
        LoopBack { head_pc } => target(head_pc),
        ForTest { a, b, exit_pc, .. } => {
            reg(a, 1)?;
            reg(b, 1)?;
            forward(exit_pc)
        }
        ForNext { var, step, head_pc } => {
            reg(var, 1)?;
            reg(step, 1)?;
            target(head_pc)
        }
        Shfl { width, .. } if !(width.is_power_of_two() && width <= 32) => {
            Err(format!("a shuffle of width {width}"))
        }
        SyncWarp { mask } => reg(mask, 1),
        EndIf | LoopStart | LoopEnd | Barrier | Trap { .. } | Exit => Ok(()),
        Break { n } | Continue { n } | Return { n } => {
            let scopes = prog.code.get(pc + 1..pc + 1 + n as usize);
            let Some(scopes) = scopes.filter(|s| s.iter().all(|i| matches!(i, Scope { .. })))
            else {
                return Err(format!("a jump not followed by its {n} scopes"));
            };
            if n == 0 && !matches!(inst, Return { .. }) {
                return Err("a `Break` or `Continue` that leaves no loop".into());
            }
            for s in scopes {
                if let Scope {
                    resume_pc, end_pc, ..
                } = *s
                {
                    forward(resume_pc)?;
                    forward(end_pc)?;
                }
            }
            Ok(())
        }
        Scope { .. } | LoopJoin => Ok(()),
        Matrix(m) => {
            if !matches!(m.n, 1 | 2 | 4) {
                return Err(format!("ldmatrix/stmatrix of {} matrices", m.n));
            }
            reg(m.addr, 1)?;
            m.used_regs().iter().try_for_each(|&r| reg(r, 1))
        }
        CpAsync(c) => {
            if !matches!(c.width, 4 | 8 | 16) || (c.bypass && c.width != 16) {
                return Err(format!("a cp.async of {} bytes", c.width));
            }
            reg(c.dst, 1)?;
            reg(c.src, 2)?;
            c.size.map_or(Ok(()), |s| reg(s, 1))
        }
        AsyncCommit | AsyncWait { .. } => Ok(()),
        Bulk(b) => b.reads().try_for_each(|(r, w)| reg(r, w as usize)),
        BulkTensor(t) => {
            if !(1..=5).contains(&t.rank) {
                return Err(format!("a {}-D tensor copy", t.rank));
            }
            t.reads().try_for_each(|(r, w)| reg(r, w as usize))
        }
        Mbar(m) => m
            .reads()
            .chain(m.writes())
            .try_for_each(|(r, w)| reg(r, w as usize)),
        Mma { op } => {
            let Some(m) = prog.mmas.get(op as usize) else {
                return Err(format!(
                    "mma.sync #{op}, of {} in the program",
                    prog.mmas.len()
                ));
            };
            m.check()?;
            m.srcs()
                .chain(m.dsts())
                .try_for_each(|(r, w)| reg(r, w as usize))
        }
        FenceProxyAsync => Ok(()),
        Wgmma { op } => {
            let Some(m) = prog.wgmmas.get(op as usize) else {
                return Err(format!(
                    "wgmma.mma_async #{op}, of {} in the program",
                    prog.wgmmas.len()
                ));
            };
            m.check()?;
            m.srcs()
                .into_iter()
                .chain(m.d.iter().map(|&r| (r, 1)))
                .try_for_each(|(r, w)| reg(r, w as usize))
        }
        // Computing instructions: their registers were checked above. Anything else has
        // not been checked, so it is refused (fails closed for a new kind of instruction).
        _ if inst.operands().is_some() => Ok(()),
        _ => Err(format!("`{inst:?}` has no checks")),
    }
}
