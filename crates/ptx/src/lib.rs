//! The PTX front end of warpsim: PTX text → the executor's lowered code.
//!
//! # Brief overview
//!
//! * `parse`: the PTX of a module → its entries (parameters, body statements with their
//!   `.loc` source lines), module-level declarations and `.file` names.
//! * `inline`: the entry's `.func` calls inlined (registers and labels renamed per call
//!   site); `generic`: each generic `ld`/`st`/`atom` given the state space its address comes
//!   from, by dataflow.
//! * `lower`: one entry → [`warpsim_kernel::ir::Inst`]s: PTX registers to the executor's
//!   (64-bit ones as pairs), `ld`/`st` to byte-addressed accesses (shared addresses are offsets
//!   in the block's shared window; a global pointer is `(buffer + 1) << 40` plus a byte
//!   offset), and basic blocks whose conditional branches reconverge at their immediate
//!   post-dominator (a `Join` there).
//!
//! * `cuda`, `nvrtc`, `cache`: a `cuda:` kernel's `.cu` → PTX through NVRTC opened at run
//!   time, cached on disk, with its launch checked against the kernel's signature.
//!
//! [`frontend`] is what the RON loader (`warpsim-lang`) calls for a program file with
//! `ptx: (file, kernel, args)` or `cuda: (file, kernel, args)`, so that it loads like any
//! other. This crate depends on `warpsim-kernel` (and the bank model's types) only.

mod generic;
mod inline;
mod lower;
mod merge;
mod parse;
mod wmma;

// `cuda:` kernels: CUDA source through NVRTC to PTX.
mod cache;
mod cuda;
mod includes;
mod nvrtc;

pub use parse::{parse, Entry, Module};

use std::sync::Arc;
use warpsim_kernel::InstInfo;
use warpsim_kernel::{kernel_diag, KernelArg, KernelCode, KernelError, KernelRequest};

/// Where a refused instruction's message sends the user.
const COVERAGE: &str = "the book's \"PTX coverage\" page (docs/src/ptx-coverage.md) lists every \
                        PTX instruction warpsim runs, and why each other one is refused";

