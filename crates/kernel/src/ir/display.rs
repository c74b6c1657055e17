//! How an instruction prints: `warpsim check --code`'s assembly-like lines.

use super::*;
use std::fmt;

/// An assembly-like line: the mnemonic (the variant's name in lower case), then the
/// destination and the operands, as `warpsim check --code` lists the code. Memory operands
/// show the array's number; [`crate::Program::listing`] shows its name.
impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Inst::*;
        let debug = format!("{self:?}");
        let end = debug
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(debug.len());
        let op = debug[..end].to_ascii_lowercase();
        if let Some(ops) = self.operands() {
            return match *self {
                Cvt { dst, a, from, to } => write!(f, "cvt.{to}.{from} {dst}, {a}"),
                Half {
                    op,
                    fmt,
                    dst,
                    a,
                    b,
                    c,
                } => {
                    write!(f, "{}.{} {dst}, {a}", op.name(), fmt.name())?;
                    match op {
                        crate::fp16::HalfOp::Neg | crate::fp16::HalfOp::Abs => Ok(()),
                        crate::fp16::HalfOp::Fma => write!(f, ", {b}, {c}"),
                        _ => write!(f, ", {b}"),
                    }
                }
                Ptx { op, dst, a, b, c } => {
                    write!(f, "{} {dst}, {a}", op.name())?;
                    match op.arity() {
                        1 => Ok(()),
                        2 => write!(f, ", {b}"),
                        _ => write!(f, ", {b}, {c}"),
                    }
                }
                Bits { op, .. } => {
                    write!(f, "{} {}", op.name(), ops.dst.0)?;
                    for (r, _) in ops.srcs() {
                        write!(f, ", {r}")?;
                    }
                    Ok(())
                }
                DivS2 { dst, a, k } | RemS2 { dst, a, k } => write!(f, "{op} {dst}, {a}, 2^{k}"),
                FragAddr {
                    dst,
                    base,
                    stride,
                    at,
                    ..
                } => write!(f, "fragaddr {dst}, {base}, {stride}, {at:?}"),
                Shfl {
                    dst,
                    mask,
                    a,
                    b,
                    mode,
                    width,
                } => write!(f, "shfl.{}.w{width} {dst}, {mask}, {a}, {b}", mode.name()),
                ShflC {
                    dst,
                    mask,
                    a,
                    b,
                    c,
                    mode,
                    pred,
                } => write!(
                    f,
                    "shfl.{}{} {dst}, {mask}, {a}, {b}, {c}",
                    mode.name(),
                    if pred { ".pred" } else { "" }
                ),
                Vote { dst, mask, a, mode } => write!(f, "vote.{} {dst}, {mask}, {a}", mode.name()),
                BarrierRed { dst, a, op } => write!(f, "bar.red.{} {dst}, {a}", op.name()),
                Int64 { op, dst, a, b } => write!(f, "{}.64 {dst}, {a}, {b}", op.name()),
                Cmp64 { cmp, dst, a, b } => write!(f, "{}.64 {dst}, {a}, {b}", cmp.name()),
                Cvt64 {
                    dst,
                    a,
                    float,
                    signed,
                    to_int,
                } => {
                    let int = if signed { "s64" } else { "u64" };
                    match to_int {
                        true => write!(f, "cvt.{int}.{float} {dst}, {a}"),
                        false => write!(f, "cvt.{float}.{int} {dst}, {a}"),
                    }
                }
                _ => {
                    write!(f, "{op} {}", ops.dst.0)?;
                    for (r, _) in ops.srcs() {
                        write!(f, ", {r}")?;
                    }
                    Ok(())
                }
            };
        }
        match *self {
            Load(m) | Store(m) => {
                let space = m.space.name();
                let vec = if m.vec > 1 {
                    format!(".v{}", m.vec)
                } else {
                    String::new()
                };
                let mut idx: Vec<String> = m
                    .idx
                    .iter()
                    .take(m.rank as usize)
                    .map(|r| format!("[{r}]"))
                    .collect();
                if m.byte_addressed() {
                    idx.push(format!("[{} + {}]", m.idx[0], m.idx[1]));
                }
                let at = format!("{space}#{}{}", m.array, idx.concat());
                if matches!(self, Load(_)) {
                    write!(f, "ld.{space}{vec} {}, {at}", m.data)
                } else {
                    write!(f, "st.{space}{vec} {at}, {}", m.data)
                }
            }
            Atomic { m, op } => {
                let space = m.space.name();
                let op = format!("{op:?}").to_ascii_lowercase();
                write!(f, "atom.{space}.{op} {}, {space}#{}", m.data, m.array)?;
                for r in m.idx.iter().take(m.rank as usize) {
                    write!(f, "[{r}]")?;
                }
                write!(f, ", {}", m.data)
            }
            If { c, else_pc, end_pc } => write!(f, "if {c}, else @{else_pc}, end @{end_pc}"),
            Else { end_pc } => write!(f, "else, end @{end_pc}"),
            LoopTest { c, exit_pc } => write!(f, "looptest {c}, exit @{exit_pc}"),
            LoopBack { head_pc } => write!(f, "loopback @{head_pc}"),
            ForTest {
                a,
                b,
                signed,
                exit_pc,
            } => write!(
                f,
                "fortest {a} <{} {b}, exit @{exit_pc}",
                if signed { "" } else { "u" }
            ),
            ForNext { var, step, head_pc } => write!(f, "fornext {var} += {step}, @{head_pc}"),
            SyncWarp { mask } => write!(f, "syncwarp {mask}"),
            Branch {
                c,
                neg,
                target,
                join,
            } => write!(
                f,
                "branch {}{c}, @{target}, join @{join}",
                if neg { "!" } else { "" }
            ),
            Jump { target } => write!(f, "jump @{target}"),
            Trap { brkpt } => f.write_str(if brkpt { "brkpt" } else { "trap" }),
            EndIf | LoopStart | LoopEnd | Barrier | Exit => f.write_str(&op),
            Break { n } | Continue { n } | Return { n } => write!(f, "{op}, {n} frames"),
            Scope {
                is_loop,
                resume_pc,
                end_pc,
            } => write!(
                f,
                "scope {}, resume @{resume_pc}, end @{end_pc}",
                if is_loop { "loop" } else { "if" }
            ),
            Matrix(m) => {
                let (op, t) = (
                    if m.store { "stmatrix" } else { "ldmatrix" },
                    if m.trans { ".trans" } else { "" },
                );
                let regs: Vec<String> = m.used_regs().iter().map(|r| r.to_string()).collect();
                let regs = regs.join(", ");
                if m.store {
                    write!(
                        f,
                        "{op}.x{}{t} shared#{}[{}], {{{regs}}}",
                        m.n, m.array, m.addr
                    )
                } else {
                    write!(
                        f,
                        "{op}.x{}{t} {{{regs}}}, shared#{}[{}]",
                        m.n, m.array, m.addr
                    )
                }
            }
            CpAsync(c) => {
                let k = if c.bypass { "cg" } else { "ca" };
                write!(
                    f,
                    "cp.async.{k} shared#{}[{}], global[{}], {}",
                    c.array, c.dst, c.src, c.width
                )?;
                match c.size {
                    Some(s) => write!(f, ", {s}"),
                    None => Ok(()),
                }
            }
            AsyncCommit => f.write_str("cp.async.commit_group"),
            AsyncWait { all: true, .. } => f.write_str("cp.async.wait_all"),
            AsyncWait { n, .. } => write!(f, "cp.async.wait_group {n}"),
            Mma { op } => write!(f, "mma.sync #{op}"),
            Wgmma { op } => write!(f, "wgmma.mma_async #{op}"),
            FenceProxyAsync => write!(f, "fence.proxy.async"),
            Bulk(b) => match b.mbar {
                Some(m) => write!(
                    f,
                    "cp.async.bulk shared[{}], global[{}], {}, mbarrier shared[{m}]",
                    b.dst, b.src, b.size
                ),
                None => write!(
                    f,
                    "cp.async.bulk global[{}], shared[{}], {}",
                    b.dst, b.src, b.size
                ),
            },
            BulkTensor(t) => {
                let c: Vec<String> = t.coords[..(t.rank as usize).min(5)]
                    .iter()
                    .map(|r| r.to_string())
                    .collect();
                let c = c.join(", ");
                if t.store {
                    write!(
                        f,
                        "cp.async.bulk.tensor.{}d global[{}, {{{c}}}], shared[{}]",
                        t.rank, t.map, t.smem
                    )
                } else {
                    write!(
                        f,
                        "cp.async.bulk.tensor.{}d shared[{}], global[{}, {{{c}}}], mbarrier shared[{}]",
                        t.rank, t.smem, t.map, t.mbar
                    )
                }
            }
            Mbar(m) => {
                write!(f, "mbarrier.{} ", m.kind)?;
                if let Some(d) = m.dst {
                    write!(f, "{d}, ")?;
                }
                write!(f, "shared[{}]", m.addr)?;
                match m.a {
                    Some(a) => write!(f, ", {a}"),
                    None => Ok(()),
                }
            }
            AddrOf(m) => {
                let space = if m.space == Space::Global {
                    "global"
                } else {
                    "shared"
                };
                write!(f, "{} = &{space}#{}[..] (rank {})", m.data, m.array, m.rank)
            }
            // (Computing instructions are written above, from their operands.)
            _ => f.write_str(&op),
        }
    }
}
