//! ptxas's unrolling of loops with a constant trip count, before merging (rule 5 and spec M-c
//! of calibration/probes/cuda_coverage/README.md).
//!
//! ptxas unrolls a loop whose trip count it knows, fully when it is small, and then merges
//! shared accesses across the trips: a 4-trip loop of one 4-byte load per trip is one
//! `LDS.128`. This pass does the same to the statement list the executor runs (same semantics,
//! more statements), so that the merge model sees the trips side by side:
//!
//! * **Which loops**: a label whose only branch is one conditional back edge `@%p bra L` at
//!   the end of a body without labels, other branches, barriers, calls or exits; `%p` set by
//!   `setp.CMP.T %p, %c, B` with `B` a constant, the counter `%c` stepped once in the body by
//!   `add %c, %c, S` (`S` a constant) and set by `mov %c, C` before the label. The trip count
//!   T follows (at most 4,096).
//! * **How far**: fully (U = T) when T × (shared accesses per trip) ≤ 256 and T ≤ 4, T ×
//!   (instructions per trip) ≤ 512 or the body has at most 16 instructions, or for one access
//!   in a body of at most 5 instructions and T ≤ 512; else by 4 (the loop kept) when 4 divides
//!   T and T ≥ 16; else not. From ptxas's SASS: the H families fully for T = 2…512 with
//!   5-instruction bodies, 64 trips of 11 and 16 trips of 21 instructions, by 4 for T = 16, 32,
//!   64 of 69; heldout 1's H1_00 fully (4 trips of 93), NVRTC's `gemm2d_plain<…,8,8,8>` too
//!   (4 trips of ~150);
//!   `gemm2d_plain<…,8,8,8>` of nvcc 13 not at all (8 trips of 88) and its `<…,8,4,4>` fully
//!   (4 of 54). Barriers in the body are allowed; they still end the merge groups.
//! * **Renaming**: the trips are copies of the body whose registers are renamed (fresh names
//!   of the same register class), each register that the body both reads and writes entering
//!   through a `mov` of its own, so a pointer stepped by a constant each trip becomes one root
//!   plus constants (`merge.rs`'s `rooted`); after the copies, a `mov` gives each register the
//!   body writes its last value. A full unroll also replaces the counter's reads by its value
//!   in each trip, as ptxas folds it.
//!
//! A run-time trip count is left as written (ptxas unrolls it by 4 with a remainder, and no
//! merge across trips was seen).

use crate::parse::{Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

/// Most trips a loop may be simulated for.
const MAX_TRIPS: i64 = 4096;

/// The body with its constant-trip loops unrolled as ptxas unrolls them.
pub(super) fn unroll(body: &[Stmt]) -> Vec<Stmt> {
    let mut fresh = Fresh::of(body);
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if let Some((end, new)) = unroll_at(body, i, &mut fresh, &mut out) {
            out.extend(new);
            i = end + 1;
        } else {
            out.push(body[i].clone());
            i += 1;
        }
    }
    // The registers it made up, declared (the lowering refuses undeclared ones).
    if let Some(at) = body.first() {
        let decls = fresh.made.iter().filter_map(|r| {
            let ty = fresh.types.get(split_num(r).0)?;
            Some(Stmt {
                off: at.off,
                loc: at.loc,
                kind: StmtKind::Directive(vec![".reg".into(), format!(".{ty}"), r.clone()]),
            })
        });
        out.splice(0..0, decls.collect::<Vec<_>>());
    }
    out
}

/// A block-wide barrier (`bar.sync`, `barrier.sync`, `bar.red`, fences): ptxas unrolls loops
/// that hold one (heldout 1's H1_00: four trips of stores, a barrier and a load).
fn barrier(op: &str) -> bool {
    ["bar.", "barrier.", "membar.", "fence."]
        .iter()
        .any(|p| op.starts_with(p))
}

/// Whether `s` ends a straight line of code (a branch, call or exit; not a barrier).
fn straight_end(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Inst { op, .. } => super::ends_block(s) && !barrier(op),
        _ => false,
    }
}