/// Compiles a kernel request: PTX, or CUDA through NVRTC (`cuda.rs`) and then its PTX.
pub fn frontend(req: &KernelRequest) -> Result<KernelCode, KernelError> {
    let (file, src, kernel, cu_given, headers) = ptx_of(req)?;
    // In NVRTC's PTX, say which `.cu` line the PTX comes from.
    let from_cu = |off: usize| {
        let (cu, text) = cu_given.as_ref()?;
        let line = cuda::cu_line(&src, off)?;
        let code = text.lines().nth(line as usize - 1).unwrap_or("").trim();
        Some(format!("it comes from {cu}:{line}: {code}"))
    };
    let diag = |off: usize, m: String| {
        // A refused instruction points at the coverage table, where each refusal says why.
        let help = match (from_cu(off), m.contains("not supported")) {
            (h, false) => h,
            (Some(h), true) => Some(format!("{h}; {COVERAGE}")),
            (None, true) => Some(COVERAGE.into()),
        };
        kernel_diag(&file, &src, off, 1, m, help)
    };
    let module = parse::parse(&src).map_err(|(o, m)| diag(o, m))?;
    let entry = entry_named(&module, &kernel, req)?;
    check_bounds(entry, req.block)
        .map_err(|(o, m, h)| kernel_diag(&file, &src, o, 1, m, Some(h)))?;
    // `.func` calls inlined (inline.rs), generic accesses given their space (generic.rs).
    let mut entry = inline::expand(&module, entry).map_err(|(o, m)| diag(o, m))?;
    // WMMA as the ldmatrix, mma.sync and accesses ptxas makes of it (wmma.rs).
    wmma::expand(&mut entry.body).map_err(|(o, m)| diag(o, m))?;
    let globals = inline::used_globals(&module.globals, &entry.body);
    if req.args.len() == entry.params.len() {
        let params: Vec<(String, bool)> = (entry.params.iter().zip(&req.args))
            .map(|(p, a)| (p.0.clone(), matches!(a, KernelArg::Buffer { .. })))
            .collect();
        generic::resolve(&mut entry.body, &params, &globals).map_err(|(o, m)| diag(o, m))?;
    }
    // Every constant symbol of the module (each a buffer of the launch: lower/constants.rs).
    let constants =
        lower::constants::symbols(&module.globals, req.const_types).map_err(|(o, m)| diag(o, m))?;
    let low = lower::lower(req, &entry, &globals, &constants).map_err(|(o, m)| {
        if o == usize::MAX {
            KernelError::Launch {
                arg: None,
                message: m,
                help: None,
            }
        } else if o > usize::MAX - 1000 {
            KernelError::Launch {
                arg: Some(usize::MAX - 1 - o),
                message: m,
                help: None,
            }
        } else {
            diag(o, m)
        }
    })?;
    // Positions: the CUDA file named by `.file 1` when it is there, else the PTX lines.
    let dir = std::path::Path::new(&req.file)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let cu = cu_given.or_else(|| {
        module.files.iter().find(|f| f.0 == 1).and_then(|f| {
            let p = dir.join(std::path::Path::new(&f.1).file_name()?);
            // Through the capped reader: a FIFO named like the `.cu` is not opened.
            let t = warpsim_kernel::input::read_text_capped(
                &p,
                warpsim_kernel::diag::MAX_PROGRAM_BYTES,
            )
            .ok()?;
            Some((
                p.to_string_lossy().into_owned(),
                Arc::<str>::from(t.as_str()),
            ))
        })
    });
    let line_starts = |t: &str| -> Vec<usize> {
        std::iter::once(0)
            .chain(t.match_indices('\n').map(|(i, _)| i + 1))
            .collect()
    };
    let ptx_lines = line_starts(&src);
    // The `.cu`'s lines by number, found once (a lookup per instruction from the top of the
    // file made a large `.cu` quadratic).
    let cu_lines = cu.as_ref().map_or_else(Vec::new, |(_, t)| line_starts(t));
    let cu_line = |t: &str, line: u32| -> String {
        let Some(&from) = cu_lines.get(line as usize - 1) else {
            return String::new();
        };
        let rest = &t[from..];
        rest[..rest.find('\n').unwrap_or(rest.len())]
            .trim()
            .to_owned()
    };
    let info = |(line, col, off): (u32, u32, usize)| -> InstInfo {
        let pl = ptx_lines.partition_point(|&s| s <= off).max(1);
        let stmt = match low.texts.get(&off) {
            Some(t) => t.clone(),
            None => src[off.min(src.len())..]
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_owned(),
        };
        match &cu {
            Some((_, t)) if line > 0 => InstInfo {
                line,
                col: col.max(1),
                text: format!("{}  [{}]", cu_line(t, line), stmt).into(),
            },
            _ => InstInfo {
                line: pl as u32,
                col: (off - ptx_lines[pl - 1] + 1) as u32,
                text: stmt.into(),
            },
        }
    };
    let infos = low.info.iter().map(|&i| info(i)).collect();
    let (path, source) = match cu {
        Some(c) if low.info.iter().any(|i| i.0 > 0) => c,
        _ => (file.clone(), src.clone()),
    };
    Ok(KernelCode {
        code: low.code,
        info: infos,
        init: low.init,
        nregs: low.nregs,
        shared: low.shared,
        shared_bytes: low.shared_bytes,
        local: low.local,
        local_bytes: low.local_bytes,
        max_depth: low.max_depth,
        path,
        source,
        headers,
        constants,
        formats: low.formats,
        mmas: low.mmas,
        wgmmas: low.wgmmas,
    })
}

