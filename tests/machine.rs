//! One machine description for every command: `--gpu FILE` gives `access`, `explain`,
//! `check`, `run`, `sweep` and `advise` their bank geometry (a description with 64 banks asks
//! what `--banks 64` asks) and `check`/`run` their shared-memory limit; a geometry is checked
//! in one place, with one message, whichever command is given it.

use crate::util::{run, scratch, text};

/// The H200 preset with `from` replaced by `to`, written to the scratch folder: its path.
fn what_if(name: &str, from: &str, to: &str) -> String {
    let src = warpsim_testkit::read("crates/machine/presets/h200.ron");
    assert!(src.contains(from), "the preset has no `{from}`");
    let p = scratch(name, &src.replace(from, to));
    p.to_string_lossy().into_owned()
}

/// stdout of a successful `warpsim ARGS`, without the JSON report's wall-clock `emulator`.
fn out(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
    let s = text(&o.stdout);
    match serde_json::from_str::<serde_json::Value>(&s) {
        Ok(mut v) => {
            if let Some(m) = v.as_object_mut() {
                m.remove("emulator");
            }
            v.to_string()
        }
        Err(_) => s,
    }
}

#[test]
fn every_command_takes_its_geometry_from_the_gpu() {
    let wide = what_if("machine_banks64.ron", "banks: 32,", "banks: 64,");
    let t = "programs/transpose.ron";
    let cases: [&[&str]; 6] = [
        &[
            "access",
            "tests/fixtures/h200/patterns.txt",
            "--format",
            "tsv",
        ],
        &["explain", "tid*32"],
        &["check", t],
        &["run", t, "-D", "N=128", "--format", "json"],
        &["sweep", t, "-D", "N=128", "--format", "json"],
        &[
            "advise",
            t,
            "-D",
            "N=64",
            "--max-pad",
            "2",
            "--format",
            "json",
        ],
    ];
    for args in cases {
        let with_gpu = out(&[args, &["--gpu", &wide]].concat());
        let with_flag = out(&[args, &["--banks", "64"]].concat());
        assert_eq!(with_gpu, with_flag, "{args:?}");
        // And `--gpu h200` is the default.
        assert_eq!(
            out(&[args, &["--gpu", "h200"]].concat()),
            out(args),
            "{args:?}"
        );
    }
    // 64 banks halve the naive column read's conflict (32-way on 32 banks).
    let e = out(&["explain", "tid*32", "--gpu", &wide]);
    assert!(e.contains("16-way bank conflict"), "{e}");
}

#[test]
fn the_shared_memory_limit_is_the_gpus() {
    // 4 KiB an SM less 1 KiB reserved per block: the transpose's 4 KiB tile does not fit.
    let small = what_if(
        "machine_small_smem.ron",
        "shared_bytes: 233472,",
        "shared_bytes: 4096,",
    );
    let o = run(&["check", "programs/transpose.ron", "--gpu", &small]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("over the limit of 3072"), "{err}");
    // --shared-limit still overrides it.
    let o = run(&[
        "check",
        "programs/transpose.ron",
        "--gpu",
        &small,
        "--shared-limit",
        "8192",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn a_bad_geometry_is_one_error_from_every_command() {
    let t = "programs/transpose.ron";
    let cases: [&[&str]; 6] = [
        &["access", "tests/fixtures/h200/patterns.txt"],
        &["explain", "tid"],
        &["check", t],
        &["run", t],
        &["sweep", t],
        &["advise", t],
    ];
    for args in cases {
        let o = run(&[args, &["--banks", "0"]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains("h200: invalid bank geometry: 0 banks"),
            "{args:?}: {err}"
        );
        // A list is a sweep's alone.
        let o = run(&[args, &["--bank-bytes", "4,8"]].concat());
        if args[0] == "sweep" {
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains("--bank-bytes 4,8: this command runs one geometry"),
            "{err}"
        );
    }
}