/// Fresh register names: `%rd` + a number above every one the body uses, per prefix (the
/// lowering finds a register's class by its name without the trailing digits).
struct Fresh {
    next: HashMap<String, u64>,
    /// Register prefix → its `.reg` type (`b32`, `f32`, `pred`, …), for the `mov`s.
    types: HashMap<String, String>,
    /// The names made, in order.
    made: Vec<String>,
}

impl Fresh {
    fn of(body: &[Stmt]) -> Fresh {
        let mut next: HashMap<String, u64> = HashMap::new();
        for s in body {
            let (d, u) = super::regs(s);
            for r in d.iter().chain(&u) {
                let (p, n) = split_num(r);
                let e = next.entry(p.to_owned()).or_insert(0);
                *e = (*e).max(n.map_or(0, |n| n + 1));
            }
        }
        let mut types = HashMap::new();
        for s in body {
            if let StmtKind::Directive(w) = &s.kind {
                if w.first().map(String::as_str) == Some(".reg") {
                    let ty = w.get(1).map_or("", |t| t.trim_start_matches('.'));
                    for name in w.get(2..).unwrap_or_default().join(" ").split(',') {
                        let n = name.split('<').next().unwrap_or("").trim();
                        types.insert(n.to_owned(), ty.to_owned());
                    }
                }
            }
        }
        Fresh {
            next,
            types,
            made: Vec::new(),
        }
    }

    /// `mov.T to, from` with `to`'s register type.
    fn mov(&self, at: &Stmt, to: &str, from: &str) -> Option<Stmt> {
        let (p, _) = split_num(to);
        let ty = self.types.get(p).or_else(|| self.types.get(to))?;
        Some(Stmt {
            off: at.off,
            loc: at.loc,
            kind: StmtKind::Inst {
                guard: None,
                op: format!("mov.{ty}"),
                args: vec![to.to_owned(), from.to_owned()],
            },
        })
    }

    fn name(&mut self, r: &str) -> String {
        let (p, _) = split_num(r);
        let e = self.next.entry(p.to_owned()).or_insert(0);
        let n = (*e).max(100_000);
        *e = n + 1;
        let name = format!("{p}{n}");
        self.made.push(name.clone());
        name
    }
}

/// `%rd21` → (`%rd`, Some(21)).
fn split_num(r: &str) -> (&str, Option<u64>) {
    let p = r.trim_end_matches(|c: char| c.is_ascii_digit());
    (p, r[p.len()..].parse().ok())
}

