// cuda_kernels1, constant memory: kernels whose coefficients live in __constant__ memory, each
// re-implemented here from its published technique (not copied): the CUDA samples'
// separable convolution (rows, columns), a tiled 2D convolution with its mask in constant memory
// (Kirk & Hwu), the finite-difference derivatives of NVIDIA's "Finite Difference Methods in CUDA
// C/C++" (x and y pencils), the CUDA samples' FDTD3d stencil (radius 4, z-marching register
// queue), a table-driven CRC-32 (divergent constant reads) and a Horner polynomial (uniform).
// Launches: launches/<kernel>.cu.ron (warpsim) and host.cu (the H200), on the same inputs.

// ---- separable convolution: a 17-tap filter, rows then columns --------------------------------
#define KR 8
#define KL (2 * KR + 1)
__constant__ float c_kernel[KL];

#define ROWS_BX 16
#define ROWS_BY 4
#define ROWS_STEPS 8
#define ROWS_HALO 1

// One block: ROWS_BY rows of ROWS_STEPS * ROWS_BX outputs, with a halo of ROWS_HALO * ROWS_BX
// on each side (zeros outside the image). w must be a multiple of ROWS_STEPS * ROWS_BX.
extern "C" __global__ void convRows(float* dst, const float* src, int w, int h) {
  __shared__ float tile[ROWS_BY][(ROWS_STEPS + 2 * ROWS_HALO) * ROWS_BX];
  const int x0 = (blockIdx.x * ROWS_STEPS - ROWS_HALO) * ROWS_BX + threadIdx.x;
  const int y = blockIdx.y * ROWS_BY + threadIdx.y;
  const float* in = src + (size_t)y * w;
#pragma unroll
  for (int s = 0; s < ROWS_STEPS + 2 * ROWS_HALO; s++) {
    const int x = x0 + s * ROWS_BX;
    tile[threadIdx.y][threadIdx.x + s * ROWS_BX] = (x >= 0 && x < w) ? in[x] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int s = ROWS_HALO; s < ROWS_HALO + ROWS_STEPS; s++) {
    float acc = 0.0f;
#pragma unroll
    for (int j = -KR; j <= KR; j++) acc += c_kernel[KR - j] * tile[threadIdx.y][threadIdx.x + s * ROWS_BX + j];
    dst[(size_t)y * w + x0 + s * ROWS_BX] = acc;
  }
}

#define COLS_BX 16
#define COLS_BY 8
#define COLS_STEPS 8
#define COLS_HALO 1

// One block: COLS_BX columns of COLS_STEPS * COLS_BY outputs; the tile is stored transposed
// (a column per row of shared memory, padded by one word).
extern "C" __global__ void convCols(float* dst, const float* src, int w, int h) {
  __shared__ float tile[COLS_BX][(COLS_STEPS + 2 * COLS_HALO) * COLS_BY + 1];
  const int x = blockIdx.x * COLS_BX + threadIdx.x;
  const int y0 = (blockIdx.y * COLS_STEPS - COLS_HALO) * COLS_BY + threadIdx.y;
#pragma unroll
  for (int s = 0; s < COLS_STEPS + 2 * COLS_HALO; s++) {
    const int y = y0 + s * COLS_BY;
    tile[threadIdx.x][threadIdx.y + s * COLS_BY] = (y >= 0 && y < h) ? src[(size_t)y * w + x] : 0.0f;
  }
  __syncthreads();
#pragma unroll
  for (int s = COLS_HALO; s < COLS_HALO + COLS_STEPS; s++) {
    float acc = 0.0f;
#pragma unroll
    for (int j = -KR; j <= KR; j++) acc += c_kernel[KR - j] * tile[threadIdx.x][threadIdx.y + s * COLS_BY + j];
    dst[(size_t)(y0 + s * COLS_BY) * w + x] = acc;
  }
}

