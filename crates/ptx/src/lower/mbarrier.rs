//! `mbarrier` (issue 41), as `cuda::barrier`, `cuda::pipeline` and TMA code use it:
//!
//! * `mbarrier.init[.shared[::cta]].b64 [a], count`;
//! * `mbarrier.arrive[_drop][.noComplete|.expect_tx][.sem][.cta][.shared[::cta]].b64 state|_, [a][, n]`;
//! * `mbarrier.expect_tx` / `mbarrier.complete_tx` `[.sem][.cta][.shared[::cta]].b64 [a], bytes`;
//! * `mbarrier.{test,try}_wait[.parity][.sem][.cta][.shared[::cta]].b64 p, [a], state|parity[, hint]`
//!   (a time hint is dropped: a wait that would fail suspends the warp until its phase
//!   completes, `exec/mbarrier.rs`);
//! * `mbarrier.pending_count.b64 n, state` (the low bits of warpsim's state);
//! * `mbarrier.inval[.shared[::cta]].b64 [a]`;
//! * `cp.async.mbarrier.arrive[.noinc][.shared[::cta]].b64 [a]`.
//!
//! → [`Inst::Mbar`]; and TMA's one-dimensional bulk copies:
//!
//! * `cp.async.bulk.shared::{cluster,cta}.global.mbarrier::complete_tx::bytes[.L2::cache_hint] [d], [s], n, [b][, policy]`
//!   and `cp.async.bulk.global.shared::cta.bulk_group[.L2::cache_hint] [d], [s], n[, policy]`
//!   → [`Inst::Bulk`] (the policy dropped);
//! * `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group[.read] n`,
//!   `cp.async.bulk.prefetch.L2.global [s], n`: nothing (the copies complete at issue).
//!
//! A launch is a cluster of one block (`mapa`, which names another block's shared memory, is
//! refused), so `.cluster` scope and `.shared::cluster` addresses are the block's own.
//! Generic addresses, multicast, `.cp_mask` and tensor copies are refused.

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{BulkOp, Inst, MbarKind, MbarOp, MbarState, Reg, TensorOp};