/// The loop starting with the label at `i`, unrolled: (index of its back edge, statements).
fn unroll_at(
    body: &[Stmt],
    i: usize,
    fresh: &mut Fresh,
    before: &mut [Stmt],
) -> Option<(usize, Vec<Stmt>)> {
    let StmtKind::Label(l) = &body[i].kind else {
        return None;
    };
    // The body: up to the first label or control statement, which must be `@%p bra L`.
    let j = (i + 1..body.len()).find(|&k| match &body[k].kind {
        StmtKind::Label(_) => true,
        StmtKind::Directive(_) => false,
        StmtKind::Inst { .. } => straight_end(&body[k]),
    })?;
    let StmtKind::Inst { guard, op, args } = &body[j].kind else {
        return None;
    };
    // `@%p bra L` loops while the comparison holds, `@!%p bra L` while it does not.
    let (p, neg) = guard.clone()?;
    if !op.starts_with("bra") || args.first().map(|a| a.trim()) != Some(l.as_str()) {
        return None;
    }
    // The label's only branch is this one.
    let branches = body
        .iter()
        .filter(|s| match &s.kind {
            StmtKind::Inst { op, args, .. } => {
                (op.starts_with("bra") || op.starts_with("brx"))
                    && args
                        .iter()
                        .any(|a| a.split([',', ' ', '{', '}']).any(|w| w.trim() == l))
            }
            _ => false,
        })
        .count();
    if branches != 1 {
        return None;
    }
    let inner = &body[i + 1..j];
    // Only bodies whose every instruction writes just its first operand (what the renaming
    // assumes), unguarded where it writes; no directive (`.pragma "nounroll"` keeps the loop).
    let plain = inner.iter().all(|s| match &s.kind {
        StmtKind::Label(_) | StmtKind::Directive(_) => false,
        StmtKind::Inst { guard, op, .. } => {
            let odd = [
                "cp.", "prefetch", "mbarrier", "wmma", "mma", "tex", "suld", "sust",
            ];
            let writes = !(op.starts_with("st") || op.starts_with("red."));
            !odd.iter().any(|o| op.starts_with(o)) && (guard.is_none() || !writes)
        }
    });
    if !plain {
        return None;
    }
    let trips = trip_count(body, i, inner, &p, neg)?;
    let counter = trips.counter.clone();
    let accesses = inner
        .iter()
        .filter(|s| super::effect(s) != super::Effect::None)
        .count() as i64;
    let insts = inner
        .iter()
        .filter(|s| matches!(s.kind, StmtKind::Inst { .. }))
        .count() as i64;
    let t = trips.count;
    let small = t * accesses <= 256 && (t <= 4 || t * insts <= 512 || insts <= 16);
    let full = t >= 2 && (small || (accesses == 1 && insts <= 5 && t <= 512));
    let u = if full {
        t
    } else if t % 4 == 0 && t >= 16 {
        4
    } else {
        return None;
    };
    // Registers the body writes, and those it reads before writing (loop-carried).
    let mut written: Vec<String> = Vec::new();
    let mut carried: Vec<String> = Vec::new();
    for s in inner {
        let (d, us) = super::regs(s);
        for r in us {
            if !written.contains(&r) && !carried.contains(&r) {
                carried.push(r);
            }
        }
        for r in d {
            if !written.contains(&r) {
                written.push(r);
            }
        }
    }
    carried.retain(|r| written.contains(r));
    let wset: HashSet<&String> = written.iter().collect();
    let mut out = Vec::new();
    if !full {
        out.push(body[i].clone());
    }
    // Each register's current name.
    let mut now: HashMap<String, String> = HashMap::new();
    let at = &body[i];
    // In a full unroll the counter is a constant in each trip (ptxas folds it).
    let mut cval = trips.start;
    for r in &carried {
        let n = fresh.name(r);
        // A full unroll's entry value: its definition in the straight line before the loop
        // takes the fresh name (so that what is known of it, its alignment, is not mixed with
        // the value after the loop); else a `mov`.
        if full && *r != counter && rename_entry(before, r, &n) {
            now.insert(r.clone(), n);
            continue;
        }
        let from = if full && *r == counter {
            cval.to_string()
        } else {
            r.clone()
        };
        out.push(fresh.mov(at, &n, &from)?);
        now.insert(r.clone(), n);
    }
    let now_in = now.clone();
    for _ in 0..u {
        for s in inner {
            let StmtKind::Inst { guard, op, args } = &s.kind else {
                continue;
            };
            let (d, _) = super::regs(s);
            if full && d.len() == 1 && d[0] == counter {
                cval = cval.wrapping_add(trips.step);
                let n = fresh.name(&counter);
                out.push(fresh.mov(s, &n, &cval.to_string())?);
                now.insert(counter.clone(), n);
                continue;
            }
            let writes_first =
                !(op.starts_with("st.") || op.starts_with("red.") || op.starts_with("bra"));
            let mut new_args = Vec::with_capacity(args.len());
            for (ai, a) in args.iter().enumerate() {
                let dest = ai == 0 && writes_first;
                if dest {
                    new_args.push(a.clone());
                    continue;
                }
                new_args.push(rename(a, |r| now.get(r).cloned()));
            }
            let guard = guard
                .as_ref()
                .map(|(g, pos)| (now.get(g).cloned().unwrap_or_else(|| g.clone()), *pos));
            // Destinations get fresh names (the uses above read the old ones first).
            if writes_first {
                if let Some(a) = args.first() {
                    let mut map = HashMap::new();
                    for r in &d {
                        if wset.contains(r) {
                            let n = fresh.name(r);
                            map.insert(r.clone(), n.clone());
                            now.insert(r.clone(), n);
                        }
                    }
                    new_args[0] = rename(a, |r| map.get(r).cloned());
                }
            }
            out.push(Stmt {
                off: s.off,
                loc: s.loc,
                kind: StmtKind::Inst {
                    guard,
                    op: op.clone(),
                    args: new_args,
                },
            });
        }
    }
    // Every register the body writes gets its last value: a pointer stepped by a constant
    // as `entry + U × step` (so that what is known of its alignment on entry holds after,
    // for the flow-insensitive alignment of merge.rs), anything else by a `mov`.
    for r in &written {
        let Some(n) = now.get(r) else {
            continue;
        };
        match (stepped(inner, r), now_in.get(r)) {
            (Some(d), Some(i0)) if !(full && *r == counter) => {
                let mut st = fresh.mov(&body[j], r, i0)?;
                if let StmtKind::Inst { op, args, .. } = &mut st.kind {
                    *op = op.replacen("mov.", "add.", 1).replace(".b", ".s");
                    args.push(d.wrapping_mul(u).to_string());
                }
                out.push(st);
            }
            _ => out.push(fresh.mov(&body[j], r, n)?),
        }
    }
    if !full {
        out.push(body[j].clone());
    }
    Some((j, out))
}

