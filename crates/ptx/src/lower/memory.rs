//! `ld`/`st` of every state space (`.param`, `.shared`, `.global`, `.local`, `.const`, and
//! generic ones `generic.rs` placed): the address (a register, a variable, a constant symbol,
//! plus a displacement), the array it names in reports (a shared variable's view per element
//! type, a buffer), the element it moves (the buffer's, or its own when of another width:
//! `Mem::elem`), and vectors through consecutive or temporary registers.

use super::*;

/// Bytes of shared memory a block has reserved for the system on sm_90
/// (`cudaDevAttrReservedSharedMemoryPerBlock`).
pub(super) const RESERVED_SMEM: u32 = 1024;

impl Lower<'_> {
    /// `%reserved_smem_offset_{begin,end,cap,0,1}`: the block's reserved shared memory (1 KiB
    /// on sm_90, which cooperative groups' multi-warp tiles use as scratch), placed after the
    /// kernel's own at a multiple of 128 bytes; regions 0 and 1 are its halves. Reading one
    /// reserves it (the block's shared bytes count it).
    pub(super) fn reserved_smem(&mut self, which: &str) -> Option<u32> {
        let begin = self.shared_top.div_ceil(128) * 128;
        let v = match which {
            "begin" | "0" => begin,
            "1" => begin + RESERVED_SMEM / 2,
            "end" => begin + RESERVED_SMEM,
            "cap" => RESERVED_SMEM,
            _ => return None,
        };
        self.reserved_used = true;
        // A pointer from it names the region as a variable of its own (accesses through it
        // are checked against the block's window up to the region's end, not against the
        // kernel's first variable; its addresses are the window's).
        let name = format!("%reserved_smem_offset_{which}");
        if matches!(which, "begin" | "0" | "1") && !self.vars.iter().any(|x| x.0 == name) {
            self.vars.push((name, 0, begin + RESERVED_SMEM));
        }
        Some(v)
    }

    /// `ld`/`st` of `.param`, `.shared` or `.global`.
    pub(super) fn mem(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let store = parts[0] == "st";
        let space = parts
            .iter()
            .find(|p| matches!(**p, "param" | "shared" | "global" | "local" | "const"));
        let ty = parts.last().copied().unwrap_or("");
        let bytes: u32 = match ty {
            "f32" | "b32" | "u32" | "s32" => 4,
            "f64" | "b64" | "u64" | "s64" => 8,
            t if narrow::elem(t).is_some() => narrow::elem(t).map_or(4, |e| e.bytes()),
            _ => {
                return Err((
                    off,
                    format!("PTX instruction `{op}`: {ty} accesses are not supported yet"),
                ))
            }
        };
        let vec: u8 = if parts.contains(&"v4") {
            4
        } else if parts.contains(&"v2") {
            2
        } else {
            1
        };
        let (data_s, addr_s) = if store {
            (&args[1], &args[0])
        } else {
            (&args[0], &args[1])
        };
        let addr = addr_s
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim();
        let (base, disp) = match addr.rsplit_once('+') {
            Some((b, d)) => (
                b.trim(),
                int(d.trim()).ok_or((off, format!("bad address `{addr_s}`")))?,
            ),
            None => (addr, 0),
        };
        if space == Some(&"param") {
            let k = self
                .entry
                .params
                .iter()
                .position(|p| p.0 == base)
                .ok_or((off, format!("`{base}` is not a parameter")))?;
            let w = (bytes / 4).max(1) as u8;
            let v = match self.req.args.get(k) {
                Some(KernelArg::Buffer { index, offset }) => {
                    let eb = self
                        .req
                        .buffers
                        .get(*index as usize)
                        .map_or(4, |b| b.elem.bytes()) as i64;
                    self.prov
                        .insert(data_s.trim().to_owned(), Prov::Buffer(*index));
                    ((*index as u64 + 1) << Mem::GLOBAL_BASE_SHIFT)
                        .wrapping_add(offset.wrapping_mul(eb) as u64)
                }
                Some(_) => self.arg_bits.get(k).copied().flatten().unwrap_or(0),
                None => 0,
            };
            let src = self.konst(v, w);
            let dst = self.reg(data_s.trim(), off)?.0;
            self.emit(if w == 2 {
                Inst::Mov64 { dst, a: src }
            } else {
                Inst::Mov { dst, a: src }
            });
            return Ok(());
        }
        let space = match space {
            Some(&"shared") => Space::Shared,
            Some(&"global") => Space::Global,
            Some(&"local") => Space::Local,
            Some(&"const") if store => {
                return Err((off, format!("PTX instruction `{op}`: constant memory is read-only")))
            }
            Some(&"const") => Space::Const,
            None if self.local_origin(base) => Space::Local,
            _ => return Err((off, format!("PTX instruction `{op}`: a generic address whose state space warpsim cannot tell (docs/src/ptx-coverage.md)"))),
        };
        let prov = self
            .prov
            .get(base)
            .copied()
            .or_else(|| self.vars.iter().position(|v| v.0 == base).map(Prov::Shared));
        let (addr_reg, extra) = if base.starts_with('%') {
            (self.reg(base, off)?.0, 0u64)
        } else if let (Space::Local, Some(o)) = (space, self.local.offset(base)) {
            (self.konst(0, 2), o as u64)
        } else if let Some(k) = self.vars.iter().position(|v| v.0 == base) {
            (self.konst(0, 2), self.vars[k].1 as u64)
        } else if let (Space::Const, Some(b)) = (space, self.const_index(base)) {
            (self.konst((b as u64 + 1) << Mem::GLOBAL_BASE_SHIFT, 2), 0)
        } else {
            return Err((off, format!("bad address `{addr_s}`")));
        };
        let offr = self.konst((disp as u64).wrapping_add(extra) & 0xffff_ffff, 1);
        let array = match (space, prov) {
            (Space::Shared, p) => {
                let var = match p {
                    Some(Prov::Shared(k)) => k,
                    _ => 0,
                };
                self.view(var, ty, bytes)
            }
            (Space::Global, Some(Prov::Buffer(b))) => b,
            (Space::Global, _) => 0,
            (Space::Local, _) => self.local_view(ty, bytes),
            (Space::Const, _) => match (self.const_index(base), prov) {
                (Some(b), _) | (None, Some(Prov::Buffer(b))) if self.is_const(b) => b,
                _ => return Err((off, format!("PTX instruction `{op}`: warpsim cannot tell which `.const` symbol `{base}` points into (a constant address is a symbol, or a register computed from one)"))),
            },
        };
        let elem_bytes = match space {
            Space::Shared | Space::Local => bytes,
            Space::Global | Space::Const => self.buffer_elem(array).map_or(4, |e| e.bytes()),
        };
        let total = bytes * vec as u32;
        // An access of another width than the buffer's elements (NVVM reads `x & 0xffff` of a
        // u32 buffer with `ld.global.u16`) moves elements of its own type.
        let own = ((bytes < 4 && elem_bytes != bytes) || !total.is_multiple_of(elem_bytes)).then(
            || match (narrow::elem(ty), ty) {
                (Some(e), _) => e,
                (None, "f32") => Elem::F32,
                (None, "s32") => Elem::I32,
                (None, _) if bytes == 8 => Elem::F64,
                _ => Elem::U32,
            },
        );
        let mvec = match own {
            Some(_) => vec,
            None => (total / elem_bytes) as u8,
        };
        // Data registers: consecutive, or through temporaries.
        let names = reg_list(data_s);
        if names.len() != vec as usize {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` moves {vec} elements, but `{}` names {}",
                    data_s.trim(),
                    names.len()
                ),
            ));
        }
        // Registers per element (a narrow one takes one, widened).
        let w = (bytes / 4).max(1) as u8;
        let mut regs = Vec::new();
        for n in &names {
            // `_`: a vector element nobody reads (a load's sink).
            regs.push(match *n {
                "_" if !store => self.alloc(w),
                _ => {
                    let r = self.val(n, w, off)?;
                    // (ptxas refuses a register narrower than the access's type.)
                    if let Some(&(_, have)) = self.regs.get(*n).filter(|&&(_, have)| have < w) {
                        return Err((
                            off,
                            format!(
                                "PTX instruction `{op}` moves {}-bit values, but `{n}` is a \
                                 {}-bit register",
                                bytes * 8,
                                have as u32 * 32
                            ),
                        ));
                    }
                    r
                }
            });
        }
        // A global vector of narrow elements of 4 bytes or more moves whole words
        // (exec/bytes.rs): packed and unpacked here (lower/narrow.rs).
        let packed = matches!(space, Space::Global | Space::Const) && bytes < 4 && total >= 4;
        let consecutive = !packed && regs.windows(2).all(|p| p[1].0 == p[0].0 + w as u16);
        let data = match (consecutive, packed) {
            (true, _) => regs[0],
            (false, true) => self.alloc((total / 4) as u8),
            (false, false) => self.alloc(vec * w),
        };
        let m = Mem {
            space,
            array,
            rank: 0,
            idx: [addr_reg, offr, Reg(0)],
            vec: mvec,
            data,
            elem: own,
        };
        let mv = |d: Reg, s: Reg| {
            if w == 2 {
                Inst::Mov64 { dst: d, a: s }
            } else {
                Inst::Mov { dst: d, a: s }
            }
        };
        if store {
            if packed {
                self.pack_words(data, &regs, bytes, total);
            } else if !consecutive {
                for (i, &r) in regs.iter().enumerate() {
                    self.emit(mv(Reg(data.0 + i as u16 * w as u16), r));
                }
            }
            self.emit(Inst::Store(m));
        } else {
            self.emit(Inst::Load(m));
            if packed {
                self.unpack_words(&regs, data, ty);
            } else if !consecutive {
                for (i, &r) in regs.iter().enumerate() {
                    self.emit(mv(r, Reg(data.0 + i as u16 * w as u16)));
                }
            }
            if matches!(space, Space::Global | Space::Const) && !packed && own.is_none() {
                self.retype(&regs, ty, array);
            }
        }
        Ok(())
    }

    /// The buffer of constant symbol `name` (its PTX or unmangled name).
    pub(super) fn const_index(&self, name: &str) -> Option<u16> {
        let k = self.cbank.iter().position(|c| c.name == name)?;
        u16::try_from(self.req.buffers.len() + k).ok()
    }

    /// Whether buffer `b` is a constant symbol's.
    pub(super) fn is_const(&self, b: u16) -> bool {
        (b as usize) >= self.req.buffers.len()
    }

    /// The element of buffer `b`: the launch's, or a constant symbol's.
    pub(super) fn buffer_elem(&self, b: u16) -> Option<Elem> {
        let n = self.req.buffers.len();
        match (b as usize).checked_sub(n) {
            None => self.req.buffers.get(b as usize).map(|x| x.elem),
            Some(k) => self.cbank.get(k).map(|c| c.elem),
        }
    }

    /// The shared array that names accesses of `bytes` (of PTX type `ty`) to variable `var`
    /// in reports; a narrow access's view has the access's element.
    pub(super) fn view(&mut self, var: usize, ty: &str, bytes: u32) -> u16 {
        let elem = match narrow::elem(ty) {
            Some(e) => e,
            None if bytes == 8 => Elem::F64,
            None => Elem::F32,
        };
        self.view_as(var, elem)
    }

    /// The view of variable `var` as an array of `elem` (atomics need the element's type).
    pub(super) fn view_as(&mut self, var: usize, elem: Elem) -> u16 {
        let bytes = elem.bytes();
        let key = (var, elem);
        if let Some(&v) = self.views.get(&key) {
            return v;
        }
        let (name, base, size) = self
            .vars
            .get(var)
            .cloned()
            .unwrap_or(("shared".into(), 0, 0));
        let n = (size / bytes).max(1);
        let short = demangle_var(&name);
        self.shared.push(SharedInfo {
            name: short,
            elem,
            dims: vec![n],
            pad: 0,
            swizzle: 0,
            base,
            row_len: n,
            rows: 1,
            bytes: size,
            line: 0,
        });
        let v = (self.shared.len() - 1) as u16;
        self.views.insert(key, v);
        v
    }
}
