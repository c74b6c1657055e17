//! `mma.sync` (issue 41): calibration/probes/mma_numerics/mma_forms.cu, every form warpsim
//! runs on two random draws, one instance a warp. `predictions.txt` there is warpsim's D words
//! (the rounding rule fitted on seed 1 of the GPU's words, committed before seed 2 was
//! compared); this test checks that warpsim still gives them, and counts how many equal the
//! GPU's words in `raw/device.txt` per form (the figures of the probe's RESULT.md: all equal,
//! the fp8 forms post hoc); then the same on a second, fresh draw. `WARPSIM_BLESS=1` rewrites
//! the predictions.
//! Skipped without NVRTC.

use std::collections::BTreeMap;
use std::fmt::Write;
use warpsim_lang::{load_str, Options};
use warpsim_runner::{run_with_buffers, RunOptions};

const DIR: &str = "calibration/probes/mma_numerics";
const FORMS: usize = 14;

/// warpsim's `out` words of form `f` on seed `seed`.
fn words(seed: u32, f: usize) -> Vec<u32> {
    let file = match seed {
        1 => "forms.cu.ron".to_owned(),
        n => format!("forms_seed{n}.cu.ron"),
    };
    let mut bufs = run_form(&format!("{DIR}/{file}"), f, &[]);
    bufs.pop().unwrap()
}

/// The buffers after running launch file `file` (from the repository root) with its kernel
/// `forms<F>` as `forms<f>` and each `(from, to)` of `edits` replaced, without timing (also
/// tests/wmma_numerics.rs's).
pub(crate) fn run_form(file: &str, f: usize, edits: &[(&str, String)]) -> Vec<Vec<u32>> {
    run_form_report(file, f, edits).0
}

/// [`run_form`], with the run's report.
pub(crate) fn run_form_report(
    file: &str,
    f: usize,
    edits: &[(&str, String)],
) -> (Vec<Vec<u32>>, warpsim_runner::Report) {
    let path = crate::util::root().join(file);
    let mut src = std::fs::read_to_string(&path).unwrap();
    src = src.replace("forms<F>", &format!("forms<{f}>"));
    for (from, to) in edits {
        src = src.replace(from, to);
    }
    let path = path.to_string_lossy().into_owned();
    let prog = load_str(&path, &src, &Options::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut bufs: Vec<Vec<u32>> = prog.buffers.iter().map(warpsim_exec::init_words).collect();
    let opts = RunOptions {
        timing: None,
        ..RunOptions::default()
    };
    let report = run_with_buffers(&prog, &opts, &mut bufs).unwrap_or_else(|e| panic!("{e:?}"));
    (bufs, report)
}

/// "D seed form lane w0 .. w7" lines of `seeds`, as the probe's host.cu prints the GPU's.
fn predictions(seeds: &[u32]) -> String {
    let mut s = String::new();
    for &seed in seeds {
        for f in 0..FORMS {
            for (lane, ws) in words(seed, f).chunks(8).enumerate() {
                write!(s, "D {seed} {f} {lane}").unwrap();
                for w in ws {
                    write!(s, " {w:08x}").unwrap();
                }
                s.push('\n');
            }
        }
    }
    s
}

/// (seed, form) → word index → word, from "D" lines.
fn parse(text: &str) -> BTreeMap<(u32, usize), BTreeMap<usize, u32>> {
    let mut out: BTreeMap<(u32, usize), BTreeMap<usize, u32>> = BTreeMap::new();
    for l in text.lines().filter(|l| l.starts_with("D ")) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let key = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let lane: usize = f[3].parse().unwrap();
        for (j, w) in f[4..].iter().enumerate() {
            let w = u32::from_str_radix(w, 16).unwrap();
            out.entry(key).or_default().insert(lane * 8 + j, w);
        }
    }
    out
}

