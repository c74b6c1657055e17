//! A CUDA or PTX kernel launched on NumPy arrays (what `RawKernel.__call__` calls).
//!
//! The launch becomes a `cuda:`/`ptx:` program, as a user would write it: one buffer per
//! array argument (`arg0`, `arg1`, … after the argument's position; its element type from the
//! array's dtype), one define per scalar argument (`ARG2`, …) holding the value typed from
//! the kernel's PTX parameter (a float parameter given `1` gets 1.0f's bits), and the grid,
//! block and dynamic shared memory given. The arrays' bytes are the buffers' initial words
//! ([`warpsim_runner::run_with_buffers`]) and take back their final words after the run.

use crate::{detached, errors, NativeReport, Opts};
use numpy::PyReadwriteArray1;
use pyo3::prelude::*;
use warpsim_kernel::{BufferInfo, Diag, Elem, Init, KernelArg, KernelError, KernelRequest, Phase};
use warpsim_runner::Report;

/// One argument as Python gives it: `("buffer", "F32", uint8 view of the array)`,
/// `("int", _, value)` or `("float", _, value)`.
type PyArg<'py> = (String, String, Bound<'py, PyAny>);

/// A scalar argument before typing.
#[derive(Clone, Copy, Debug)]
enum Scalar {
    Int(i128),
    Float(f64),
}

/// An argument, copied out of Python.
#[derive(Clone, Debug)]
enum Arg {
    Buffer { elem: Elem, bytes: usize },
    Scalar(Scalar),
}

fn elem_of(name: &str) -> Option<Elem> {
    Some(match name {
        "F32" => Elem::F32,
        "F64" => Elem::F64,
        "U32" => Elem::U32,
        "I32" => Elem::I32,
        "U8" => Elem::U8,
        "I8" => Elem::I8,
        "U16" => Elem::U16,
        "I16" => Elem::I16,
        "F16" => Elem::F16,
        "BF16" => Elem::BF16,
        _ => return None,
    })
}

/// Little-endian bytes → 32-bit words (the last one padded with zeros).
fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

fn launch_error(file: &str, arg: Option<usize>, message: String, help: Option<String>) -> Diag {
    let message = match arg {
        Some(i) => format!("argument {i}: {message}"),
        None => message,
    };
    Diag::file(Phase::Check, file, message, help)
}

fn kernel_error(file: &str, e: KernelError) -> Diag {
    match e {
        KernelError::Diag(d) => *d,
        KernelError::Launch { arg, message, help } => launch_error(file, arg, message, help),
    }
}

/// The bits a scalar passes as for a PTX parameter of type `ty` (`.f32`, `.u32`, …).
fn typed(file: &str, i: usize, ty: &str, v: Scalar) -> Result<Typed, Diag> {
    let t = ty.trim_start_matches('.');
    let err = |m: String| launch_error(file, Some(i), m, None);
    // A float parameter takes a float literal (the launch file's args are typed by the
    // kernel's PTX parameters: `"1.5"` for a `.f32` is 1.5f); `{:?}` of an f64 reads back
    // exactly, and an f32 widened to f64 is exact.
    let float = |x: f64| -> Result<Typed, Diag> {
        if !x.is_finite() {
            return Err(err(format!(
                "the kernel's parameter {} is a .{t}: warpsim takes a finite number, not {x}",
                i + 1
            )));
        }
        Ok(Typed::Float(format!("{x:?}")))
    };
    match (t, v) {
        ("f32", Scalar::Float(f)) => float(f64::from(f as f32)),
        ("f32", Scalar::Int(n)) => float(f64::from(n as f32)),
        ("f64", Scalar::Float(f)) => float(f),
        ("f64", Scalar::Int(n)) => float(n as f64),
        (_, Scalar::Float(f)) => Err(err(format!(
            "the kernel's parameter {} is a .{t}: pass an integer, not {f}",
            i + 1
        ))),
        (_, Scalar::Int(n)) => {
            let bits: u32 = match t.get(1..).and_then(|b| b.parse().ok()) {
                Some(b @ (8 | 16 | 32 | 64)) if matches!(&t[..1], "u" | "s" | "b") => b,
                _ if t == "pred" => 1,
                _ => {
                    return Err(err(format!(
                        "the kernel's parameter {} has the PTX type `{ty}`, which a Python \
                         scalar cannot be passed as",
                        i + 1
                    )))
                }
            };
            let (lo, hi) = if bits == 1 {
                (0, 1)
            } else {
                (-(1i128 << (bits - 1)), (1i128 << bits) - 1)
            };
            if n < lo || n > hi {
                return Err(err(format!(
                    "{n} does not fit the kernel's parameter {} (.{t})",
                    i + 1
                )));
            }
            Ok(Typed::Int(n as i64))
        }
    }
}

