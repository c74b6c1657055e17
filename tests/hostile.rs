//! The hostile-input suite: huge lines, huge and endless files, deep nests, absurd sizes,
//! every CUDA launch limit, unwritable paths, failing sweeps and advice. Every case asserts
//! the exit code (0, 1 or 2 as expected: never a panic's 101, an abort's 134 or a signal),
//! `file:line:col` in the message where a file is involved, a bounded message, peak memory
//! (the child's own maximum resident set, from `wait4`) under 1 GiB, and a time bound.

use crate::util::root;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Peak memory any case may use.
const MAX_RSS_BYTES: u64 = 1 << 30;
/// Wall time any case may take (generous: CI machines are shared).
const MAX_SECONDS: u64 = 20;
/// Most bytes of stderr any case may print (errors show an excerpt, never a whole line).
const MAX_STDERR: usize = 16 * 1024;

pub(crate) struct Outcome {
    pub(crate) code: Option<i32>,
    pub(crate) signal: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) rss: u64,
    pub(crate) secs: f64,
}

/// Runs warpsim with `args` (stdin from `stdin`, or empty), measuring the child alone.
pub(crate) fn warpsim(args: &[&str], stdin: Option<&Path>) -> Outcome {
    let dir = scratch();
    let id = format!("{:?}-{}", std::thread::current().id(), args.join(" ").len());
    let (out_path, err_path) = (dir.join(format!("{id}.out")), dir.join(format!("{id}.err")));
    let stdin = match stdin {
        Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
        None => Stdio::null(),
    };
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .current_dir(root())
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .stdin(stdin)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    // A watchdog: a case past its time bound is killed (and then fails on the signal).
    // It also samples the child's peak resident size (see `peak_rss`).
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampled = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (d2, s2) = (done.clone(), sampled.clone());
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(MAX_SECONDS);
        while Instant::now() < until {
            if d2.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if let Some(b) = vm_hwm(&format!("/proc/{pid}/status")) {
                s2.fetch_max(b, std::sync::atomic::Ordering::Relaxed);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if !d2.load(std::sync::atomic::Ordering::Relaxed) {
            // SAFETY: kill on a pid we spawned and have not reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid value; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, which std has not waited for.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(r, pid, "wait4 failed");
    std::mem::forget(child);
    let read = |p: &Path| {
        let b = std::fs::read(p).unwrap_or_default();
        let _ = std::fs::remove_file(p);
        String::from_utf8_lossy(&b).into_owned()
    };
    Outcome {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stdout: read(&out_path),
        stderr: read(&err_path),
        rss: peak_rss(
            usage.ru_maxrss as u64 * 1024,
            sampled.load(std::sync::atomic::Ordering::Relaxed),
        ),
        secs: start.elapsed().as_secs_f64(),
    }
}

/// The child's peak resident size. Linux's `ru_maxrss` of a child is at least the parent's
/// own peak when it spawned it (the spawn runs in, or copies, the parent's memory before the
/// exec), so while this test process is larger than the child, `ru_maxrss` measures this
/// process. Then the child's own peak is the `VmHWM` the watchdog sampled every 20 ms (a lower
/// bound: a peak in the child's last 20 ms is missed); above it, `ru_maxrss` is the child's.
fn peak_rss(ru_maxrss: u64, sampled: u64) -> u64 {
    let parent = vm_hwm("/proc/self/status").unwrap_or(0);
    if ru_maxrss > parent {
        ru_maxrss
    } else {
        sampled
    }
}

/// `VmHWM` (peak resident size) of a `/proc/PID/status` file, in bytes.
fn vm_hwm(status: &str) -> Option<u64> {
    let s = std::fs::read_to_string(status).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A directory for generated inputs.
pub(crate) fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpsim-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) fn write(name: &str, text: &str) -> String {
    let p = scratch().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_owned()
}

/// Asserts the case's exit code, bounds, and (if given) that stderr has `place` followed by
/// `:LINE:COL` and contains `says`.
pub(crate) fn case(args: &[&str], code: i32, place: Option<&str>, says: &str) -> Outcome {
    case_in(args, None, code, place, says)
}

fn case_in(
    args: &[&str],
    stdin: Option<&Path>,
    code: i32,
    place: Option<&str>,
    says: &str,
) -> Outcome {
    let o = warpsim(args, stdin);
    let what = format!(
        "warpsim {}: exit {:?} signal {:?}, {:.1} s, {} MiB\n{}",
        args.join(" ").chars().take(200).collect::<String>(),
        o.code,
        o.signal,
        o.secs,
        o.rss >> 20,
        o.stderr.chars().take(2000).collect::<String>()
    );
    assert_eq!(o.signal, None, "{what}");
    assert_eq!(o.code, Some(code), "{what}");
    assert!(o.rss < MAX_RSS_BYTES, "{what}");
    assert!(o.secs < MAX_SECONDS as f64, "{what}");
    assert!(
        o.stderr.len() < MAX_STDERR,
        "stderr of {} bytes: {what}",
        o.stderr.len()
    );
    assert!(o.stderr.contains(says), "expected {says:?}: {what}");
    if let Some(p) = place {
        let pat = format!("{p}:");
        let has = o.stderr.match_indices(&pat).any(|(i, _)| {
            let rest = &o.stderr[i + pat.len()..];
            let mut parts = rest.splitn(3, ':');
            let line = parts.next().unwrap_or("");
            let col: String = parts
                .next()
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) && !col.is_empty()
        });
        assert!(has, "expected {p}:LINE:COL: {what}");
    }
    o
}

/// A program like the transpose with `extra` inserted before `name:`.
fn transpose_with(extra: &str) -> String {
    let src = std::fs::read_to_string(root().join("programs/transpose.ron")).unwrap();
    let i = src.find("name:").unwrap();
    format!("{}{extra}{}", &src[..i], &src[i..])
}

/// A minimal program with the given launch.
fn launch(grid: &str, block: &str) -> String {
    format!("Program(name: \"l\", launch: (grid: {grid}, block: {block}), body: [])\n")
}

#[test]
fn huge_lines_point_past_column_65535_with_a_short_excerpt() {
    // An error at column 70,005 (miette's renderer fails past 65,535).
    let p = write(
        "long.ron",
        &transpose_with(&format!("{}bogus: 1, ", " ".repeat(70_000))),
    );
    for cmd in ["check", "run", "sweep", "advise"] {
        let o = case(&[cmd, &p], 2, Some(&p), "bogus");
        assert!(o.stderr.contains(":70005"), "{}", o.stderr);
    }
    // A 10 MB line, the error at its end.
    let p = write(
        "ten_mb.ron",
        &transpose_with(&format!("{}bogus: 1, ", " ".repeat(10 << 20))),
    );
    case(&["check", &p], 2, Some(&p), "bogus");
    let _ = std::fs::remove_file(&p);
    // An expression of 1 MB.
    let e = format!("\"{}\"", "1 + ".repeat(250_000) + "zz");
    let p = write(
        "long_expr.ron",
        &launch("[1]", "[32]").replace("body: []", &format!("body: [Let(\"x\", {e})]")),
    );
    case(&["check", &p], 2, Some(&p), "");
}

#[test]
fn huge_and_endless_files_are_refused_at_a_stated_limit() {
    for cmd in ["check", "run", "sweep", "advise"] {
        case(&[cmd, "/dev/zero"], 2, None, "a device, not a regular file");
    }
    case(
        &["access", "/dev/zero"],
        2,
        None,
        "a device, not a regular file",
    );
    case_in(
        &["access", "-"],
        Some(Path::new("/dev/zero")),
        2,
        None,
        "256 MiB",
    );
    // A directory, a missing file.
    case(&["check", "/"], 2, None, "cannot read the program");
    case(
        &["check", "/no/such/file.ron"],
        2,
        None,
        "cannot read the program",
    );
    // Binary data: the position of the first bad byte.
    let mut bytes = b"Program(\n  name: \"x\",\n  ".to_vec();
    bytes.extend([0xff, 0xfe, 0x00, 0x80]);
    let p = scratch().join("binary.ron");
    std::fs::write(&p, &bytes).unwrap();
    let p = p.to_str().unwrap().to_owned();
    case(&["check", &p], 2, Some(&p), "not UTF-8");
    let t = scratch().join("binary.trace");
    std::fs::write(&t, [b'a', b' ', 0xff, b'\n']).unwrap();
    case(
        &["access", t.to_str().unwrap()],
        2,
        Some(t.to_str().unwrap()),
        "not UTF-8",
    );
}

#[test]
fn a_million_line_trace_prices_in_bounded_memory() {
    let p = scratch().join("million.trace");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    let lanes: String = (0..32)
        .map(|l| format!(" {}", l * 4 * (1 + l % 3)))
        .collect();
    for i in 0..1_000_000 {
        writeln!(f, "a{} ld 4{lanes}", i % 1000).unwrap();
    }
    drop(f);
    let p = p.to_str().unwrap();
    for fmt in ["table", "tsv"] {
        let o = case(&["access", p, "--format", fmt], 0, None, "");
        assert!(o.stdout.lines().count() >= 1_000_000);
    }
    let _ = std::fs::remove_file(p);
}

#[test]
fn deep_nests_are_errors_with_short_messages() {
    let mut body = String::from("Let(\"x\", 1)");
    for _ in 0..10_000 {
        body = format!("If(cond: \"1 < 2\", then: [{body}])");
    }
    let p = write(
        "deep_if.ron",
        &launch("[1]", "[32]").replace("body: []", &format!("body: [{body}]")),
    );
    case(&["check", &p], 2, Some(&p), "nested too deeply");
    // Brackets: 63 levels load, 64 do not; 10,000 neither.
    for (depth, code) in [(63, 0), (64, 2), (10_000, 2)] {
        let e = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
        let p = write(
            &format!("brackets{depth}.ron"),
            &launch("[1]", "[32]").replace("body: []", &format!("body: [Let(\"x\", \"{e}\")]")),
        );
        case(&["check", &p], code, (code == 2).then_some(p.as_str()), "");
    }
}

#[test]
fn every_cuda_launch_limit_is_checked_by_check_and_run() {
    let ok = [
        ("[2147483647]", "[32]"),
        ("[1, 65535]", "[32]"),
        ("[1, 1, 65535]", "[32]"),
        ("[1]", "[1024]"),
        ("[1]", "[1, 1024]"),
        ("[1]", "[16, 1, 64]"),
    ];
    for (g, b) in ok {
        let p = write("launch_ok.ron", &launch(g, b));
        // (Past the default --max-threads: the CUDA limits are what is tested here.)
        case(
            &["check", &p, "--max-threads", "18446744073709551615"],
            0,
            None,
            "",
        );
    }
    let bad = [
        ("[2147483648]", "[32]", "grid dimension x is 2147483648"),
        ("[1, 65536]", "[32]", "grid dimension y is 65536"),
        ("[1, 1, 65536]", "[32]", "grid dimension z is 65536"),
        (
            "[4294967295, 4294967295, 4294967295]",
            "[32]",
            "grid dimension x",
        ),
        ("[0]", "[32]", "grid dimension x is 0"),
        ("[1]", "[1025]", "block dimension x is 1025"),
        ("[1]", "[1, 1025]", "block dimension y is 1025"),
        ("[1]", "[1, 1, 65]", "block dimension z is 65"),
        ("[1]", "[64, 32]", "a block of 2048 threads"),
        ("[1, 1, 1, 1]", "[32]", "give 1 to 3"),
    ];
    for (i, (g, b, says)) in bad.iter().enumerate() {
        let p = write(&format!("launch_bad{i}.ron"), &launch(g, b));
        for cmd in ["check", "run"] {
            case(&[cmd, &p], 2, Some(&p), says);
        }
    }
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    let t = "programs/transpose.ron";
    case(
        &["run", t, "-D", "N=99999999999999999999"],
        2,
        None,
        "not an integer",
    );
    case(&["run", t, "-D", "N=1048576"], 2, Some(t), "");
    case(
        &[
            "run",
            t,
            "-D",
            "N=1048576",
            "--max-memory",
            "1000000000000000",
        ],
        2,
        None,
        "",
    );
    case(&["run", t, "--max-steps", "0"], 2, None, "");
    let p = write(
        "float_define.ron",
        &transpose_with("").replace("\"N\": 1024", "\"N\": 1.5"),
    );
    case(&["check", &p], 2, Some(&p), "");
    let p = write(
        "tid_define.ron",
        &transpose_with("").replace("\"PAD\"", "\"tid\""),
    );
    case(&["check", &p], 2, Some(&p), "built-in name");
    let p = write(
        "shared_dim.ron",
        &transpose_with("").replace("dims: [32, 32]", "dims: [32, 4294967295]"),
    );
    case(&["check", &p], 2, Some(&p), "dimension 2 of `tile`");
    // Past the executor's 2 GiB of shared memory per block: the loader says where, and the
    // flag refuses a larger limit.
    let p = write(
        "shared_3gib.ron",
        &transpose_with("").replace("dims: [32, 32]", "dims: [700, 1048576]"),
    );
    case(
        &["check", &p, "--shared-limit", "2147483648"],
        2,
        Some(&p),
        "at most 2 GiB",
    );
    case(
        &["run", t, "--shared-limit", "4294967295"],
        2,
        None,
        "2147483648",
    );
    for (flag, v) in [
        ("--banks", "0"),
        ("--banks", "99999"),
        ("--bank-bytes", "3"),
    ] {
        case(&["run", t, flag, v], 2, None, "bank");
        case(&["advise", t, flag, v], 2, None, "bank");
    }
}

#[test]
fn unwritable_paths_fail_before_the_run() {
    let t = "programs/transpose.ron";
    let o = case(
        &["run", t, "--svg", "/no/such/dir/x.svg"],
        2,
        None,
        "cannot write the SVG",
    );
    assert!(o.stdout.is_empty(), "the run went ahead: {}", o.stdout);
    case(
        &["sweep", t, "-D", "PAD=0,1", "--svg", "/no/such/dir/x.svg"],
        2,
        None,
        "cannot write the SVG",
    );
}

#[test]
fn failing_sweeps_print_every_row_and_never_count_zero() {
    // The first variant fails: the table still has both rows.
    let o = case(
        &[
            "sweep",
            "programs/matmul.ron",
            "-D",
            "N=64",
            "-D",
            "TILE=64,16",
        ],
        2,
        None,
        "1 of 2 variants failed",
    );
    assert!(
        o.stdout.contains("failed") && o.stdout.contains("16,384"),
        "{}",
        o.stdout
    );
    let o = case(
        &[
            "sweep",
            "programs/matmul.ron",
            "-D",
            "N=64",
            "-D",
            "TILE=64,16",
            "--format",
            "csv",
        ],
        2,
        None,
        "",
    );
    let failed = o.stdout.lines().nth(1).unwrap();
    assert!(failed.contains(",,,,,,,,failed,"), "{failed}");
    let o = case(
        &[
            "sweep",
            "programs/matmul.ron",
            "-D",
            "N=64",
            "-D",
            "TILE=64,16",
            "--format",
            "json",
        ],
        2,
        None,
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        v[0]["stall_cycles"].is_null()
            && v[0]["bank_conflicts"].is_null()
            && v[1]["bank_conflicts"] == 0
            && v[1]["stall_cycles"].is_u64(),
        "{v}"
    );
    // Every variant fails: the first one's diagnostic, with its place.
    case(
        &["sweep", "programs/matmul.ron", "-D", "TILE=64,128"],
        2,
        Some("programs/matmul.ron"),
        "",
    );
    // A product past --max-variants, refused before anything is listed or run.
    case(
        &[
            "sweep",
            "programs/transpose.ron",
            "-D",
            "N=0..4095",
            "-D",
            "PAD=0..4095",
        ],
        2,
        None,
        "--max-variants",
    );
    case(
        &["sweep", "programs/transpose.ron", "-D", "PAD=0..4096"],
        2,
        None,
        "longer than 4096 values",
    );
    case(
        &["sweep", "programs/transpose.ron", "-D", "PAD=5..1"],
        2,
        None,
        "empty",
    );
    case(&["sweep", "/dev/zero"], 2, None, "a device");
}

#[test]
fn advice_says_what_it_could_not_judge() {
    let racy = "tests/races/transpose_no_barrier.ron";
    let o = case(&["advise", racy, "-D", "N=64"], 1, None, "");
    assert!(o.stdout.contains("nothing could be judged"), "{}", o.stdout);
    let o = case(&["advise", racy, "-D", "N=64", "--no-verify"], 0, None, "");
    assert!(o.stdout.contains("pad 1"), "{}", o.stdout);
    let o = case(
        &["advise", "programs/transpose.ron", "-D", "N=64"],
        0,
        None,
        "",
    );
    assert!(o.stdout.contains("pad 1"), "{}", o.stdout);
    let o = case(
        &[
            "advise",
            "programs/transpose.ron",
            "-D",
            "N=64",
            "-D",
            "PAD=1",
            "--max-pad",
            "3",
        ],
        0,
        None,
        "",
    );
    assert!(o.stdout.contains("paddings 0-3"), "{}", o.stdout);
    case(
        &["advise", "programs/transpose.ron", "--max-pad", "5000"],
        2,
        None,
        "--max-pad 5000",
    );
    let o = case(
        &[
            "advise",
            "programs/transpose.ron",
            "-D",
            "N=64",
            "--format",
            "csv",
        ],
        0,
        None,
        "",
    );
    assert!(o.stdout.starts_with("array,pad,swizzle,"), "{}", o.stdout);
    assert!(
        o.stdout.lines().count() > 33,
        "pads 0-32 and the swizzles: {}",
        o.stdout
    );
}

#[test]
fn completions_for_every_shell() {
    for sh in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = case(&["completions", sh], 0, None, "");
        assert!(o.stdout.contains("advise"), "{sh}");
    }
    case(&["completions", "cmd"], 2, None, "");
}

#[test]
fn svg_charts_are_the_same_every_run_and_the_docs_regenerate() {
    let dir = scratch();
    let chart = |i: usize| {
        let p = dir.join(format!("sweep{i}.svg"));
        let p = p.to_str().unwrap();
        let args = [
            "sweep",
            "programs/transpose.ron",
            "--banks",
            "16,32,64",
            "--define",
            "PAD=0..2",
            "--svg",
            p,
        ];
        case(&args, 0, None, "");
        std::fs::read(p).unwrap()
    };
    let first = chart(1);
    // Compared as booleans: a failing byte-vector comparison prints hundreds of kilobytes.
    assert!(first == chart(2), "the sweep chart changed between runs");
    assert!(
        first == std::fs::read(root().join("docs/src/sweep_transpose.svg")).unwrap(),
        "docs/src/sweep_transpose.svg is not what docs/src/experiments.md says draws it \
         (regenerate it with the command there)"
    );
    let run = |i: usize| {
        let p = dir.join(format!("run{i}.svg"));
        let p = p.to_str().unwrap();
        case(
            &["run", "programs/transpose.ron", "-D", "N=256", "--svg", p],
            0,
            None,
            "",
        );
        std::fs::read(p).unwrap()
    };
    assert!(run(1) == run(2), "the run chart changed between runs");
}

#[test]
fn advice_searches_a_whole_bank_cycle_by_default() {
    let p = "tests/fixtures/stencil_halo.ron";
    let o = case(&["advise", p], 0, None, "");
    assert!(
        o.stdout.contains("t: pad 30 → bank conflicts 384 → 0"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("paddings 0-32"), "{}", o.stdout);
    let o = case(&["advise", p, "--max-pad", "8"], 0, None, "");
    assert!(
        o.stdout.contains("no layout tried (paddings 0-8"),
        "{}",
        o.stdout
    );
}

#[test]
fn plain_integer_fields_are_located() {
    let src = std::fs::read_to_string(root().join("programs/transpose.ron")).unwrap();
    let p = write(
        "zero_len.ron",
        &src.replace("len: \"N * N\", init", "len: 0, init"),
    );
    case(
        &["check", &p],
        2,
        None,
        &format!("{p}:10:37: buffer `inp` would have 0 elements"),
    );
    let p = write(
        "zero_dim.ron",
        &src.replace("dims: [32, 32]", "dims: [32, 0]"),
    );
    case(
        &["check", &p],
        2,
        None,
        &format!("{p}:14:44: dimension 2 of `tile` is 0"),
    );
}

mod escapes;
mod gpu_file;
mod inputs;
mod limits;
mod outputs;
