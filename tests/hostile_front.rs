//! The hostile-input suite, second round, for the PTX and CUDA front end (issue 42): large
//! modules load in linear time and bounded memory, `bar.red` computes, unsupported PTX is
//! named, positions are exact, includes stay in their folders. Same bounds as
//! `tests/hostile.rs` (exit code, `file:line:col`, time, peak memory).

use crate::hostile::{case, write};

/// A program that launches `kernel` of the PTX file `ptx` (a file name in the scratch folder)
/// on one warp with one buffer `out` of 32 words.
fn ptx_program(name: &str, ptx: &str, kernel: &str) -> String {
    write(
        name,
        &format!(
            "Program(name: \"p\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", \
             ty: U32, len: 32)],\n    ptx: (file: \"{ptx}\", kernel: \"{kernel}\", args: [\"out\"]),\n)\n"
        ),
    )
}

/// 6 MB of PTX (26 s before: a line lookup per instruction, post-dominators as bit sets
/// of every block, and a register's uses scanned once per load of it) loads in seconds.
#[test]
fn a_6_mb_ptx_module_loads_in_linear_time() {
    write("big6.ptx", &warpsim_testkit::big_ptx(6));
    let p = ptx_program("big6.ron", "big6.ptx", "big");
    let o = case(&["check", &p], 0, None, "");
    assert!(o.stdout.contains("instructions"), "{}", o.stdout);
}

/// A 13 MB `.cu` whose kernel sits below 200,000 lines: each instruction's source line was
/// found by counting lines from the top of the file (a 6.5 MB `.cu` took 11 s once its PTX
/// was cached), now from an index of line starts made once.
#[test]
fn a_13_mb_cu_file_loads_in_linear_time() {
    if !crate::nvrtc::nvrtc("a_13_mb_cu_file_loads_in_linear_time") {
        return;
    }
    let comments = format!("// {}\n", "x".repeat(60)).repeat(200_000);
    let body: String = (0..8_000)
        .map(|i| format!("    x = x * y + {};\n", i % 7))
        .collect();
    let cu = write(
        "big13.cu",
        &format!(
            "{comments}extern \"C\" __global__ void k(unsigned *out, unsigned y) {{\n    \
             unsigned x = threadIdx.x;\n{body}    out[threadIdx.x] = x;\n}}\n"
        ),
    );
    let p = write(
        "big13.ron",
        "Program(name: \"k\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", \
         ty: U32, len: 32)],\n    cuda: (file: \"big13.cu\", kernel: \"k\", args: [\"out\", \
         \"3\"]),\n)\n",
    );
    // The first load compiles it; the second reads the PTX from the cache.
    case(&["check", &p], 0, None, "");
    let o = case(&["check", &p], 0, None, "");
    assert!(o.secs < 5.0, "{cu}: {:.1} s", o.secs);
    assert!(o.stdout.contains("instructions"), "{}", o.stdout);
}

/// 20,000 generic loads through a pointer loaded from memory, each resolved per lane at run
/// time (a branch to one access per space, with a predicate declared for each: the lowering
/// looked declarations up in a list, 24 s for 32,000 of them, now a map).
#[test]
fn many_generic_accesses_resolved_at_run_time_load_in_linear_time() {
    let mut body = String::new();
    for _ in 0..20_000 {
        body.push_str("\tld.u32 %r2, [%rd3];\n\tadd.u32 %r1, %r1, %r2;\n");
    }
    write(
        "generic_many.ptx",
        &format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n\
             .visible .entry many(.param .u64 out)\n{{\n\
             \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
             \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
             \tld.global.u64 %rd3, [%rd2];\n\tmov.u32 %r1, 0;\n{body}\
             \tst.global.u32 [%rd2], %r1;\n\tret;\n}}\n"
        ),
    );
    let p = ptx_program("generic_many.ron", "generic_many.ptx", "many");
    let o = case(&["check", &p], 0, None, "");
    assert!(o.stdout.contains("instructions"), "{}", o.stdout);
}

/// `__syncthreads_count/and/or` (PTX `bar.red.popc/and/or`) give the block's count, all and
/// any (they returned 0), also for a negated predicate.
#[test]
fn syncthreads_count_and_or_are_computed() {
    if !crate::nvrtc::nvrtc("syncthreads_count_and_or_are_computed") {
        return;
    }
    let o = case(
        &["run", "tests/fixtures/cuda/syncthreads_red.ron"],
        0,
        None,
        "",
    );
    assert!(o.stdout.contains("verified: yes"), "{}", o.stdout);
}

