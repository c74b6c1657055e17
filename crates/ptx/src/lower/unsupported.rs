//! Messages for PTX the front end does not model: an instruction no handler took (named as
//! such, with what kind of instruction it is, instead of a complaint about its operands), and
//! a register that is not declared (a special register such as `%clock64` named as one).

/// Instructions the generic arithmetic path of `Lower::inst` lowers (after `lower/ops.rs`'s
/// `extra` and the `ld`/`st`/`bar` handlers had their turn).
const GENERIC: [&str; 22] = [
    "mov", "cvta", "cvt", "selp", "mul", "mad", "fma", "neg", "not", "abs", "sqrt", "add", "sub",
    "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr",
];

/// The error for instruction `op` (named `name`, its first part), if no handler takes it.
pub(super) fn instruction(name: &str, op: &str) -> Option<String> {
    if GENERIC.contains(&name) {
        return None;
    }
    let what = match name {
        "cp" if op.contains("bulk") => "a bulk (TMA) asynchronous copy",
        "cp" => "an asynchronous copy (cp.async)",
        "ldmatrix" | "stmatrix" | "movmatrix" => "a warp-wide matrix load or store",
        "mma" | "wmma" | "wgmma" => "a tensor-core matrix multiply",
        "tensormap" | "cp.reduce" => "a tensor-memory-accelerator (TMA) operation",
        "mbarrier" => "an asynchronous transaction barrier (mbarrier)",
        "pmevent" => "a performance-monitor event",
        "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" => "a texture or surface access",
        "fence" | "membar" => "a memory fence",
        "prefetch" | "prefetchu" | "applypriority" | "discard" | "createpolicy" => {
            "a cache hint in a form warpsim does not know"
        }
        "call" => "a call that was not inlined",
        _ => "an instruction warpsim does not model",
    };
    Some(format!(
        "PTX instruction `{op}` is not supported: {what} (warpsim lowers the instructions listed \
         in the book's \"PTX kernels\" chapter)"
    ))
}

/// PTX's special registers (the PTX ISA's chapter 10) that warpsim does not provide.
const SPECIAL: [&str; 9] = [
    "%smid",
    "%nsmid",
    "%nwarpid",
    "%gridid",
    "%dynamic_smem_size",
    "%total_smem_size",
    "%aggr_smem_size",
    "%is_explicit_cluster",
    "%current_graph_exec",
];

/// The error for a register `name` that is not declared.
pub(super) fn register(name: &str) -> String {
    let base = name.split('.').next().unwrap_or(name);
    let special = SPECIAL.contains(&base)
        || ["%cluster", "%nclusterid", "%clusterid", "%pm", "%envreg"]
            .iter()
            .any(|p| base.starts_with(p));
    if special {
        return format!(
            "special register `{name}` is not supported (warpsim provides %tid, %ntid, %ctaid, \
             %nctaid, %laneid, %warpid and %lanemask_*)"
        );
    }
    if name.is_empty() {
        return "an operand is missing here".to_owned();
    }
    if !name.starts_with('%') || name.contains(['[', '{', ' ', ',']) {
        return format!("`{name}` is not a register this instruction can take here");
    }
    format!("register `{name}` is not declared")
}
