//! Basic blocks and control flow: how a block ends, predicated instructions as a branch
//! around a block of their own, and the layout of the blocks with a `Join` at each branch's
//! immediate post-dominator (its reconvergence point).

use super::{Err, Lower, Lowered};
use crate::parse::Stmt;
use std::collections::HashMap;
use warpsim_kernel::ir::{Inst, Pc, Reg};

/// How a block ends.
#[derive(Clone, Debug)]
pub(super) enum Term {
    Fall,
    Jump(String),
    Branch(Reg, bool, String),
    Ret,
}

pub(super) struct Block {
    pub(super) code: Vec<(Inst, (u32, u32, usize))>,
    pub(super) term: Term,
    pub(super) term_at: (u32, u32, usize),
}

impl Lower<'_> {
    pub(super) fn end_block(&mut self, t: Term) {
        let b = self.blocks.last_mut().expect("a block");
        b.term = t;
        b.term_at = self.at;
        self.blocks.push(Block {
            code: Vec::new(),
            term: Term::Fall,
            term_at: self.at,
        });
    }

    /// `@p INST` / `@!p INST` (any instruction but `bra`, lowered by the caller): a branch
    /// over a block that holds the instruction alone, so that lanes where the guard fails
    /// skip it and the warp reconverges right after it (the branch's immediate
    /// post-dominator). `@p ret` is a branch over a return.
    pub(super) fn predicated(
        &mut self,
        s: &Stmt,
        (p, neg): (&str, bool),
        op: &str,
        body: impl FnOnce(&mut Self) -> Result<(), Err>,
    ) -> Result<(), Err> {
        let name = op.split('.').next().unwrap_or(op);
        // (`bar.warp.sync` is the warp's own: its lanes that skip it are the mask's concern.)
        if matches!(name, "bar" | "barrier") && !op.starts_with("bar.warp.sync") {
            return Err((
                s.off,
                format!(
                    "a predicated `{op}` is not supported: a barrier must be reached by every \
                     thread of the block (branch around it instead)"
                ),
            ));
        }
        let c = self.reg(p, s.off)?.0;
        // A label no PTX label can be (PTX identifiers have no spaces).
        let skip = format!("skip {}", self.blocks.len());
        // Lanes where the guard fails go to `skip`.
        self.end_block(Term::Branch(c, !neg, skip.clone()));
        body(self)?;
        if matches!(self.blocks.last().expect("a block").term, Term::Fall)
            && !self.blocks.last().expect("a block").code.is_empty()
        {
            self.end_block(Term::Fall);
        }
        self.labels.insert(skip, self.blocks.len() - 1);
        Ok(())
    }

    /// Lays the blocks out: a `Join` at every reconvergence point, branches patched.
    pub(super) fn finish(mut self, shared_bytes: u32) -> Result<Lowered, Err> {
        let n = self.blocks.len();
        let target = |l: &Self, name: &str, at: usize| -> Result<usize, Err> {
            l.labels
                .get(name)
                .copied()
                .ok_or((at, format!("no label `{name}`")))
        };
        let mut succ: Vec<Vec<usize>> = Vec::new();
        for (i, b) in self.blocks.iter().enumerate() {
            let next = if i + 1 < n { vec![i + 1] } else { vec![n] };
            succ.push(match &b.term {
                Term::Fall => next,
                Term::Ret => vec![n],
                Term::Jump(t) => vec![target(&self, t, b.term_at.2)?],
                Term::Branch(_, _, t) => {
                    let mut s = next;
                    s.push(target(&self, t, b.term_at.2)?);
                    s
                }
            });
        }
        // Immediate post-dominators (node n = the exit): Cooper, Harvey and Kennedy's
        // iterative algorithm on the reversed graph, linear in practice. A block that never
        // reaches the exit (an endless loop) reconverges at the exit.
        let ipdoms = post_dominators(&succ, n);
        let ipdom = |b: usize| -> usize { ipdoms[b] };
        let mut join_at = vec![false; n + 1];
        let mut joins = vec![n; n];
        let mut branches = 0;
        for b in 0..n {
            if matches!(self.blocks[b].term, Term::Branch(..)) {
                joins[b] = ipdom(b);
                join_at[joins[b]] = true;
                branches += 1;
            }
        }
        let mut start = vec![0usize; n + 1];
        let mut pc = 0;
        for b in 0..n {
            start[b] = pc;
            pc += join_at[b] as usize + self.blocks[b].code.len();
            pc += !matches!(self.blocks[b].term, Term::Fall) as usize;
        }
        // The last block falls off the end: a `Ret`.
        let last_falls = matches!(self.blocks[n - 1].term, Term::Fall);
        pc += last_falls as usize;
        start[n] = pc; // the loader's final `Exit`
        let mut code = Vec::new();
        let mut info = Vec::new();
        for b in 0..n {
            let blk = std::mem::take(&mut self.blocks[b].code);
            if join_at[b] {
                code.push(Inst::Join);
                info.push(blk.first().map_or(self.blocks[b].term_at, |c| c.1));
            }
            for (i, at) in blk {
                code.push(i);
                info.push(at);
            }
            let at = self.blocks[b].term_at;
            let t = match &self.blocks[b].term {
                Term::Fall => None,
                Term::Ret => Some(Inst::Ret),
                Term::Jump(_) => Some(Inst::Jump {
                    target: start[succ[b][0]] as Pc,
                }),
                Term::Branch(c, neg, _) => Some(Inst::Branch {
                    c: *c,
                    neg: *neg,
                    target: start[succ[b][1]] as Pc,
                    join: start[joins[b]] as Pc,
                }),
            };
            if let Some(t) = t {
                code.push(t);
                info.push(at);
            }
        }
        if last_falls {
            code.push(Inst::Ret);
            info.push(self.at);
        }
        Ok(Lowered {
            code,
            info,
            init: self.init,
            nregs: self.next.max(1),
            shared: self.shared,
            shared_bytes,
            local: self.local.infos,
            local_bytes: self.local.bytes,
            max_depth: (2 * branches + 2).min(1024),
            texts: HashMap::new(),
            formats: self.formats,
            mmas: self.mmas,
            wgmmas: self.wgmmas,
        })
    }
}

/// The immediate post-dominator of each node `0..n` of the graph `succ` whose exit is node
/// `n` (a node that cannot reach the exit gets `n`): Cooper, Harvey and Kennedy, "A Simple,
/// Fast Dominance Algorithm", on the reversed graph, with an explicit stack (no recursion
/// on deep graphs).
fn post_dominators(succ: &[Vec<usize>], n: usize) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    // Predecessors: the reversed graph's successors.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (b, s) in succ.iter().enumerate() {
        for &x in s {
            preds[x].push(b);
        }
    }
    // Postorder of the reversed graph from the exit.
    let mut order = vec![NONE; n + 1];
    let mut post = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(n, 0usize)];
    seen[n] = true;
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if let Some(&w) = preds[v].get(*i) {
            *i += 1;
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order[v] = post.len();
            post.push(v);
            stack.pop();
        }
    }
    let mut idom = vec![NONE; n + 1];
    idom[n] = n;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in post.iter().rev().skip(1) {
            let mut new = NONE;
            for &p in &succ[b] {
                if idom[p] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while order[x] < order[y] {
                            x = idom[x];
                        }
                        while order[y] < order[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom.truncate(n);
    for d in &mut idom {
        if *d == NONE {
            *d = n;
        }
    }
    idom
}
