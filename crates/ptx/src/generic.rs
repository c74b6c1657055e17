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
//! is lowered as that space. Any other (a pointer that may be shared or global, one loaded
//! from memory) is resolved per lane at run time, as the GPU's generic windows do: the access
//! becomes a branch on the address's window (shared below `1 << 40`, local from
//! [`Mem::LOCAL_GENERIC`](warpsim_kernel::ir::Mem::LOCAL_GENERIC), global between) to one
//! access of each space, the lanes of each window running their own ([`dispatch`]). The
//! GPU issues one `LD`/`ST`; the timing model sees the branch's few instructions too. The
//! analysis is flow-insensitive (all definitions, not only those that reach): NVVM's registers
//! are written by one definition, or by a loop's updates of the same pointer. An `isspacep`
//! of such a pointer compares its window at run time likewise.
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

/// Where the generic windows begin: a shared address is below [`WINDOW_GLOBAL`] (its offset in
/// the block's window), a global one `(buffer + 1) << 40` plus bytes, a local one
/// [`Mem::LOCAL_GENERIC`](warpsim_kernel::ir::Mem::LOCAL_GENERIC) plus bytes.
const WINDOW_GLOBAL: u64 = 1 << 40;
const WINDOW_LOCAL: u64 = warpsim_kernel::ir::Mem::LOCAL_GENERIC;

/// `.reg TY NAME` (`ty` with its dot: `.pred`, `.b64`).
fn reg_decl(off: usize, ty: &str, name: &str) -> Stmt {
    Stmt {
        off,
        loc: (0, 0),
        kind: StmtKind::Directive(vec![".reg".into(), ty.into(), name.to_owned()]),
    }
}

/// `.reg .pred NAME`.
fn pred_decl(off: usize, name: &str) -> Stmt {
    reg_decl(off, ".pred", name)
}

/// An instruction at a statement's place (its byte offset and position).
fn inst_at(
    (off, loc): (usize, (u32, u32)),
    guard: Option<(String, bool)>,
    op: String,
    args: Vec<String>,
) -> Stmt {
    Stmt {
        off,
        loc,
        kind: StmtKind::Inst { guard, op, args },
    }
}

