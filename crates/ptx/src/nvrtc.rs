//! NVRTC, NVIDIA's runtime CUDA compiler, opened at run time (never linked): finding the
//! library, and compiling one source to PTX.
//!
//! # Brief overview
//!
//! [`library`] finds and opens libnvrtc once per process: `WARPSIM_NVRTC` (a path, and then
//! nothing else), the dynamic linker's path (`libnvrtc.so.12`, `libnvrtc.so`), the CUDA
//! toolkit's usual place, the pip wheel `nvidia-cuda-nvrtc-cu12` in the site-packages of the
//! usual Python installs, and last `python3` itself. [`Nvrtc::compile`] runs one compilation
//! with one name expression and gives back the PTX and the kernel's lowered (mangled) name,
//! or NVRTC's log.
//!
//! NVRTC alone has none of the CUDA toolkit's headers (`cuda_fp16.h`, `cuda_bf16.h`, …):
//! [`include_dir`] finds them: `WARPSIM_CUDA_INCLUDE` (a folder, and then nothing else), the
//! pip wheel `nvidia-cuda-runtime-cu12` beside the wheel libnvrtc was loaded from
//! (`nvidia/cuda_nvrtc/lib` → `nvidia/cuda_runtime/include`), a toolkit's `include/` beside
//! its `lib64/`, then the same places as the library. The cooperative groups headers also need
//! CCCL's (`nv/target`, `cuda/std/…`), in a toolkit's `include/` or in the pip wheel
//! `nvidia-cuda-cccl-cu12`, and WMMA's `mma.h` nvcc's `crt/mma.h` (the pip wheel
//! `nvidia-cuda-nvcc-cu12`): [`more_include_dirs`] finds those wheels beside the runtime
//! headers' one.

use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

type Prog = *mut c_void;
type Rc = c_int;
type CreateFn = unsafe extern "C" fn(
    *mut Prog,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> Rc;
type DestroyFn = unsafe extern "C" fn(*mut Prog) -> Rc;
type AddNameFn = unsafe extern "C" fn(Prog, *const c_char) -> Rc;
type CompileFn = unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> Rc;
type SizeFn = unsafe extern "C" fn(Prog, *mut usize) -> Rc;
type GetFn = unsafe extern "C" fn(Prog, *mut c_char) -> Rc;
type LoweredFn = unsafe extern "C" fn(Prog, *const c_char, *mut *const c_char) -> Rc;
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> Rc;

/// An opened libnvrtc: the entry points warpsim uses.
pub struct Nvrtc {
    /// Keeps the library mapped while the entry points are used.
    _lib: Library,
    /// Where it was found.
    pub path: PathBuf,
    /// NVRTC's (major, minor) version.
    pub version: (i32, i32),
    create: CreateFn,
    destroy: DestroyFn,
    add_name: AddNameFn,
    compile: CompileFn,
    log_size: SizeFn,
    log: GetFn,
    ptx_size: SizeFn,
    ptx: GetFn,
    lowered: LoweredFn,
}

/// A successful compilation.
#[derive(Debug)]
pub struct Output {
    /// The PTX module.
    pub ptx: String,
    /// The kernel's lowered (mangled) name: the `.entry` in `ptx`.
    pub lowered: String,
}

static LIB: OnceLock<Result<Nvrtc, String>> = OnceLock::new();

/// The process's libnvrtc, opened on first use; the error says where it was looked for.
pub fn library() -> Result<&'static Nvrtc, &'static str> {
    LIB.get_or_init(find).as_ref().map_err(|e| e.as_str())
}

/// Finds and opens libnvrtc (see the module doc for the order).
fn find() -> Result<Nvrtc, String> {
    if let Some(p) = std::env::var_os("WARPSIM_NVRTC").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return open(&p).map_err(|e| format!("WARPSIM_NVRTC={}: {e}", p.display()));
    }
    let mut tried = Vec::new();
    for name in ["libnvrtc.so.12", "libnvrtc.so"] {
        match open(Path::new(name)) {
            Ok(n) => return Ok(n),
            Err(_) => tried.push(name.to_owned()),
        }
    }
    let mut candidates = vec![
        PathBuf::from("/usr/local/cuda/lib64/libnvrtc.so.12"),
        PathBuf::from("/usr/local/cuda/lib64/libnvrtc.so"),
    ];
    candidates.extend(wheel_dirs().into_iter().map(|d| d.join(WHEEL_LIB)));
    for c in candidates.iter().filter(|c| c.is_file()) {
        if let Ok(n) = open(c) {
            return Ok(n);
        }
    }
    if let Some(c) = ask_python().filter(|c| c.is_file()) {
        if let Ok(n) = open(&c) {
            return Ok(n);
        }
    }
    tried.push("the CUDA toolkit (/usr/local/cuda/lib64)".into());
    tried.push("Python's site-packages (nvidia/cuda_nvrtc/lib)".into());
    Err(format!("not found (looked for {})", tried.join(", ")))
}