// ---- tiled 2D convolution, 5x5 mask in constant memory ------------------------------------------
#define MR 2
#define MW (2 * MR + 1)
#define IN_TILE 32
#define OUT_TILE (IN_TILE - 2 * MR)
__constant__ float c_mask[MW * MW];

// Every thread loads one input element of the tile (halo included); the inner OUT_TILE x
// OUT_TILE threads compute one output each.
extern "C" __global__ void conv2dTiled(const float* in, float* out, int w, int h) {
  __shared__ float tile[IN_TILE][IN_TILE];
  const int col = blockIdx.x * OUT_TILE + threadIdx.x - MR;
  const int row = blockIdx.y * OUT_TILE + threadIdx.y - MR;
  const bool inside = row >= 0 && row < h && col >= 0 && col < w;
  tile[threadIdx.y][threadIdx.x] = inside ? in[row * w + col] : 0.0f;
  __syncthreads();
  const int tc = threadIdx.x - MR, tr = threadIdx.y - MR;
  if (inside && tc >= 0 && tc < OUT_TILE && tr >= 0 && tr < OUT_TILE) {
    float acc = 0.0f;
    for (int i = 0; i < MW; i++)
      for (int j = 0; j < MW; j++) acc += c_mask[i * MW + j] * tile[tr + i][tc + j];
    out[row * w + col] = acc;
  }
}

// ---- finite differences: 8th-order first derivatives on a periodic 64^3 grid --------------------
#define FD_M 64
#define FD_P 4  // pencils per block
__constant__ float c_ax, c_bx, c_cx, c_dx;
__constant__ float c_ay, c_by, c_cy, c_dy;

// x derivative: a block holds FD_P x-pencils (rows of FD_M points) with 4 periodic halo points
// on each side. Block (FD_M, FD_P), grid (FD_M / FD_P, FD_M).
extern "C" __global__ void fdDerivX(const float* f, float* df) {
  __shared__ float s[FD_P][FD_M + 8];
  const int i = threadIdx.x, j = blockIdx.x * blockDim.y + threadIdx.y, k = blockIdx.y;
  const int si = i + 4, sj = threadIdx.y;
  const int g = (k * FD_M + j) * FD_M + i;
  s[sj][si] = f[g];
  __syncthreads();
  if (i < 4) {
    s[sj][si - 4] = s[sj][si + FD_M - 4];
    s[sj][si + FD_M] = s[sj][si];
  }
  __syncthreads();
  df[g] = c_ax * (s[sj][si + 1] - s[sj][si - 1]) + c_bx * (s[sj][si + 2] - s[sj][si - 2]) +
          c_cx * (s[sj][si + 3] - s[sj][si - 3]) + c_dx * (s[sj][si + 4] - s[sj][si - 4]);
}

// y derivative: FD_P y-pencils side by side (shared rows FD_P wide). Block (FD_P, FD_M), grid
// (FD_M / FD_P, FD_M).
extern "C" __global__ void fdDerivY(const float* f, float* df) {
  __shared__ float s[FD_M + 8][FD_P];
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = threadIdx.y, k = blockIdx.y;
  const int si = threadIdx.x, sj = j + 4;
  const int g = (k * FD_M + j) * FD_M + i;
  s[sj][si] = f[g];
  __syncthreads();
  if (j < 4) {
    s[sj - 4][si] = s[sj + FD_M - 4][si];
    s[sj + FD_M][si] = s[sj][si];
  }
  __syncthreads();
  df[g] = c_ay * (s[sj + 1][si] - s[sj - 1][si]) + c_by * (s[sj + 2][si] - s[sj - 2][si]) +
          c_cy * (s[sj + 3][si] - s[sj - 3][si]) + c_dy * (s[sj + 4][si] - s[sj - 4][si]);
}

// ---- FDTD3d: a radius-4 star stencil, coefficients in constant memory ---------------------------
#define RADIUS 4
#define FX 32
#define FY 16
__constant__ float c_stencil[RADIUS + 1];

