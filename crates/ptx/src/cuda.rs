//! `cuda:` kernels: a `.cu` file compiled to PTX by NVRTC (through the cache), with the
//! launch checked against the kernel's signature first and NVRTC's errors turned into
//! diagnostics at the `.cu` line.
//!
//! # Brief overview
//!
//! [`compile`] reads the source, finds the `__global__` functions in it (a light scan: their
//! names and parameter lists, for the help texts and the argument checks), checks the
//! launch's `args` against the kernel's parameters (count, pointer or not, element type),
//! then asks the [`cache`] and on a miss [`nvrtc`] for the PTX with the options
//! `--gpu-architecture=compute_90 -lineinfo -std=c++17` (those of the H200 campaigns' nvcc
//! builds), `--include-path=<the .cu's folder>`, `--include-path=<the CUDA toolkit's headers>`
//! where [`nvrtc::include_dir`] finds them (`cuda_fp16.h` and the others NVRTC does not
//! have) and one `-DNAME=VALUE` per define named in `macros`. The PTX then goes through the same lowering as a `ptx:` kernel (`lib.rs`).

use crate::{cache, includes, nvrtc};
use std::sync::Arc;
use warpsim_kernel::Elem;
use warpsim_kernel::{kernel_diag, KernelArg, KernelError, KernelRequest};

/// A compiled `cuda:` kernel.
pub(crate) struct Compiled {
    /// Where the PTX's positions point: the cache file, or a name for PTX kept in memory.
    pub ptx_path: String,
    /// The PTX (with the cache file's header lines).
    pub ptx: Arc<str>,
    /// The kernel's entry in the PTX.
    pub lowered: String,
    /// The `.cu` file and its text.
    pub cu: (String, Arc<str>),
    /// The headers it includes ([`includes::files`]; none when they cannot be known).
    pub headers: Vec<String>,
}

/// One `__global__` function as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Kernel {
    /// Its name.
    pub name: String,
    /// Whether it is a template.
    pub template: bool,
    /// Its parameters as written.
    pub params: Vec<String>,
}

/// Launch errors that point at the `cuda:` kernel as a whole.
fn launch(message: String, help: Option<String>) -> KernelError {
    KernelError::Launch {
        arg: None,
        message,
        help,
    }
}

