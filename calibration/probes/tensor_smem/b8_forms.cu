// The .b8 / m16n16 / m8n16 / m16n8 forms of ldmatrix and stmatrix (PTX ISA 8.6+), one per FORM:
// run.sh compiles each for sm_90, sm_90a and sm_100a (the last only to show the syntax is right)
// and keeps the messages: whether sm_90 has any of them. Locally, ptxas 12.6 (PTX ISA 8.5)
// does not know these shapes at all ("Unknown modifier '.m16n16'").
typedef unsigned int u32;
__global__ void k(u32* out, u32 a) {
  u32 r0 = 0, r1 = 0, r2 = 0, r3 = 0;
#if FORM == 1
  asm volatile("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
#elif FORM == 2
  asm volatile("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
#elif FORM == 3
  asm volatile("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%0}, [%1];" : "=r"(r0) : "r"(a) : "memory");
#elif FORM == 4
  asm volatile("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64 {%0}, [%1];" : "=r"(r0) : "r"(a) : "memory");
#elif FORM == 5
  asm volatile("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%0], {%1};" :: "r"(a), "r"(r0) : "memory");
#elif FORM == 6
  asm volatile("stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%0], {%1, %2};" :: "r"(a), "r"(r0), "r"(r1) : "memory");
#endif
  out[threadIdx.x] = r0 ^ r1 ^ r2 ^ r3;
}