// `in` is padded by RADIUS on every side: (dimz + 8) planes of (dimy + 8) rows of (dimx + 8).
// A block of FX x FY threads marches along z; each thread keeps the RADIUS planes behind and in
// front of its point in registers, the current plane (with x/y halos) in shared memory.
extern "C" __global__ void fdtd3d(float* out, const float* in, int dimx, int dimy, int dimz) {
  __shared__ float tile[FY + 2 * RADIUS][FX + 2 * RADIUS];
  const int gx = blockIdx.x * FX + threadIdx.x, gy = blockIdx.y * FY + threadIdx.y;
  const int tx = threadIdx.x + RADIUS, ty = threadIdx.y + RADIUS;
  const int sy = dimx + 2 * RADIUS, sz = sy * (dimy + 2 * RADIUS);
  const float* p = in + (gy + RADIUS) * sy + gx + RADIUS;  // plane 0 of this column
  float behind[RADIUS], infront[RADIUS], current;
#pragma unroll
  for (int r = RADIUS - 1; r >= 0; r--) { behind[r] = *p; p += sz; }
  const float* cur = p;  // plane RADIUS
  current = *p; p += sz;
#pragma unroll
  for (int r = 0; r < RADIUS; r++) { infront[r] = *p; p += sz; }
  for (int z = 0; z < dimz; z++) {
    __syncthreads();
    if (threadIdx.y < RADIUS) {
      tile[threadIdx.y][tx] = cur[-RADIUS * sy];
      tile[ty + FY][tx] = cur[FY * sy];
    }
    if (threadIdx.x < RADIUS) {
      tile[ty][threadIdx.x] = cur[-RADIUS];
      tile[ty][tx + FX] = cur[FX];
    }
    tile[ty][tx] = current;
    __syncthreads();
    float v = c_stencil[0] * current;
#pragma unroll
    for (int r = 1; r <= RADIUS; r++)
      v += c_stencil[r] * (infront[r - 1] + behind[r - 1] + tile[ty - r][tx] + tile[ty + r][tx] +
                           tile[ty][tx - r] + tile[ty][tx + r]);
    out[(z * dimy + gy) * dimx + gx] = v;
#pragma unroll
    for (int r = RADIUS - 1; r > 0; r--) behind[r] = behind[r - 1];
    behind[0] = current;
    current = infront[0];
#pragma unroll
    for (int r = 0; r < RADIUS - 1; r++) infront[r] = infront[r + 1];
    if (z + 1 < dimz) infront[RADIUS - 1] = *p;
    p += sz;
    cur += sz;
  }
}

// ---- CRC-32 (IEEE, reflected) with its 256-entry table in constant memory -----------------------
__constant__ unsigned c_crc[256];

// Each thread the CRC-32 of its own message of `words` 32-bit words (bytes little-endian):
// every byte is a table lookup whose index differs from lane to lane.
extern "C" __global__ void crc32Const(const unsigned* msg, unsigned* crc, int words) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned* m = msg + (size_t)t * words;
  unsigned c = 0xFFFFFFFFu;
  for (int k = 0; k < words; k++) {
    unsigned v = m[k];
#pragma unroll
    for (int b = 0; b < 4; b++) {
      c = c_crc[(c ^ v) & 0xFFu] ^ (c >> 8);
      v >>= 8;
    }
  }
  crc[t] = ~c;
}

// ---- a polynomial of degree 15 by Horner's rule, coefficients in constant memory ----------------
#define NPOLY 16
__constant__ float c_poly[NPOLY];

extern "C" __global__ void hornerConst(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    float a = c_poly[NPOLY - 1];
#pragma unroll
    for (int k = NPOLY - 2; k >= 0; k--) a = fmaf(a, v, c_poly[k]);
    y[i] = a;
  }
}
