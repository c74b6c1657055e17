#!/usr/bin/env python3
"""Which of the value probes' PTX instructions warpsim accepts today: one one-instruction
kernel each, run with `warpsim run` (WARPSIM or /work/bin/warpsim); prints NAME<TAB>accepted
or refused: <first line of the message>. Written to local/warpsim_ops_today.tsv.
"""
import os, re, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_warp as G
ops = list(G.BITOPS)
extra = [("redux.sync.add.u32", ["redux.sync.add.u32 %xo, %xa, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("redux.sync.min.s32", ["redux.sync.min.s32 %xo, %xa, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("match.any.sync.b32", ["match.any.sync.b32 %xo, %xa, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("match.all.sync.b32", ["match.all.sync.b32 %xo|%po, %xa, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("match.any.sync.b64", ["match.any.sync.b64 %xo, %rda, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("activemask.b32", ["activemask.b32 %xo;", "cvt.u64.u32 %rdo, %xo;"]),
         ("bar.red.popc.u32", ["setp.ne.u32 %po, %xa, 0;", "bar.red.popc.u32 %xo, 0, %po;", "cvt.u64.u32 %rdo, %xo;"]),
         ("bar.red.and.pred", ["setp.ne.u32 %po, %xa, 0;", "bar.red.and.pred %pq, 0, %po;", "selp.u64 %rdo, 1, 0, %pq;"]),
         ("bar.red.or.pred", ["setp.ne.u32 %po, %xa, 0;", "bar.red.or.pred %pq, 0, %po;", "selp.u64 %rdo, 1, 0, %pq;"]),
         ("shfl.sync.down reg c", ["shfl.sync.down.b32 %xo, %xa, 1, %xc, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("shfl.sync.down imm c", ["shfl.sync.down.b32 %xo, %xa, 1, 31, 0xffffffff;", "cvt.u64.u32 %rdo, %xo;"]),
         ("shfl.sync.down reg mask", ["shfl.sync.down.b32 %xo, %xa, 1, 31, %xd;", "cvt.u64.u32 %rdo, %xo;"]),
         ("shfl.sync.down |p", ["shfl.sync.down.b32 %xo|%po, %xa, 1, 31, 0xffffffff;", "selp.u64 %rdo, 1, 0, %po;"]),
         ("ld.const sym", ["ld.const.u32 %xo, [cst];", "cvt.u64.u32 %rdo, %xo;"]),
         ("ld.const reg", ["mov.u64 %rp7, cst;", "ld.const.u32 %xo, [%rp7+4];", "cvt.u64.u32 %rdo, %xo;"]),
         ("nanosleep", ["nanosleep.u32 100;", "mov.u64 %rdo, 0;"]),
         ("clock64", ["mov.u64 %rdo, %clock64;"]),
         ("clock", ["mov.u32 %xo, %clock;", "cvt.u64.u32 %rdo, %xo;"]),
         ("globaltimer", ["mov.u64 %rdo, %globaltimer;"]),
         ]
res = []
WS = os.environ.get("WARPSIM", "/work/bin/warpsim")
os.chdir(tempfile.mkdtemp())
for name, body in ops + extra:
    src = [".version 8.0", ".target sm_90", ".address_size 64", ".const .align 4 .b8 cst[64] = {1,2,3,4};",
           ".visible .entry k(.param .u64 out, .param .u64 in)", "{",
           "\t.reg .pred %pc, %po, %pq;", "\t.reg .b32 %xa, %xb, %xc, %xd, %xo, %rt<4>;",
           "\t.reg .f32 %fa, %fb;", "\t.reg .f64 %da;", "\t.reg .b64 %rda, %rdb, %rdc, %rdd, %rdo, %rp<8>;",
           "\tld.param.u64 %rp1, [out];", "\tld.param.u64 %rp2, [in];",
           "\tcvta.to.global.u64 %rp1, %rp1;", "\tcvta.to.global.u64 %rp2, %rp2;",
           "\tld.global.u64 %rda, [%rp2];", "\tld.global.u64 %rdb, [%rp2+8];", "\tld.global.u64 %rdc, [%rp2+16];", "\tld.global.u64 %rdd, [%rp2+24];",
           "\tcvt.u32.u64 %xa, %rda;", "\tcvt.u32.u64 %xb, %rdb;", "\tcvt.u32.u64 %xc, %rdc;", "\tcvt.u32.u64 %xd, %rdd;",
           "\tmov.b32 %fa, %xa;", "\tmov.b32 %fb, %xb;", "\tmov.b64 %da, %rda;", "\tand.b32 %rt2, %xc, 1;", "\tsetp.ne.u32 %pc, %rt2, 0;"]
    src += ["\t" + x for x in body] + ["\tst.global.u64 [%rp1], %rdo;", "\tret;", "}", ""]
    open("k.ptx", "w").write("\n".join(src))
    open("k.ron", "w").write('Program(\n name: "k",\n launch: (grid: [1], block: [32]),\n buffers: [(name: "outb", ty: U32, len: 64), (name: "inb", ty: U32, len: 64)],\n ptx: (file: "k.ptx", kernel: "k", args: ["outb", "inb"]),\n)\n')
    r = subprocess.run([WS, "run", "k.ron"], capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))
    msg = "accepted" if r.returncode == 0 else "refused: " + next((l.strip(" x") for l in (r.stderr + r.stdout).splitlines() if l.strip()), "?")
    res.append((name, msg))
for n, m in res:
    print(f"{n}\t{m[:160]}")
