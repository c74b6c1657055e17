//! Generic addressing, resolved when the kernel loads: a PTX-to-PTX pass (after `inline.rs`,
//! before lowering) that gives every `ld`/`st`/`atom`/`red` without a state space the space
//! its address comes from, and turns `isspacep` into a constant.
//!
//! warpsim's addresses need no generic window: a shared address is its offset in the block's
//! window and a global one `(buffer + 1) << 40` plus bytes, so `cvta` (to or from generic) is
//! a move (`lower.rs`), and what a generic access needs is its space. It is found by
//! dataflow over the whole (inlined) kernel, per register: the *origins* of a register are
//! the union over all its definitions of
//!
//! * a shared variable (`mov.u64 %rd1, tile`), `cvta.shared`/`cvta.to.shared`: **shared**;
//! * `ld.param` of a kernel parameter given a buffer, `cvta.global`/`cvta.to.global`, a
//!   `.global` variable: **global**;
//! * `cvta.local`/`cvta.to.local`, a `.local` variable (`__local_depot`): **local**;
//! * a 64-bit value loaded from memory, `.const`, anything else that may be a pointer
//!   warpsim cannot follow: **unknown**;
//! * moves, `cvt`, `selp`, `and`/`or`/`xor`, `min`/`max`: their sources' origins; `add`,
//!   `sub` and `mad`'s addend likewise, but an unknown offset added to a known pointer keeps
//!   the pointer's space (pointer + index loaded from memory); products, shifts, quotients:
//!   none (an index, not a pointer).
//!
//! A generic access whose address register has exactly one origin, shared, global or local,
//! is lowered as that space; anything else is refused at its line ("generic address whose state
//! space warpsim cannot determine"). The analysis is flow-insensitive (all definitions, not
//! only those that reach): NVVM's registers are written by one definition, or by a loop's
//! updates of the same pointer; a register reused for two spaces is refused, not guessed.
//!
//! A resolved access is written `ld.generic.shared.f32`: lowered like `ld.shared.f32`, and
//! not merged by the ptxas merge model (`merge.rs` takes only three-part ops), whose rules
//! were measured on `LDS`/`STS`, not on generic `LD`/`ST`.

use crate::lower::Err;
use crate::parse::{Stmt, StmtKind};
use std::collections::HashMap;

const SHARED: u8 = 1;
const GLOBAL: u8 = 2;
/// `.local` memory: a generic access of local origin lowers as `local` (lower/local.rs).
const LOCAL: u8 = 4;
const UNKNOWN: u8 = 8;

/// The state spaces named in an op (`ld.global.f32` → `global`).
const SPACES: [&str; 5] = ["shared", "global", "local", "param", "const"];

fn space_bit(s: &str) -> u8 {
    match s {
        "shared" => SHARED,
        "global" => GLOBAL,
        "local" => LOCAL,
        _ => UNKNOWN,
    }
}

/// Whether the body has anything to resolve.
fn needed(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Inst { op, .. } => {
            let p: Vec<&str> = op.split('.').collect();
            (matches!(p[0], "ld" | "st" | "atom" | "red") && !p.iter().any(|x| SPACES.contains(x)))
                || p[0] == "isspacep"
        }
        _ => false,
    })
}

/// `[base+disp]` → base.
fn base_of(a: &str) -> &str {
    let inner = a
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim();
    inner.rsplit_once('+').map_or(inner, |(b, _)| b.trim())
}

