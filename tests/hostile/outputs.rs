//! Files warpsim writes (`--svg`, `--timeline`) never destroy what a user gave: an output
//! naming an input is refused, a failed run leaves an existing file as it was, a file is
//! replaced whole or not at all, flags that cannot apply are refused (issue 42, item 4).

use super::{case, scratch, write};

/// A copy of the transpose in scratch (an input that a bad output would destroy).
fn program(name: &str) -> (String, String) {
    let src = std::fs::read_to_string(crate::util::root().join("programs/transpose.ron")).unwrap();
    (write(name, &src), src)
}

#[test]
fn an_output_naming_an_input_is_refused() {
    let (p, src) = program("victim.ron");
    case(&["run", &p, "--svg", &p], 2, None, "would overwrite");
    case(
        &["run", &p, "--timeline", &p],
        2,
        None,
        "which this command reads",
    );
    case(
        &["sweep", &p, "-D", "PAD=0,1", "--svg", &p],
        2,
        None,
        "would overwrite",
    );
    // Another spelling of the same file, and a link to it.
    let dotted = format!("{}/./victim.ron", scratch().display());
    case(&["run", &p, "--svg", &dotted], 2, None, "would overwrite");
    let link = scratch().join("victim_link.svg");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&p, &link).unwrap();
    case(
        &["run", &p, "--svg", link.to_str().unwrap()],
        2,
        None,
        "would overwrite",
    );
    // The --gpu file too.
    let gpu = write(
        "victim_gpu.ron",
        &std::fs::read_to_string(crate::util::root().join("crates/machine/presets/h200.ron"))
            .unwrap(),
    );
    case(
        &["run", &p, "--gpu", &gpu, "--svg", &gpu],
        2,
        None,
        "would overwrite",
    );
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        src,
        "the program was changed"
    );
    assert!(std::fs::read_to_string(&gpu).unwrap().contains("Gpu("));
}

#[test]
fn a_failed_run_leaves_an_existing_output_as_it_was() {
    let (p, _) = program("fails.ron");
    let svg = write("keep.svg", "precious");
    let tl = write("keep.json", "precious");
    // Loads, then faults: a runaway loop at one step a block.
    case(
        &[
            "run",
            &p,
            "--svg",
            &svg,
            "--timeline",
            &tl,
            "--max-steps",
            "1",
        ],
        2,
        None,
        "",
    );
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "precious");
    assert_eq!(std::fs::read_to_string(&tl).unwrap(), "precious");
    // A program that does not load.
    let bad = write("bad_prog.ron", "Program(name: 1)");
    case(&["run", &bad, "--svg", &svg], 2, Some(&bad), "");
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "precious");
}

#[test]
fn timeline_with_no_timing_is_refused_and_writes_nothing() {
    let tl = write("no_timing.json", "precious");
    let o = case(
        &[
            "run",
            "programs/transpose.ron",
            "--timeline",
            &tl,
            "--no-timing",
        ],
        2,
        None,
        "--timeline cannot be written with --no-timing",
    );
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&tl).unwrap(), "precious");
    let both = write("both.out", "precious");
    case(
        &[
            "run",
            "programs/transpose.ron",
            "--timeline",
            &both,
            "--svg",
            &both,
        ],
        2,
        None,
        "--svg and --timeline name the same file",
    );
    assert_eq!(std::fs::read_to_string(&both).unwrap(), "precious");
}

#[test]
fn a_successful_run_replaces_the_file_whole_and_leaves_no_temporary() {
    let dir = scratch().join("replace");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("chart.svg");
    std::fs::write(&svg, "old").unwrap();
    let s = svg.to_str().unwrap();
    case(&["run", "programs/transpose.ron", "--svg", s], 0, None, "");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "{text:.80}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // Through a link: the file it names is replaced, the link stays a link.
    let link = dir.join("link.svg");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&svg, &link).unwrap();
    std::fs::write(&svg, "old").unwrap();
    case(
        &[
            "run",
            "programs/transpose.ron",
            "--svg",
            link.to_str().unwrap(),
        ],
        0,
        None,
        "",
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_ne!(std::fs::read_to_string(&svg).unwrap(), "old");
    // A device is written in place.
    case(
        &["run", "programs/transpose.ron", "--svg", "/dev/null"],
        0,
        None,
        "",
    );
    // A folder that cannot take the file: refused before the run, nothing created.
    let o = case(
        &[
            "run",
            "programs/transpose.ron",
            "--timeline",
            "/no/such/dir/t.json",
        ],
        2,
        None,
        "cannot write the timeline",
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn an_output_naming_the_kernel_file_is_refused() {
    // A `ptx:` program beside its kernel file: the PTX must survive `--svg`/`--timeline` and a
    // sweep's `--svg` naming it.
    let root = crate::util::root().join("programs/cuda");
    let ptx_src = std::fs::read_to_string(root.join("classic.ptx")).unwrap();
    let ptx = write("victim_kernel.ptx", &ptx_src);
    let ron = std::fs::read_to_string(root.join("classic/scan_blelloch_cf.ron"))
        .unwrap()
        .replace("../classic.ptx", "victim_kernel.ptx");
    let p = write("victim_kernel.ron", &ron);
    case(&["run", &p, "--svg", &ptx], 2, None, "would overwrite");
    case(
        &["run", &p, "--timeline", &ptx],
        2,
        None,
        "which this command reads",
    );
    case(
        &["sweep", &p, "-D", "N=256,512", "--svg", &ptx],
        2,
        None,
        "would overwrite",
    );
    assert_eq!(
        std::fs::read_to_string(&ptx).unwrap(),
        ptx_src,
        "the kernel file was changed"
    );
}