/// The library inside the pip wheel's package folder.
const WHEEL_LIB: &str = "nvidia/cuda_nvrtc/lib/libnvrtc.so.12";

/// The toolkit headers inside the pip wheel `nvidia-cuda-runtime-cu12`'s package folder.
const WHEEL_INCLUDE: &str = "nvidia/cuda_runtime/include";

/// A header every toolkit include folder has (how a candidate folder is recognised).
const MARK: &str = "cuda_fp16.h";

/// The header of CCCL that cooperative_groups.h includes first (how CCCL's folder is recognised).
const CCCL_MARK: &str = "nv/target";

/// CCCL's headers inside the pip wheel `nvidia-cuda-cccl-cu12`'s package folder.
const WHEEL_CCCL: &str = "nvidia/cuda_cccl/include";

/// The header of nvcc's that `mma.h` (WMMA) includes (how its folder is recognised).
const NVCC_MARK: &str = "crt/mma.h";

/// nvcc's headers inside the pip wheel `nvidia-cuda-nvcc-cu12`'s package folder.
const WHEEL_NVCC: &str = "nvidia/cuda_nvcc/include";

/// Where the CUDA toolkit's headers are for NVRTC loaded from `lib`, and whether
/// `WARPSIM_CUDA_INCLUDE` chose it; `None` when nowhere (see the module doc for the order).
///
/// `WARPSIM_CUDA_INCLUDE` may name several folders joined by `:` (as `PATH` does): the first
/// is the one given here, the others come from [`more_include_dirs`].
pub fn include_dir(lib: &Path) -> Option<(PathBuf, bool)> {
    if let Some(p) = std::env::var_os("WARPSIM_CUDA_INCLUDE").filter(|p| !p.is_empty()) {
        let first = std::env::split_paths(&p).next().unwrap_or_default();
        return Some((first, true));
    }
    let mut candidates = Vec::new();
    // Beside the library: the wheels' site-packages layout, or a toolkit's lib64/../include.
    let lib = std::fs::canonicalize(lib).unwrap_or_else(|_| lib.to_owned());
    if let Some(dir) = lib.parent() {
        if let Some(pkgs) = dir.parent().and_then(Path::parent) {
            candidates.push(pkgs.join("cuda_runtime/include"));
        }
        if let Some(root) = dir.parent() {
            candidates.push(root.join("include"));
        }
    }
    candidates.push(PathBuf::from("/usr/local/cuda/include"));
    candidates.extend(wheel_dirs().into_iter().map(|d| d.join(WHEEL_INCLUDE)));
    candidates
        .into_iter()
        .find(|c| c.join(MARK).is_file())
        .map(|c| (c, false))
}