/// Compiles the kernel of a `cuda:` request to PTX.
pub(crate) fn compile(req: &KernelRequest) -> Result<Compiled, KernelError> {
    let text = warpsim_kernel::input::read_text_capped(
        std::path::Path::new(&req.file),
        warpsim_kernel::diag::MAX_PROGRAM_BYTES,
    )
    .map_err(|e| launch(format!("cannot read {}: {e}", req.file), Some(e.help())))?;
    let src: Arc<str> = Arc::from(text.as_str());
    let base = std::path::Path::new(&req.file)
        .file_name()
        .map_or_else(|| req.file.clone(), |n| n.to_string_lossy().into_owned());
    let kernels = scan(&src);
    let expr = req.kernel.trim();
    if expr.is_empty() {
        return Err(launch(
            "the kernel's name is empty".into(),
            Some(kernel_list(&kernels)),
        ));
    }
    let plain = plain_name(expr);
    let same: Vec<&Kernel> = kernels.iter().filter(|k| k.name == plain).collect();
    let code = String::from_utf8_lossy(&blank_comments(&src)).into_owned();
    if same.is_empty() && !mentions(&code, plain) {
        return Err(launch(
            format!("no kernel `{expr}` in {base}"),
            Some(kernel_list(&kernels)),
        ));
    }
    if let [k, rest @ ..] = same.as_slice() {
        if rest.iter().all(|r| r.params == k.params) {
            check_args(req, k)?;
        }
    }
    let nv = nvrtc::library().map_err(|e| {
        launch(
            format!("cannot compile CUDA: NVRTC (libnvrtc) {e}"),
            Some(
                "install NVIDIA's runtime compiler with `pip install nvidia-cuda-nvrtc-cu12` \
                 (warpsim finds it in Python's site-packages), or point WARPSIM_NVRTC at \
                 libnvrtc.so.12; or compile the kernel to PTX yourself (nvcc -ptx -lineinfo) \
                 and use `ptx:`"
                    .into(),
            ),
        )
    })?;
    let dir = std::path::Path::new(&req.file)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut options = vec![
        "--gpu-architecture=compute_90".to_owned(),
        "-lineinfo".to_owned(),
        "-std=c++17".to_owned(),
        format!("--include-path={}", dir.display()),
    ];
    let toolkit = nvrtc::include_dir(&nv.path);
    let mut search = vec![dir.to_owned()];
    if let Some((inc, _)) = &toolkit {
        search.push(inc.clone());
        search.extend(nvrtc::more_include_dirs(inc));
    }
    // The user's include folders, searched after the .cu's and before the toolkit's.
    let ntool = search.len() - 1;
    search.splice(1..1, req.include_paths.iter().map(Into::into));
    for d in &search[1..] {
        options.push(format!("--include-path={}", d.display()));
    }
    let toolkit_dirs = &search[search.len() - ntool..];
    let allowed = includes::allowed_roots(&search, req.any_include);
    options.extend(req.macros.iter().map(|(n, v)| format!("-D{n}={v}")));
    let version = format!("nvrtc {}.{}", nv.version.0, nv.version.1);
    // What host headers would give (NVRTC has none), then the file from its line 1.
    let full = format!("{PRELUDE}#line 1 \"{base}\"\n{src}");
    // Every file the source may include, by content (`includes.rs`); `None`: not knowable,
    // compiled without the cache.
    let headers = includes::scan(
        std::path::Path::new(&req.file),
        &src,
        &search,
        toolkit_dirs,
        allowed.as_deref(),
    )
    .map_err(|r| refused_header(&r))?;
    let header_files = headers.as_deref().map_or_else(Vec::new, |h| {
        includes::files(h)
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    });
    let key = headers.map(|h| {
        cache::key(&[
            &full,
            &h,
            &options.join("\n"),
            expr,
            &version,
            "warpsim ptx 2",
        ])
    });
    let cached = key.as_ref().and_then(cache::get);
    let (ptx_path, ptx, lowered) = match cached {
        Some((p, t, l)) => (p.to_string_lossy().into_owned(), t, l),
        None => {
            let out = nv
                .compile(&full, &base, &options, expr)
                .map_err(|log| nvrtc_error(req, &src, &base, &kernels, &log, &toolkit))?;
            let uncached = || format!("{} (NVRTC's PTX, not cached)", req.file);
            match &key {
                Some(key) => {
                    let t = cache::text(key, &out.lowered, &out.ptx);
                    let p = cache::put(key, &t)
                        .map_or_else(uncached, |p| p.to_string_lossy().into_owned());
                    (p, t, out.lowered)
                }
                None => (uncached(), out.ptx, out.lowered),
            }
        }
    };
    if !ptx.contains(&format!(".entry {lowered}(")) {
        return Err(launch(
            format!("`{expr}` in {base} is not a `__global__` kernel"),
            Some(kernel_list(&kernels)),
        ));
    }
    Ok(Compiled {
        ptx_path,
        ptx: Arc::from(ptx.as_str()),
        lowered,
        cu: (req.file.clone(), src),
        headers: header_files,
    })
}

/// The error for a header the source includes that NVRTC must not open.
fn refused_header(r: &includes::Refused) -> KernelError {
    let text: Arc<str> = Arc::from(r.text.as_str());
    let name_len = r.text[r.off..].find(['"', '>', '\n']).unwrap_or(0);
    kernel_diag(
        &r.file.to_string_lossy(),
        &text,
        r.off,
        name_len.max(1),
        match r.why {
            includes::Why::Unknowable => format!("cannot follow this include: {}", r.why),
            _ => format!("cannot include {}: {}", r.path.display(), r.why),
        },
        Some(r.why.help()),
    )
}

/// The name of a name expression without template arguments or namespaces.
fn plain_name(expr: &str) -> &str {
    let n = expr.split('<').next().unwrap_or(expr).trim();
    n.rsplit("::").next().unwrap_or(n).trim()
}

