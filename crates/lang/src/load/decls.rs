//! The program as a whole: its defines, launch geometry, buffers and shared arrays (with
//! their layouts), then the body.

use super::*;

impl Loader<'_> {
    pub(super) fn program(mut self, p: &file::ProgramSource) -> R<Program> {
        self.fold_defines(&p.defines)?;
        let grid = self.dims3(&p.launch.grid, "grid", MAX_GRID)?;
        let block = self.dims3(&p.launch.block, "block", MAX_BLOCK)?;
        let threads: i64 = block.iter().map(|&d| d as i64).product();
        if threads > MAX_THREADS_PER_BLOCK as i64 {
            let at = p.launch.block[0]
                .0
                .span
                .unwrap_or_else(|| self.find_field("block"));
            return Err(self.err_at(
                at,
                1,
                format!("a block of {threads} threads is more than the {MAX_THREADS_PER_BLOCK} a block may have"),
                Some("make the block smaller and the grid larger".to_owned()),
            ));
        }
        let blocks: u64 = grid.iter().map(|&d| d as u64).product();
        let total = blocks.saturating_mul(threads as u64);
        if total > self.opts.max_threads {
            let at = p.launch.grid[0]
                .0
                .span
                .unwrap_or_else(|| self.find_field("grid"));
            return Err(self.err_at(
                at,
                1,
                format!(
                    "the launch has {blocks} blocks of {threads} threads, {total} threads in all: \
                     more than the {} a launch may have (--max-threads)",
                    self.opts.max_threads
                ),
                Some(
                    "make the grid smaller (every thread is emulated), or raise --max-threads"
                        .to_owned(),
                ),
            ));
        }
        self.buffers(p)?;
        self.shared_arrays(p)?;
        self.cursor = p.name.span.unwrap_or(0);
        let kernel_file = self.kernel(p, grid, block)?;
        if !p.functions.is_empty() {
            self.functions(&p.functions)?;
            self.cursor = self.main_body_offset().unwrap_or(self.cursor);
        }
        self.block(&p.body)?;
        let end = self.src.trim_end().len().saturating_sub(1);
        let (line, col) = self.lines.line_col(&self.src, end);
        self.cur = (line, col, Arc::from("end of the kernel"));
        self.emit(Inst::Exit);
        // Check the CPU references now that every name is known.
        let expects: Vec<_> = p.buffers.iter().map(|b| b.expect.clone()).collect();
        for (i, e) in expects.into_iter().enumerate() {
            if let Some(t) = e {
                let (node, site) = self.parse_expr(&t)?;
                match warpsim_kernel::expr::permutation_source(&node) {
                    Some(src) => self.check_permutation(i, src, &node, site)?,
                    None => self.check_host(&node, site, &mut vec!["i".to_owned()])?,
                }
                let tolerance = p.buffers[i].tolerance.unwrap_or(1e-4);
                let line = self.line_of(&t);
                self.buffers[i].expect = Some(Expect {
                    text: t.text.clone(),
                    node,
                    tolerance,
                    line,
                    offset: t.span,
                });
            }
        }
        self.checks(p)?;
        let nregs = self.high_water.max(self.next_reg).max(1);
        if let Some(r) = p.regs_per_thread.filter(|r| !(1..=255).contains(r)) {
            let at = self.find_field("regs_per_thread");
            return Err(self.err_at(
                at,
                1,
                format!("regs_per_thread: {r} is not a register count a GPU thread can have"),
                Some("write what ptxas -v reports, 1 to 255".to_owned()),
            ));
        }
        let (path, max) = (self.path, self.opts.max_buffer_bytes);
        let prog = Program {
            name: p.name.text.clone(),
            path: kernel_file
                .as_ref()
                .map_or_else(|| self.path.to_owned(), |f| f.0.clone()),
            source: kernel_file.map_or_else(|| self.src.clone(), |f| f.1),
            launch_path: self.path.to_owned(),
            launch_source: self.src.clone(),
            kernel_files: self.kernel_files,
            defines: self.defines,
            grid,
            block,
            buffers: self.buffers,
            shared_bytes: self
                .kernel_shared_bytes
                .unwrap_or_else(|| self.shared.last().map_or(0, |s| s.base + s.bytes)),
            shared: self.shared,
            local: self.kernel_local.0,
            local_bytes: self.kernel_local.1,
            code: self.code,
            info: self.info,
            nregs,
            init: self.init,
            max_depth: self.max_depth,
            regs_per_thread: p.regs_per_thread,
            shared_stream: self.kernel_shared_bytes.map(|_| match self.opts.no_merge {
                true => "as-written",
                false => "ptxas-merged",
            }),
            formats: self.kernel_formats,
            mmas: self.mmas,
            wgmmas: self.wgmmas,
            tensor_maps: self.tensor_maps,
        };
        let kept = prog.resident_bytes();
        if kept > max {
            return Err(Diag::file(
                Phase::Check,
                path,
                format!(
                    "the program's {} instructions and its buffers take about {kept} bytes, more \
                     than --max-memory {max}",
                    prog.code.len()
                ),
                Some("raise --max-memory, or make the kernel shorter".into()),
            ));
        }
        Ok(prog)
    }

    /// Offset of `field:` in the file (for values written without quotes, which keep no span).
    pub(super) fn find_field(&self, field: &str) -> usize {
        let pat = format!("{field}:");
        self.src.find(&pat).unwrap_or(self.cursor)
    }

    /// The launch dimensions, each within CUDA's limit for it (`max`, x, y, z).
    pub(super) fn dims3(&self, dims: &[Expr], what: &str, max: [i64; 3]) -> R<[u32; 3]> {
        if dims.is_empty() || dims.len() > 3 {
            let at = dims
                .first()
                .and_then(|d| d.0.span)
                .unwrap_or_else(|| self.find_field(what));
            return Err(self.err_at(
                at,
                1,
                format!(
                    "the {what} has {} dimensions; give 1 to 3 (x, y, z)",
                    dims.len()
                ),
                None,
            ));
        }
        let mut out = [1u32; 3];
        for (i, d) in dims.iter().enumerate() {
            let v = self.const_int(d, &format!("{what} dimension {i}"))?;
            if v < 1 || v > max[i] {
                let at = d.0.span.unwrap_or_else(|| self.find_field(what));
                return Err(self.err_at(
                    at,
                    d.0.text.len(),
                    format!(
                        "{what} dimension {} is {v}; CUDA allows 1 to {} (a {what} may be at \
                         most {} x {} x {})",
                        ["x", "y", "z"][i],
                        max[i],
                        max[0],
                        max[1],
                        max[2]
                    ),
                    Some("check the defines it uses".to_owned()),
                ));
            }
            out[i] = v as u32;
        }
        Ok(out)
    }

    pub(super) fn check_name(&self, t: &Text, what: &str) -> R<()> {
        let n = &t.text;
        if !is_ident(n) {
            return Err(self.err_text(
                t,
                format!("`{n}` is not a valid {what} name"),
                Some("use letters, digits and _, starting with a letter".to_owned()),
            ));
        }
        if special(n).is_some()
            || expr::builtins::lookup(n, expr::Context::Kernel).is_some()
            || n == "i" && what == "buffer"
        {
            return Err(self.err_text(
                t,
                format!("`{n}` is a built-in name and cannot name a {what}"),
                Some("choose another name".to_owned()),
            ));
        }
        if self.define(n).is_some()
            || self.buffers.iter().any(|b| &b.name == n)
            || self.shared.iter().any(|s| &s.name == n)
        {
            return Err(self.err_text(
                t,
                format!("`{n}` is already the name of a define or an array"),
                Some("choose another name".to_owned()),
            ));
        }
        Ok(())
    }

    pub(super) fn buffers(&mut self, p: &file::ProgramSource) -> R<()> {
        let mut total: u64 = 0;
        for b in &p.buffers {
            // Plain integers have no span: their errors are found from here.
            self.cursor = b.name.span.unwrap_or(self.cursor);
            self.check_name(&b.name, "buffer")?;
            let len = self.const_int(&b.len, "a buffer length")?;
            if len < 1 {
                return Err(self.err_text(
                    &b.len.0,
                    format!(
                        "buffer `{}` would have {len} elements; it needs at least 1",
                        b.name
                    ),
                    None,
                ));
            }
            let bytes = (len as u64).saturating_mul(b.ty.bytes() as u64);
            let before = total;
            total = total.saturating_add(bytes);
            if total > self.opts.max_buffer_bytes {
                let all = if before > 0 {
                    format!(", {total} bytes with the buffers before it")
                } else {
                    String::new()
                };
                return Err(self.err_text(
                    &b.len.0,
                    format!(
                        "buffer `{}` asks for {len} elements ({bytes} bytes{all}); all buffers together may take at most {} bytes",
                        b.name, self.opts.max_buffer_bytes
                    ),
                    Some("use smaller defines (e.g. --define N=…), or raise --max-memory".to_owned()),
                ));
            }
            if len > u32::MAX as i64 {
                return Err(self.err_text(
                    &b.len.0,
                    format!(
                        "buffer `{}` asks for {len} elements; a buffer may have at most {} (32-bit indices)",
                        b.name,
                        u32::MAX
                    ),
                    Some("use smaller defines (e.g. --define N=…)".to_owned()),
                ));
            }
            if let Some(t) = b.tolerance {
                if !(0.0..1.0).contains(&t) {
                    return Err(self.err_text(
                        &b.name,
                        format!("tolerance {t} of `{}` is not in [0, 1)", b.name),
                        None,
                    ));
                }
            }
            self.buffers.push(BufferInfo {
                name: b.name.text.clone(),
                elem: b.ty,
                len: len as u64,
                init: b.init,
                expect: None,
                check: None,
                line: self.line_of(&b.name),
                constant: None,
            });
        }
        Ok(())
    }

    pub(super) fn shared_arrays(&mut self, p: &file::ProgramSource) -> R<()> {
        let mut base: u64 = 0;
        for s in &p.shared {
            self.cursor = s.name.span.unwrap_or(self.cursor);
            self.check_name(&s.name, "shared array")?;
            if s.dims.is_empty() || s.dims.len() > 3 {
                return Err(self.err_text(
                    &s.name,
                    format!(
                        "shared array `{}` has {} dimensions; give 1 to 3",
                        s.name,
                        s.dims.len()
                    ),
                    None,
                ));
            }
            let mut dims = Vec::new();
            for d in &s.dims {
                let v = self.const_int(d, "an array dimension")?;
                if !(1..=1 << 20).contains(&v) {
                    return Err(self.err_text(
                        &d.0,
                        format!(
                            "dimension {} of `{}` is {v}; it must be between 1 and 1048576",
                            dims.len() + 1,
                            s.name
                        ),
                        None,
                    ));
                }
                dims.push(v as u32);
            }
            let forced = self
                .opts
                .layouts
                .iter()
                .find(|(n, _)| *n == s.name.text)
                .map(|l| l.1)
                .unwrap_or_default();
            let pad = match (forced.pad, &s.pad) {
                (Some(p), _) => p as i64,
                (None, Some(e)) => self.const_int(e, "padding")?,
                (None, None) => 0,
            };
            let swz = match (forced.swizzle, &s.swizzle) {
                (Some(p), _) => p as i64,
                (None, Some(e)) => self.const_int(e, "a swizzle")?,
                (None, None) => 0,
            };
            let cols = *dims.last().unwrap_or(&1) as i64;
            if !(0..=4096).contains(&pad) {
                return Err(self.err_text(
                    &s.name,
                    format!(
                        "padding {pad} of `{}` must be between 0 and 4096 elements",
                        s.name
                    ),
                    None,
                ));
            }
            if swz < 0 || (swz > 0 && (cols % swz != 0 || !((cols / swz) as u64).is_power_of_two()))
            {
                return Err(self.err_text(
                    &s.name,
                    format!("swizzle {swz} of `{}` does not fit its rows of {cols} elements", s.name),
                    Some("the swizzle group must divide the row length into a power-of-two number of groups (0 turns it off)".to_owned()),
                ));
            }
            let rows: u64 = dims[..dims.len() - 1].iter().map(|&d| d as u64).product();
            let row_len = cols as u64 + pad as u64;
            let bytes = rows * row_len * s.ty.bytes() as u64;
            base = base.div_ceil(16) * 16;
            let limit = self.opts.shared_limit.min(warpsim_kernel::MAX_SHARED_LIMIT);
            if base + bytes > limit as u64 {
                return Err(self.err_text(
                    &s.name,
                    format!(
                        "shared array `{}` needs {bytes} bytes, which takes the block's shared memory to {} bytes, over the limit of {}",
                        s.name,
                        base + bytes,
                        limit
                    ),
                    Some(if limit < warpsim_kernel::MAX_SHARED_LIMIT {
                        "make it smaller, or raise the limit with --shared-limit".to_owned()
                    } else {
                        "make it smaller: a block may have at most 2 GiB of shared memory (2147483648 bytes)".to_owned()
                    }),
                ));
            }
            self.shared.push(SharedInfo {
                name: s.name.text.clone(),
                elem: s.ty,
                dims,
                pad: pad as u32,
                swizzle: swz as u32,
                base: base as u32,
                row_len: row_len as u32,
                rows: rows as u32,
                bytes: bytes as u32,
                line: self.line_of(&s.name),
            });
            base += bytes;
        }
        Ok(())
    }
}