impl Lower<'_> {
    /// Lowers an `mbarrier.*` or `cp.async.mbarrier.arrive`.
    pub(super) fn mbarrier(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let unsup = |why: &str| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let async_arrive = parts.first() == Some(&"cp");
        let (verb, mods) = if async_arrive {
            ("cp.async.arrive", parts.get(4..).unwrap_or_default())
        } else {
            (
                parts.get(1).copied().unwrap_or(""),
                parts.get(2..).unwrap_or_default(),
            )
        };
        let mut flags = Flags::default();
        for m in mods {
            match *m {
                // (A cluster of one block: its shared::cluster window is the block's own.)
                "shared" | "shared::cta" | "shared::cluster" => flags.shared = true,
                "b64" | "release" | "acquire" | "relaxed" | "cta" | "cluster" => {}
                "noComplete" => flags.no_complete = true,
                "expect_tx" => flags.tx = true,
                "parity" => flags.parity = true,
                "noinc" => flags.noinc = true,
                other => return Err(unsup(&format!("`.{other}` is not a form warpsim knows"))),
            }
        }
        if verb == "pending_count" {
            // (A register operation on the state: no barrier, no space.)
            let [d, s] = args else {
                return Err(unsup("it takes 2 operands"));
            };
            let dst = self.reg(d.trim(), off)?.0;
            let s = self.val(s, 2, off)?;
            let mask = self.konst(MbarState::MAX as u64, 1);
            self.emit(Inst::And { dst, a: s, b: mask });
            return Ok(());
        }
        if !flags.shared {
            return Err(unsup(
                "write the state space: warpsim runs mbarriers in shared memory (`.shared`), not \
                 through generic addresses",
            ));
        }
        let kind = match verb {
            "init" => MbarKind::Init,
            "arrive" | "arrive_drop" => MbarKind::Arrive {
                drop: verb == "arrive_drop",
                no_complete: flags.no_complete,
                tx: flags.tx,
            },
            "expect_tx" => MbarKind::ExpectTx,
            "complete_tx" => MbarKind::CompleteTx,
            "test_wait" | "try_wait" => MbarKind::Wait {
                parity: flags.parity,
                block: false,
            },
            "inval" => MbarKind::Inval,
            "cp.async.arrive" => MbarKind::AsyncArrive { noinc: flags.noinc },
            _ => return Err(unsup("not an mbarrier operation warpsim knows")),
        };
        // The operands: (result, [address], operand).
        let (dst, addr, a) = match (kind, args) {
            (MbarKind::Init | MbarKind::ExpectTx | MbarKind::CompleteTx, [addr, a]) => {
                (None, addr, Some(self.val(a, 1, off)?))
            }
            (MbarKind::Inval | MbarKind::AsyncArrive { .. }, [addr]) => (None, addr, None),
            (
                MbarKind::Arrive {
                    tx, no_complete, ..
                },
                [d, addr, rest @ ..],
            ) if rest.len() <= 1 && (rest.len() == 1 || !(tx || no_complete)) => {
                let a = match rest {
                    [a] => Some(self.val(a, 1, off)?),
                    _ => None,
                };
                (self.result(d, off)?, addr, a)
            }
            (MbarKind::Wait { parity, .. }, [d, addr, a, hint @ ..]) if hint.len() <= 1 => {
                let a = self.val(a, if parity { 1 } else { 2 }, off)?;
                (self.result(d, off)?, addr, Some(a))
            }
            _ => return Err(unsup("its operands are not of a form PTX defines")),
        };
        let (addr, _) = self.address(addr, off)?;
        self.emit(Inst::Mbar(MbarOp { kind, addr, dst, a }));
        Ok(())
    }

    /// Lowers a `cp.async.bulk.*`.
    pub(super) fn bulk(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let unsup = |why: &str| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let rest = parts.get(3..).unwrap_or_default();
        match rest {
            // (Copies complete at issue: their groups and prefetches change nothing.)
            ["commit_group"] if args.is_empty() => return Ok(()),
            ["wait_group"] | ["wait_group", "read"] if args.len() == 1 => return Ok(()),
            ["prefetch", "L2", "global", ..] => return Ok(()),
            ["tensor", ..] => return self.bulk_tensor(i),
            _ => {}
        }
        let (to_shared, hinted) = bulk_form(rest, false).map_err(|why| unsup(&why))?;
        let want = 3 + to_shared as usize + hinted as usize;
        if args.len() != want {
            return Err(unsup(&format!("it takes {want} operands")));
        }
        let (dst, src) = (&args[0], &args[1]);
        let size = self.val(&args[2], 1, off)?;
        let global = |l: &mut Self, a: &str| -> Result<Reg, Err> {
            let inner = a.trim().strip_prefix('[').and_then(|x| x.strip_suffix(']'));
            match inner {
                Some(r) if !r.contains('+') => l.val(r, 2, off),
                _ => Err(unsup(&format!(
                    "the global address `{}` must be one 64-bit register, `[%rd]`",
                    a.trim()
                ))),
            }
        };
        let op = if to_shared {
            let (d, _) = self.address(dst, off)?;
            let s = global(self, src)?;
            let (m, _) = self.address(&args[3], off)?;
            BulkOp {
                dst: d,
                src: s,
                size,
                mbar: Some(m),
            }
        } else {
            let d = global(self, dst)?;
            let (s, _) = self.address(src, off)?;
            BulkOp {
                dst: d,
                src: s,
                size,
                mbar: None,
            }
        };
        self.emit(Inst::Bulk(op));
        Ok(())
    }

    /// Lowers a `cp.async.bulk.tensor.{n}d` in tile mode.
    fn bulk_tensor(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let unsup = |why: &str| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let rest = parts.get(5..).unwrap_or_default();
        let rank = match parts.get(4) {
            Some(d) => d
                .strip_suffix('d')
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (1..=5).contains(n)),
            None => None,
        };
        let Some(rank) = rank else {
            return Err(unsup("it needs a dimension count from .1d to .5d"));
        };
        let (to_shared, hinted) = bulk_form(rest, true).map_err(|why| unsup(&why))?;
        let store = !to_shared;
        // (`parse.rs` splits operands at top-level commas: `[map, {c0, c1}]` is one.)
        let ops = args;
        let want = 2 + !store as usize + hinted as usize;
        if ops.len() != want {
            return Err(unsup(&format!("it takes {want} operands")));
        }
        let (tensor, smem) = if store {
            (&ops[0], &ops[1])
        } else {
            (&ops[1], &ops[0])
        };
        let inner = tensor
            .trim()
            .strip_prefix('[')
            .and_then(|x| x.strip_suffix(']'));
        let parsed = inner.and_then(|x| {
            let (m, c) = x.split_once(',')?;
            let c = c.trim().strip_prefix('{')?.strip_suffix('}')?;
            Some((
                m.trim().to_owned(),
                c.split(',')
                    .map(|s| s.trim().to_owned())
                    .collect::<Vec<_>>(),
            ))
        });
        let Some((map, cs)) = parsed.filter(|(_, cs)| cs.len() == rank as usize) else {
            return Err(unsup(&format!(
                "the tensor operand `{}` must be `[map, {{c0, ...}}]` with {rank} coordinates",
                tensor.trim()
            )));
        };
        let map = self.val(&map, 2, off)?;
        let mut coords = [Reg(0); 5];
        for (k, c) in cs.iter().enumerate() {
            coords[k] = self.val(c, 1, off)?;
        }
        let (smem, _) = self.address(smem, off)?;
        let mbar = if store {
            smem
        } else {
            self.address(&ops[2], off)?.0
        };
        self.emit(Inst::BulkTensor(TensorOp {
            store,
            rank,
            smem,
            map,
            coords,
            mbar,
        }));
        Ok(())
    }

    /// A result operand: a register, or none for the sink `_`.
    fn result(&mut self, d: &str, off: usize) -> Result<Option<Reg>, Err> {
        match d.trim() {
            "_" => Ok(None),
            d => Ok(Some(self.reg(d, off)?.0)),
        }
    }
}

