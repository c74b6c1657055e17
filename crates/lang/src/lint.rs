//! Hints for ports from CUDA (`warpsim check`): shared accesses that nvcc would likely merge.
//!
//! warpsim runs every element access as one instruction, as CUDA does on a `volatile` shared
//! array. On a plain one, nvcc merges accesses it can prove adjacent and aligned: four 4-byte
//! loads of `s[r][c + 0]` … `s[r][c + 3]` become one 16-byte `LDS.128`, two become one 8-byte
//! `LDS.64` (stores likewise: `STS.128`, `STS.64`). A port of the source then issues more
//! instructions, and different wavefronts, than the GPU does.
//!
//! [`merge_hints`] looks for such groups: in one straight run of statements (no `If`, loop or
//! `Barrier` between them), accesses of one shared array that differ only in a constant
//! added to the last index, covering 2 or 4 consecutive elements (8 or 16 bytes) from an
//! element whose address is provably a multiple of that width (every array starts 16-byte
//! aligned; the rows' length must keep it; the non-constant part of the index must be a
//! multiple, like `4 * tid.x`). Each is a hint, never a claim: nvcc may decide otherwise
//! (aliasing stores in between, register pressure), and a `volatile` array is never merged.

use crate::file::{Stmt, Text};
use std::collections::BTreeSet;
use std::sync::Arc;
use warpsim_kernel::expr::{self, BinOp, Kind, Node};
use warpsim_kernel::Program;

/// One hint: where, and what nvcc would likely do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// `file:line:col` of the group's first access.
    pub location: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The hint.
    pub message: String,
}

/// One scalar shared access of a straight run.
struct Access {
    array: usize,
    store: bool,
    /// The outer indices and the non-constant part of the last one, as written (spaces
    /// removed): accesses that agree on it differ only in `offset`.
    key: String,
    offset: i64,
    /// Whether the non-constant part of the last index is a multiple of 4 and of 2.
    aligned: [bool; 2],
    /// Byte offset in the file.
    at: usize,
    text: String,
}

struct Lint<'a> {
    prog: &'a Program,
    src: Arc<str>,
    run: Vec<Access>,
    out: Vec<Hint>,
}

/// The groups of shared accesses of `prog` that nvcc would likely merge into one 8- or
/// 16-byte access, in source order. (The program's file is read again from
/// [`Program::source`]; a program built in code has none.)
pub fn merge_hints(prog: &Program) -> Vec<Hint> {
    let Ok(ast) = crate::load::parse(&prog.path, &prog.source) else {
        return Vec::new();
    };
    let mut l = Lint {
        prog,
        src: prog.source.clone(),
        run: Vec::new(),
        out: Vec::new(),
    };
    l.block(&ast.body);
    l.out.sort_by_key(|h| (h.line, h.col));
    l.out
}

