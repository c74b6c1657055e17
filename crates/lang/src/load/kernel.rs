//! Kernels given as CUDA or PTX (`cuda:` / `ptx:` in place of `shared` and `body`).
//!
//! The loader checks the launch side as for any program — defines, launch, buffers and their
//! references, `dynamic_shared`, the arguments — and hands the kernel to the PTX front end
//! ([`warpsim_ptx::frontend`], which lowers CUDA or PTX to [`Inst`](warpsim_kernel::ir::Inst)s).
//! The front end gives back the code, its shared memory and the file its source positions
//! point into.

use super::{Loader, R};
use crate::file::{self, KernelSource, Text};
use std::path::Path;
use std::sync::Arc;
use warpsim_kernel::expr::{BinOp, Kind, Node, UnOp};
use warpsim_kernel::{KernelArg, KernelError, KernelRequest};

impl Loader<'_> {
    /// The kernel of a `cuda:`/`ptx:` program, lowered by the front end into the loader's
    /// code, registers and shared arrays; `None` for a program with a `body`. Gives the file
    /// and text the instructions' positions point into.
    pub(super) fn kernel(
        &mut self,
        p: &file::ProgramSource,
        grid: [u32; 3],
        block: [u32; 3],
    ) -> R<Option<(String, Arc<str>)>> {
        let (k, cuda) = match (&p.cuda, &p.ptx) {
            (None, None) => {
                if let Some(m) = p.macros.first() {
                    return Err(self.err_text(m, "`macros` without a `cuda:` kernel", None));
                }
                if let Some(d) = &p.launch.dynamic_shared {
                    let m = "`dynamic_shared` without a `cuda:` or `ptx:` kernel";
                    return Err(self.err_text(&d.0, m, None));
                }
                if let Some(c) = p.constants.first() {
                    let m = "`constants` without a `cuda:` or `ptx:` kernel";
                    return Err(self.err_text(&c.name, m, None));
                }
                if let Some(t) = p.tensor_maps.first() {
                    let m = "`tensor_maps` without a `cuda:` or `ptx:` kernel";
                    return Err(self.err_text(&t.name, m, None));
                }
                return Ok(None);
            }
            (Some(k), None) => (k, true),
            (None, Some(k)) => (k, false),
            (Some(_), Some(k)) => {
                let m = "a program has either `cuda:` or `ptx:`, not both";
                return Err(self.err_text(&k.file, m, None));
            }
        };
        if !p.body.is_empty() || !p.shared.is_empty() {
            let m = "a `cuda:` or `ptx:` program has no `shared` or `body`: the kernel's source \
                     declares its shared memory and code";
            return Err(self.err_text(&k.file, m, None));
        }
        let dynamic_shared = match &p.launch.dynamic_shared {
            Some(e) => {
                let v = self.const_int(e, "dynamic shared memory")?;
                u32::try_from(v)
                    .ok()
                    .filter(|&v| v <= self.opts.shared_limit)
                    .ok_or_else(|| {
                        self.err_text(
                            &e.0,
                            format!(
                                "dynamic_shared: {v} bytes is not between 0 and the block's {} \
                                 bytes of shared memory",
                                self.opts.shared_limit
                            ),
                            None,
                        )
                    })?
            }
            None => 0,
        };
        let mut macros = Vec::new();
        for m in &p.macros {
            let v = self.define(&m.text).ok_or_else(|| {
                self.err_text(
                    m,
                    format!("`{}` in `macros` is not a define", m.text),
                    Some(format!("defines: {}", self.define_list())),
                )
            })?;
            macros.push((m.text.clone(), v));
        }
        self.tensor_maps(p)?;
        let args = k
            .args
            .iter()
            .map(|a| self.kernel_arg(&a.0))
            .collect::<R<Vec<_>>>()?;
        let file = self.kernel_file(k)?;
        let kernel_path = file.clone();
        if let (false, Some(t)) = (cuda, k.include_paths.first()) {
            let m = "`include_paths` is for `cuda:` kernels: PTX includes nothing";
            return Err(self.err_text(t, m, Some("remove it".into())));
        }
        let include_paths = self.include_paths(k)?;
        let const_types = Self::const_types(p);
        let req = KernelRequest {
            cuda,
            file,
            kernel: k.kernel.text.clone(),
            args,
            macros,
            buffers: &self.buffers,
            block,
            grid,
            dynamic_shared,
            shared_limit: self.opts.shared_limit,
            merge: !self.opts.no_merge,
            const_types: &const_types,
            include_paths: &include_paths,
            any_include: self.opts.any_include,
        };
        let code = match warpsim_ptx::frontend(&req) {
            Ok(c) => c,
            Err(KernelError::Diag(mut d)) => {
                // Where in the launch file the kernel was asked for.
                let at = self.err_text(&k.kernel, "the kernel launched here", None);
                d.related.push(at);
                return Err(*d);
            }
            Err(KernelError::Launch { arg, message, help }) => {
                let at = arg.and_then(|i| k.args.get(i)).map_or(&k.kernel, |a| &a.0);
                return Err(self.err_text(at, message, help));
            }
        };
        self.const_buffers(p, &code.constants)?;
        self.code = code.code;
        self.info = code.info;
        self.init = code.init;
        self.high_water = self.high_water.max(code.nregs);
        self.max_depth = self.max_depth.max(code.max_depth);
        self.shared = code.shared;
        self.kernel_shared_bytes = Some(code.shared_bytes);
        self.kernel_local = (code.local, code.local_bytes);
        self.kernel_formats = code.formats;
        self.kernel_files = std::iter::once(kernel_path).chain(code.headers).collect();
        self.mmas = code.mmas;
        self.wgmmas = code.wgmmas;
        Ok(Some((code.path, code.source)))
    }

    /// The kernel's file, relative to the program file's directory.
    fn kernel_file(&self, k: &KernelSource) -> R<String> {
        let dir = Path::new(self.path).parent().unwrap_or(Path::new(""));
        let file = dir.join(&k.file.text);
        if !file.is_file() {
            use warpsim_kernel::input::{open_regular, InputError};
            let message = match open_regular(&file) {
                Err(e @ InputError::NotRegular(_)) => format!("{}: {e}", file.display()),
                _ => format!("no such file: {}", file.display()),
            };
            return Err(self.err_text(
                &k.file,
                message,
                Some("the kernel's file is named relative to the program file".into()),
            ));
        }
        Ok(file.to_string_lossy().into_owned())
    }

    /// The folders the `.cu` may include from: the launch file's `include_paths` (relative to
    /// it, each a folder), then `--include-path`'s.
    fn include_paths(&self, k: &KernelSource) -> R<Vec<String>> {
        let dir = Path::new(self.path).parent().unwrap_or(Path::new(""));
        let mut out = Vec::new();
        for t in &k.include_paths {
            let d = dir.join(&t.text);
            if !d.is_dir() {
                return Err(self.err_text(
                    t,
                    format!("no such folder: {}", d.display()),
                    Some("include folders are named relative to the program file".into()),
                ));
            }
            out.push(d.to_string_lossy().into_owned());
        }
        out.extend(self.opts.include_paths.iter().cloned());
        Ok(out)
    }

    /// One argument: a buffer, a buffer plus an element offset, or an integer of defines.
    fn kernel_arg(&self, a: &Text) -> R<KernelArg> {
        let (n, site) = self.parse_expr(a)?;
        let buffer = |name: &str| {
            self.buffers
                .iter()
                .position(|b| b.name == name)
                .map(|i| i as u16)
        };
        // A float parameter's number (the front end checks it against the parameter's type).
        if let Some(x) = float_literal(&n) {
            return Ok(KernelArg::Float(x));
        }
        let map = |name: &str| self.tensor_maps.iter().position(|m| m.name == name);
        match &n.kind {
            Kind::Name(name) if map(name).is_some() => {
                Ok(KernelArg::TensorMap(map(name).unwrap_or(0) as u16))
            }
            Kind::Name(name) if buffer(name).is_some() => Ok(KernelArg::Buffer {
                index: buffer(name).unwrap_or(0),
                offset: 0,
            }),
            Kind::Binary(op @ (BinOp::Add | BinOp::Sub), l, r) => match &l.kind {
                Kind::Name(name) if buffer(name).is_some() => {
                    let off = self.fold_int(r, site, "a buffer offset")?;
                    Ok(KernelArg::Buffer {
                        index: buffer(name).unwrap_or(0),
                        offset: if *op == BinOp::Sub { -off } else { off },
                    })
                }
                _ => Ok(KernelArg::Int(self.fold_int(
                    &n,
                    site,
                    "a kernel argument",
                )?)),
            },
            _ => Ok(KernelArg::Int(self.fold_int(
                &n,
                site,
                "a kernel argument",
            )?)),
        }
    }
}

/// A float literal, or its negation (`1.5`, `-2e-3`).
fn float_literal(n: &Node) -> Option<f64> {
    match &n.kind {
        Kind::Float(x) => Some(*x),
        Kind::Unary(UnOp::Neg, a) => float_literal(a).map(|x| -x),
        _ => None,
    }
}
