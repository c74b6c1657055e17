//! Lowerings beyond plain arithmetic: warp-level operations (`shfl.sync`, `vote.sync`,
//! `activemask`, `bar.red`), the math NVRTC inlines (`ex2`, `rsqrt`, `rcp`; `sin`, `cos`, `lg2`, `tanh` as
//! [`PtxOp`]s), `mul.hi`, `popc`, bit fields and permutations (`clz brev bfind bfe prmt`,
//! also [`PtxOp`]s), `copysign`, and predicate logic. Approximations (`ex2.approx`,
//! `rsqrt.approx`, `sin.approx` …) are computed exactly rounded, which differs from the
//! GPU's in the last bits (shared-memory counts do not depend on it).

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{BarRedOp, Inst, Reg, ShflMode, VoteMode};
use warpsim_kernel::PtxOp;

/// The [`PtxOp`] an instruction is (`clz.b32`, `bfind.shiftamt.s32`, `sin.approx.ftz.f32` …),
/// if it is one; other types and modes (`clz.b64`, `prmt.b32.f4e`) are not.
fn ptx_op(name: &str, parts: &[&str]) -> Option<PtxOp> {
    let (ty, mids) = match parts {
        [_, mids @ .., ty] => (*ty, mids),
        _ => return None,
    };
    let approx = mids.iter().all(|m| matches!(*m, "approx" | "ftz")) && mids.contains(&"approx");
    Some(match (name, ty) {
        ("clz", "b32") if mids.is_empty() => PtxOp::Clz,
        ("brev", "b32") if mids.is_empty() => PtxOp::Brev,
        ("bfind", "u32" | "s32") if mids.iter().all(|m| *m == "shiftamt") => PtxOp::Bfind {
            signed: ty == "s32",
            shiftamt: !mids.is_empty(),
        },
        ("bfe", "u32" | "s32") if mids.is_empty() => PtxOp::Bfe {
            signed: ty == "s32",
        },
        ("prmt", "b32") if mids.is_empty() => PtxOp::Prmt,
        ("copysign", "f32") if mids.is_empty() => PtxOp::Copysign,
        ("sin", "f32") if approx => PtxOp::Sin,
        ("cos", "f32") if approx => PtxOp::Cos,
        ("lg2", "f32") if approx => PtxOp::Lg2,
        ("tanh", "f32") if approx => PtxOp::Tanh,
        _ => return None,
    })
}

