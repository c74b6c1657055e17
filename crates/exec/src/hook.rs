//! The executor's hook: what a timing model needs to know about each issued warp instruction.
//! The executor is generic over it and calls it only when [`Hook::ON`], so with `()` (the
//! plain [`run_block`](super::run_block)) the calls compile to nothing.

/// Receives each warp's issued instructions in order (per warp; warps of a block run in turn
/// between barriers). It only observes: results never depend on it.
pub trait Hook {
    /// Whether the executor calls it at all.
    const ON: bool;
    /// Warp `w` of the block issues instruction `pc` (every instruction, control flow too).
    fn inst(&mut self, w: usize, pc: usize);
    /// The shared access just issued by warp `w` took `wavefronts`, `ideal` without bank
    /// conflicts (one per busy phase).
    fn shared(&mut self, w: usize, wavefronts: u32, ideal: u32);
    /// The global access just issued by warp `w`: buffer `buffer`, each lane's element index
    /// `index` (meaningful in `active` lanes), `bytes` per lane.
    fn global(&mut self, w: usize, buffer: u16, index: &[u32; 32], bytes: u32, active: u32);
    /// The local access (PTX `.local`) just issued by warp `w`: each lane's byte offset in
    /// its own local memory `offset` (meaningful in `active` lanes), `bytes` per lane.
    fn local(&mut self, w: usize, offset: &[u32; 32], bytes: u32, active: u32);
    /// The constant load (`ld.const`) just issued by warp `w`: the distinct byte offsets its
    /// active lanes read in constant buffer `buffer`, the first active lane's first.
    fn constant(&mut self, w: usize, buffer: u16, offsets: &[u32]);
}

/// No hook: the executor as it runs without a timing model.
impl Hook for () {
    const ON: bool = false;
    #[inline(always)]
    fn inst(&mut self, _: usize, _: usize) {}
    #[inline(always)]
    fn shared(&mut self, _: usize, _: u32, _: u32) {}
    #[inline(always)]
    fn global(&mut self, _: usize, _: u16, _: &[u32; 32], _: u32, _: u32) {}
    #[inline(always)]
    fn local(&mut self, _: usize, _: &[u32; 32], _: u32, _: u32) {}
    #[inline(always)]
    fn constant(&mut self, _: usize, _: u16, _: &[u32]) {}
}