/// The entry named `name`: exactly, or the one whose mangled name is `_Z<len><name>…`.
/// The PTX of a request: its file's name (the cache file for CUDA) and text, the kernel's
/// entry name in it, and for a `cuda:` kernel its `.cu` file and text and the headers it
/// includes.
type PtxOf = (
    String,
    Arc<str>,
    String,
    Option<(String, Arc<str>)>,
    Vec<String>,
);

/// The PTX of a request: read, or CUDA compiled through NVRTC (`cuda.rs`, cached).
fn ptx_of(req: &KernelRequest) -> Result<PtxOf, KernelError> {
    if req.cuda {
        let c = cuda::compile(req)?;
        return Ok((c.ptx_path, c.ptx, c.lowered, Some(c.cu), c.headers));
    }
    let text = warpsim_kernel::input::read_text_capped(
        std::path::Path::new(&req.file),
        warpsim_kernel::diag::MAX_PROGRAM_BYTES,
    )
    .map_err(|e| KernelError::Launch {
        arg: None,
        message: format!("cannot read {}: {e}", req.file),
        help: Some(e.help()),
    })?;
    // (Without a UTF-8 byte order mark, as for program files.)
    let src: Arc<str> = Arc::from(text.strip_prefix('\u{feff}').unwrap_or(&text));
    Ok((req.file.clone(), src, req.kernel.clone(), None, Vec::new()))
}

/// The launch's block against the entry's `.reqntid` (exactly that shape: Triton's
/// `num_warps` warps) and `.maxntid` (at most that many threads: `__launch_bounds__`), which
/// the GPU refuses to launch otherwise: an error at the directive, with the shape to use.
fn check_bounds(entry: &parse::Entry, block: [u32; 3]) -> Result<(), (usize, String, String)> {
    let shape = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let threads: u64 = block.iter().map(|&b| u64::from(b)).product();
    for (off, d, sizes) in &entry.bounds {
        let mut want = [1u64; 3];
        want[..sizes.len()].copy_from_slice(sizes);
        let given = shape(&block.map(u64::from));
        if d == ".reqntid" && want != block.map(u64::from) {
            return Err((
                *off,
                format!(
                    "the kernel requires a block of exactly ({}) threads (`{d} {}`); the launch \
                     gives ({given}), which the GPU refuses to launch",
                    shape(&want),
                    shape(sizes)
                ),
                format!(
                    "launch it with block ({}) (a Triton kernel: 32 x its num_warps threads)",
                    shape(&want)
                ),
            ));
        }
        let most = want.iter().fold(1u64, |a, &b| a.saturating_mul(b));
        if d == ".maxntid" && threads > most {
            return Err((
                *off,
                format!(
                    "the launch's block ({given}) has {threads} threads, more than the kernel's \
                     `{d} {}` allows ({most}), which the GPU refuses to launch",
                    shape(sizes)
                ),
                format!("launch it with at most {most} threads a block (CUDA's __launch_bounds__)"),
            ));
        }
    }
    Ok(())
}

/// The PTX types of the requested kernel's parameters (`.u64`, `.f32`, `.s32`, …), in order,
/// with the same errors as [`frontend`] for a kernel that does not compile or is not there
/// (a `cuda:` kernel's `args` are checked against its signature first: give a buffer for
/// each pointer). The Python package types a launch's scalars from them.
pub fn param_types(req: &KernelRequest) -> Result<Vec<String>, KernelError> {
    let (file, src, kernel, _, _) = ptx_of(req)?;
    let module = parse::parse(&src).map_err(|(o, m)| kernel_diag(&file, &src, o, 1, m, None))?;
    let entry = entry_named(&module, &kernel, req)?;
    Ok(entry.params.iter().map(|p| p.1.clone()).collect())
}