/// A scalar argument as the launch file gives it: an integer (a define `ARGi`) or a float
/// literal (in the args list itself: defines are integers).
enum Typed {
    Int(i64),
    Float(String),
}

/// The program text of a launch (a RON program beside the kernel's file).
#[allow(clippy::too_many_arguments)]
fn program_text(
    cuda: bool,
    file_name: &str,
    kernel: &str,
    args: &[Arg],
    scalars: &[(usize, Typed)],
    macros: &[(String, i64)],
    grid: [u32; 3],
    block: [u32; 3],
    shared_mem: u32,
    include_paths: &[String],
    constants: &[(String, Elem, Vec<u8>)],
) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut defines: Vec<String> = macros
        .iter()
        .map(|(k, v)| format!("{}: {v}", q(k)))
        .collect();
    defines.extend(scalars.iter().filter_map(|(i, v)| match v {
        Typed::Int(v) => Some(format!("\"ARG{i}\": {v}")),
        Typed::Float(_) => None,
    }));
    let mut buffers = Vec::new();
    let mut names = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Buffer { elem, bytes } => {
                let len = (*bytes as u64).div_ceil(u64::from(elem.bytes()));
                buffers.push(format!("(name: \"arg{i}\", ty: {elem:?}, len: {len})"));
                names.push(format!("\"arg{i}\""));
            }
            Arg::Scalar(_) => match scalars.iter().find(|s| s.0 == i) {
                Some((_, Typed::Float(x))) => names.push(q(x)),
                _ => names.push(format!("\"ARG{i}\"")),
            },
        }
    }
    // A constant symbol's values, written as `cudaMemcpyToSymbol` before the launch would:
    // bit for bit, as unsigned units of the element's size (8-byte elements as two words;
    // the symbol has no type of its own).
    let mut fills = Vec::new();
    for (name, elem, bytes) in constants {
        let unit = match elem.bytes() {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        let ty = ["U8", "U16", "U32"][unit / 2];
        let values: Vec<String> = bytes
            .chunks(unit)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                format!("\"{:#x}\"", u32::from_le_bytes(b))
            })
            .collect();
        fills.push(format!(
            "(name: {}, ty: {ty}, init: Values([{}]))",
            q(name),
            values.join(", ")
        ));
    }
    let constants = if fills.is_empty() {
        String::new()
    } else {
        format!("    constants: [{}],\n", fills.join(", "))
    };
    let macro_names: Vec<String> = macros.iter().map(|(k, _)| q(k)).collect();
    let includes = if cuda && !include_paths.is_empty() {
        let dirs: Vec<String> = include_paths.iter().map(|d| q(d)).collect();
        format!(", include_paths: [{}]", dirs.join(", "))
    } else {
        String::new()
    };
    format!(
        "Program(\n    name: {},\n    defines: {{ {} }},\n    launch: (grid: {grid:?}, block: \
         {block:?}, dynamic_shared: {shared_mem}),\n    buffers: [{}],\n    {}: (file: {}, \
         kernel: {}, args: [{}]{}),\n{}    macros: [{}],\n)\n",
        q(kernel),
        defines.join(", "),
        buffers.join(", "),
        if cuda { "cuda" } else { "ptx" },
        q(file_name),
        q(kernel),
        names.join(", "),
        includes,
        constants,
        macro_names.join(", "),
    )
}

/// What a launch needs, copied out of Python.
struct Launch {
    cuda: bool,
    file: String,
    kernel: String,
    macros: Vec<(String, i64)>,
    grid: [u32; 3],
    block: [u32; 3],
    shared_mem: u32,
    args: Vec<Arg>,
    opts: Opts,
    /// Folders the `.cu` may include from (`-I DIR` options), absolute.
    include_paths: Vec<String>,
    /// Constant symbols to fill: name, element type, bytes.
    constants: Vec<(String, Elem, Vec<u8>)>,
}

