//! The race checker's view of `cp.async` (issue 41): the shared words a copy writes are
//! *pending* from the copy until the `cp.async.wait_group` (or `wait_all`) of its warp that
//! completes its group. Any access to a pending word, by any thread (the copying one too),
//! is an [`HazardKind::Async`](crate::HazardKind::Async) hazard: the data may not be there
//! yet. Groups are counted per warp (its lanes commit and wait together). A copy whose thread
//! ran `cp.async.mbarrier.arrive` is also complete when that mbarrier's phase completes.

use std::collections::HashMap;

/// One pending word: the copying thread, the copy's pc and its group (the warp's group
/// count when it was issued: the group it joins at the next commit).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pend {
    pub(crate) thread: u32,
    pub(crate) pc: u32,
    group: u32,
    /// The mbarrier phase (shared byte address, parity) that completes it, if any.
    bar: Option<(u32, bool)>,
}

/// The pending words of one block's copies, and each warp's committed groups.
#[derive(Debug, Default)]
pub(crate) struct Copies {
    words: HashMap<u32, Pend>,
    /// Groups committed by each warp so far.
    committed: Vec<u32>,
}

impl Copies {
    /// Whether no copy is pending (the common case: one test per access).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    fn committed(&mut self, w: usize) -> &mut u32 {
        if self.committed.len() <= w {
            self.committed.resize(w + 1, 0);
        }
        &mut self.committed[w]
    }

    /// The `active` lanes of warp `w` copy `words` words each to byte address `dst[l]`.
    pub(crate) fn copy(&mut self, pc: usize, w: usize, active: u32, dst: &[u32; 32], words: u32) {
        let group = *self.committed(w);
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let pend = Pend {
                thread: w as u32 * 32 + l,
                pc: pc as u32,
                group,
                bar: None,
            };
            let at = dst[l as usize] / 4;
            for word in at..at + words {
                self.words.insert(word, pend);
            }
        }
    }

    /// Thread `thread`'s bulk copy of `words` words to shared byte `dst`, complete with phase
    /// `bar` (shared byte address, parity) of an mbarrier.
    pub(crate) fn copy_to_barrier(
        &mut self,
        pc: usize,
        thread: usize,
        dst: u32,
        words: u32,
        bar: (u32, bool),
    ) {
        let pend = Pend {
            thread: thread as u32,
            pc: pc as u32,
            // (In no group: only its barrier completes it.)
            group: u32::MAX,
            bar: Some(bar),
        };
        for word in dst / 4..dst / 4 + words {
            self.words.insert(word, pend);
        }
    }

    /// Warp `w` commits its copies since the last commit as one group.
    pub(crate) fn commit(&mut self, w: usize) {
        *self.committed(w) += 1;
    }

    /// Warp `w` waits until at most `n` of its committed groups are pending.
    pub(crate) fn wait(&mut self, w: usize, n: u32) {
        let done = self.committed(w).saturating_sub(n);
        let w = w as u32;
        self.words
            .retain(|_, p| p.thread / 32 != w || p.group >= done);
    }

    /// Thread `thread`'s copies not yet tied to an mbarrier complete with phase `phase` of the
    /// one at `addr`.
    pub(crate) fn attach(&mut self, thread: u32, addr: u32, phase: bool) {
        for p in self.words.values_mut() {
            if p.thread == thread && p.bar.is_none() {
                p.bar = Some((addr, phase));
            }
        }
    }

    /// Phase `phase` of the mbarrier at `addr` completed.
    pub(crate) fn complete(&mut self, addr: u32, phase: bool) {
        self.words.retain(|_, p| p.bar != Some((addr, phase)));
    }

    /// The pending copy of `word`, if any.
    #[inline]
    pub(crate) fn pending(&self, word: u32) -> Option<Pend> {
        self.words.get(&word).copied()
    }
}