/// Renames the last definition of `r` in the straight line at the end of `before` (an
/// unguarded instruction writing only `r`) and the reads of `r` after it to `n`.
fn rename_entry(before: &mut [Stmt], r: &str, n: &str) -> bool {
    let mut q = None;
    for (k, s) in before.iter().enumerate().rev() {
        if matches!(s.kind, StmtKind::Label(_)) || straight_end(s) {
            return false;
        }
        let (d, _) = super::regs(s);
        if d.iter().any(|x| x == r) {
            let one = d.len() == 1 && matches!(&s.kind, StmtKind::Inst { guard: None, .. });
            if !one {
                return false;
            }
            q = Some(k);
            break;
        }
    }
    let Some(q) = q else {
        return false;
    };
    let map = |x: &str| (x == r).then(|| n.to_owned());
    for (k, s) in before.iter_mut().enumerate().skip(q) {
        if let StmtKind::Inst { guard, args, .. } = &mut s.kind {
            for (ai, a) in args.iter_mut().enumerate() {
                if k > q || ai == 0 {
                    *a = rename(a, map);
                }
            }
            if let Some((g, _)) = guard {
                if g == r {
                    *g = n.to_owned();
                }
            }
        }
    }
    true
}

/// The step of `r` per trip when the body's only write of it is `add r, r, K`.
fn stepped(inner: &[Stmt], r: &str) -> Option<i64> {
    let mut step = None;
    for s in inner {
        let (d, _) = super::regs(s);
        if !d.iter().any(|x| x == r) {
            continue;
        }
        let StmtKind::Inst { op, args, .. } = &s.kind else {
            return None;
        };
        let ok = step.is_none()
            && op.starts_with("add.")
            && args.len() == 3
            && args[1].trim() == r
            && (op.ends_with("64") || op.ends_with("32"));
        if !ok {
            return None;
        }
        step = Some(crate::lower::int(args[2].trim())?);
    }
    step
}

