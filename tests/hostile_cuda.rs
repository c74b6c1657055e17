//! The hostile-input suite for `cuda:` kernels' includes (issue 42): the PTX cache keyed by
//! every header the preprocessor may open (through `<…>`, a subfolder or a macro), headers
//! read through the capped reader (a FIFO or a device is refused at its `#include`, and one
//! in a comment or an `#if 0` block is not opened), includes limited to the `.cu`'s folder,
//! the toolkit's and `--include-path` folders unless `--any-include`, and no lines of a file
//! outside them quoted in a diagnostic. Same bounds as `tests/hostile.rs`.

use crate::hostile::{case, scratch, write};

/// A program running `k` of `file` (in the scratch folder) on one warp, whose `out` must
/// hold `want` everywhere.
fn program(name: &str, file: &str, want: &str) -> String {
    write(
        name,
        &format!(
            "Program(name: \"inc\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
             \"out\", ty: I32, len: 32, expect: \"{want}\")],\n    cuda: (file: \"{file}\", \
             kernel: \"k\", args: [\"out\"]),\n)\n"
        ),
    )
}

const KERNEL: &str = "__global__ void k(int *out) { out[threadIdx.x] = V; }\n";

/// Editing a header reached through `<…>` in a subfolder, or through a macro, recompiles: the
/// cache gave the old PTX (a wrong answer with exit 0 when the expectation followed the edit).
#[test]
fn the_ptx_cache_sees_every_header() {
    if !crate::nvrtc::nvrtc("the_ptx_cache_sees_every_header") {
        return;
    }
    let dir = scratch().join("inc_sub");
    std::fs::create_dir_all(dir.join("deep")).unwrap();
    let cases = [
        ("angled.cu", "#include <inc_sub/deep/v.cuh>\n"),
        ("macro.cu", "#define H \"inc_sub/deep/v.cuh\"\n#include H\n"),
        ("nested.cu", "#include \"inc_sub/w.cuh\"\n"),
    ];
    // w.cuh includes deep/v.cuh from its own folder.
    std::fs::write(dir.join("w.cuh"), "#include \"deep/v.cuh\"\n").unwrap();
    for (cu, head) in cases {
        let file = write(cu, &format!("{head}{KERNEL}"));
        // An include through a macro cannot be checked against the allowed folders: refused
        // at it unless --any-include.
        let any: &[&str] = if cu == "macro.cu" {
            let p = program(&format!("{cu}.ron"), cu, "1");
            let o = case(&["run", &p], 2, Some(&file), "cannot follow this include");
            assert!(o.stderr.contains(&format!("{file}:2:10")), "{}", o.stderr);
            assert!(o.stderr.contains("--any-include"), "{}", o.stderr);
            &["--any-include"]
        } else {
            &[]
        };
        for v in [1, 2, 1] {
            std::fs::write(dir.join("deep/v.cuh"), format!("#define V {v}\n")).unwrap();
            let p = program(&format!("{cu}.ron"), cu, &v.to_string());
            let o = case(&[&["run", &p[..]][..], any].concat(), 0, None, "");
            assert!(
                o.stdout.contains("verified: yes"),
                "{cu} V={v}: {}",
                o.stdout
            );
        }
    }
}

/// A header that is a FIFO or a device is refused at its `#include` (NVRTC blocked on the
/// FIFO for ever); one in a comment or an `#if 0` block is never opened.
#[test]
fn headers_that_are_not_files_are_refused_at_their_include() {
    if !crate::nvrtc::nvrtc("headers_that_are_not_files_are_refused_at_their_include") {
        return;
    }
    let fifo = scratch().join("hdr.fifo");
    let _ = std::fs::remove_file(&fifo);
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let skipped = write(
        "fifo_skipped.cu",
        &format!(
            "// #include \"hdr.fifo\"\n/* #include \"hdr.fifo\" */\n#if 0\n#include \
             \"hdr.fifo\"\n#include \"/dev/zero\"\n#endif\n#define V 7\n{KERNEL}"
        ),
    );
    let p = program("fifo_skipped.ron", "fifo_skipped.cu", "7");
    let o = case(&["run", &p], 0, None, "");
    assert!(o.stdout.contains("verified: yes"), "{}", o.stdout);
    for (i, (inc, any, says)) in [
        ("hdr.fifo", false, "a FIFO"),
        ("/dev/zero", false, "outside the .cu's folder"),
        ("/dev/zero", true, "a device"),
    ]
    .iter()
    .enumerate()
    {
        let cu = write(
            &format!("fifo{i}.cu"),
            &format!("#define V 7\n#ifdef V\n  #include \"{inc}\"\n#endif\n{KERNEL}"),
        );
        let p = program(&format!("fifo{i}.ron"), &format!("fifo{i}.cu"), "7");
        let args: &[&str] = if *any {
            &["check", &p, "--any-include"]
        } else {
            &["check", &p]
        };
        let o = case(args, 2, Some(&cu), says);
        assert!(o.stderr.contains(&format!("{cu}:3:13")), "{}", o.stderr);
    }
    let _ = skipped;
}

