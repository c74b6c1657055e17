//! CUDA's `printf`: the `vprintf RET, FMT, ARGS` statement inline.rs makes of a call of the
//! `.extern` `vprintf` → [`Inst::Printf`].
//!
//! NVRTC puts each format string in the module as `.global .align 1 .b8 $str[N] = {…}` and
//! passes `cvta.global` of `mov.u64 %rd, $str`; the arguments are packed in the thread's
//! `__local_depot` and passed as a generic pointer to it. The format must be such a literal
//! (followed through `mov` and `cvta`), so that it is known, and checked, before the run
//! (`warpsim_kernel::printf::parse`); the arguments are read per lane when it runs.

use super::{Err, Instr, Lower};
use std::collections::HashMap;
use warpsim_kernel::ir::Inst;

/// The module's string literals (`$str…`, `__unnamed_…`): name → bytes up to the first zero.
pub(super) fn literals(globals: &[(usize, Vec<String>)]) -> HashMap<String, Vec<u8>> {
    let mut out = HashMap::new();
    for (_, w) in globals {
        let text = w.join(" ");
        let Some((decl, init)) = text.split_once('=') else {
            continue;
        };
        let Some(last) = decl.split_whitespace().last() else {
            continue;
        };
        let name = last.split('[').next().unwrap_or(last);
        if !(name.starts_with("$str") || name.starts_with("__unnamed_")) {
            continue;
        }
        let bytes: Vec<u8> = init
            .trim()
            .trim_start_matches('{')
            .trim_end_matches(';')
            .trim_end_matches('}')
            .split(',')
            .filter_map(|v| super::int(v.trim()))
            .map(|v| v as u8)
            .take_while(|&b| b != 0)
            .collect();
        out.insert(name.to_owned(), bytes);
    }
    out
}

impl Lower<'_> {
    /// The format string a `mov`/`cvta` source names, if any: a literal, or a register
    /// holding one (its index in [`Lower::strings`]).
    pub(super) fn string_of(&mut self, src: &str) -> Option<u16> {
        if let Some(&k) = self.str_regs.get(src) {
            return Some(k);
        }
        let bytes = self.literals.get(src)?.clone();
        let k = match self.strings.iter().position(|s| *s == bytes) {
            Some(k) => k,
            None => {
                self.strings.push(bytes);
                self.strings.len() - 1
            }
        };
        u16::try_from(k).ok()
    }

    /// `vprintf RET, FMT, ARGS` → [`Inst::Printf`].
    pub(super) fn printf(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, _, _, args) = i;
        let [ret, fmt, packed] = args else {
            return Err((
                off,
                "`printf`: a call of `vprintf` with other operands".into(),
            ));
        };
        let Some(k) = self.str_regs.get(fmt.trim()).copied() else {
            return Err((
                off,
                "`printf` with a format that is not a string literal of the module: warpsim \
                 checks the format before the run, so it must be a literal (`printf(\"…\", …)`)"
                    .into(),
            ));
        };
        let text = &self.strings[k as usize];
        let pieces = warpsim_kernel::printf::parse(text).map_err(|m| {
            let shown = String::from_utf8_lossy(text).escape_debug().to_string();
            (off, format!("`printf(\"{shown}\", …)`: {m}"))
        })?;
        let _ = pieces;
        let dst = self.reg(ret.trim(), off)?.0;
        let args = self.val(packed, 2, off)?;
        self.emit(Inst::Printf { dst, args, fmt: k });
        Ok(())
    }
}
