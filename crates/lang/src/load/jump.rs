//! Lowering `Break`, `Continue` and `Return`: the constructs open at each point (as the
//! executor's frames), and the `Scope` list that follows each jump.
//!
//! Every `If` with a condition known only at run time and every loop pushes one frame at run
//! time, and one [`Open`] here while it is lowered. A jump is followed by one `Scope` per frame
//! it leaves, innermost first; their resume pcs are known only when each construct closes, so
//! each `Open` keeps the `Scope`s to fill in.

use super::*;

/// Which construct a frame belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    If,
    Loop,
    /// The frame around an expanded function whose body has a `Return`: a `Return` leaves it.
    Func,
}

/// A construct being lowered that has a frame at run time.
#[derive(Debug)]
pub(super) struct Open {
    kind: Kind,
    /// Lowering the else-part (an `If`).
    in_else: bool,
    /// Some `Continue` leaves to this loop's next trip (so it needs a `LoopJoin`).
    continued: bool,
    /// `Scope`s to fill in at the end: (pc, written in the else-part).
    patches: Vec<(usize, bool)>,
}

impl Open {
    fn new(kind: Kind) -> Self {
        Open {
            kind,
            in_else: false,
            continued: false,
            patches: Vec::new(),
        }
    }
}

/// The jump statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Jump {
    Break,
    Continue,
    Return,
}

impl Jump {
    pub(super) fn of(s: &Stmt) -> Option<Jump> {
        match s {
            Stmt::Break => Some(Jump::Break),
            Stmt::Continue => Some(Jump::Continue),
            Stmt::Return => Some(Jump::Return),
            _ => None,
        }
    }

    pub(super) fn keyword(self) -> &'static str {
        match self {
            Jump::Break => "Break",
            Jump::Continue => "Continue",
            Jump::Return => "Return",
        }
    }
}

impl Loader<'_> {
    /// An `If` frame opens (its `Inst::If` was just emitted).
    pub(super) fn open_if(&mut self) {
        self.open.push(Open::new(Kind::If));
    }

    /// The `If` being lowered goes on with its else-part.
    pub(super) fn open_else(&mut self) {
        if let Some(o) = self.open.last_mut() {
            o.in_else = true;
        }
    }

    /// The `If` closes: its else-part starts at `else_pc`, its `EndIf` is `end_pc`.
    pub(super) fn close_if(&mut self, else_pc: Pc, end_pc: Pc) {
        if let Some(o) = self.open.pop() {
            for (pc, in_else) in o.patches {
                let resume_pc = if in_else { end_pc } else { else_pc };
                self.patch(pc, false, resume_pc, end_pc);
            }
        }
    }

    /// A loop frame opens (its `LoopStart` was just emitted); `Kind::Func` for a function's.
    pub(super) fn open_loop(&mut self, kind: Kind) {
        self.open.push(Open::new(kind));
    }

    /// Before the loop's step or back-edge: a `LoopJoin` if some `Continue` needs one.
    pub(super) fn loop_join(&mut self) -> Option<Pc> {
        let continued = self.open.last().is_some_and(|o| o.continued);
        continued.then(|| self.emit(Inst::LoopJoin))
    }

    /// The loop closes: lanes that continued resume at `join`, its `LoopEnd` is `end_pc`.
    pub(super) fn close_loop(&mut self, join: Option<Pc>, end_pc: Pc) {
        if let Some(o) = self.open.pop() {
            for (pc, _) in o.patches {
                self.patch(pc, true, join.unwrap_or(end_pc), end_pc);
            }
        }
    }

    fn patch(&mut self, pc: usize, is_loop: bool, resume_pc: Pc, end_pc: Pc) {
        if let Some(i) = self.code.get_mut(pc) {
            *i = Inst::Scope {
                is_loop,
                resume_pc,
                end_pc,
            };
        }
    }

    /// Code from `start` on was dropped (the dead part of a constant `If`): so are its jumps.
    pub(super) fn forget_jumps_from(&mut self, start: usize) {
        for o in &mut self.open {
            o.patches.retain(|&(pc, _)| pc < start);
        }
    }

    /// `Break`, `Continue` or `Return`: the jump and the `Scope`s of the frames it leaves.
    pub(super) fn jump(&mut self, j: Jump) -> R<()> {
        let in_func = self.in_function();
        // Frames left, counted from the innermost.
        let n = match j {
            Jump::Return if !in_func => self.open.len(),
            Jump::Return => match self.open.iter().rposition(|o| o.kind == Kind::Func) {
                Some(i) => self.open.len() - i,
                None => return Err(self.jump_error(j, "its function's frame is missing")),
            },
            Jump::Break | Jump::Continue => {
                let target = self.open.iter().rposition(|o| o.kind != Kind::If);
                match target.filter(|&i| self.open[i].kind == Kind::Loop) {
                    Some(i) => self.open.len() - i,
                    None => return Err(self.jump_error(j, "")),
                }
            }
        };
        let Ok(n16) = u16::try_from(n) else {
            return Err(self.jump_error(j, "it is nested too deeply"));
        };
        let first = self.open.len() - n;
        if j == Jump::Continue {
            self.open[first].continued = true;
        }
        self.emit(match j {
            Jump::Break => Inst::Break { n: n16 },
            Jump::Continue => Inst::Continue { n: n16 },
            Jump::Return if in_func => Inst::Break { n: n16 },
            Jump::Return => Inst::Return { n: n16 },
        });
        for k in (first..self.open.len()).rev() {
            let pc = self.emit(Inst::Scope {
                is_loop: false,
                resume_pc: 0,
                end_pc: 0,
            });
            let o = &mut self.open[k];
            o.patches.push((pc as usize, o.in_else));
        }
        Ok(())
    }

    fn jump_error(&self, j: Jump, why: &str) -> Diag {
        let kw = j.keyword();
        let (msg, help) = if why.is_empty() {
            let msg = if self.in_function() {
                format!("`{kw}` outside a loop of this function")
            } else {
                format!("`{kw}` outside a loop")
            };
            let help = if self.in_function() {
                "a function cannot break out of its caller's loop: put the `For`/`While` in the \
                 function, or return a flag and test it in the caller"
            } else {
                "`Break` and `Continue` go in the body of a `For` or `While` (or of an `If` \
                 inside one); use `Return` to leave the kernel"
            };
            (msg, help.to_owned())
        } else {
            (format!("`{kw}` cannot be lowered: {why}"), String::new())
        };
        self.err_at(
            self.cursor,
            kw.len(),
            msg,
            (!help.is_empty()).then_some(help),
        )
    }

    /// After statement `s` of a block, `next` follows: refused if `s` always jumps away.
    pub(super) fn check_reachable(&mut self, s: &Stmt, next: &Stmt) -> R<()> {
        let Some(j) = Jump::of(s) else {
            return Ok(());
        };
        self.stmt_pos(next);
        let kw = j.keyword();
        Err(self.err_at(
            self.cursor,
            1,
            format!("this statement is never run: the `{kw}` before it always leaves the block"),
            Some(format!(
                "remove it, or put the `{kw}` in an `If` so that only some lanes leave"
            )),
        ))
    }

    /// The offset of a keyword statement (`Barrier`, `Break`, …) as a whole word at or after
    /// the cursor.
    pub(super) fn find_keyword(&self, kw: &str) -> Option<usize> {
        let hay = self.src.get(self.cursor..)?;
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        hay.match_indices(kw)
            .find(|&(i, _)| {
                !word(hay[..i].chars().next_back()) && !word(hay[i + kw.len()..].chars().next())
            })
            .map(|(i, _)| self.cursor + i)
    }
}