impl Lower<'_> {
    /// Lowers `op` if it is one of this module's; `None` when it is not.
    pub(super) fn extra(&mut self, i: Instr) -> Option<Result<(), Err>> {
        let Instr(off, _, parts, args) = i;
        let ty = parts.last().copied().unwrap_or("");
        let r = match (parts[0], parts.get(1).copied()) {
            ("shfl", _) => self.shfl(i),
            ("redux", _) => self.redux(i),
            ("mov", _) if args.get(1).is_some_and(|a| super::sync::clock(a).is_some()) => {
                self.clock(i)
            }
            ("match", _) => self.match_sync(i),
            ("atom" | "red", _) => self.atomic(i),
            ("mbarrier", _) => self.mbarrier(i),
            ("cp", Some("async")) if parts.get(2) == Some(&"mbarrier") => self.mbarrier(i),
            ("cp", Some("async")) if parts.get(2) == Some(&"bulk") => self.bulk(i),
            ("wgmma", _) => self.wgmma(i),
            _ if super::tensor::applies(parts) => self.tensor(i),
            _ if super::bitops::bit_op(parts).is_some() => {
                let op = super::bitops::bit_op(parts)?;
                self.bits(i, op)
            }
            _ if super::wide::applies(parts) => self.wide(i),
            ("cvta", _) if parts.contains(&"local") => self.cvta_local(i),
            ("cvt", _) if super::convert::float_cvt_applies(parts) => self.float_cvt(i),
            ("mov", _) if args.iter().any(|a| a.contains('{')) => self.pack(i),
            (n, _)
                if super::half::half_type(ty).is_some() && super::half::HALF_OPS.contains(&n) =>
            {
                self.half(i)
            }
            (n, _)
                if super::narrow::int16(ty)
                    && matches!(
                        n,
                        "setp"
                            | "and"
                            | "or"
                            | "xor"
                            | "not"
                            | "shl"
                            | "shr"
                            | "min"
                            | "max"
                            | "div"
                            | "rem"
                            | "mul"
                            | "mad"
                            | "neg"
                            | "abs"
                    ) =>
            {
                self.int16_op(i)
            }
            ("cvt", _)
                if parts.len() >= 3 && parts[parts.len() - 2..].iter().any(|t| narrow(t)) =>
            {
                self.narrow_cvt(off, parts, args)
            }
            ("setp", _) if super::compare::applies(ty) => self.setp(i),
            ("vote", _) => self.vote(i),
            ("elect", Some("sync")) => self.elect(i),
            ("bar" | "barrier", _) if parts.contains(&"red") => self.bar_red(i),
            ("activemask", _) => self.unary(off, args, |d, _| Inst::ActiveMask { dst: d }),
            ("popc", _) if ty == "b32" => self.unary(off, args, |d, a| Inst::Popc { dst: d, a }),
            ("mul", Some("hi")) if matches!(ty, "s32" | "u32") => self.mul_hi(off, ty, args),
            ("ex2", _) if ty == "f32" => self.ex2(off, args),
            ("rcp", _) if ty == "f32" => self.rcp(off, args, false),
            // `rcp.rn.f64` (what NVRTC makes of `1.0 / x` in double): exactly `1.0 / x`.
            ("rcp", Some("rn")) if ty == "f64" => self.rcp64(off, args),
            ("rsqrt", _) if ty == "f32" => self.rcp(off, args, true),
            ("and" | "or" | "xor", _) if ty == "pred" => self.pred_logic(off, parts[0], args),
            (n, _) => match ptx_op(n, parts) {
                Some(p) => self.ptx_op(off, args, p),
                None => return None,
            },
        };
        Some(r)
    }

    fn dst(&mut self, args: &[String], off: usize) -> Result<Reg, Err> {
        let d = args.first().map(String::as_str).unwrap_or("");
        Ok(self.reg(d.split('|').next().unwrap_or(d).trim(), off)?.0)
    }

    fn unary(
        &mut self,
        off: usize,
        args: &[String],
        f: impl Fn(Reg, Reg) -> Inst,
    ) -> Result<(), Err> {
        let d = self.dst(args, off)?;
        let a = match args.get(1) {
            Some(a) => self.val(a, 1, off)?,
            None => d,
        };
        self.emit(f(d, a));
        Ok(())
    }

    /// `mul.hi.s32 d, a, b`: the high word of the 64-bit product.
    fn mul_hi(&mut self, off: usize, ty: &str, args: &[String]) -> Result<(), Err> {
        let d = self.dst(args, off)?;
        let a = self.val(arg(args, 1), 1, off)?;
        let b = self.val(arg(args, 2), 1, off)?;
        let t = self.alloc(2);
        self.emit(Inst::MulWide {
            dst: t,
            a,
            b,
            signed: ty == "s32",
        });
        self.emit(Inst::Mov {
            dst: d,
            a: Reg(t.0 + 1),
        });
        Ok(())
    }

    /// `ex2.approx.f32 d, a` = `e^(a · ln 2)`.
    fn ex2(&mut self, off: usize, args: &[String]) -> Result<(), Err> {
        let d = self.dst(args, off)?;
        let a = self.val(arg(args, 1), 1, off)?;
        let ln2 = self.konst(std::f32::consts::LN_2.to_bits() as u64, 1);
        let t = self.alloc(1);
        self.emit(Inst::FMul { dst: t, a, b: ln2 });
        self.emit(Inst::FExp { dst: d, a: t });
        Ok(())
    }

    /// `rcp.f32 d, a` = `1 / a`; `rsqrt.approx.f32 d, a` = `1 / sqrt(a)`.
    fn rcp(&mut self, off: usize, args: &[String], sqrt: bool) -> Result<(), Err> {
        let d = self.dst(args, off)?;
        let mut a = self.val(arg(args, 1), 1, off)?;
        let one = self.konst(1f32.to_bits() as u64, 1);
        if sqrt {
            let t = self.alloc(1);
            self.emit(Inst::FSqrt { dst: t, a });
            a = t;
        }
        self.emit(Inst::FDiv {
            dst: d,
            a: one,
            b: a,
        });
        Ok(())
    }

    /// `rcp.rn.f64 d, a`: `1.0 / a`, correctly rounded (a `div.rn.f64`).
    fn rcp64(&mut self, off: usize, args: &[String]) -> Result<(), Err> {
        if args.len() != 2 {
            return Err((
                off,
                format!(
                    "`rcp.rn.f64` takes 2 operands, but this one has {}",
                    args.len()
                ),
            ));
        }
        let (dst, w) = self.reg(args[0].trim(), off)?;
        if w != 2 {
            return Err((
                off,
                format!(
                    "`rcp.rn.f64` writes 64 bits, but `{}` is a {}-bit register",
                    args[0].trim(),
                    32 * w
                ),
            ));
        }
        let a = self.val(arg(args, 1), 2, off)?;
        let one = self.konst(1f64.to_bits(), 2);
        self.emit(Inst::DDiv { dst, a: one, b: a });
        Ok(())
    }

    /// One of [`PtxOp`]'s: `d, a[, b[, c]]`.
    fn ptx_op(&mut self, off: usize, args: &[String], op: PtxOp) -> Result<(), Err> {
        if args.len() != op.arity() + 1 {
            let (name, n) = (op.name(), op.arity() + 1);
            let msg = format!(
                "`{name}` takes {n} operands, but this one has {}",
                args.len()
            );
            return Err((off, msg));
        }
        let d = self.dst(args, off)?;
        let a = self.val(arg(args, 1), 1, off)?;
        let mut more = [a, a];
        for (i, m) in more.iter_mut().enumerate().take(op.arity() - 1) {
            *m = self.val(arg(args, i + 2), 1, off)?;
        }
        self.emit(Inst::Ptx {
            op,
            dst: d,
            a,
            b: more[0],
            c: more[1],
        });
        Ok(())
    }

    /// `and/or/xor.pred d, a, b` (predicates are 0 or 1).
    fn pred_logic(&mut self, off: usize, name: &str, args: &[String]) -> Result<(), Err> {
        let d = self.dst(args, off)?;
        let a = self.val(arg(args, 1), 1, off)?;
        let b = self.val(arg(args, 2), 1, off)?;
        self.emit(match name {
            "and" => Inst::And { dst: d, a, b },
            "or" => Inst::Or { dst: d, a, b },
            _ => Inst::Xor { dst: d, a, b },
        });
        Ok(())
    }

    /// `shfl.sync.MODE.b32 d[|p], a, b, c, membermask`: `c` packs the segment mask (bits
    /// 8..12: `32 - width`) and the clamp, a constant or a register; the optional predicate
    /// `p` is whether the source lane was in range.
    fn shfl(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        if !parts.contains(&"sync") {
            return Err((
                off,
                format!("`{op}`: only shfl.sync is supported (sm_70 and later)"),
            ));
        }
        let mode = match parts.get(2).copied() {
            Some("idx") => ShflMode::Idx,
            Some("up") => ShflMode::Up,
            Some("down") => ShflMode::Down,
            Some("bfly") => ShflMode::Xor,
            _ => return Err((off, format!("`{op}`: unknown shuffle mode"))),
        };
        if args.len() != 5 {
            return Err((
                off,
                format!("`{op}` takes 5 operands (d, a, b, c, membermask)"),
            ));
        }
        let p = match args[0].split_once('|') {
            Some((_, p)) if self.uses(p.trim()) => Some(p.trim()),
            _ => None,
        };
        let width = self.const_of(&args[3]).and_then(|c| {
            let w = 32 - ((c >> 8) & 0x1f) as u32;
            let clamp = if mode == ShflMode::Up { 0 } else { 31 };
            (w.is_power_of_two() && c & 0x1f == clamp && c >> 13 == 0).then_some(w)
        });
        let dst = self.dst(args, off)?;
        let a = self.val(&args[1], 1, off)?;
        let b = self.val(&args[2], 1, off)?;
        let mask = self.val(&args[4], 1, off)?;
        if let (Some(width), None) = (width, p) {
            self.emit(Inst::Shfl {
                dst,
                mask,
                a,
                b,
                mode,
                width: width as u8,
            });
            return Ok(());
        }
        // A clamp/segment operand in a register (or not the one CUDA's width gives), or the
        // predicate asked for: the general form, the predicate first (`d` may be an operand).
        let c = self.val(&args[3], 1, off)?;
        if let Some(p) = p {
            let p = self.reg(p, off)?.0;
            self.emit(Inst::ShflC {
                dst: p,
                mask,
                a,
                b,
                c,
                mode,
                pred: true,
            });
        }
        self.emit(Inst::ShflC {
            dst,
            mask,
            a,
            b,
            c,
            mode,
            pred: false,
        });
        Ok(())
    }

    /// `vote.sync.{ballot.b32, any.pred, all.pred, uni.pred} d, {!}p, membermask`.
    fn vote(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let mode = match parts.get(2).copied() {
            Some("ballot") => VoteMode::Ballot,
            Some("any") => VoteMode::Any,
            Some("all") => VoteMode::All,
            Some("uni") => VoteMode::Uni,
            _ => return Err((off, format!("PTX instruction `{op}` is not supported"))),
        };
        if !parts.contains(&"sync") || args.len() != 3 {
            return Err((
                off,
                format!("`{op}`: only vote.sync with a member mask is supported"),
            ));
        }
        let dst = self.dst(args, off)?;
        // `!p`: the vote of the negated predicate.
        let (p, negated) = match args[1].trim().strip_prefix('!') {
            Some(p) => (p, true),
            None => (args[1].trim(), false),
        };
        let mut a = self.val(p, 1, off)?;
        let mask = self.val(&args[2], 1, off)?;
        if a == dst || negated {
            let t = self.alloc(1);
            let one = self.konst(1, 1);
            self.emit(match negated {
                true => Inst::Xor { dst: t, a, b: one },
                false => Inst::Mov { dst: t, a },
            });
            a = t;
        }
        self.emit(Inst::Vote { dst, mask, a, mode });
        Ok(())
    }
}