/// An access `s` (`ld`, `st`, `atom`, `red` without a state space) through `base`, whose
/// origins `o` are several spaces or unknown, resolved per lane at run time (the `n`-th such
/// rewrite: its names' number): lanes whose address is in the shared window branch to the
/// access as `.shared`, those in the local window to `.local`, the rest run it as `.global`;
/// all meet after it. The statement's guard stays on each access. A global `atom`/`red` must
/// name its buffer when the kernel loads: its lanes branch on the pointer's buffer (its bits
/// from 40 up) to one atomic per buffer, through its pointer plus the lane's offset (a pointer
/// into no buffer takes the first, and faults as out of its bounds). `buffers`: each buffer's
/// pointer, a parameter (`true`, its name) or a `__device__` variable (its name).
fn dispatch(s: &Stmt, base: &str, o: u8, n: usize, buffers: &[(String, bool)]) -> Vec<Stmt> {
    let StmtKind::Inst { guard, op, args } = &s.kind else {
        return vec![s.clone()];
    };
    let at = |kind: StmtKind| Stmt {
        off: s.off,
        loc: s.loc,
        kind,
    };
    let inst = |guard: Option<(String, bool)>, op: String, args: Vec<String>| {
        inst_at((s.off, s.loc), guard, op, args)
    };
    let access = |space: &str| {
        let p: Vec<&str> = op.split('.').collect();
        let mut q: Vec<&str> = vec![p[0], "generic", space];
        q.extend(&p[1..]);
        inst(guard.clone(), q.join("."), args.clone())
    };
    let label = |what: &str| format!("$warpsim_generic_{n}_{what}");
    let bra = |to: String| inst(None, "bra.uni".into(), vec![to]);
    let mut v = Vec::new();
    let mut tails = Vec::new();
    // (No atomics on local memory: `atom` and `red` are shared or global.)
    let atomic = matches!(op.split('.').next(), Some("atom" | "red"));
    for (bit, space, cmp, bound) in [
        (SHARED, "shared", "lt", WINDOW_GLOBAL),
        (LOCAL, "local", "ge", WINDOW_LOCAL),
    ] {
        if o & (bit | UNKNOWN) == 0 || (atomic && bit == LOCAL) {
            continue;
        }
        let pr = format!("%generic${n}_{space}");
        v.push(pred_decl(s.off, &pr));
        v.push(inst(
            None,
            format!("setp.{cmp}.u64"),
            vec![pr.clone(), base.to_owned(), format!("{bound:#x}")],
        ));
        v.push(inst(Some((pr, false)), "bra".into(), vec![label(space)]));
        tails.push(at(StmtKind::Label(label(space))));
        tails.push(access(space));
        tails.push(bra(label("end")));
    }
    if atomic && !buffers.is_empty() {
        // The pointer's buffer bits, then per buffer parameter: its pointer and whether the
        // lane's is in it.
        let decl = |name: &str, ty: &str| reg_decl(s.off, ty, name);
        let hi = format!("%generic${n}_hi");
        v.push(decl(&hi, ".b64"));
        v.push(inst(
            None,
            "shr.u64".into(),
            vec![hi.clone(), base.to_owned(), "40".into()],
        ));
        let mut per = Vec::new();
        for (k, p) in buffers.iter().enumerate() {
            let (g, h, e) = (
                format!("%generic${n}_g{k}"),
                format!("%generic${n}_h{k}"),
                format!("%generic${n}_e{k}"),
            );
            v.push(decl(&g, ".b64"));
            v.push(decl(&h, ".b64"));
            v.push(pred_decl(s.off, &e));
            v.push(match p.1 {
                true => inst(
                    None,
                    "ld.param.u64".into(),
                    vec![g.clone(), format!("[{}]", p.0)],
                ),
                false => inst(None, "mov.u64".into(), vec![g.clone(), p.0.clone()]),
            });
            v.push(inst(
                None,
                "shr.u64".into(),
                vec![h.clone(), g.clone(), "40".into()],
            ));
            v.push(inst(
                None,
                "setp.eq.u64".into(),
                vec![e.clone(), hi.clone(), h],
            ));
            if k > 0 {
                v.push(inst(
                    Some((e, false)),
                    "bra".into(),
                    vec![label(&format!("buf{k}"))],
                ));
            }
            per.push(g);
        }
        // Buffer k's atomic: its pointer plus the lane's offset from it.
        let mut blocks = Vec::new();
        for (k, g) in per.iter().enumerate() {
            let (off, a) = (format!("%generic${n}_o{k}"), format!("%generic${n}_a{k}"));
            v.push(decl(&off, ".b64"));
            v.push(decl(&a, ".b64"));
            if k > 0 {
                blocks.push(at(StmtKind::Label(label(&format!("buf{k}")))));
            }
            blocks.push(inst(
                None,
                "sub.s64".into(),
                vec![off.clone(), base.to_owned(), g.clone()],
            ));
            blocks.push(inst(
                None,
                "add.s64".into(),
                vec![a.clone(), g.clone(), off],
            ));
            let mut one = access("global");
            if let StmtKind::Inst { args, .. } = &mut one.kind {
                for x in args.iter_mut() {
                    if x.trim().starts_with('[') && base_of(x) == base {
                        *x = x.replacen(base, &a, 1);
                    }
                }
            }
            blocks.push(one);
            blocks.push(bra(label("end")));
        }
        // (Buffer 0's block first: no branch to it, the others branch past it.)
        v.extend(blocks);
    } else {
        v.push(access("global"));
        v.push(bra(label("end")));
    }
    v.extend(tails);
    v.push(at(StmtKind::Label(label("end"))));
    v
}

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
    body: &mut Vec<Stmt>,
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
    // What a global atomic through an untraced pointer may reach (`dispatch`): the buffer
    // arguments (`ld.param`) and the module's `__device__` variables (their names).
    let mut buffers: Vec<(String, bool)> = params
        .iter()
        .filter(|p| p.1)
        .map(|p| (p.0.clone(), true))
        .collect();
    let mut vars: Vec<&String> = syms
        .iter()
        .filter(|s| *s.1 == GLOBAL)
        .map(|s| s.0)
        .collect();
    vars.sort();
    buffers.extend(vars.into_iter().map(|v| (v.clone(), false)));
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
    // Statements to put after statement `index` (an `isspacep`'s second half), or, for an
    // access resolved at run time, in its place.
    let mut extra: Vec<(usize, Vec<Stmt>)> = Vec::new();
    let mut replace: Vec<(usize, Vec<Stmt>)> = Vec::new();
    for (index, s) in body.iter_mut().enumerate() {
        let place = (s.off, s.loc);
        let StmtKind::Inst { guard, op, args } = &mut s.kind else {
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
            let d = args.first().cloned().unwrap_or_default();
            if o == 0 || o.count_ones() != 1 || o == UNKNOWN {
                // Its window, at run time.
                let want = p.get(1).copied().unwrap_or("").to_owned();
                let (cmp, bound) = match want.as_str() {
                    "shared" | "shared::cta" => ("lt", WINDOW_GLOBAL),
                    "local" => ("ge", WINDOW_LOCAL),
                    "global" => ("ge", WINDOW_GLOBAL),
                    _ => {
                        return Err((
                            s.off,
                            format!(
                                "`{op}`: warpsim cannot determine the state space of `{base}` \
                                 ({}); it tells shared, global and local apart",
                                origins(o)
                            ),
                        ))
                    }
                };
                *op = format!("setp.{cmp}.u64");
                *args = vec![d, base, format!("{bound:#x}")];
                if want == "global" {
                    // Below the local window too.
                    let t = format!("%generic${}", extra.len());
                    let last = inst_at(
                        place,
                        guard.clone(),
                        "setp.lt.u64".into(),
                        vec![t.clone(), args[1].clone(), format!("{WINDOW_LOCAL:#x}")],
                    );
                    let and = inst_at(
                        place,
                        guard.clone(),
                        "and.pred".into(),
                        vec![args[0].clone(), args[0].clone(), t.clone()],
                    );
                    extra.push((index, vec![pred_decl(s.off, &t), last, and]));
                }
                continue;
            }
            *op = "mov.pred".into();
            *args = vec![d, if o == want { "1" } else { "0" }.into()];
            continue;
        }
        let space = match o {
            SHARED => "shared",
            GLOBAL => "global",
            LOCAL => "local",
            _ => {
                let n = replace.len() + extra.len();
                replace.push((index, dispatch(s, &base, o, n, &buffers)));
                continue;
            }
        };
        let mut q: Vec<&str> = vec![p[0], "generic", space];
        q.extend(&p[1..]);
        *op = q.join(".");
    }
    if extra.is_empty() && replace.is_empty() {
        return Ok(());
    }
    let mut after: HashMap<usize, Vec<Stmt>> = extra.into_iter().collect();
    let mut instead: HashMap<usize, Vec<Stmt>> = replace.into_iter().collect();
    let old = std::mem::take(body);
    let mut code = Vec::with_capacity(old.len() + 16 * (after.len() + instead.len()));
    for (i, s) in old.into_iter().enumerate() {
        match instead.remove(&i) {
            Some(v) => code.extend(v),
            None => code.push(s),
        }
        code.extend(after.remove(&i).unwrap_or_default());
    }
    // The new predicates' declarations first (as `wmma.rs` puts its temporaries).
    let (decls, code): (Vec<Stmt>, Vec<Stmt>) = code.into_iter().partition(|s| {
        matches!(&s.kind, StmtKind::Directive(w) if w.last().is_some_and(|n| n.starts_with("%generic$")))
    });
    body.extend(decls);
    body.extend(code);
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
