//! Files a command writes (`--svg`, `--timeline`): checked before the run, written whole or
//! not at all.
//!
//! * [`check_output`], before the run: the path is not one of the command's inputs (`run P
//!   --svg P` would destroy the program), and its folder takes a new file (so a long run is
//!   not thrown away at the end). The file itself is not touched.
//! * [`write_output`], after: the bytes go to a temporary file in the same folder, renamed
//!   over the path only once they are all written, so a failed run or a full disk leaves an
//!   existing file as it was. A path that is (or links to) something other than a regular
//!   file, such as `/dev/stdout` or a pipe, is written directly.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The files a command reads that an output must not replace: the program, the files its
/// `cuda:`/`ptx:` kernel was made from (`Program::kernel_files`), and the `--gpu` file (not a
/// preset's name).
pub fn inputs<'a>(program: &'a str, kernel_files: &'a [String], gpu: &'a str) -> Vec<&'a Path> {
    let mut v = vec![Path::new(program)];
    v.extend(kernel_files.iter().map(Path::new));
    if !gpu.eq_ignore_ascii_case("h200") {
        v.push(Path::new(gpu));
    }
    v
}

/// Refuses `path` as the `what` output if it is one of `inputs` (files the command reads) or
/// if its folder cannot take a new file.
pub fn check_output(path: &Path, what: &str, inputs: &[&Path]) -> miette::Result<()> {
    let shown = warpsim_kernel::escape::path(path);
    for input in inputs {
        if same_file(path, input) {
            return Err(miette::miette!(
                help = "write the output to another path",
                "{shown}: the {what} would overwrite {}, which this command reads",
                warpsim_kernel::escape::path(input)
            ));
        }
    }
    if !writes_directly(path) {
        let tmp = temp_path(&target(path));
        create_new(&tmp)
            .map(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
            .map_err(|e| {
                miette::miette!(
                    help = "check that the directory exists and is writable",
                    "{shown}: cannot write the {what}: {e}"
                )
            })?;
    }
    Ok(())
}

/// Writes `bytes` to `path` as the `what` output: whole, or (on an error) not at all.
pub fn write_output(path: &Path, what: &str, bytes: &[u8]) -> miette::Result<()> {
    let shown = warpsim_kernel::escape::path(path);
    let fail = |e: std::io::Error| {
        miette::miette!(
            help = "check that the directory exists, is writable and has room",
            "{shown}: cannot write the {what}: {e}"
        )
    };
    if writes_directly(path) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(fail);
    }
    let target = target(path);
    let tmp = temp_path(&target);
    let written = create_new(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, &target)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(fail(e))
        }
    }
}

/// Whether `path` exists as something other than a regular file (a device, a pipe): written
/// in place, not replaced.
fn writes_directly(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// The file a path names, through any symbolic links (so that writing `link.svg` replaces
/// what it links to, not the link).
fn target(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A temporary name beside `target`, hidden, unique to this process.
fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map_or("output".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.warpsim-{}.tmp", std::process::id()))
}

fn create_new(p: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(p)
}

/// Whether `a` and `b` name one file, existing or not.
pub fn same_path(a: &Path, b: &Path) -> bool {
    same_file(a, b) || target(a) == target(b)
}

/// Whether `a` and `b` are one existing file (by device and inode, so through links and
/// different spellings of a path).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt;
            x.dev() == y.dev() && x.ino() == y.ino()
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => target(a) == target(b),
        _ => false,
    }
}