/// Whether `name` occurs in `src` (comments blanked) as a whole identifier (or could be made
/// by `##`).
fn mentions(src: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    src.contains("##")
        || src.match_indices(name).any(|(i, _)| {
            !src[..i].chars().next_back().is_some_and(ident)
                && !src[i + name.len()..].chars().next().is_some_and(ident)
        })
}

/// The `.cu` line of the PTX at byte `off`: the last `.loc` before it in the compiled file
/// (the file of the module's first `.loc`; an inlined line counts as its `inlined_at` place),
/// for diagnostics in the PTX.
pub(crate) fn cu_line(ptx: &str, off: usize) -> Option<u32> {
    let place = |line: &str| -> Vec<u32> {
        let p = line.find("inlined_at").map_or(line, |k| &line[k + 10..]);
        p.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty() && !w.starts_with('.'))
            .filter_map(|w| w.parse::<u32>().ok())
            .collect()
    };
    let first = ptx.find(".loc").and_then(|k| ptx[k..].lines().next())?;
    let main = *place(first).first()?;
    ptx.get(..off)?
        .rmatch_indices(".loc")
        .filter_map(|(k, _)| ptx[k..].lines().next())
        .map(place)
        .find(|n| n.first() == Some(&main))
        .and_then(|n| n.get(1).copied())
        .filter(|&l| l > 0)
}

/// "kernels there: …" for help texts.
fn kernel_list(kernels: &[Kernel]) -> String {
    if kernels.is_empty() {
        return "the file has no `__global__` function".into();
    }
    let mut names: Vec<String> = kernels
        .iter()
        .map(|k| {
            if k.template {
                format!("{}<…>", k.name)
            } else {
                k.name.clone()
            }
        })
        .collect();
    names.dedup();
    let t = if kernels.iter().any(|k| k.template) {
        "; a template kernel is named with its arguments, as in `reduce<256>`"
    } else {
        ""
    };
    format!("kernels there: {}{t}", names.join(", "))
}

/// Checks the launch's arguments against the kernel's parameters as written.
fn check_args(req: &KernelRequest, k: &Kernel) -> Result<(), KernelError> {
    let sig = format!("{}({})", k.name, k.params.join(", "));
    if req.args.len() != k.params.len() {
        return Err(launch(
            format!(
                "`{}` takes {} parameters; the launch gives {} args",
                k.name,
                k.params.len(),
                req.args.len()
            ),
            Some(format!(
                "list one arg per parameter, in order: {sig} (a buffer name, a buffer plus an \
                 element offset, or an integer expression of the defines)"
            )),
        ));
    }
    for (i, (arg, p)) in req.args.iter().zip(&k.params).enumerate() {
        let pointer = p.contains('*') || p.contains('[');
        let at = |message: String| KernelError::Launch {
            arg: Some(i),
            message,
            help: Some(format!("the kernel is {sig}")),
        };
        let map = p.contains("CUtensorMap");
        match arg {
            KernelArg::TensorMap(_) if map => {}
            KernelArg::TensorMap(_) => {
                return Err(at(format!(
                    "parameter {} `{p}` is not a CUtensorMap: pass a buffer or a number, not a \
                     tensor map",
                    i + 1
                )));
            }
            _ if map => {
                return Err(at(format!(
                    "parameter {} `{p}` is a tensor map: pass the name of one of the launch \
                     file's `tensor_maps`",
                    i + 1
                )));
            }
            KernelArg::Int(_) | KernelArg::Float(_) if pointer => {
                return Err(at(format!(
                    "parameter {} `{p}` is a pointer: pass a buffer (or a buffer plus an offset)",
                    i + 1
                )));
            }
            KernelArg::Buffer { .. } if !pointer => {
                return Err(at(format!(
                    "parameter {} `{p}` is not a pointer: pass an integer expression, not a \
                     buffer",
                    i + 1
                )));
            }
            KernelArg::Buffer { index, .. } => {
                let (Some(b), Some(want)) = (req.buffers.get(*index as usize), pointee(p)) else {
                    continue;
                };
                let same_class =
                    |e: Elem| matches!(e, Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16);
                if b.elem.bytes() != want.bytes()
                    || same_class(b.elem) != same_class(want)
                    || (b.elem.bytes() == 2 && same_class(want) && b.elem != want)
                {
                    return Err(at(format!(
                        "parameter {} `{p}` points to {}, but buffer `{}` holds {} elements",
                        i + 1,
                        elem_name(want),
                        b.name,
                        elem_name(b.elem)
                    )));
                }
            }
            KernelArg::Int(_) | KernelArg::Float(_) => {}
        }
    }
    Ok(())
}

