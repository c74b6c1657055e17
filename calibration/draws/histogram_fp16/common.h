// Host-side helpers shared by histogram.cu and fp16.cu: warpsim's `Random(seed)` draws
// (crates/exec/src/init.rs), so the GPU runs on exactly the inputs warpsim runs on.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

static inline uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// Element i of Random(seed): h = splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15).
static inline uint64_t random_bits(uint64_t seed, uint64_t i) {
  return splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
}
// u8: the top 8 bits; f32: the top 24 bits scaled to [-1, 1) (f16/bf16 round that f32).
static inline uint8_t random_u8(uint64_t seed, uint64_t i) { return (uint8_t)(random_bits(seed, i) >> 56); }
static inline float random_f32(uint64_t seed, uint64_t i) {
  return (float)(random_bits(seed, i) >> 40) * (1.0f / (float)(1u << 23)) - 1.0f;
}
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)