/// `bar.red` in hand-written PTX (no NVRTC needed): over 2 warps of 64 threads, `tid.x < 40`
/// holds for 40, so popc is 40, `and` 0, `or` 1; `!p` counts 24.
#[test]
fn bar_red_in_ptx_reduces_over_the_block() {
    write(
        "bar_red.ptx",
        ".version 8.5\n.target sm_90\n.address_size 64\n\
         .visible .entry red(.param .u64 out)\n{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 40;\n\
         \tbar.red.popc.u32 %r2, 0, %p1;\n\tbar.red.and.pred %p2, 0, %p1;\n\
         \tbar.red.or.pred %p3, 0, %p1;\n\tbarrier.red.popc.u32 %r3, 0, !%p1;\n\
         \tselp.u32 %r4, 1000, 0, %p2;\n\tselp.u32 %r5, 10000, 0, %p3;\n\
         \tmul.lo.u32 %r6, %r3, 100000;\n\tadd.u32 %r7, %r2, %r4;\n\tadd.u32 %r8, %r7, %r5;\n\
         \tadd.u32 %r9, %r8, %r6;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd3, %rd2, %rd3;\n\
         \tst.global.u32 [%rd3], %r9;\n\tret;\n}\n",
    );
    let p = write(
        "bar_red.ron",
        "Program(name: \"red\", launch: (grid: [2], block: [64]),\n    buffers: [(name: \"out\", \
         ty: U32, len: 64, expect: \"40 + 10000 + 2400000\")],\n    ptx: (file: \"bar_red.ptx\", \
         kernel: \"red\", args: [\"out\"]),\n)\n",
    );
    let o = case(&["run", &p], 0, None, "");
    assert!(o.stdout.contains("verified: yes"), "{}", o.stdout);
}

/// A kernel `k(.param .u64 out, .param <ty> n)` whose body is `line` (line 12 of the file).
fn one_line_ptx(file: &str, line: &str, ty: &str) -> String {
    write(
        file,
        &format!(
            ".version 8.5\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 out, .param .{ty} n)\n{{\n\t.reg .pred %p<4>;\n\
             \t.reg .b32 %r<9>;\n\t.reg .b64 %rd<8>;\n\t.shared .align 16 .b8 s[4096];\n\
             \tld.param.u64 %rd2, [out];\n\tmov.u64 %rd5, s;\n\t{line}\n\tret;\n}}\n"
        ),
    )
}