/// An `mbarrier` instruction's qualifiers.
#[derive(Default)]
struct Flags {
    shared: bool,
    no_complete: bool,
    tx: bool,
    parity: bool,
    noinc: bool,
}

/// A bulk copy's qualifiers after `cp.async.bulk[.tensor.Nd]` (`tensor`: which also name the
/// `.tile` mode): whether it copies into shared memory, and whether it takes a cache policy
/// operand; else why it is refused.
fn bulk_form(rest: &[&str], tensor: bool) -> Result<(bool, bool), String> {
    let known = |p: &&str| {
        matches!(
            *p,
            "shared::cluster"
                | "shared::cta"
                | "global"
                | "mbarrier::complete_tx::bytes"
                | "bulk_group"
                | "L2::cache_hint"
        ) || (tensor && *p == "tile")
    };
    if let Some(other) = rest.iter().find(|p| !known(p)) {
        let modes = if tensor {
            "tile mode only: im2col, "
        } else {
            ""
        };
        return Err(format!(
            "`.{other}` is not a form warpsim runs ({modes}multicast, .cp_mask and reductions are \
             not modelled)"
        ));
    }
    let to_shared = match rest.first() {
        Some(&"shared::cluster" | &"shared::cta") if rest.get(1) == Some(&"global") => true,
        Some(&"global") if rest.get(1) == Some(&"shared::cta") => false,
        _ => return Err("only global-to-shared and shared-to-global copies run".into()),
    };
    Ok((to_shared, rest.contains(&"L2::cache_hint")))
}
