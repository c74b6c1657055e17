// cuda_kernels1, cooperative groups: tile reductions as the CUDA Programming Guide's cooperative
// groups chapter writes them, re-implemented here (not copied): a 32-thread tile with
// cg::reduce (redux.sync for int), 16-thread tiles reduced with tile.shfl_down (two tiles of a
// warp in one shuffle, each with its own member mask), and a 64-thread tile (two warps: the
// library's multi-warp tiles, through reserved shared memory, generic addresses and
// acquire/release atomics) with cg::reduce and a tile-wide shfl.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// out[b * (blockDim.x / 32) + t]: the sum of tile t of block b; the block's total in total[b].
extern "C" __global__ void cgTile32Reduce(const int* in, int* out, int* total) {
  __shared__ int tileSums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  const int s = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) {
    out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = s;
    tileSums[tile.meta_group_rank()] = s;
  }
  block.sync();
  if (tile.meta_group_rank() == 0) {
    const int t = tile.thread_rank() < tile.meta_group_size() ? tileSums[tile.thread_rank()] : 0;
    const int all = cg::reduce(tile, t, cg::plus<int>());
    if (tile.thread_rank() == 0) total[blockIdx.x] = all;
  }
}

// out[b * (blockDim.x / 16) + t]: the sum of 16-thread tile t of block b.
extern "C" __global__ void cgTile16Shfl(const float* in, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = v;
}

// sums[b * (blockDim.x / 64) + t]: the sum of 64-thread tile t of block b; first[i]: the value
// of thread i's tile's rank-0 thread (a tile-wide shfl); every thread also adds its tile's sum
// to its element (out[i] = in[i] + sum) after a tile.sync().
extern "C" __global__ void cgTile64Reduce(const int* in, int* sums, int* first, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const int s = cg::reduce(tile, v, cg::plus<int>());
  const int f = tile.shfl(v, 0);
  tile.sync();
  if (tile.thread_rank() == 0) sums[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = s;
  first[i] = f;
  out[i] = v + s;
}
