//! The SMs in order of the cycle each acts next (then SM number): a tournament tree, where
//! changing one SM's cycle walks one path to the root and the soonest is the root.

use super::NEVER;

/// An SM's key: its cycle, then its number (in the low `shift` bits; a cycle beyond the
/// high bits, some 2^56 cycles on the H200, counts as the last before `NEVER`).
#[inline]
fn key(t: u64, sm: usize, shift: u32) -> u64 {
    let top = u64::MAX >> shift;
    let t = if t == NEVER { top } else { t.min(top - 1) };
    t << shift | sm as u64
}

#[derive(Clone, Debug)]
pub(super) struct Order {
    /// Leaves from `half`; each inner node the least of its two children.
    node: Vec<u64>,
    half: usize,
    /// Bits of the SM number in a key.
    shift: u32,
}

impl Order {
    /// `n` SMs, none with a cycle to act.
    pub(super) fn new(n: usize) -> Self {
        let half = n.next_power_of_two().max(2);
        let shift = half.trailing_zeros();
        let mut node = vec![u64::MAX; 2 * half];
        for i in 0..n {
            node[half + i] = key(NEVER, i, shift);
        }
        for i in (1..half).rev() {
            node[i] = node[2 * i].min(node[2 * i + 1]);
        }
        Order { node, half, shift }
    }

    /// SM `sm` acts next at cycle `t` (`NEVER`: not until a block arrives).
    #[inline]
    pub(super) fn set(&mut self, sm: usize, t: u64) {
        let mut i = self.half + sm;
        let mut k = key(t, sm, self.shift);
        self.node[i] = k;
        while i > 1 {
            k = k.min(self.node[i ^ 1]);
            i /= 2;
            self.node[i] = k;
        }
    }

    /// The soonest SM to act and its cycle (`NEVER` when none has one).
    #[inline]
    pub(super) fn first(&self) -> (u64, u32) {
        let k = self.node[1];
        let t = k >> self.shift;
        let sm = (k & ((1 << self.shift) - 1)) as u32;
        (
            if t == u64::MAX >> self.shift {
                NEVER
            } else {
                t
            },
            sm,
        )
    }
}