impl Lint<'_> {
    fn block(&mut self, body: &[Stmt]) {
        for s in body {
            match s {
                Stmt::Let(_, e) | Stmt::Set(_, e) | Stmt::SyncWarp(e) => self.loads(e),
                Stmt::Store(t, v) => {
                    self.loads(v);
                    self.target(t);
                }
                Stmt::LoadVec(_, t) => self.target_indices(t),
                // (An ldmatrix/stmatrix is no scalar access ptxas could merge.)
                Stmt::LoadMatrix { at, .. } | Stmt::StoreMatrix { at, .. } => {
                    self.target_indices(at);
                    self.flush();
                }
                Stmt::CopyAsync { to, from, .. } => {
                    self.target_indices(to);
                    self.loads(from);
                    self.flush();
                }
                Stmt::CommitGroup | Stmt::WaitGroup(_) => self.flush(),
                Stmt::BarrierInit { at, .. }
                | Stmt::BarrierArrive { at, .. }
                | Stmt::BarrierArriveCopies { at }
                | Stmt::BarrierWait { at, .. } => {
                    self.target_indices(at);
                    self.flush();
                }
                Stmt::Mma { a, b, c, .. } => {
                    a.iter().chain(b).chain(c).for_each(|v| self.loads(v));
                    self.flush();
                }
                Stmt::StoreVec(t, vs) => {
                    vs.iter().for_each(|v| self.loads(v));
                    self.target_indices(t);
                }
                Stmt::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    self.loads(cond);
                    self.flush();
                    self.block(then);
                    self.flush();
                    self.block(otherwise);
                    self.flush();
                }
                Stmt::For { body, .. } | Stmt::While { body, .. } => {
                    self.flush();
                    self.block(body);
                    self.flush();
                }
                Stmt::Barrier | Stmt::Break | Stmt::Continue | Stmt::Return => self.flush(),
                Stmt::Call(t) => {
                    self.loads(t);
                    self.flush();
                }
                Stmt::Atomic { value, .. } => {
                    for v in &value.parts {
                        self.loads(v);
                    }
                    self.flush();
                }
            }
        }
        self.flush();
    }

    fn parse(t: &Text) -> Option<Node> {
        expr::parse(&t.text).ok()
    }

    /// The shared loads in expression `t`.
    fn loads(&mut self, t: &Text) {
        if let Some(n) = Self::parse(t) {
            self.walk(&n, t, false);
        }
    }

    /// A store's target: its index expressions' loads, then the store.
    fn target(&mut self, t: &Text) {
        if let Some(n) = Self::parse(t) {
            if let Kind::Index(_, idx) = &n.kind {
                idx.iter().for_each(|i| self.walk(i, t, false));
            }
            self.access(&n, t, true);
        }
    }

    /// The loads in a vector access's indices (the vector access itself is already merged).
    fn target_indices(&mut self, t: &Text) {
        if let Some(Node {
            kind: Kind::Index(_, idx),
            ..
        }) = Self::parse(t)
        {
            idx.iter().for_each(|i| self.walk(i, t, false));
        }
    }

    fn walk(&mut self, n: &Node, t: &Text, store: bool) {
        match &n.kind {
            Kind::Int { .. } | Kind::Float(_) | Kind::Name(_) => {}
            Kind::Index(_, idx) => {
                idx.iter().for_each(|i| self.walk(i, t, false));
                self.access(n, t, store);
            }
            Kind::Call(_, args) => args.iter().for_each(|a| self.walk(a, t, false)),
            Kind::Unary(_, a) => self.walk(a, t, false),
            Kind::Binary(_, a, b) => {
                self.walk(a, t, false);
                self.walk(b, t, false);
            }
            Kind::Cond(c, a, b) => {
                self.walk(c, t, false);
                self.walk(a, t, false);
                self.walk(b, t, false);
            }
        }
    }

    /// Records `n` if it is a scalar access of a shared array.
    fn access(&mut self, n: &Node, t: &Text, store: bool) {
        let Kind::Index(name, idx) = &n.kind else {
            return;
        };
        let Some(array) = self.prog.shared.iter().position(|s| &s.name == name) else {
            return;
        };
        let (Some((last, outer)), Some(base)) = (idx.split_last(), t.span) else {
            return;
        };
        let text_of = |m: &Node| squeeze(t.text.get(m.start..m.end).unwrap_or(""));
        let (rest, offset) = split_const(last);
        let mut key: String = outer.iter().map(|o| format!("[{}]", text_of(o))).collect();
        key.push_str(
            &rest
                .iter()
                .map(|r| text_of(r))
                .collect::<Vec<_>>()
                .join("+"),
        );
        let aligned = [4, 2].map(|k| rest.iter().all(|r| self.multiple(r, k)));
        self.run.push(Access {
            array,
            store,
            key,
            offset,
            aligned,
            at: warpsim_kernel::literal::offset(&self.src, base, n.start),
            text: t.text.get(n.start..n.end).unwrap_or("").to_owned(),
        });
    }

    /// Whether `n` is provably a multiple of `k` (a power of two).
    fn multiple(&self, n: &Node, k: i64) -> bool {
        match &n.kind {
            Kind::Int { value, .. } => value % k == 0,
            Kind::Name(d) => self
                .prog
                .defines
                .iter()
                .any(|(name, v)| name == d && v % k == 0),
            Kind::Binary(BinOp::Mul, a, b) => self.multiple(a, k) || self.multiple(b, k),
            Kind::Binary(BinOp::Shl, a, b) => {
                self.multiple(a, k)
                    || matches!(b.kind, Kind::Int { value, .. } if (0..31).contains(&value) && (1i64 << value) % k == 0)
            }
            Kind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
                self.multiple(a, k) && self.multiple(b, k)
            }
            _ => false,
        }
    }

    /// Ends a straight run: hints for its mergeable groups.
    fn flush(&mut self) {
        let run = std::mem::take(&mut self.run);
        let mut done = vec![false; run.len()];
        for i in 0..run.len() {
            if done[i] {
                continue;
            }
            let a = &run[i];
            let group: Vec<usize> = (i..run.len())
                .filter(|&j| {
                    let b = &run[j];
                    b.array == a.array && b.store == a.store && b.key == a.key
                })
                .collect();
            for &j in &group {
                done[j] = true;
            }
            self.group(&run, &group);
        }
    }

    /// Hints for one group of accesses that differ only in their constant offset.
    fn group(&mut self, run: &[Access], group: &[usize]) {
        let first = &run[group[0]];
        let s = &self.prog.shared[first.array];
        let eb = s.elem.bytes() as i64;
        let offsets: BTreeSet<i64> = group.iter().map(|&j| run[j].offset).collect();
        let mut used = BTreeSet::new();
        for (k, slot) in [(4i64, 0usize), (2, 1)] {
            let bytes = k * eb;
            if bytes != 8 && bytes != 16 {
                continue;
            }
            // Rows must keep the alignment (and a swizzle must keep the k elements together).
            let row_ok = s.dims.len() == 1 || (s.row_len as i64) % k == 0;
            let swz_ok = s.swizzle == 0 || (s.swizzle as i64) % k == 0;
            if !(first.aligned[slot] && row_ok && swz_ok) {
                continue;
            }
            for &o in &offsets {
                let window: Vec<i64> = (o..o + k).collect();
                if o.rem_euclid(k) != 0
                    || !window
                        .iter()
                        .all(|w| offsets.contains(w) && !used.contains(w))
                {
                    continue;
                }
                used.extend(window.iter().copied());
                let members: Vec<&Access> = group
                    .iter()
                    .map(|&j| &run[j])
                    .filter(|a| window.contains(&a.offset))
                    .collect();
                self.hint(&members, k, bytes);
            }
        }
    }

    fn hint(&mut self, members: &[&Access], k: i64, bytes: i64) {
        let first = members
            .iter()
            .min_by_key(|a| a.at)
            .expect("a window has members");
        let store = first.store;
        let (what, op, vec) = if store {
            ("stores", "STS", "StoreVec")
        } else {
            ("loads", "LDS", "LoadVec")
        };
        let texts: Vec<&str> = {
            let mut seen: Vec<&str> = Vec::new();
            for m in members {
                if !seen.contains(&m.text.as_str()) {
                    seen.push(&m.text);
                }
            }
            seen
        };
        let (line, col) = warpsim_kernel::diag::line_col(&self.src, first.at);
        self.out.push(Hint {
            location: format!("{}:{line}:{col}", self.prog.path),
            line,
            col,
            message: format!(
                "nvcc would likely merge these {k} {what} ({}) into one {bytes}-byte {} \
                 ({op}.{}) unless the array is volatile; mirror it with {vec} if you port from \
                 SASS",
                texts.join(", "),
                what.trim_end_matches('s'),
                bytes * 8,
            ),
        });
    }
}

/// `x + 3` → ([x], 3); `x - 1 + y` → ([x, y], -1): the terms of a sum and its constant.
fn split_const(n: &Node) -> (Vec<&Node>, i64) {
    fn go<'n>(n: &'n Node, terms: &mut Vec<&'n Node>, c: &mut i64) {
        match &n.kind {
            Kind::Int { value, .. } => *c = c.saturating_add(*value),
            Kind::Binary(BinOp::Add, a, b) => {
                go(a, terms, c);
                go(b, terms, c);
            }
            Kind::Binary(BinOp::Sub, a, b) => match b.kind {
                Kind::Int { value, .. } => {
                    go(a, terms, c);
                    *c = c.saturating_sub(value);
                }
                _ => terms.push(n),
            },
            _ => terms.push(n),
        }
    }
    let mut terms = Vec::new();
    let mut c = 0i64;
    go(n, &mut terms, &mut c);
    (terms, c)
}

fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}
