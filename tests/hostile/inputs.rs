//! Every input file goes through one capped reader: pipes, devices and directories refused
//! unread (a FIFO never blocks), a size cap that `WARPSIM_MAX_FILE_BYTES` raises (issue 42,
//! item 1's reads).

use super::{case, scratch, write};
use std::process::Command;
use std::time::{Duration, Instant};

/// A FIFO with no writer (opening it for reading would block for ever).
fn fifo(name: &str) -> String {
    let p = scratch().join(name);
    let _ = std::fs::remove_file(&p);
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    p.to_str().unwrap().to_owned()
}

#[test]
fn fifos_devices_and_directories_are_refused_unread() {
    let f = fifo("prog.fifo");
    let t = "programs/transpose.ron";
    for cmd in ["check", "run", "sweep", "advise"] {
        case(
            &[cmd, &f],
            2,
            None,
            "a FIFO (named pipe), not a regular file",
        );
        case(&[cmd, t, "--gpu", &f], 2, None, "a FIFO (named pipe)");
    }
    case(&["access", &f], 2, None, "a FIFO (named pipe)");
    case(
        &["run", t, "--gpu", "/dev/zero"],
        2,
        None,
        "a device, not a regular file",
    );
    case(
        &["check", t, "--gpu", "/"],
        2,
        None,
        "a directory, not a regular file",
    );
    case(
        &["explain", "tid", "--gpu", "/dev/zero"],
        2,
        None,
        "a device",
    );
    case(
        &["check", "/tmp"],
        2,
        None,
        "a directory, not a regular file",
    );
    case(&["access", "/"], 2, None, "a directory");
    // Through a symbolic link.
    let link = scratch().join("zero_link.ron");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    case(&["check", link.to_str().unwrap()], 2, None, "a device");
    case(
        &["check", t, "--gpu", link.to_str().unwrap()],
        2,
        None,
        "a device",
    );
}

#[test]
fn a_gpu_description_past_a_mebibyte_is_refused() {
    let src = std::fs::read_to_string(crate::util::root().join("crates/machine/presets/h200.ron"))
        .unwrap();
    let g = write(
        "huge_gpu.ron",
        &format!("{}{src}", "// padding\n".repeat(100_000)),
    );
    case(
        &["check", "programs/transpose.ron", "--gpu", &g],
        2,
        None,
        "larger than 1048576 bytes (1 MiB)",
    );
}

/// Runs warpsim with `WARPSIM_MAX_FILE_BYTES=cap`: (exit code, stderr), within 20 s.
fn with_cap(cap: &str, args: &[&str]) -> (Option<i32>, String) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(crate::util::root())
        .args(args)
        .env("WARPSIM_MAX_FILE_BYTES", cap)
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(20), "{args:?}");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_cap_is_the_users_to_set() {
    let t = "programs/transpose.ron";
    let (code, err) = with_cap("100", &["check", t]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("larger than 100 bytes"), "{err}");
    assert!(err.contains("WARPSIM_MAX_FILE_BYTES"), "{err}");
    let trace = write(
        "cap.trace",
        &format!("a ld 4{}\n", " 0".repeat(32)).repeat(10),
    );
    let (code, err) = with_cap("100", &["access", &trace]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("larger than 100 bytes"), "{err}");
    let (code, err) = with_cap(
        "100",
        &["check", t, "--gpu", "crates/machine/presets/h200.ron"],
    );
    assert_eq!(code, Some(2), "{err}");
    // Raised: the same files are read.
    let (code, err) = with_cap(
        "1000000000",
        &["check", t, "--gpu", "crates/machine/presets/h200.ron"],
    );
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = with_cap("1000000000", &["access", &trace]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn kernel_files_of_ptx_and_cuda_programs_are_read_the_same_way() {
    let src =
        std::fs::read_to_string(crate::util::root().join("programs/cuda/matmul_n256_t32.ron"))
            .unwrap();
    let f = fifo("kernel.fifo");
    for (i, (file, says)) in [
        ("/dev/zero", "a device"),
        (f.as_str(), "a FIFO"),
        ("/tmp", "a directory"),
    ]
    .into_iter()
    .enumerate()
    {
        let p = write(
            &format!("ptx_from_{i}.ron"),
            &src.replace("file: \"kernels.ptx\"", &format!("file: {file:?}")),
        );
        case(&["check", &p], 2, None, says);
        let cu = src
            .replace(
                "ptx: (file: \"kernels.ptx\"",
                &format!("cuda: (file: {file:?}"),
            )
            .replace("_Z6matmulILi32ELi0ELb0EEvPKfS1_Pfi", "matmul<32,0,false>");
        let p = write(&format!("cu_from_{i}.ron"), &cu);
        case(&["check", &p], 2, None, says);
    }
}
