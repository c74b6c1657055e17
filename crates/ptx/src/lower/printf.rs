//! CUDA's `printf`: the `vprintf RET, FMT, ARGS` statement inline.rs makes of a call of the
//! `.extern` `vprintf` → [`Inst::Printf`].
//!
//! NVRTC puts each format string in the module as `.global .align 1 .b8 $str[N] = {…}` and
//! passes `cvta.global` of `mov.u64 %rd, $str`; the arguments are packed in the thread's
//! `__local_depot` and passed as a generic pointer to it. The format must be such a literal
//! (followed through `mov` and `cvta`), so that it is known, and checked, before the run
//! (`warpsim_kernel::printf::parse`); the arguments are read per lane when it runs.

use super::{Err, Instr, Lower};
use std::collections::BTreeMap;
use warpsim_kernel::ir::Inst;

/// Whether `name` is one of NVRTC's string literals (`$str…`, `__unnamed_…`).
pub(super) fn is_literal(name: &str) -> bool {
    name.starts_with("$str") || name.starts_with("__unnamed_")
}

/// The module's string literals: name → bytes up to the first zero, in name order.
pub(super) fn literals(globals: &[(usize, Vec<String>)]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for (_, w) in globals {
        let text = w.join(" ");
        let Some((decl, init)) = text.split_once('=') else {
            continue;
        };
        let Some(Ok((name, _))) = decl
            .split_whitespace()
            .last()
            .map(|l| super::decl::name_and_count(l, "string literal"))
        else {
            continue;
        };
        if !is_literal(name) {
            continue;
        }
        let bytes: Vec<u8> = super::constants::init_items(init)
            .filter_map(super::int)
            .map(|v| v as u8)
            .take_while(|&b| b != 0)
            .collect();
        out.insert(name.to_owned(), bytes);
    }
    out
}

/// The index of literal `name` among `literals` in name order (what a `%s` pointer holds:
/// `Format::strings` lists them in that order).
pub(super) fn literal_index(literals: &BTreeMap<String, Vec<u8>>, name: &str) -> Option<usize> {
    literals.keys().position(|k| k == name)
}

impl Lower<'_> {
    /// The string literal a `mov`/`cvta` source names, if any: the literal itself, or a
    /// register holding a pointer to one (the literal's name).
    pub(super) fn string_of(&self, src: &str) -> Option<String> {
        if let Some(lit) = self.str_regs.get(src) {
            return Some(lit.clone());
        }
        self.literals.contains_key(src).then(|| src.to_owned())
    }

    /// `vprintf RET, FMT, ARGS` → [`Inst::Printf`], its format parsed here once.
    pub(super) fn printf(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, _, _, args) = i;
        let [ret, fmt, packed] = args else {
            return Err((
                off,
                "`printf`: a call of `vprintf` with other operands".into(),
            ));
        };
        let Some(text) = self
            .str_regs
            .get(fmt.trim())
            .and_then(|lit| self.literals.get(lit))
        else {
            return Err((
                off,
                "`printf` with a format that is not a string literal of the module: warpsim \
                 checks the format before the run, so it must be a literal (`printf(\"…\", …)`)"
                    .into(),
            ));
        };
        let mut format = warpsim_kernel::printf::Format::parse(text).map_err(|m| {
            let shown = String::from_utf8_lossy(text).escape_debug().to_string();
            (off, format!("`printf(\"{shown}\", …)`: {m}"))
        })?;
        let strings = format
            .pieces
            .iter()
            .any(|p| matches!(p, warpsim_kernel::printf::Piece::Conv(s) if s.conv == b's'));
        if strings {
            format.strings = self.literals.values().cloned().collect();
        }
        let k = u16::try_from(self.formats.len()).map_err(|_| {
            (
                off,
                "more than 65,536 `printf` calls in one kernel".to_owned(),
            )
        })?;
        self.formats.push(format);
        let dst = self.reg(ret.trim(), off)?.0;
        let args = self.val(packed, 2, off)?;
        self.emit(Inst::Printf { dst, args, fmt: k });
        Ok(())
    }
}