/// warpsim's words for `seeds` equal the committed `predictions` file (`WARPSIM_BLESS=1`
/// rewrites it), and, where the GPU ran them, every word of every form equals the GPU's in
/// `device` (RESULT.md).
fn check_draw(seeds: &[u32], predictions_file: &str, device: &str) {
    let forms = seeds.len() * FORMS;
    check_words(&predictions(seeds), DIR, predictions_file, device, forms);
}

/// warpsim's "D" lines `now` equal the committed `predictions_file` of probe folder `dir`
/// (`WARPSIM_BLESS=1` rewrites it) and, where the GPU ran them (`device` there), every word of
/// its `forms` (seed, form) pairs equals the GPU's (also tests/wmma_numerics.rs's check).
pub(crate) fn check_words(
    now: &str,
    dir: &str,
    predictions_file: &str,
    device: &str,
    forms: usize,
) {
    check_words_measured(now, dir, predictions_file, device, forms, &[]);
}

/// [`check_words`], where the device disagreed when it was measured: `(seed, form, words
/// equal)` for each (seed, form) that was not all equal; the others must be all equal. (The
/// record of a measurement, so that a change to warpsim's numerics shows either way.)
pub(crate) fn check_words_measured(
    now: &str,
    dir: &str,
    predictions_file: &str,
    device: &str,
    forms: usize,
    measured: &[(u32, usize, usize)],
) {
    check_text(dir, predictions_file, now);
    let Ok(text) = std::fs::read_to_string(crate::util::root().join(dir).join(device)) else {
        return;
    };
    assert_words_equal(now, &text, forms, device, measured);
}

/// `now` equals the committed `predictions_file` of probe folder `dir` (`WARPSIM_BLESS=1`
/// rewrites it).
pub(crate) fn check_text(dir: &str, predictions_file: &str, now: &str) {
    let file = crate::util::root().join(dir).join(predictions_file);
    if std::env::var_os("WARPSIM_BLESS").is_some() {
        std::fs::write(&file, now).unwrap();
    }
    let committed = std::fs::read_to_string(&file).unwrap();
    assert!(now == committed, "warpsim's output differs from {file:?}");
}

/// Every word of every (seed, form) of the GPU's "D" lines `device_text` (`forms` of them,
/// from file `device`) equals warpsim's in `ours`; prints the count per form.
pub(crate) fn assert_words_equal(
    ours: &str,
    device_text: &str,
    forms: usize,
    device: &str,
    measured: &[(u32, usize, usize)],
) {
    let (want, got) = (parse(device_text), parse(ours));
    assert_eq!(want.len(), forms, "{device} holds every form of every seed");
    for (key, dev) in &want {
        let ours = &got[key];
        let same = dev.iter().filter(|(i, w)| ours.get(i) == Some(w)).count();
        eprintln!(
            "seed {} form {}: {same} of {} words equal",
            key.0,
            key.1,
            dev.len()
        );
        let want = measured
            .iter()
            .find(|m| (m.0, m.1) == *key)
            .map_or(dev.len(), |m| m.2);
        assert_eq!(same, want, "seed {} form {}", key.0, key.1);
    }
}

/// The first device call (seeds 1 and 2): the adder was fitted on seed 1, and form 12's fp8
/// path (e5m2 x e4m3) derived from its SASS after both seeds were seen (before: 1,932 and
/// 1,922 of 2,048 words).
#[test]
fn mma_forms_give_the_committed_predictions() {
    if !crate::nvrtc::nvrtc("mma_forms_give_the_committed_predictions") {
        return;
    }
    check_draw(&[1, 2], "predictions.txt", "raw/device.txt");
}

/// The second device call: a fresh draw (seeds 3 and 4), predicted (`predictions_draw2.txt`)
/// with the adder fitted on seed 1 and the fp8 path derived from the SASS, both committed
/// before the call (2026-12-07, an H100).
#[test]
fn mma_forms_on_a_fresh_draw() {
    if !crate::nvrtc::nvrtc("mma_forms_on_a_fresh_draw") {
        return;
    }
    check_draw(&[3, 4], "predictions_draw2.txt", "raw/draw2/device.txt");
}