fn elem_name(e: Elem) -> &'static str {
    match e {
        Elem::F32 => "F32",
        Elem::F64 => "F64",
        Elem::U32 => "U32",
        Elem::I32 => "I32",
        Elem::U8 => "U8",
        Elem::I8 => "I8",
        Elem::U16 => "U16",
        Elem::I16 => "I16",
        Elem::F16 => "F16",
        Elem::BF16 => "BF16",
    }
}

/// The element type a pointer parameter points to, when it is a plain scalar type.
fn pointee(param: &str) -> Option<Elem> {
    let head = param.split(['*', '[']).next()?;
    // `T name[]`: the last word is the name.
    let head = match (param.contains('*'), head.trim_end().rsplit_once(' ')) {
        (false, Some((ty, _))) => ty,
        _ => head,
    };
    let words: Vec<&str> = head
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "__restrict__" | "restrict" | "__restrict" | "struct"
            )
        })
        .collect();
    Some(match words.join(" ").as_str() {
        "float" => Elem::F32,
        "double" => Elem::F64,
        "int" | "signed" | "signed int" | "int32_t" => Elem::I32,
        "unsigned" | "unsigned int" | "uint32_t" => Elem::U32,
        "char" | "signed char" | "int8_t" => Elem::I8,
        "unsigned char" | "uint8_t" => Elem::U8,
        "short" | "short int" | "int16_t" => Elem::I16,
        "unsigned short" | "unsigned short int" | "uint16_t" => Elem::U16,
        "__half" | "half" => Elem::F16,
        "__nv_bfloat16" | "nv_bfloat16" => Elem::BF16,
        _ => return None,
    })
}

/// The source with comments and string literals blanked (offsets kept).
fn blank_comments(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            for o in &mut out[i..end] {
                if *o != b'\n' {
                    *o = b' ';
                }
            }
            i = end;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                out[i] = b' ';
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    out
}

/// The `__global__` functions of a source (a scan, not a parse: enough for names and
/// parameter lists as written).
pub(crate) fn scan(src: &str) -> Vec<Kernel> {
    let clean = String::from_utf8_lossy(&blank_comments(src)).into_owned();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = clean[from..].find("__global__") {
        let start = from + at;
        from = start + "__global__".len();
        // Template: `template <…>` just before (only blanks between).
        let before = clean[..start].trim_end();
        let template = before.ends_with('>') && {
            let t = before.rfind("template").unwrap_or(0);
            clean[t..start].matches('<').count() >= 1 && !clean[t..start].contains(';')
        };
        // The name: the last identifier before the first `(` that is not `__launch_bounds__`.
        let mut pos = from;
        let (name, open) = loop {
            let Some(p) = clean[pos..].find('(') else {
                break (None, 0);
            };
            let open = pos + p;
            let ident: String = clean[..open]
                .trim_end()
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if ident == "__launch_bounds__" || ident == "__maxnreg__" {
                pos = matching(&clean, open).map_or(clean.len(), |c| c + 1);
                continue;
            }
            break (Some(ident), open);
        };
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            continue;
        };
        let Some(close) = matching(&clean, open) else {
            continue;
        };
        let inner = clean[open + 1..close].trim();
        let params = if inner.is_empty() || inner == "void" {
            Vec::new()
        } else {
            split_top(inner)
                .into_iter()
                .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        };
        out.push(Kernel {
            name,
            template,
            params,
        });
    }
    out
}