/// A header outside the `.cu`'s folder that NVRTC cannot compile is named with its line, but
/// its lines are not quoted (`#include "/etc/passwd"` was a way to read any file).
#[test]
fn files_outside_the_folder_are_not_quoted() {
    if !crate::nvrtc::nvrtc("files_outside_the_folder_are_not_quoted") {
        return;
    }
    let secret = std::env::temp_dir().join(format!("warpsim-secret-{}.h", std::process::id()));
    std::fs::write(&secret, "SECRET_TOKEN_LINE here ;\n").unwrap();
    write(
        "leak.cu",
        &format!("#include \"{}\"\n#define V 1\n{KERNEL}", secret.display()),
    );
    let p = program("leak.ron", "leak.cu", "1");
    // Refused at the #include, before NVRTC opens it.
    let o = case(&["check", &p], 2, None, "outside the .cu's folder");
    assert!(o.stderr.contains("leak.cu:1:11"), "{}", o.stderr);
    assert!(o.stderr.contains("--include-path DIR"), "{}", o.stderr);
    // Allowed by the user: NVRTC compiles it, and its lines are still not quoted.
    let o = case(&["check", &p, "--any-include"], 2, None, "");
    assert!(!o.stderr.contains("SECRET_TOKEN_LINE here"), "{}", o.stderr);
    let _ = std::fs::remove_file(&secret);
}

/// The forms of `#include` the preprocessor reads but a line-by-line scan missed (a digraph
/// `%:`, a line splice inside the directive or the name, a `/*` inside a string literal before
/// it) are refused like a plain one: NVRTC opened the file outside the folder for each.
#[test]
fn includes_hidden_from_a_simple_scan_are_refused() {
    if !crate::nvrtc::nvrtc("includes_hidden_from_a_simple_scan_are_refused") {
        return;
    }
    let secret = std::env::temp_dir().join(format!("warpsim-secret2-{}.h", std::process::id()));
    std::fs::write(&secret, "#define V 1\n").unwrap();
    let path = secret.display().to_string();
    let (dir, file) = path.rsplit_once('/').unwrap();
    for (k, head) in [
        format!("%:include \"{path}\"\n"),
        format!("#inc\\\nlude \"{path}\"\n"),
        format!("#include \"{dir}/\\\n{file}\"\n"),
        format!("const char *c = \"/*\";\n#include \"{path}\"\n// */\n"),
    ]
    .iter()
    .enumerate()
    {
        let cu = format!("hidden{k}.cu");
        write(&cu, &format!("{head}{KERNEL}"));
        let p = program(&format!("hidden{k}.ron"), &cu, "1");
        let o = case(&["check", &p], 2, None, "outside the .cu's folder");
        assert!(o.stderr.contains(&cu), "{k}: {}", o.stderr);
    }
    let _ = std::fs::remove_file(&secret);
}

/// An output naming a header the `.cu` includes is refused, as one naming the `.cu` is.
#[test]
fn an_output_naming_an_included_header_is_refused() {
    if !crate::nvrtc::nvrtc("an_output_naming_an_included_header_is_refused") {
        return;
    }
    let header = write("out_victim.cuh", "#define V 1\n");
    write(
        "out_victim.cu",
        &format!("#include \"out_victim.cuh\"\n{KERNEL}"),
    );
    let p = program("out_victim.ron", "out_victim.cu", "1");
    case(&["run", &p, "--svg", &header], 2, None, "would overwrite");
    case(
        &["run", &p, "--timeline", &header],
        2,
        None,
        "which this command reads",
    );
    case(&["sweep", &p, "--svg", &header], 2, None, "would overwrite");
    assert_eq!(std::fs::read_to_string(&header).unwrap(), "#define V 1\n");
}

/// A header in a folder the user names with `--include-path` (`-I`) is found, through `"…"`
/// or `<…>`, and allowed; without it, it is refused (or not found).
#[test]
fn include_path_names_a_folder_a_cu_may_include_from() {
    if !crate::nvrtc::nvrtc("include_path_names_a_folder_a_cu_may_include_from") {
        return;
    }
    let lib = std::env::temp_dir().join(format!("warpsim-inclib-{}", std::process::id()));
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join("val.cuh"), "#define V 5\n").unwrap();
    let dir = lib.to_str().unwrap();
    for (name, line) in [
        ("inc_abs.cu", format!("#include \"{dir}/val.cuh\"\n")),
        ("inc_angled.cu", "#include <val.cuh>\n".to_owned()),
    ] {
        let cu = write(name, &format!("{line}{KERNEL}"));
        let p = program(&format!("{name}.ron"), name, "5");
        for flag in ["--include-path", "-I"] {
            let o = case(&["run", &p, flag, dir], 0, None, "");
            assert!(o.stdout.contains("verified: yes"), "{}", o.stdout);
        }
        let o = warpsim_refused(&p);
        assert!(o.contains(&cu) || o.contains("val.cuh"), "{o}");
    }
    let _ = std::fs::remove_dir_all(&lib);
}

/// `check P` without flags: exit 2, its stderr.
fn warpsim_refused(p: &str) -> String {
    case(&["check", p], 2, None, "").stderr
}

/// The launch file's `include_paths` must name folders (relative to it), and only for `cuda:`.
#[test]
fn launch_file_include_paths_are_checked() {
    write("incp.cu", &format!("#define V 1\n{KERNEL}"));
    let p = write(
        "incp.ron",
        "Program(name: \"inc\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", \
         ty: I32, len: 32, expect: \"1\")],\n    cuda: (file: \"incp.cu\", kernel: \"k\", args: \
         [\"out\"], include_paths: [\"no_such_folder\"]),\n)\n",
    );
    let o = case(&["check", &p], 2, Some(&p), "no such folder");
    assert!(o.stderr.contains("incp.ron:3:74"), "{}", o.stderr);
    let p = write(
        "incp_ptx.ron",
        "Program(name: \"inc\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", \
         ty: I32, len: 32, expect: \"1\")],\n    ptx: (file: \"incp.cu\", kernel: \"k\", args: \
         [\"out\"], include_paths: [\".\"]),\n)\n",
    );
    case(
        &["check", &p],
        2,
        Some(&p),
        "`include_paths` is for `cuda:` kernels",
    );
}