/// Unsupported PTX is named as an unsupported instruction (or special register) at its line,
/// not as "register `[%rd5]` is not declared" or an empty register name.
#[test]
fn unsupported_ptx_is_named_as_such() {
    let cases = [
        // (cp.async, ldmatrix, stmatrix and mma.sync run: their forms warpsim does not take.)
        (
            "cp.async.ca.shared.global.L2::cache_hint [%rd5], [%rd2], 16;",
            "takes a cache policy as its last operand",
        ),
        ("cp.async.ca.shared.global.L2::evict_last [%rd5], [%rd2], 16;", "`.L2::evict_last`"),
        ("cp.async.wait_group %r1;", "one constant from 0 to 255"),
        ("cp.async.cg.shared.global [%rd5], [%rd2], 8;", "copies 16 bytes a lane"),
        (
            "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r4, %r5}, [%rd5];",
            "`.m16n16`",
        ),
        (
            "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%rd5], {%r4};",
            "moves 2 matrices, but",
        ),
        ("movmatrix.sync.aligned.m8n8.trans.b16 %r4, %r5;", "a warp-wide matrix load or store"),
        // (mma.sync runs: a form the hardware does not have, and one with a missing register.)
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%r1,%r2,%r3,%r4};",
            "is not a form of mma.sync that warpsim runs",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3}, {%r1,%r2}, {%r1,%r2,%r3,%r4};",
            "takes 4 registers for A, but",
        ),
        // (WMMA runs: shapes, layouts and register lists it does not take.)
        (
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%r1}, {%r1}, {%r1}, {%r1};",
            "D is 8 registers, but this one names 1",
        ),
        (
            "wmma.load.a.sync.aligned.row.m8n8k32.shared.s4 {%r1}, [%rd5], 32;",
            "the sub-byte (.s4, .u4, .b1: m8n8k32, m8n8k128) and .f64 (m8n8k4) WMMA shapes are not modelled",
        ),
        (
            "wmma.load.a.sync.aligned.row.m8n8k4.shared.f16 {%r1}, [%rd5], 4;",
            "the .m8n8k4 shape",
        ),
        (
            "wmma.load.b.sync.aligned.col.m32n8k16.global.s8 {%r1,%r2}, [%rd2], 16;",
            "a B fragment of .m32n8k16 .s8 is 1 register, but this one names 2",
        ),
        (
            "wmma.load.a.sync.aligned.row.m8n32k16.shared.f16 {%r1,%r2}, [%rd5], 16;",
            "is 8 registers, but this one names 2",
        ),
        (
            "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1,%r2}, [%rd5], 16;",
            "is 8 registers, but this one names 2",
        ),
        (
            "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [], 16;",
            "`[]` is not an address",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%r1,%r2,%r3,%r4};",
            "needs a shape and four types",
        ),
        (
            "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%r1,%r2,%r3,%r4};",
            "with `.row.col`",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2};",
            "takes 4 operands",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%r1,%r2,%r3,%r4};",
            ".satfinite needs s32 results",
        ),
        (
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, {%r1,%r2,%r3,%r4}, %r1, 0;",
            "sparse, block-scaled",
        ),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 %r1, {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%r1,%r2,%r3,%r4};",
            "writes 4 registers of D, but",
        ),
        // (wgmma runs: its sparse and single-bit forms do not.)
        (
            "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%r1,%r2,%r3,%r4}, %rd5, %rd5, %r1, %r1, 1, 1, 0, 0;",
            "the sparse `.sp` and the single-bit forms are not modelled",
        ),
        ("wgmma.fence.sync.aligned %r1;", "warpsim runs wgmma.mma_async (dense)"),
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd5], [%rd2, {%r1, %r1}], [%rd4];",
            "tile mode only",
        ),
        ("mbarrier.init.b64 [%rd5], 32;", "write the state space"),
        ("tex.2d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd2, {%r1, %r1}];", "texture"),
        ("mov.u32 %r3, %nsmid;", "special register `%nsmid` is not supported"),
        ("mov.u32 %r3, %smid;", "special register `%smid` is not supported"),
        ("mov.u32 %r3, %gridid;", "special register `%gridid`"),
        ("bar.red.max.u32 %r1, 0, %p1;", "bar.red.popc.u32"),
        ("bar.red.popc.u32 %r1, 0, 64, %p1;", "with a thread count is not supported"),
    ];
    for (i, (line, says)) in cases.iter().enumerate() {
        let ptx = format!("unsup{i}.ptx");
        let path = one_line_ptx(&ptx, line, "u32");
        let p = write(
            &format!("unsup{i}.ron"),
            &format!(
                "Program(name: \"u\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
                 \"out\", ty: U32, len: 32)],\n    ptx: (file: \"{ptx}\", kernel: \"k\", args: \
                 [\"out\", \"1\"]),\n)\n"
            ),
        );
        let o = case(&["check", &p], 2, Some(&path), says);
        assert!(o.stderr.contains(":12:"), "line 12: {}", o.stderr);
        assert!(!o.stderr.contains("is not declared"), "{}", o.stderr);
    }
}

/// A register past its `.reg %r<N>` declaration is refused at its line, as ptxas refuses it
/// (it was given a register of its own).
#[test]
fn a_register_past_its_declared_range_is_refused() {
    let path = one_line_ptx("reg_range.ptx", "mov.u32 %r12, 5;", "u32");
    let p = write(
        "reg_range.ron",
        "Program(name: \"u\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
         \"out\", ty: U32, len: 32)],\n    ptx: (file: \"reg_range.ptx\", kernel: \"k\", args: \
         [\"out\", \"1\"]),\n)\n",
    );
    let o = case(
        &["check", &p],
        2,
        Some(&path),
        "register `%r12` is not declared: `.reg … %r<9>` declares %r0 to %r8",
    );
    assert!(o.stderr.contains(":12:"), "{}", o.stderr);
}

/// Registers of a type no PTX has, or narrower than the access that moves them, are refused at
/// their line (found by the corpus replay once it checked that no input reaches an internal-bug
/// message: the executor's validator caught both as "outside the program's registers").
#[test]
fn registers_of_the_wrong_width_are_refused_at_their_line() {
    let program = |ptx: &str| {
        write(
            &format!("{ptx}.ron"),
            &format!(
                "Program(name: \"w\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
                 \"out\", ty: U32, len: 32)],\n    ptx: (file: \"{ptx}\", kernel: \"k\", args: \
                 [\"out\", \"1\"]),\n)\n"
            ),
        )
    };
    let path = one_line_ptx("narrow_data.ptx", "st.global.f64 [%rd2], %r1;", "u32");
    let o = case(
        &["check", &program("narrow_data.ptx")],
        2,
        Some(&path),
        "moves 64-bit values, but `%r1` is a 32-bit register",
    );
    assert!(o.stderr.contains(":12:"), "{}", o.stderr);
    let path = write(
        "b63.ptx",
        &std::fs::read_to_string(&path)
            .unwrap()
            .replace(".reg .b64 %rd<8>", ".reg .b63 %rd<8>"),
    );
    let o = case(
        &["check", &program("b63.ptx")],
        2,
        Some(&path),
        "`.b63` is not a register type",
    );
    assert!(o.stderr.contains(":8:"), "{}", o.stderr);
}