/// The further include folders for the toolkit headers in `inc` (from [`include_dir`]):
/// the other folders of `WARPSIM_CUDA_INCLUDE` when it names several (then nothing else);
/// else none when `inc` has CCCL's headers itself (a CUDA 12 toolkit), else CCCL's pip wheel
/// beside the runtime headers' wheel (`nvidia/cuda_runtime/include` → `nvidia/cuda_cccl/include`)
/// or in the usual site-packages folders, else a toolkit's `include/cccl` (CUDA 13's layout).
///
/// Then, when `inc` lacks `crt/mma.h` (which the runtime wheel's `mma.h` includes), the pip
/// wheel `nvidia-cuda-nvcc-cu12`'s headers beside it (`nvidia/cuda_nvcc/include`) or in the
/// usual site-packages folders.
pub fn more_include_dirs(inc: &Path) -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("WARPSIM_CUDA_INCLUDE").filter(|p| !p.is_empty()) {
        let rest: Vec<PathBuf> = std::env::split_paths(&p).skip(1).collect();
        if !rest.is_empty() {
            return rest;
        }
    }
    let nvidia = inc.parent().and_then(Path::parent);
    let mut out = Vec::new();
    if !inc.join(CCCL_MARK).is_file() {
        let mut candidates = Vec::new();
        candidates.extend(nvidia.map(|n| n.join("cuda_cccl/include")));
        candidates.push(inc.join("cccl"));
        candidates.extend(wheel_dirs().into_iter().map(|d| d.join(WHEEL_CCCL)));
        out.extend(candidates.into_iter().find(|c| c.join(CCCL_MARK).is_file()));
    }
    if !inc.join(NVCC_MARK).is_file() {
        let mut candidates = Vec::new();
        candidates.extend(nvidia.map(|n| n.join("cuda_nvcc/include")));
        candidates.extend(wheel_dirs().into_iter().map(|d| d.join(WHEEL_NVCC)));
        out.extend(candidates.into_iter().find(|c| c.join(NVCC_MARK).is_file()));
    }
    out
}

/// The site-packages folders of the usual Python installs: a virtual environment, conda, the
/// user's own (`pip install --user`), the system's and pyenv's.
fn wheel_dirs() -> Vec<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = env("HOME");
    let mut prefixes: Vec<PathBuf> = Vec::new();
    prefixes.extend(env("VIRTUAL_ENV"));
    prefixes.extend(env("CONDA_PREFIX"));
    prefixes.extend(home.as_ref().map(|h| h.join(".local")));
    prefixes.push("/usr/local".into());
    prefixes.push("/usr".into());
    let pyenv = env("PYENV_ROOT").or_else(|| home.as_ref().map(|h| h.join(".pyenv")));
    if let Some(v) = pyenv.and_then(|p| std::fs::read_dir(p.join("versions")).ok()) {
        prefixes.extend(v.flatten().map(|e| e.path()));
    }
    let mut dirs = vec![PathBuf::from("/usr/lib/python3/dist-packages")];
    for p in prefixes {
        let Ok(entries) = std::fs::read_dir(p.join("lib")) else {
            continue;
        };
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("python3") {
                dirs.push(e.path().join("site-packages"));
                dirs.push(e.path().join("dist-packages"));
            }
        }
    }
    dirs
}

/// Asks `python3` where the wheel's package is (only when nothing else was found).
fn ask_python() -> Option<PathBuf> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let dir = dir.trim();
    (out.status.success() && !dir.is_empty()).then(|| Path::new(dir).join("lib/libnvrtc.so.12"))
}