/// The `)` matching the `(` at `open`.
fn matching(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits a parameter list at commas outside `<>`, `()` and `[]`.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut last, mut out) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[last..i].trim());
                last = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[last..].trim());
    out
}

/// One error of NVRTC's log: `file(line): error: message`, then the line and a caret.
struct LogError<'a> {
    file: &'a str,
    line: u32,
    /// 1-based column of the caret, when there is one.
    col: Option<usize>,
    message: &'a str,
}

/// The errors of an NVRTC log.
fn log_errors(log: &str) -> Vec<LogError<'_>> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(open) = l.find("): ") else { continue };
        let Some(paren) = l[..open].rfind('(') else {
            continue;
        };
        let Ok(line) = l[paren + 1..open].parse::<u32>() else {
            continue;
        };
        let rest = &l[open + 3..];
        let Some(colon) = rest.find(": ") else {
            continue;
        };
        if !rest[..colon].contains("error") {
            continue;
        }
        // NVRTC echoes the line indented by two blanks, then a caret under the place.
        let col = lines
            .get(i + 2)
            .filter(|c| c.trim() == "^")
            .and_then(|c| c.find('^'))
            .map(|c| c.saturating_sub(2) + 1);
        out.push(LogError {
            file: &l[..paren],
            line,
            col,
            message: rest[colon + 2..].trim(),
        });
    }
    out
}

/// Whether an NVRTC error is host code it cannot compile.
fn is_host(e: &LogError) -> bool {
    let m = e.message;
    m.contains("host functions are not allowed")
        || missing_header(e).is_some_and(|h| HOST_HEADERS.contains(&h))
        || (m.starts_with("identifier \"cuda") && m.ends_with("is undefined"))
        || m.contains("<<<")
}

/// The prelude compiled before every `.cu`: what a CUDA file usually has from host headers
/// and NVRTC does not (`uint` from the C library's `sys/types.h`, `INFINITY` and `NAN` from
/// `<math.h>`, `CUtensorMap` from the driver's `cuda.h`, which NVRTC cannot include). Each is skipped where the file defines it first; a file that defines
/// `WARPSIM_NO_PRELUDE` (`macros:`) gets none of it. NVRTC itself defines `assert`.
pub(crate) const PRELUDE: &str = "#ifndef WARPSIM_NO_PRELUDE
typedef unsigned int uint;
#ifndef INFINITY
#define INFINITY (__int_as_float(0x7f800000))
#endif
#ifndef NAN
#define NAN (__int_as_float(0x7fffffff))
#endif
#ifndef __cuda_cuda_h__
typedef struct CUtensorMap_st { alignas(64) unsigned long long opaque[16]; } CUtensorMap;
#endif
#endif
";

/// Headers only host code includes (NVRTC has none of them).
const HOST_HEADERS: &[&str] = &[
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "cuda.h",
    "cstdio",
    "stdio.h",
    "cstdlib",
    "stdlib.h",
    "cstring",
    "string.h",
    "iostream",
    "fstream",
    "sstream",
    "vector",
    "string",
    "algorithm",
    "chrono",
    "random",
    "map",
    "memory",
    "thread",
    "cassert",
    "assert.h",
];

/// The version of NVIDIA's header wheel `nvidia-cuda-runtime-cu12` that matches the NVRTC
/// wheel `.ci/run` installs (`nvidia-cuda-nvrtc-cu12==12.6.77`).
const WHEEL_VERSION: &str = "12.6.77";

/// Whether `h` is one of the CUDA toolkit's device headers (in `nvidia-cuda-runtime-cu12`'s
/// `include/`, not in NVRTC).
fn is_toolkit_header(h: &str) -> bool {
    const HEADERS: &[&str] = &[
        "cuda_fp16.h",
        "cuda_fp16.hpp",
        "cuda_bf16.h",
        "cuda_bf16.hpp",
        "cuda_fp8.h",
        "cuda_fp8.hpp",
        "mma.h",
        "cooperative_groups.h",
        "cuda_pipeline.h",
        "cuda_pipeline_primitives.h",
        "cuda_awbarrier.h",
        "cuda_awbarrier_primitives.h",
        "cuComplex.h",
        "vector_types.h",
        "vector_functions.h",
    ];
    HEADERS.contains(&h) || h.starts_with("cooperative_groups/") || h.starts_with("crt/")
}