impl Launch {
    /// Types the scalars, loads the program and runs it on `words` (one list per buffer).
    fn run(&self, words: &mut [Vec<u32>]) -> Result<Report, Diag> {
        let (machine, ro) = self.opts.resolve()?;
        let path = std::path::Path::new(&self.file);
        let dir = path.parent().unwrap_or(std::path::Path::new("."));
        let file_name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        // The kernel's parameter types, with the array arguments as buffers.
        let mut infos = Vec::new();
        let mut kargs = Vec::new();
        for (i, a) in self.args.iter().enumerate() {
            kargs.push(match a {
                Arg::Buffer { elem, bytes } => {
                    infos.push(BufferInfo {
                        name: format!("arg{i}"),
                        elem: *elem,
                        len: (*bytes as u64).div_ceil(u64::from(elem.bytes())),
                        init: Init::Zeros,
                        expect: None,
                        check: None,
                        line: 0,
                        constant: None,
                    });
                    KernelArg::Buffer {
                        index: (infos.len() - 1) as u16,
                        offset: 0,
                    }
                }
                Arg::Scalar(_) => KernelArg::Int(0),
            });
        }
        let req = KernelRequest {
            cuda: self.cuda,
            file: self.file.clone(),
            kernel: self.kernel.clone(),
            args: kargs,
            macros: self.macros.clone(),
            buffers: &infos,
            block: self.block,
            grid: self.grid,
            dynamic_shared: self.shared_mem,
            shared_limit: machine.shared_limit(),
            merge: true,
            const_types: &[],
            include_paths: &self.include_paths,
            any_include: false,
        };
        let types = warpsim_ptx::param_types(&req).map_err(|e| kernel_error(&self.file, e))?;
        if types.len() != self.args.len() {
            return Err(launch_error(
                &self.file,
                None,
                format!(
                    "the kernel takes {} parameters; the call gives {} args",
                    types.len(),
                    self.args.len()
                ),
                Some(format!("its PTX parameters: {}", types.join(", "))),
            ));
        }
        let mut scalars = Vec::new();
        for (i, (a, ty)) in self.args.iter().zip(&types).enumerate() {
            if let Arg::Scalar(v) = a {
                scalars.push((i, typed(&self.file, i, ty, *v)?));
            }
        }
        let text = program_text(
            self.cuda,
            &file_name,
            &self.kernel,
            &self.args,
            &scalars,
            &self.macros,
            self.grid,
            self.block,
            self.shared_mem,
            &self.include_paths,
            &self.constants,
        );
        let prog_path = dir.join(format!("{file_name}.launch.ron"));
        let prog = warpsim_lang::load_str(
            &prog_path.to_string_lossy(),
            &text,
            &Opts::load_options(&machine, self.macros.clone()),
        )?;
        warpsim_runner::run_with_buffers(&prog, &ro, words)
    }
}

/// Launches `kernel` of the CUDA (`cuda`) or PTX file `file` on `args` over `grid` x `block`
/// with `shared_mem` bytes of dynamic shared memory; the arrays take back their final
/// contents.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch(
    py: Python<'_>,
    cuda: bool,
    file: String,
    kernel: String,
    macros: Vec<(String, i64)>,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_mem: u32,
    args: Vec<PyArg<'_>>,
    opts: Opts,
    include_paths: Vec<String>,
    constants: Vec<PyArg<'_>>,
) -> PyResult<NativeReport> {
    let mut copied = Vec::new();
    let mut words = Vec::new();
    let mut arrays = Vec::new();
    for (i, (kind, elem, obj)) in args.iter().enumerate() {
        copied.push(match kind.as_str() {
            "buffer" => {
                let arr: PyReadwriteArray1<'_, u8> = obj.extract()?;
                let bytes = arr
                    .as_slice()
                    .map_err(|e| errors::Error::new_err(format!("argument {i}: {e}")))?;
                words.push(words_of(bytes));
                let elem = elem_of(elem).ok_or_else(|| {
                    errors::Error::new_err(format!("argument {i}: no element type {elem}"))
                })?;
                let n = bytes.len();
                arrays.push(arr);
                Arg::Buffer { elem, bytes: n }
            }
            "int" => Arg::Scalar(Scalar::Int(obj.extract()?)),
            _ => Arg::Scalar(Scalar::Float(obj.extract()?)),
        });
    }
    let mut fills = Vec::new();
    for (name, elem, obj) in &constants {
        let arr: PyReadwriteArray1<'_, u8> = obj.extract()?;
        let bytes = arr
            .as_slice()
            .map_err(|e| errors::Error::new_err(format!("constant {name}: {e}")))?;
        let elem = elem_of(elem).ok_or_else(|| {
            errors::Error::new_err(format!("constant {name}: no element type {elem}"))
        })?;
        fills.push((name.clone(), elem, bytes.to_vec()));
    }
    let l = Launch {
        cuda,
        file,
        kernel,
        macros,
        grid: [grid.0, grid.1, grid.2],
        block: [block.0, block.1, block.2],
        shared_mem,
        args: copied,
        opts,
        include_paths,
        constants: fills,
    };
    let (result, words) = detached(py, move || {
        let mut words = words;
        (l.run(&mut words), words)
    })?;
    let report = result.map_err(|d| errors::to_py(py, &d))?;
    for (arr, w) in arrays.iter_mut().zip(&words) {
        if let Ok(dst) = arr.as_slice_mut() {
            for (d, s) in dst.chunks_mut(4).zip(w) {
                d.copy_from_slice(&s.to_le_bytes()[..d.len()]);
            }
        }
    }
    Ok(NativeReport { report })
}