/// Opens one candidate and looks up the entry points.
fn open(path: &Path) -> Result<Nvrtc, String> {
    // SAFETY: libnvrtc's initialisers have no preconditions; the entry points below are
    // declared with the signatures of NVRTC's C API (nvrtc.h, stable since CUDA 11.0).
    unsafe {
        let lib = Library::new(path).map_err(|e| e.to_string())?;
        let version: VersionFn = *lib.get(b"nvrtcVersion\0").map_err(|e| e.to_string())?;
        macro_rules! sym {
            ($name:literal) => {
                *lib.get(concat!($name, "\0").as_bytes())
                    .map_err(|e| e.to_string())?
            };
        }
        let (mut major, mut minor) = (0, 0);
        if version(&mut major, &mut minor) != 0 {
            return Err("nvrtcVersion failed".into());
        }
        Ok(Nvrtc {
            create: sym!("nvrtcCreateProgram"),
            destroy: sym!("nvrtcDestroyProgram"),
            add_name: sym!("nvrtcAddNameExpression"),
            compile: sym!("nvrtcCompileProgram"),
            log_size: sym!("nvrtcGetProgramLogSize"),
            log: sym!("nvrtcGetProgramLog"),
            ptx_size: sym!("nvrtcGetPTXSize"),
            ptx: sym!("nvrtcGetPTX"),
            lowered: sym!("nvrtcGetLoweredName"),
            version: (major, minor),
            path: path.to_owned(),
            _lib: lib,
        })
    }
}

/// Destroys an NVRTC program when dropped.
struct Program<'a>(&'a Nvrtc, Prog);

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: `self.1` was created by nvrtcCreateProgram and is destroyed once.
        unsafe {
            (self.0.destroy)(&mut self.1);
        }
    }
}

impl Nvrtc {
    /// Compiles `src` (named `name` in NVRTC's messages) with `options`, asking for the lowered
    /// name of `expr` (a kernel's name or a template instance such as `reduce<256>`). The
    /// error is NVRTC's log (or what failed before it could write one).
    pub fn compile(
        &self,
        src: &str,
        name: &str,
        options: &[String],
        expr: &str,
    ) -> Result<Output, String> {
        let nul = |what: &str| format!("the {what} contains a NUL byte");
        let src_c = CString::new(src).map_err(|_| nul("source"))?;
        let name_c = CString::new(name).map_err(|_| nul("file name"))?;
        let expr_c = CString::new(expr).map_err(|_| nul("kernel name"))?;
        let opts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).map_err(|_| nul("option")))
            .collect::<Result<_, _>>()?;
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: every pointer passed is a live NUL-terminated string or a buffer of the
        // size NVRTC reported; the program is destroyed by `Program`'s drop.
        unsafe {
            let mut prog: Prog = std::ptr::null_mut();
            let rc = (self.create)(
                &mut prog,
                src_c.as_ptr(),
                name_c.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if rc != 0 || prog.is_null() {
                return Err(format!("nvrtcCreateProgram failed (error {rc})"));
            }
            let prog = Program(self, prog);
            if (self.add_name)(prog.1, expr_c.as_ptr()) != 0 {
                return Err(format!("nvrtcAddNameExpression(\"{expr}\") failed"));
            }
            let rc = (self.compile)(prog.1, opt_ptrs.len() as c_int, opt_ptrs.as_ptr());
            if rc != 0 {
                let log = self.text(&prog, self.log_size, self.log);
                return Err(log.unwrap_or_else(|| format!("compilation failed (error {rc})")));
            }
            let ptx = self
                .text(&prog, self.ptx_size, self.ptx)
                .ok_or("nvrtcGetPTX failed")?;
            let mut low: *const c_char = std::ptr::null();
            if (self.lowered)(prog.1, expr_c.as_ptr(), &mut low) != 0 || low.is_null() {
                return Err(format!("NVRTC gave no lowered name for `{expr}`"));
            }
            let lowered = CStr::from_ptr(low).to_string_lossy().into_owned();
            Ok(Output { ptx, lowered })
        }
    }

    /// A string NVRTC hands out by size and copy (the log, the PTX).
    ///
    /// # Safety
    /// `size` and `get` must be a matching pair of NVRTC's getters.
    unsafe fn text(&self, prog: &Program, size: SizeFn, get: GetFn) -> Option<String> {
        let mut n = 0usize;
        if size(prog.1, &mut n) != 0 {
            return None;
        }
        let mut buf = vec![0u8; n.max(1)];
        if get(prog.1, buf.as_mut_ptr().cast()) != 0 {
            return None;
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        buf.truncate(end);
        Some(String::from_utf8_lossy(&buf).into_owned())
    }
}