/// Integer arguments are checked against their parameter's width (never wrapped; NVRTC declares
/// `int` and `unsigned` alike, so either reading of the bits is accepted), and an integer for a
/// float parameter is passed as that float.
#[test]
fn integer_arguments_are_range_checked() {
    let refused = [
        ("u32", "4294967296 + 32"),
        ("s32", "4294967296"),
        ("s16", "65536"),
        ("u8", "256"),
        ("u8", "-129"),
    ];
    for (i, (ty, arg)) in refused.iter().enumerate() {
        let ptx = format!("arg{i}.ptx");
        one_line_ptx(&ptx, "ld.param.u32 %r1, [n];", ty);
        let p = write(
            &format!("arg{i}.ron"),
            &format!(
                "Program(name: \"a\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
                 \"out\", ty: U32, len: 32)],\n    ptx: (file: \"{ptx}\", kernel: \"k\", args: \
                 [\"out\", \"{arg}\"]),\n)\n"
            ),
        );
        case(&["check", &p], 2, Some(&p), "out of its range");
    }
    // In range: the largest u32, and 3 for a float, stored as 3.0.
    for (i, (ty, arg, want)) in [
        ("u32", "4294967295", "4294967295"),
        ("f32", "3", "1077936128"),
    ]
    .iter()
    .enumerate()
    {
        let ptx = format!("argok{i}.ptx");
        one_line_ptx(
            &ptx,
            "ld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd3, %r2, 4;\n\
             \tcvta.to.global.u64 %rd2, %rd2;\n\tadd.s64 %rd3, %rd2, %rd3;\n\tst.global.u32 [%rd3], %r1;",
            ty,
        );
        let p = write(
            &format!("argok{i}.ron"),
            &format!(
                "Program(name: \"a\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
                 \"out\", ty: U32, len: 32, expect: \"{want}\")],\n    ptx: (file: \"{ptx}\", \
                 kernel: \"k\", args: [\"out\", \"{arg}\"]),\n)\n"
            ),
        );
        let o = case(&["run", &p], 0, None, "");
        assert!(o.stdout.contains("verified: yes"), "{}", o.stdout);
    }
}

/// A UTF-8 byte order mark before a program or a PTX module is accepted (it was refused at
/// 1:1), and positions after it stay exact.
#[test]
fn a_byte_order_mark_is_accepted() {
    let ptx = "\u{feff}.version 8.5\n.target sm_90\n.address_size 64\n\
               .visible .entry k(.param .u64 out)\n{\n\t.reg .b64 %rd<4>;\n\tret;\n}\n";
    write("bom.ptx", ptx);
    let p = write(
        "bom.ron",
        "\u{feff}Program(name: \"b\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
         \"out\", ty: U32, len: 32)],\n    ptx: (file: \"bom.ptx\", kernel: \"k\", args: \
         [\"out\"]),\n)\n",
    );
    case(&["check", &p], 0, None, "");
    // An error after the mark: line 2, column 5 (`bogus`), not shifted by the mark's bytes.
    let bad = write(
        "bom_bad.ron",
        "\u{feff}Program(name: \"b\", launch: (grid: [1], block: [32]),\n    bogus: 1,\n)\n",
    );
    let o = case(&["check", &bad], 2, Some(&bad), "");
    assert!(o.stderr.contains(":2:5"), "{}", o.stderr);
}

/// A `(` left open before the kernel (a `.func` header's or the entry's own parameter list)
/// is an error at that `(`: it swallowed the kernel and was reported as "no kernel `k`" with
/// an empty list of kernels.
#[test]
fn an_unclosed_list_before_the_kernel_is_the_error() {
    let head = ".version 8.5\n.target sm_90\n.address_size 64\n";
    for (i, (body, line, says)) in [
        (
            ".func f(\n.visible .entry k(.param .u64 out)\n{\n\tret;\n}\n",
            4,
            "unclosed `(` in a `.func` header",
        ),
        (
            ".visible .entry k(.param .u64 out\n{\n\tret;\n}\n",
            5,
            "the parameter list of `.entry k` is not closed",
        ),
    ]
    .iter()
    .enumerate()
    {
        let ptx = write(&format!("unclosed{i}.ptx"), &format!("{head}{body}"));
        let p = ptx_program(
            &format!("unclosed{i}.ron"),
            &format!("unclosed{i}.ptx"),
            "k",
        );
        let o = case(&["check", &p], 2, Some(&ptx), says);
        assert!(o.stderr.contains(&format!(":{line}:")), "{}", o.stderr);
        assert!(!o.stderr.contains("no kernel"), "{}", o.stderr);
    }
}
