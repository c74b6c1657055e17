//! Counting the words each bank served: [`BankCounts`], and the `Sink` the pricing adds to.

/// Distinct words served per bank, summed over many accesses (see [`cost_into`](crate::cost_into)).
///
/// An access that asks every bank for exactly one word (the common case in a well laid out
/// kernel) adds one to a single counter rather than one to each bank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BankCounts {
    /// Words per bank, beyond `all`.
    pub(crate) each: Vec<u64>,
    /// Words served by every bank.
    pub(crate) all: u64,
}

impl BankCounts {
    /// Zero counts for `banks` banks.
    pub fn new(banks: u32) -> Self {
        BankCounts {
            each: vec![0; banks as usize],
            all: 0,
        }
    }

    /// Number of banks counted.
    pub fn banks(&self) -> usize {
        self.each.len()
    }

    /// The words bank `b` served (0 for a bank that is not counted).
    pub fn get(&self, b: usize) -> u64 {
        self.each.get(b).map_or(0, |&n| n + self.all)
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.all == 0 && self.each.iter().all(|&n| n == 0)
    }

    /// Adds the counts to `out[b]`, for every bank `b` that both have.
    pub fn add_to(&self, out: &mut [u64]) {
        for (o, &n) in out.iter_mut().zip(&self.each) {
            *o += n + self.all;
        }
    }

    /// Back to zero.
    pub fn clear(&mut self) {
        self.each.fill(0);
        self.all = 0;
    }
}

/// Where the pricing adds the words each bank served.
pub(crate) trait Sink {
    /// One word from each bank in `used` (bit `b` = bank `b`; fewer than 64 banks, or
    /// exactly 64).
    fn one_each(&mut self, used: u64, banks: u32);
    /// `n` words from bank `b`.
    fn add(&mut self, b: usize, n: u64);
}

impl Sink for () {
    #[inline(always)]
    fn one_each(&mut self, _: u64, _: u32) {}
    #[inline(always)]
    fn add(&mut self, _: usize, _: u64) {}
}

/// Adds one to `each[b]` for the banks of `used`.
#[inline(always)]
pub(crate) fn add_bits(each: &mut [u64], used: u64, banks: u32) {
    if banks == 32 {
        // Without branches: 32 lanes of `bit of used`, which vectorizes.
        let each = &mut each[..32];
        for (b, e) in each.iter_mut().enumerate() {
            *e += (used >> b) & 1;
        }
    } else {
        let mut u = used;
        while u != 0 {
            each[u.trailing_zeros() as usize] += 1;
            u &= u - 1;
        }
    }
}

impl Sink for [u64] {
    #[inline(always)]
    fn one_each(&mut self, used: u64, banks: u32) {
        add_bits(self, used, banks)
    }
    #[inline(always)]
    fn add(&mut self, b: usize, n: u64) {
        self[b] += n;
    }
}

impl Sink for BankCounts {
    #[inline(always)]
    fn one_each(&mut self, used: u64, banks: u32) {
        let every = if banks >= 64 {
            u64::MAX
        } else {
            (1u64 << banks) - 1
        };
        if used == every {
            self.all += 1;
        } else {
            add_bits(&mut self.each, used, banks)
        }
    }
    #[inline(always)]
    fn add(&mut self, b: usize, n: u64) {
        self.each[b] += n;
    }
}