/// The kernel `name` of `m`, or the "no kernel" error listing the kernels there.
fn entry_named<'m>(
    m: &'m parse::Module,
    name: &str,
    req: &KernelRequest,
) -> Result<&'m parse::Entry, KernelError> {
    find_entry(m, name).ok_or_else(|| KernelError::Launch {
        arg: None,
        message: format!("no kernel `{}` in {}", req.kernel, req.file),
        help: Some(format!(
            "kernels there: {}",
            m.entries
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    })
}

fn find_entry<'m>(m: &'m parse::Module, name: &str) -> Option<&'m parse::Entry> {
    if let Some(e) = m.entries.iter().find(|e| e.name == name) {
        return Some(e);
    }
    let plain = name.split('<').next().unwrap_or(name);
    let pre = format!("_Z{}{}", plain.len(), plain);
    let mut it = m.entries.iter().filter(|e| e.name.starts_with(&pre));
    match (it.next(), it.next()) {
        (Some(e), None) => Some(e),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(file: String, kernel: &str) -> KernelRequest<'static> {
        KernelRequest {
            cuda: false,
            file,
            kernel: kernel.into(),
            args: Vec::new(),
            macros: Vec::new(),
            buffers: &[],
            block: [32, 1, 1],
            grid: [1, 1, 1],
            dynamic_shared: 0,
            shared_limit: 48 * 1024,
            merge: true,
            const_types: &[],
            include_paths: &[],
            any_include: false,
        }
    }

    #[test]
    fn param_types_of_a_ptx_entry() {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../programs/cuda/kernels.ptx"
        );
        let r = req(file.into(), "_Z6matmulILi32ELi0ELb0EEvPKfS1_Pfi");
        let types = param_types(&r).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(types, [".u64", ".u64", ".u64", ".u32"]);
        let r = req(file.into(), "nothing_here");
        let Err(KernelError::Launch { message, .. }) = param_types(&r) else {
            panic!("no error");
        };
        assert!(message.contains("no kernel `nothing_here`"), "{message}");
    }

    #[test]
    fn integer_literals_take_all_64_bits() {
        // Numba's `and.b64 %rd22, %rd21, -9223372036854775808;` (floor division's sign).
        assert_eq!(lower::int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(lower::int("0xFFFFFFFFFFFFFFFF"), Some(-1));
        assert_eq!(lower::int("18446744073709551615U"), Some(-1));
        assert_eq!(lower::int("-5"), Some(-5));
        assert_eq!(lower::int("18446744073709551616"), None);
        assert_eq!(lower::int("--5"), None);
    }

    #[test]
    fn launch_bounds_are_checked() {
        let src = ".visible .entry k(.param .u64 p)\n.reqntid 128\n{\n\tret;\n}\n\
                   .visible .entry m(.param .u64 p)\n.maxntid 64, 2, 1\n{\n\tret;\n}\n";
        let module = parse::parse(src).unwrap_or_else(|e| panic!("{e:?}"));
        let (k, m) = (&module.entries[0], &module.entries[1]);
        assert_eq!(k.bounds, [(33, ".reqntid".to_owned(), vec![128])]);
        assert!(check_bounds(k, [128, 1, 1]).is_ok());
        let (off, msg, help) = check_bounds(k, [256, 1, 1]).unwrap_err();
        assert_eq!(&src[off..off + 8], ".reqntid");
        assert!(
            msg.contains("exactly (128, 1, 1)") && msg.contains("gives (256, 1, 1)"),
            "{msg}"
        );
        assert!(help.contains("block (128, 1, 1)"), "{help}");
        assert!(check_bounds(k, [64, 2, 1]).is_err());
        assert!(check_bounds(m, [32, 4, 1]).is_ok());
        assert!(check_bounds(m, [128, 1, 1]).is_ok());
        let (_, msg, _) = check_bounds(m, [129, 1, 1]).unwrap_err();
        assert!(
            msg.contains("129 threads, more than") && msg.contains("(128)"),
            "{msg}"
        );
    }
}
