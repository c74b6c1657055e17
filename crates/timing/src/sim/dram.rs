//! The GPU's DRAM as calendars, one per channel: a channel's share of the bandwidth in slots
//! of [`SLOT`] cycles, each holding as many sectors as the channel moves in that time. Which
//! channel serves a sector is a fixed hash of its address, in chunks of the interleave. A
//! sector read or written at cycle `d` takes room in its channel's first slot from `d` on that
//! has any, so each channel serves what it is asked in order of asking, channels apart: the
//! warps of a block, asking together, get their data back as far apart as their channels'
//! queues are (calibration/README.md, section 7). A request booked ahead in time (an SM whose
//! own queue is long) does not hold up one asked for earlier by another SM.

use std::collections::VecDeque;
use warpsim_machine::GlobalMem;

/// Cycles per slot.
pub(super) const SLOT: u64 = 16;

#[derive(Clone, Debug)]
pub(super) struct Dram {
    /// Sectors a slot of one channel holds, on average: slot `s` holds
    /// `floor((s + 1) c) - floor(s c)`, so the channels move the whole bandwidth exactly.
    per_slot: f64,
    /// Sectors of consecutive addresses that go to one channel.
    grain: u64,
    chans: Vec<Chan>,
    /// No request starts before this slot: a channel forgets the slots before it when next
    /// asked.
    now: u64,
}

/// One channel's calendar.
#[derive(Clone, Debug, Default)]
struct Chan {
    /// Slot number of `room[0]`.
    base: u64,
    /// Sectors each slot from `base` on has room for still (made when first asked for).
    room: VecDeque<u32>,
    /// Every slot before this one is full.
    first_free: u64,
}

impl Dram {
    /// The DRAM of `g`: its bandwidth, channels and interleave.
    pub fn new(g: &GlobalMem) -> Self {
        let sb = g.sector_bytes.max(1);
        let per_slot = (g.dram_bytes_per_cycle * SLOT as f64 / sb as f64).floor();
        let chans = g.dram_channels.max(1);
        Dram {
            per_slot: (per_slot / chans as f64).max(1e-3),
            grain: (g.dram_interleave_bytes / sb).max(1) as u64,
            chans: vec![Chan::default(); chans as usize],
            now: 0,
        }
    }

    /// The chunk of sector `id`: its buffer and its interleave-sized piece of it.
    pub(super) fn chunk(&self, id: u64) -> u64 {
        let (buf, sec) = super::global::split(id);
        // (A shift where the interleave is a power of two sectors, as it is on real GPUs: a
        // division here is a tenth of a sampled run's shadow pricing.)
        let piece = if self.grain.is_power_of_two() {
            sec >> self.grain.trailing_zeros()
        } else {
            sec / self.grain
        };
        ((buf as u64) << 44) ^ piece
    }

