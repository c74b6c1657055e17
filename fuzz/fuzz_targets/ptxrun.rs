//! What the `ptx` fuzz target does with one input, shared with `tests/fuzz_corpus.rs` (which
//! includes this file): parse the text as a PTX module with `warpsim_ptx::parse`, and launch
//! each of its first two kernels through a `ptx:` program — the loader calls the front end,
//! which parses and lowers the entry (`warpsim_ptx::lower`) — with the `run` target's small
//! limits (`warpsim_runner::fuzz_limits`). Pointer parameters get one of two 4096-element buffers
//! (`b0` u32, `b1` f32), integer parameters 64; the grid is 2 blocks of 64 threads. The text is
//! written to `scratch` first, since a `ptx:` launch names a file.

use std::path::Path;
use warpsim_runner::fuzz_limits;

/// Parses `src` as PTX and launches its first two kernels; never panics on any text.
pub fn ptx_input(src: &str, scratch: &Path) {
    let Ok(module) = warpsim_ptx::parse(src) else {
        return;
    };
    if module.entries.is_empty() || std::fs::write(scratch, src).is_err() {
        return;
    }
    let file = scratch.display().to_string();
    if file.contains(['"', '\\']) {
        return;
    }
    for entry in module.entries.iter().take(2) {
        if entry.name.contains(['"', '\\']) {
            continue;
        }
        let args: Vec<String> = entry
            .params
            .iter()
            .enumerate()
            .map(|(k, (_, ty))| match ty.as_str() {
                ".u64" | ".b64" | ".s64" => format!("\"b{}\"", k % 2),
                _ => "64".into(),
            })
            .collect();
        let ron = format!(
            "Program(name: \"ptx\", launch: (grid: [2], block: [64]), buffers: [\
             (name: \"b0\", ty: U32, len: 4096, init: Iota), \
             (name: \"b1\", ty: F32, len: 4096, init: Random(1))], \
             ptx: (file: \"{file}\", kernel: \"{}\", args: [{}]))",
            entry.name,
            args.join(", ")
        );
        let _ = fuzz_limits::load_and_run("ptx.ron", &ron);
    }
}