/// Whether `h` is one of CCCL's headers (`nv/target`, `cuda/std/…`, CUB, Thrust: in the pip
/// wheel `nvidia-cuda-cccl-cu12`, or a toolkit's `include/`).
fn is_cccl_header(h: &str) -> bool {
    ["nv/", "cuda/", "cub/", "thrust/"]
        .iter()
        .any(|p| h.starts_with(p))
}

/// The header an error could not open (`could not open source file "x.h"`).
fn missing_header<'a>(e: &LogError<'a>) -> Option<&'a str> {
    let m = e.message;
    let at = m
        .find("could not open source file \"")
        .or_else(|| m.find("cannot open source file \""))?;
    let rest = &m[at..];
    let q = rest.find('"')? + 1;
    let end = rest[q..].find('"')?;
    Some(&rest[q..q + end])
}

/// NVRTC's failure as a diagnostic: at the `.cu` line of the first error; a name expression
/// that names nothing as a launch error; host code with the advice to guard it.
fn nvrtc_error(
    req: &KernelRequest,
    src: &Arc<str>,
    base: &str,
    kernels: &[Kernel],
    log: &str,
    toolkit: &Option<(std::path::PathBuf, bool)>,
) -> KernelError {
    // Nothing of a file outside the .cu's folder (or the toolkit's, or the user's include
    // folders) is quoted.
    let mut allowed: Vec<std::path::PathBuf> = req.include_paths.iter().map(Into::into).collect();
    if let Some((inc, _)) = toolkit {
        allowed.push(inc.clone());
        allowed.extend(nvrtc::more_include_dirs(inc));
    }
    let home = std::path::Path::new(&req.file)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let log = &includes::redact_log(log, home, &allowed);
    let errors = log_errors(log);
    let log_help = |first: &str| {
        let rest = log.trim();
        if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}\nNVRTC's log:\n{rest}")
        }
    };
    // A name-map error is NVRTC's own "no such kernel" only when the source itself compiled:
    // a syntax error in the .cu (which may hide the kernel) is shown first, with NVRTC's log.
    let source_errors = errors.iter().any(|e| e.file != "__nv_name_map");
    if let Some(e) = errors
        .iter()
        .find(|e| e.file == "__nv_name_map")
        .filter(|_| !source_errors)
    {
        let expr = req.kernel.trim();
        let message = if e.message.contains("non-__global__") {
            format!(
                "`{expr}` in {base} is not a `__global__` kernel (NVRTC: {})",
                e.message
            )
        } else {
            format!("no kernel `{expr}` in {base} (NVRTC: {})", e.message)
        };
        return launch(message, Some(kernel_list(kernels)));
    }
    let Some(e) = errors
        .iter()
        .find(|e| e.file == base)
        .or_else(|| errors.first())
    else {
        return launch(
            format!("NVRTC could not compile {base}"),
            Some(log_help("")),
        );
    };
    let host = errors.iter().find(|e| is_host(e)).unwrap_or(e);
    let (e, message, first) = if is_host(host) {
        (
            host,
            format!("NVRTC cannot compile host code: {}", host.message),
            "NVRTC compiles device code only: guard the host code (its #includes, main, cuda* \
             calls, <<<…>>> launches) with `#ifndef __CUDACC_RTC__` … `#endif`"
                .to_owned(),
        )
    } else if let Some(h) = missing_header(e).filter(|h| h.starts_with("crt/")) {
        (
            e,
            format!("NVRTC cannot find nvcc's header `{h}` (WMMA's `mma.h` includes `crt/mma.h`)"),
            format!(
                "install NVIDIA's nvcc headers with `pip install \
                 nvidia-cuda-nvcc-cu12=={WHEEL_VERSION}` beside nvidia-cuda-runtime-cu12 (warpsim \
                 finds them there), or add their include folder to WARPSIM_CUDA_INCLUDE \
                 (folders joined by `:`, the toolkit's first)"
            ),
        )
    } else if let Some(h) = missing_header(e).filter(|h| is_toolkit_header(h)) {
        let help = match toolkit {
            Some((dir, true)) => format!(
                "WARPSIM_CUDA_INCLUDE={} has no `{h}`: point it at the include folder of a CUDA \
                 12 toolkit, or unset it and install NVIDIA's headers with `pip install \
                 nvidia-cuda-runtime-cu12=={WHEEL_VERSION}`",
                dir.display()
            ),
            Some((dir, false)) => format!(
                "the CUDA headers found ({}) have no `{h}`: install NVIDIA's with `pip install \
                 nvidia-cuda-runtime-cu12=={WHEEL_VERSION}` beside nvidia-cuda-nvrtc-cu12, or \
                 point WARPSIM_CUDA_INCLUDE at a CUDA 12 toolkit's include folder",
                dir.display()
            ),
            None => format!(
                "NVRTC has no CUDA toolkit headers of its own: install NVIDIA's with `pip install \
                 nvidia-cuda-runtime-cu12=={WHEEL_VERSION}` (warpsim finds them beside the \
                 nvidia-cuda-nvrtc-cu12 wheel's libnvrtc), or point WARPSIM_CUDA_INCLUDE at a \
                 CUDA 12 toolkit's include folder (it holds cuda_fp16.h)"
            ),
        };
        (
            e,
            format!("NVRTC cannot find the CUDA toolkit header `{h}`"),
            help,
        )
    } else if let Some(h) = missing_header(e).filter(|h| is_cccl_header(h)) {
        (
            e,
            format!(
                "NVRTC cannot find CCCL's header `{h}` (cooperative groups and `cuda/std` need it)"
            ),
            format!(
                "install NVIDIA's CCCL headers with `pip install \
                 nvidia-cuda-cccl-cu12=={WHEEL_VERSION}` beside nvidia-cuda-runtime-cu12 (warpsim \
                 finds them there), or add their include folder to WARPSIM_CUDA_INCLUDE \
                 (folders joined by `:`, the toolkit's first)"
            ),
        )
    } else if let Some(h) = missing_header(e) {
        (
            e,
            format!("NVRTC cannot find the header `{h}`"),
            "NVRTC has no system headers (cuda_runtime.h, the C++ library): guard host includes with `#ifndef __CUDACC_RTC__` … `#endif`; a header of \
             your own is searched in the .cu's folder"
                .to_owned(),
        )
    } else {
        (
            e,
            format!("NVRTC: {}", e.message),
            "fix the CUDA source".to_owned(),
        )
    };
    // The file NVRTC names: the .cu, or a header of yours beside it.
    let (path, src) = if e.file == base {
        (req.file.clone(), src.clone())
    } else {
        let dir = std::path::Path::new(&req.file)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        // NVRTC names it as found: through the include path, or beside the .cu. Its lines are
        // quoted only from a file in the .cu's folder (or below): never from a file elsewhere
        // (`#include "/etc/passwd"` must not show that file's lines).
        let home = std::fs::canonicalize(if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        });
        let found = [std::path::PathBuf::from(e.file), dir.join(e.file)]
            .into_iter()
            .filter(|p| {
                let real = std::fs::canonicalize(p);
                matches!((&real, &home), (Ok(r), Ok(h)) if r.starts_with(h))
            })
            .find_map(|p| {
                let t = warpsim_kernel::input::read_text_capped(
                    &p,
                    warpsim_kernel::diag::MAX_PROGRAM_BYTES,
                )
                .ok()?;
                Some((t, p))
            });
        match found {
            Some((t, path)) => (path.to_string_lossy().into_owned(), Arc::from(t.as_str())),
            None => {
                return launch(
                    format!("{message} (in {}, line {})", e.file, e.line),
                    Some(log_help(&first)),
                )
            }
        }
    };
    let start = warpsim_kernel::diag::line_start(&src, e.line);
    let line = &src[start..src[start..].find('\n').map_or(src.len(), |n| start + n)];
    let col = e
        .col
        .unwrap_or_else(|| line.len() - line.trim_start().len() + 1);
    let off = start
        + line
            .char_indices()
            .nth(col.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
    kernel_diag(&path, &src, off, 1, message, Some(log_help(&first)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_finds_kernels_templates_and_parameters() {
        let src = "// __global__ void commented(int a)\n\
                   template <int B, bool S>\n__global__ void reduce(const float* __restrict__ in, \
                   float *out, int n) {}\n\
                   extern \"C\" __global__ void __launch_bounds__(256) plain(void) {}\n\
                   __global__ void pair(Foo<int, 2> f, double d[]) {}\n";
        let k = scan(src);
        assert_eq!(k.len(), 3, "{k:?}");
        assert_eq!(k[0].name, "reduce");
        assert!(k[0].template);
        assert_eq!(
            k[0].params,
            ["const float* __restrict__ in", "float *out", "int n"]
        );
        assert_eq!(k[1].name, "plain");
        assert!(!k[1].template);
        assert!(k[1].params.is_empty());
        assert_eq!(k[2].params, ["Foo<int, 2> f", "double d[]"]);
        assert_eq!(pointee(&k[0].params[0]), Some(Elem::F32));
        assert_eq!(pointee(&k[2].params[1]), Some(Elem::F64));
        assert_eq!(pointee("T* x"), None);
    }

    #[test]
    fn log_errors_give_line_column_and_message() {
        let log = "k.cu(3): error: identifier \"y\" is undefined\n  __global__ void baz(){ int x = y; }\n                                 ^\n\n1 error detected in the compilation of \"k.cu\".\n";
        let e = log_errors(log);
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].file, e[0].line, e[0].col), ("k.cu", 3, Some(32)));
        assert_eq!(e[0].message, "identifier \"y\" is undefined");
        assert!(!is_host(&e[0]));
    }

    #[test]
    fn cu_line_is_the_last_loc_before_or_its_inlined_at_place() {
        let ptx = "\t.loc\t1 26 0\n\tmov.u32 %r1, %tid.x;\n\t.loc\t1 5 3, function_name \
                   $L__info_string0, inlined_at 1 20 4\n\tadd.s32 %r2, %r1, 1;\n";
        let mov = ptx.find("mov").unwrap();
        let add = ptx.find("add").unwrap();
        assert_eq!(cu_line(ptx, mov), Some(26));
        assert_eq!(cu_line(ptx, add), Some(20));
        assert_eq!(cu_line(ptx, 0), None);
        assert_eq!(cu_line(ptx, usize::MAX), None);
    }

    #[test]
    fn local_headers_are_read_recursively_once() {
        let dir = std::env::temp_dir().join(format!("warpsim-hdr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.cuh"), "#include \"b.cuh\"\nA\n").unwrap();
        std::fs::write(dir.join("b.cuh"), "#include \"a.cuh\"\nB\n").unwrap();
        let h = includes::scan(
            &dir.join("k.cu"),
            "#include <cstdio>\n  #  include \"a.cuh\"\n#include \"none.h\"\n",
            std::slice::from_ref(&dir),
            &[],
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(h.matches("a.cuh").count(), 1, "{h:?}");
        assert_eq!(h.matches("b.cuh").count(), 1, "{h:?}");
        assert!(h.contains("missing\0cstdio") && h.contains("missing\0none.h"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn mentions_are_whole_identifiers_outside_comments() {
        let code = String::from_utf8_lossy(&blank_comments(
            "// old_kernel\n__global__ void kernel2(int a) { /* kernel */ }\n",
        ))
        .into_owned();
        assert!(mentions(&code, "kernel2"));
        assert!(!mentions(&code, "kernel"));
        assert!(!mentions(&code, "old_kernel"));
        assert!(mentions("#define K(n) k##n", "k1"));
    }

    #[test]
    fn plain_names() {
        assert_eq!(plain_name("reduce5<256>"), "reduce5");
        assert_eq!(plain_name("ns::k<1, 2>"), "k");
        assert_eq!(plain_name(" k "), "k");
    }
}
