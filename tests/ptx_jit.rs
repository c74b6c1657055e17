//! PTX from Python's GPU compilers, as checked in under python/tests/ptx/ (made by
//! `make_ptx.py` there, its README says how): Numba's element-wise kernel and shared-memory
//! reduction, Triton's element-wise kernel (predicated 16-byte vector loads and stores,
//! `.reqntid`) and row reduction (shuffles and dynamic shared memory). Each launch file's
//! `expect` is the NumPy-style reference; the Python package's tests run the same PTX
//! through `warpsim.RawModule(ptx=...)`.

use crate::util::{assert_refused, run_verified as run};

#[test]
fn numba_and_triton_kernels_run_verified() {
    for k in [
        "numba_axpy",
        "numba_block_sum",
        "triton_axpy",
        "triton_row_sum",
    ] {
        run(&format!("tests/fixtures/ptx/jit/{k}.ron"), &[]);
    }
}

#[test]
fn counters_of_the_reductions() {
    // Numba's tree: a 4-byte store by each of 256 threads, then 8 halving steps (128 … 1
    // threads: 4, 2, 1, 1 … warps) of two loads and a store, conflict-free; 4 blocks.
    let r = run("tests/fixtures/ptx/jit/numba_block_sum.ron", &[]);
    let s = &r["shared"];
    assert_eq!(s["ld_bank_conflicts"], 0, "{s}");
    assert_eq!(s["st_bank_conflicts"], 0, "{s}");
    let warps_per_step: u64 = [4, 2, 1, 1, 1, 1, 1, 1].iter().sum();
    // The final `ld.shared [_cudapy_smem_1]` by thread 0: one more load a block.
    assert_eq!(s["ld_instructions"], 4 * (2 * warps_per_step + 1), "{s}");
    assert_eq!(s["st_instructions"], 4 * (8 + warps_per_step), "{s}");
    // Triton's tl.sum: each warp's sum stored to shared memory, read back by every warp.
    let r = run("tests/fixtures/ptx/jit/triton_row_sum.ron", &[]);
    let s = &r["shared"];
    assert_eq!(s["st_instructions"], 32, "{s}");
    assert_eq!(s["ld_instructions"], 32, "{s}");
    assert_eq!(s["ld_bank_conflicts"], 0, "{s}");
}

#[test]
fn a_block_other_than_reqntid_is_refused() {
    assert_refused(
        "tests/fixtures/ptx/jit/bad_reqntid.ron",
        "the kernel requires a block of exactly (128, 1, 1) threads (`.reqntid 128`); the launch \
         gives (256, 1, 1)",
    );
}