/// Resolves the generic accesses of `body`. `params`: the kernel's parameter names, with
/// whether the launch gives each a buffer; `globals`: module-level declarations.
pub fn resolve(
    body: &mut [Stmt],
    params: &[(String, bool)],
    globals: &[(usize, Vec<String>)],
) -> Result<(), Err> {
    if !needed(body) {
        return Ok(());
    }
    // Variables: name → origin.
    let mut syms: HashMap<String, u8> = HashMap::new();
    let decls = globals
        .iter()
        .map(|g| &g.1)
        .chain(body.iter().filter_map(|s| match &s.kind {
            StmtKind::Directive(w) => Some(w),
            _ => None,
        }));
    for w in decls {
        let Some(space) = w
            .iter()
            .find_map(|x| SPACES.iter().find(|s| x.strip_prefix('.') == Some(**s)))
        else {
            continue;
        };
        if *space == "param" {
            continue;
        }
        // The name: the last word, or the one before an initialiser's `=` (`.global .u64
        // cutoff = 32;` names `cutoff`, not `32`).
        let name = match w.iter().position(|x| x.starts_with('=')) {
            Some(k) => k.checked_sub(1).and_then(|k| w.get(k)),
            None => w.last(),
        };
        if let Some(n) = name {
            syms.insert(
                n.split('[').next().unwrap_or(n).to_owned(),
                space_bit(space),
            );
        }
    }
    let param = |n: &str| params.iter().find(|p| p.0 == n).map(|p| p.1);
    let mut origin: HashMap<String, u8> = HashMap::new();
    let of = |origin: &HashMap<String, u8>, a: &str| -> u8 {
        let mut o = 0;
        for t in a.split(|c: char| !(c.is_ascii_alphanumeric() || "%_$.".contains(c))) {
            if t.is_empty() {
                continue;
            }
            o |= match (origin.get(t), syms.get(t), param(t)) {
                (Some(&o), _, _) => o,
                (_, Some(&o), _) => o,
                // A parameter's address.
                (_, _, Some(_)) => UNKNOWN,
                _ => 0,
            };
        }
        o
    };
    loop {
        let mut changed = false;
        for s in body.iter() {
            let StmtKind::Inst { op, args, .. } = &s.kind else {
                continue;
            };
            let p: Vec<&str> = op.split('.').collect();
            if matches!(
                p[0],
                "st" | "red" | "bra" | "bar" | "barrier" | "ret" | "exit" | "call"
            ) || args.is_empty()
            {
                continue;
            }
            let ty = p.last().copied().unwrap_or("");
            let wide = matches!(ty, "u64" | "s64" | "b64");
            let space = p.iter().find(|x| SPACES.contains(x)).copied();
            let srcs = &args[1..];
            let union = |v: &[String]| v.iter().fold(0, |o, a| o | of(&origin, a));
            let o = match p[0] {
                "cvta" => match space {
                    Some(sp) => space_bit(sp),
                    None => union(srcs),
                },
                "ld" => match (
                    space,
                    param(base_of(srcs.first().map_or("", |a| a.as_str()))),
                ) {
                    (Some("param"), Some(true)) => GLOBAL,
                    (Some("param"), Some(false)) => 0,
                    _ if wide => UNKNOWN,
                    _ => 0,
                },
                "atom" => {
                    if wide {
                        UNKNOWN
                    } else {
                        0
                    }
                }
                "add" | "sub" | "mad" => {
                    let v = if p[0] == "mad" {
                        &srcs[srcs.len().min(2)..]
                    } else {
                        srcs
                    };
                    let o = union(v);
                    if o & (SHARED | GLOBAL | LOCAL) != 0 {
                        o & !UNKNOWN
                    } else {
                        o
                    }
                }
                "mul" | "shl" | "shr" | "div" | "rem" | "setp" | "set" | "popc" | "clz" | "bfe"
                | "brev" | "vote" | "activemask" | "isspacep" => 0,
                "selp" => union(&srcs[..srcs.len().min(2)]),
                _ => union(srcs),
            };
            if o == 0 {
                continue;
            }
            for t in args[0].split(|c: char| !(c.is_ascii_alphanumeric() || "%_$.".contains(c))) {
                if t.is_empty() || t == "_" {
                    continue;
                }
                let e = origin.entry(t.to_owned()).or_default();
                if *e | o != *e {
                    *e |= o;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for s in body.iter_mut() {
        let StmtKind::Inst { op, args, .. } = &mut s.kind else {
            continue;
        };
        let p: Vec<&str> = op.split('.').collect();
        let addr = match p[0] {
            "ld" | "atom" => args.get(1),
            "st" | "red" => args.first(),
            "isspacep" => args.get(1),
            _ => None,
        };
        let Some(addr) = addr else { continue };
        if p[0] != "isspacep" && p.iter().any(|x| SPACES.contains(x)) {
            continue;
        }
        let base = base_of(addr).to_owned();
        let o = of(&origin, &base);
        if p[0] == "isspacep" {
            let want = space_bit(p.get(1).copied().unwrap_or(""));
            if o == 0 || o.count_ones() != 1 || o == UNKNOWN {
                return Err((
                    s.off,
                    format!(
                        "`{op}`: warpsim cannot determine the state space of `{base}` ({})",
                        origins(o)
                    ),
                ));
            }
            let d = args.first().cloned().unwrap_or_default();
            *op = "mov.pred".into();
            *args = vec![d, if o == want { "1" } else { "0" }.into()];
            continue;
        }
        let space = match o {
            SHARED => "shared",
            GLOBAL => "global",
            LOCAL => "local",
            _ => {
                return Err((
                    s.off,
                    format!("generic address whose state space warpsim cannot determine: `{base}` in `{op}` {}", origins(o)),
                ))
            }
        };
        let mut q: Vec<&str> = vec![p[0], "generic", space];
        q.extend(&p[1..]);
        *op = q.join(".");
    }
    Ok(())
}

/// Words for a set of origins.
fn origins(o: u8) -> String {
    if o == 0 {
        return "comes from no shared variable, pointer argument or cvta".into();
    }
    let names: Vec<&str> = [
        (SHARED, "shared memory"),
        (GLOBAL, "global memory"),
        (LOCAL, "local memory"),
        (UNKNOWN, "a value warpsim cannot follow (a pointer loaded from memory, a parameter's address, .const)"),
    ]
    .iter()
    .filter(|(b, _)| o & b != 0)
    .map(|(_, n)| *n)
    .collect();
    format!("may point to {}", names.join(" or "))
}
