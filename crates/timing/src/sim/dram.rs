//! The GPU's DRAM as a calendar: its bandwidth in slots of [`SLOT`] cycles, each holding as
//! many sectors as the bandwidth moves in that time. A sector read or written at cycle `d`
//! takes room in the first slot from `d` on that has any, so traffic is served at the whole
//! GPU's bandwidth by whichever SMs ask, and a request booked ahead in time (an SM whose own
//! queue is long) does not hold up one asked for earlier by another SM.

use std::collections::VecDeque;

/// Cycles per slot.
pub(super) const SLOT: u64 = 16;

#[derive(Clone, Debug)]
pub(super) struct Dram {
    /// Sectors a slot holds (at least 1).
    per_slot: u32,
    /// Slot number of `used[0]`.
    base: u64,
    /// Sectors taken in each slot from `base` on.
    used: VecDeque<u32>,
    /// Every slot before this one is full.
    first_free: u64,
}

impl Dram {
    /// DRAM moving `bytes_per_cycle` in sectors of `sector_bytes`.
    pub fn new(bytes_per_cycle: f64, sector_bytes: u32) -> Self {
        let per_slot = (bytes_per_cycle * SLOT as f64 / sector_bytes.max(1) as f64).floor();
        Dram {
            per_slot: (per_slot as u32).max(1),
            base: 0,
            used: VecDeque::new(),
            first_free: 0,
        }
    }

    /// Takes one sector's room from cycle `d` on and returns the cycle its transfer starts.
    pub fn take(&mut self, d: u64) -> u64 {
        let mut s = (d / SLOT).max(self.first_free).max(self.base);
        loop {
            let i = (s - self.base) as usize;
            if i >= self.used.len() {
                self.used.resize(i + 1, 0);
            }
            if self.used[i] < self.per_slot {
                self.used[i] += 1;
                break;
            }
            s += 1;
        }
        while self
            .used
            .get((self.first_free.max(self.base) - self.base) as usize)
            .is_some_and(|&u| u >= self.per_slot)
        {
            self.first_free = self.first_free.max(self.base) + 1;
        }
        d.max(s * SLOT)
    }

    /// Forgets the slots before cycle `t`: no request starts before the cycle the model has
    /// reached.
    pub fn forget_before(&mut self, t: u64) {
        let s = t / SLOT;
        while self.base < s && !self.used.is_empty() {
            self.used.pop_front();
            self.base += 1;
        }
        if self.used.is_empty() {
            self.base = self.base.max(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_at_the_bandwidth_in_time_order_of_asking() {
        // 2 sectors a cycle: 32 a slot.
        let mut d = Dram::new(64.0, 32);
        let starts: Vec<u64> = (0..100).map(|_| d.take(0)).collect();
        assert_eq!(starts[31], 0);
        assert_eq!(starts[32], SLOT);
        assert_eq!(starts[99], 3 * SLOT);
        // A request far ahead does not hold up an earlier one.
        assert_eq!(d.take(10_000), 10_000);
        assert_eq!(d.take(5), 3 * SLOT);
    }

    #[test]
    fn forgets_the_past_but_not_the_booked_future() {
        let mut d = Dram::new(32.0, 32);
        for _ in 0..40 {
            d.take(100);
        }
        d.forget_before(120);
        // Slot 6 (96..112) and 7 were filled; what is left of the booking stays.
        assert_eq!(d.take(120), 128);
        assert!(d.used.len() < 10);
    }
}