impl Lower<'_> {
    /// `elect.sync d|p, membermask`: the lowest active lane of `membermask` is the leader; `d`
    /// (or the sink `_`) gets its lane id in every lane, `p` is true in the leader alone.
    fn elect(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, _, args) = i;
        let dests = args.first().and_then(|d| d.split_once('|'));
        let (Some((d, p)), 2) = (dests, args.len()) else {
            return Err((off, format!("`{op}` takes `d|p, membermask`")));
        };
        let mask = self.val(&args[1], 1, off)?;
        let pred = self.reg(p.trim(), off)?.0;
        let (m, r, leader) = (self.alloc(1), self.alloc(1), self.alloc(1));
        self.emit(Inst::ActiveMask { dst: m });
        self.emit(Inst::And {
            dst: m,
            a: m,
            b: mask,
        });
        let ptx = |op, dst, a| Inst::Ptx {
            op,
            dst,
            a,
            b: a,
            c: a,
        };
        self.emit(ptx(PtxOp::Brev, r, m));
        self.emit(ptx(PtxOp::Clz, leader, r));
        let lane = self.val("%laneid", 1, off)?;
        self.emit(Inst::Eq {
            dst: pred,
            a: lane,
            b: leader,
        });
        if d.trim() != "_" {
            let d = self.reg(d.trim(), off)?.0;
            self.emit(Inst::Mov { dst: d, a: leader });
        }
        Ok(())
    }

    /// `bar.red.popc.u32 d, a{, b}, {!}c` and `bar.red.{and,or}.pred p, a{, b}, {!}c`
    /// (`__syncthreads_count/and/or`): a barrier that reduces `c` over the block.
    fn bar_red(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let red = parts.iter().position(|p| *p == "red").unwrap_or(0);
        let rop = match (parts.get(red + 1).copied(), parts.get(red + 2).copied()) {
            (Some("popc"), Some("u32")) => BarRedOp::Popc,
            (Some("and"), Some("pred")) => BarRedOp::And,
            (Some("or"), Some("pred")) => BarRedOp::Or,
            _ => {
                return Err((
                    off,
                    format!(
                        "PTX instruction `{op}` is not supported (bar.red.popc.u32, \
                         bar.red.and.pred and bar.red.or.pred are)"
                    ),
                ))
            }
        };
        if !(3..=4).contains(&args.len()) {
            return Err((
                off,
                format!(
                    "`{op}` takes 3 or 4 operands (d, barrier, [threads,] {{!}}predicate), but \
                     this one has {}",
                    args.len()
                ),
            ));
        }
        if args.len() == 4 {
            return Err((
                off,
                format!("`{op}` with a thread count is not supported (only whole blocks)"),
            ));
        }
        let dst = self.dst(args, off)?;
        let last = args[args.len() - 1].trim();
        let (p, negated) = match last.strip_prefix('!') {
            Some(p) => (p.trim(), true),
            None => (last, false),
        };
        let mut a = self.val(p, 1, off)?;
        if negated {
            let t = self.alloc(1);
            let one = self.konst(1, 1);
            self.emit(Inst::Xor { dst: t, a, b: one });
            a = t;
        }
        self.emit(Inst::BarrierRed { dst, a, op: rop });
        Ok(())
    }
}

fn arg(args: &[String], i: usize) -> &str {
    args.get(i).map(String::as_str).unwrap_or("")
}

/// An 8- or 16-bit integer type.
fn narrow(t: &str) -> bool {
    matches!(t, "u8" | "s8" | "b8" | "u16" | "s16" | "b16")
}
