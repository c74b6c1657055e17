//! Local memory (`.local`): per-thread arrays NVRTC makes for a local array indexed at run
//! time, and for register spills.
//!
//! ```text
//! .local .align 16 .b8 __local_depot0[64];
//! mov.u64 %SPL, __local_depot0;       // the depot's .local address: its offset, 0
//! cvta.local.u64 %SP, %SPL;           // a generic pointer to it
//! add.u64 %rd5, %SPL, 0;  st.local.v4.u32 [%rd5], {…};  ld.local.u32 %r21, [%rd11];
//! ```
//!
//! How it maps: every `.local` variable of the entry (and of the module) gets an offset in
//! the thread's local window, in declaration order at its `.align` (at least 4); the window is
//! `Program::local_bytes` bytes, rounded up to the largest alignment. A variable's name as an
//! operand is its offset (so `mov.u64 %SPL, __local_depot0` is a move of 0, of the offset for
//! a later one); `ld.local`/`st.local` are byte-addressed accesses of
//! [`Space::Local`](warpsim_kernel::ir::Space::Local), of every type and vector `ld.shared`
//! takes, viewed as `Program::local` entries (one per element type, for the access's width
//! and reports). A generic pointer to local byte `o` is `Mem::LOCAL_GENERIC + o`
//! (`cvta.local` adds the tag, `cvta.to.local` subtracts it, so one undoes the other); its low
//! word is the `.local` address, so a generic `ld`/`st` whose pointer comes from `cvta.local`
//! is the same access as an `ld.local` on the same register ([`Lower::local_origin`] tells
//! where a pointer comes from).

use super::{Err, Instr, Lower, Prov};
use crate::parse::{Entry, StmtKind};
use std::collections::HashMap;
use warpsim_kernel::ir::{Inst, Mem};
use warpsim_kernel::Elem;
use warpsim_kernel::LocalInfo;

/// Most local memory a thread may have, as on the GPU (512 KiB).
const MAX_LOCAL: u32 = 512 * 1024;

/// The entry's local memory: its variables and the views accesses use.
#[derive(Default)]
pub(super) struct Locals {
    /// Name → (offset in the thread's window, bytes).
    vars: Vec<(String, u32, u32)>,
    /// Bytes per thread (rounded up to the largest alignment).
    pub(super) bytes: u32,
    /// One view per element type: its index in `infos`.
    views: HashMap<Elem, u16>,
    /// The views, for `Program::local`.
    pub(super) infos: Vec<LocalInfo>,
}

impl Locals {
    /// The `.local` declarations of the module (`globals`) and of `entry`, laid out.
    pub(super) fn of(globals: &[(usize, Vec<String>)], entry: &Entry) -> Result<Locals, Err> {
        let mut l = Locals::default();
        let decls = globals
            .iter()
            .map(|(o, w)| (*o, w))
            .chain(entry.body.iter().filter_map(|s| match &s.kind {
                StmtKind::Directive(w) => Some((s.off, w)),
                _ => None,
            }));
        let mut top = 0u32;
        let mut max_align = 4u32;
        for (off, w) in decls {
            if !w.iter().any(|x| x == ".local") {
                continue;
            }
            let align = match w.iter().position(|x| x == ".align") {
                Some(i) => w
                    .get(i + 1)
                    .and_then(|a| a.parse::<u32>().ok())
                    .filter(|a| a.is_power_of_two() && *a <= 4096)
                    .ok_or((
                        off,
                        "`.align` of a `.local` variable: a power of two".to_owned(),
                    ))?,
                None => 4,
            }
            .max(4);
            let elem = super::decl::elem_bytes(w) as u32;
            let decl = w.last().map_or("", String::as_str);
            let (name, n) =
                super::decl::name_and_count(decl, "local variable").map_err(|m| (off, m))?;
            let n = n.ok_or_else(|| (off, format!("local array `{decl}` without a size")))?;
            let (name, n) = (name.to_owned(), u32::try_from(n).unwrap_or(u32::MAX));
            let bytes = n.saturating_mul(elem);
            top = top.div_ceil(align).saturating_mul(align);
            l.vars.push((name, top, bytes));
            top = top.saturating_add(bytes);
            max_align = max_align.max(align);
        }
        l.bytes = top.div_ceil(max_align).saturating_mul(max_align);
        if l.bytes > MAX_LOCAL {
            return Err((
                entry.off,
                format!(
                    "the kernel uses {} bytes of local memory per thread, more than the GPU's \
                     {MAX_LOCAL}",
                    l.bytes
                ),
            ));
        }
        Ok(l)
    }

    /// The offset of local variable `name` in the thread's window.
    pub(super) fn offset(&self, name: &str) -> Option<u32> {
        self.vars.iter().find(|v| v.0 == name).map(|v| v.1)
    }

    /// The view of local memory as `elem`s (the first variable names it).
    pub(super) fn view(&mut self, elem: Elem) -> u16 {
        if let Some(&v) = self.views.get(&elem) {
            return v;
        }
        let name = self
            .vars
            .first()
            .map_or_else(|| "local".to_owned(), |v| v.0.clone());
        self.infos.push(LocalInfo { name, elem });
        let v = (self.infos.len() - 1) as u16;
        self.views.insert(elem, v);
        v
    }
}

impl Lower<'_> {
    /// `cvta.local.u64 d, a` (`d = a + LOCAL_GENERIC`, a generic pointer from a `.local`
    /// address) and `cvta.to.local.u64 d, a` (`d = a - LOCAL_GENERIC`, back).
    pub(super) fn cvta_local(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        if !matches!(parts.last(), Some(&"u64") | Some(&"b64")) || args.len() != 2 {
            return Err((
                off,
                format!("`{op}`: only 64-bit `cvta.local`/`cvta.to.local` with two operands are supported"),
            ));
        }
        let d = args[0].trim();
        let dst = self.reg(d, off)?.0;
        let a = self.val(&args[1], 2, off)?;
        let tag = self.konst(Mem::LOCAL_GENERIC, 2);
        if parts.get(1) == Some(&"to") {
            self.prov.remove(d);
            self.emit(Inst::Sub64 { dst, a, b: tag });
        } else {
            self.prov.insert(d.to_owned(), Prov::Local);
            self.emit(Inst::Add64 { dst, a, b: tag });
        }
        Ok(())
    }

    /// The view of local memory that an access of `bytes` (of PTX type `ty`) uses (a narrow
    /// access's has the access's element, for its widening).
    pub(super) fn local_view(&mut self, ty: &str, bytes: u32) -> u16 {
        let elem = match super::narrow::elem(ty) {
            Some(e) => e,
            None if bytes == 8 => Elem::F64,
            None => Elem::F32,
        };
        self.local.view(elem)
    }

    /// Whether the pointer in register `base` comes from `cvta.local` (followed by pointer
    /// arithmetic): a generic `ld`/`st` through it is then an access to local memory, lowered
    /// as `ld.local`/`st.local` on the same register (a generic local pointer's low word is
    /// its `.local` address). The hook for generic addressing.
    pub(super) fn local_origin(&self, base: &str) -> bool {
        self.prov.get(base.trim()) == Some(&Prov::Local)
    }
}