    /// Cycles from the start of sector `id`'s read until its data is in L2: `g.dram` plus the
    /// `g.dram_spread` entry a fixed hash of its chunk picks, so the sectors of one chunk
    /// arrive alike and chunks next to each other are unrelated (`calibration/probes/dram_latency`: at an
    /// idle DRAM a read takes 535 to 1,250 cycles, p1 to p99).
    pub fn latency(&self, g: &GlobalMem, id: u64) -> u64 {
        let (base, spread) = (g.dram, &g.dram_spread);
        if spread.is_empty() {
            return base as u64;
        }
        // A second finaliser (not the channel's constants): the pick is unrelated to the channel.
        let mut x = self.chunk(id) ^ 0xD6E8_FEB8_6659_FD93;
        x = (x ^ (x >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        x = (x ^ (x >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let e = spread[((x ^ (x >> 32)) % spread.len() as u64) as usize];
        (base as i64 + e as i64).max(0) as u64
    }

    /// Sectors slot `s` of a channel holds.
    fn cap(per_slot: f64, s: u64) -> u32 {
        // (Truncation is the floor of these non-negative values, without a call to libm's.)
        (((s + 1) as f64 * per_slot) as u64 - (s as f64 * per_slot) as u64) as u32
    }

    /// The channel of sector `id` (buffer << 48 | sector in the buffer).
    fn channel(&self, id: u64) -> usize {
        let n = self.chans.len() as u64;
        if n == 1 {
            return 0;
        }
        let chunk = self.chunk(id);
        // splitmix64's finaliser: neighbouring chunks land on unrelated channels.
        let mut x = chunk.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((x ^ (x >> 31)) % n) as usize
    }

    /// Takes room for sector `id` (buffer << 48 | sector) from cycle `d` on and returns the
    /// cycle its transfer starts.
    pub fn take(&mut self, d: u64, id: u64) -> u64 {
        self.take_n(d, id, 1)
    }

    /// Takes room for `n` sectors of the chunk of sector `id` from cycle `d` on, each in the
    /// channel's first slot from `d` on that has any, and returns the cycle the last one's
    /// transfer starts.
    pub fn take_n(&mut self, d: u64, id: u64, mut n: u32) -> u64 {
        let k = self.channel(id);
        let c = self.per_slot;
        let now = self.now;
        let ch = &mut self.chans[k];
        if ch.base < now {
            let gone = ((now - ch.base) as usize).min(ch.room.len());
            ch.room.drain(..gone);
            ch.base = if ch.room.is_empty() {
                now
            } else {
                ch.base + gone as u64
            };
        }
        let mut s = (d / SLOT).max(ch.first_free).max(ch.base);
        let mut last = s;
        while n > 0 {
            let i = (s - ch.base) as usize;
            while i >= ch.room.len() {
                let t = ch.base + ch.room.len() as u64;
                ch.room.push_back(Self::cap(c, t));
            }
            let r = &mut ch.room[i];
            let took = (*r).min(n);
            if took > 0 {
                *r -= took;
                n -= took;
                last = s;
            }
            s += 1;
        }
        loop {
            let f = ch.first_free.max(ch.base);
            match ch.room.get((f - ch.base) as usize) {
                Some(0) => ch.first_free = f + 1,
                _ => break,
            }
        }
        d.max(last * SLOT)
    }

    /// Forgets the slots before cycle `t`: no request starts before the cycle the model has
    /// reached (each channel drops them when next asked).
    pub fn forget_before(&mut self, t: u64) {
        self.now = self.now.max(t / SLOT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsim_machine::Gpu;

    fn dram(bytes_per_cycle: f64, channels: u32) -> Dram {
        let mut g = Gpu::h200().global;
        g.dram_bytes_per_cycle = bytes_per_cycle;
        g.dram_channels = channels;
        Dram::new(&g)
    }

    #[test]
    fn serves_at_the_bandwidth_in_time_order_of_asking() {
        // 2 sectors a cycle: 32 a slot.
        let mut d = dram(64.0, 1);
        let starts: Vec<u64> = (0..100).map(|_| d.take(0, 0)).collect();
        assert_eq!(starts[31], 0);
        assert_eq!(starts[32], SLOT);
        assert_eq!(starts[99], 3 * SLOT);
        // A request far ahead does not hold up an earlier one.
        assert_eq!(d.take(10_000, 0), 10_000);
        assert_eq!(d.take(5, 0), 3 * SLOT);
    }

    #[test]
    fn forgets_the_past_but_not_the_booked_future() {
        let mut d = dram(32.0, 1);
        for _ in 0..40 {
            d.take(100, 0);
        }
        d.forget_before(120);
        // Slot 6 (96..112) and 7 were filled; what is left of the booking stays.
        assert_eq!(d.take(120, 0), 128);
        assert_eq!(d.chans[0].base, 7);
        assert!(d.chans[0].room.len() < 10);
    }

    #[test]
    fn a_chunk_takes_one_spread_entry_and_chunks_take_them_all() {
        let g = Gpu::h200().global;
        let d = Dram::new(&g);
        let base = g.dram;
        // The 8 sectors of one 256-byte chunk arrive alike.
        let one: Vec<u64> = (8..16).map(|s| d.latency(&g, s)).collect();
        assert!(one.iter().all(|&l| l == one[0]), "{one:?}");
        // Over many chunks every entry is taken about equally often: the mean stays `base`.
        let n = 32 * 1000;
        let lat: Vec<u64> = (0..n).map(|c| d.latency(&g, c * 8)).collect();
        let mean = lat.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean - base as f64).abs() < 10.0, "{mean}");
        for e in &g.dram_spread {
            let hits = lat
                .iter()
                .filter(|&&l| l as i64 == base as i64 + *e as i64)
                .count();
            assert!((600..1500).contains(&hits), "entry {e}: {hits} of {n}");
        }
        // Another buffer's chunk at the same offset takes its own entry.
        let other = (0..16u64)
            .filter(|b| d.latency(&g, b << 48) == d.latency(&g, 0))
            .count();
        assert!(other < 6, "{other}");
        // No spread: every read takes `base`.
        let mut flat = g.clone();
        flat.dram_spread.clear();
        assert_eq!(Dram::new(&flat).latency(&flat, 12_345), base as u64);
    }

    #[test]
    fn taking_n_at_once_books_what_n_takes_would() {
        let (mut one, mut many) = (dram(12.0, 4), dram(12.0, 4));
        for (d, id, n) in [(0, 0, 5), (20, 8, 9), (3, 0, 2), (200, 16, 30), (40, 0, 1)] {
            let last = one.take_n(d, id, n);
            let starts: Vec<u64> = (0..n).map(|_| many.take(d, id)).collect();
            assert_eq!(Some(&last), starts.last(), "{d} {id} {n}");
            // The next request of each channel starts alike.
            for c in [0, 8, 16, 24] {
                assert_eq!(
                    one.clone().take(0, c),
                    many.clone().take(0, c),
                    "{d} {id} {n}"
                );
            }
        }
    }

    #[test]
    fn channels_share_the_bandwidth_and_queue_apart() {
        // 4 channels of 1.5 sectors a slot each (a fraction: slots hold 1 or 2).
        let mut d = dram(12.0, 4);
        // One chunk's sectors (256 bytes: 8 sectors) queue on one channel, in order.
        let one: Vec<u64> = (0..8).map(|s| d.take(0, s)).collect();
        assert!(one.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(one[7], 5 * SLOT); // 1 + 2 + 1 + 2 + 1 + 2 ≥ 8 by slot 5
                                      // Many chunks spread over all channels: the whole bandwidth (6 sectors a slot).
        let mut d = dram(12.0, 4);
        let last = (0..600u64).map(|c| d.take(0, c * 8)).max().unwrap();
        assert!((100 * SLOT..=112 * SLOT).contains(&last), "{last}");
        // Sectors of different buffers at the same offset are apart.
        let d = dram(12.0, 64);
        let same = (0..16u64)
            .filter(|b| d.channel(b << 48) == d.channel(0))
            .count();
        assert!(same < 4);
    }
}