/// `a` with each register name `r` replaced by `f(r)` where it gives one.
fn rename(a: &str, f: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(a.len());
    let mut word = String::new();
    let flush = |w: &mut String, out: &mut String| {
        if w.starts_with('%') {
            match f(w) {
                Some(n) => out.push_str(&n),
                None => out.push_str(w),
            }
        } else {
            out.push_str(w);
        }
        w.clear();
    };
    for ch in a.chars() {
        if ch.is_ascii_alphanumeric() || "%_$.".contains(ch) {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A loop's counter and trip count.
struct Trips {
    counter: String,
    start: i64,
    step: i64,
    count: i64,
}

/// The trip count of the loop whose label is at `i`, body `inner`, back edge on `p` (`!p`
/// when `neg`).
fn trip_count(body: &[Stmt], i: usize, inner: &[Stmt], p: &str, neg: bool) -> Option<Trips> {
    // A literal, or a register written once in the kernel, by a `mov` of one.
    let konst = |a: &str| {
        let a = a.trim();
        crate::lower::int(a).or_else(|| {
            let mut defs = body
                .iter()
                .filter(|s| super::regs(s).0.iter().any(|r| r == a));
            let (Some(s), None) = (defs.next(), defs.next()) else {
                return None;
            };
            match &s.kind {
                StmtKind::Inst {
                    guard: None,
                    op,
                    args,
                } if op.starts_with("mov.") && args.len() == 2 => crate::lower::int(args[1].trim()),
                _ => None,
            }
        })
    };
    // The setp that writes p (exactly one write of p in the body).
    let mut setp = None;
    let mut step = None;
    for (k, s) in inner.iter().enumerate() {
        let StmtKind::Inst { guard, op, args } = &s.kind else {
            continue;
        };
        let (d, _) = super::regs(s);
        if d.iter().any(|r| r == p) {
            if setp.is_some() || guard.is_some() || !op.starts_with("setp.") || args.len() != 3 {
                return None;
            }
            setp = Some((
                k,
                op.clone(),
                args[1].trim().to_owned(),
                args[2].trim().to_owned(),
            ));
        }
    }
    let (sk, sop, c, b) = setp?;
    let bound = konst(&b)?;
    for (k, s) in inner.iter().enumerate() {
        let StmtKind::Inst { guard, op, args } = &s.kind else {
            continue;
        };
        let (d, _) = super::regs(s);
        if d.contains(&c) {
            let ok = step.is_none()
                && guard.is_none()
                && op.starts_with("add.")
                && args.len() == 3
                && args[1].trim() == c;
            if !ok {
                return None;
            }
            step = Some((k, konst(&args[2])?));
        }
    }
    let (stk, st) = step?;
    if st == 0 {
        return None;
    }
    // The counter's value on entry: the last write before the label, a `mov` of a constant,
    // with no label or control statement between.
    let mut start = None;
    for s in body[..i].iter().rev() {
        if matches!(s.kind, StmtKind::Label(_)) || straight_end(s) {
            return None;
        }
        let StmtKind::Inst { guard, op, args } = &s.kind else {
            continue;
        };
        let (d, _) = super::regs(s);
        if d.contains(&c) {
            if guard.is_some() || !op.starts_with("mov.") || args.len() != 2 {
                return None;
            }
            start = Some(konst(&args[1])?);
            break;
        }
    }
    let c0 = start?;
    // setp.CMP.T: the comparison and whether it is signed, at 32 or 64 bits.
    let parts: Vec<&str> = sop.split('.').collect();
    let (cmp, t) = (*parts.get(1)?, *parts.last()?);
    let bits = if t.ends_with("64") { 64 } else { 32 };
    let signed = t.starts_with('s');
    let norm = |v: i64| -> i128 {
        if bits == 32 {
            if signed {
                i128::from(v as i32)
            } else {
                i128::from(v as u32)
            }
        } else if signed {
            i128::from(v)
        } else {
            i128::from(v as u64)
        }
    };
    let holds = |v: i64| {
        let (a, b) = (norm(v), norm(bound));
        match cmp {
            "lt" | "lo" => a < b,
            "le" | "ls" => a <= b,
            "gt" | "hi" => a > b,
            "ge" | "hs" => a >= b,
            "ne" => a != b,
            "eq" => a == b,
            _ => false,
        }
    };
    if !matches!(
        cmp,
        "lt" | "lo" | "le" | "ls" | "gt" | "hi" | "ge" | "hs" | "ne" | "eq"
    ) {
        return None;
    }
    // Trip k (from 1) compares the counter after k steps when the step comes first.
    let after = i64::from(stk < sk);
    let mut n = 1;
    loop {
        let v = c0.wrapping_add((n - 1 + after).wrapping_mul(st));
        if holds(v) == neg {
            break;
        }
        n += 1;
        if n > MAX_TRIPS {
            return None;
        }
    }
    Some(Trips {
        counter: c,
        start: c0,
        step: st,
        count: n,
    })
}
