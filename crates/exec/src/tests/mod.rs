//! The executor's unit tests: hand-built programs (the helpers here), one file per kind of
//! instruction, and the shipped programs run with both builds of the interpreter.

mod arith;
mod flow;
mod jump;
mod local;
mod memory;
mod program;
mod tensor;
mod warpops;

use super::arith::fma_f32;
use super::block::{run, Scratch};
use super::*;
use std::cell::Cell;
use std::sync::Arc;
use warpsim_kernel::diag::Phase;
use warpsim_kernel::ir::{Inst, Mem, Pc, Reg, Space, Special};
use warpsim_kernel::{BufferInfo, InstInfo, Program, RegInit, SharedInfo};
use warpsim_kernel::{Elem, Init};
use warpsim_smem::Geometry;
use Inst::*;

thread_local! {
    /// Makes [`run_warp`] take the baseline x86-64 build on this thread.
    pub(crate) static BASELINE_ONLY: Cell<bool> = const { Cell::new(false) };
}

/// The shipped programs, run block by block twice: once with the baseline build of the
/// interpreter, reusing this thread's scratch between blocks, and once with the build the
/// CPU picks (AVX2 and FMA where it has them) and a fresh scratch for every block. Memory
/// and every counter agree.
#[test]
fn both_builds_and_scratch_reuse_agree() {
    for rel in warpsim_testkit::shipped_programs() {
        let path = warpsim_testkit::path(&rel);
        let p = warpsim_lang::load_file(path.to_str().unwrap(), &Default::default()).unwrap();
        let cfg = Config::default();
        let one = |baseline: bool| {
            BASELINE_ONLY.with(|b| b.set(baseline));
            let global = Global::new(&p);
            for (k, b) in p.buffers.iter().enumerate() {
                global.write(k, &crate::init_words(b));
            }
            let mut stats = Stats::new(&p, &cfg.geometry);
            let [gx, gy, gz] = p.grid;
            for b in 0..(gx * gy * gz).min(64) {
                let ctaid = [b % gx, b / gx % gy, b / (gx * gy)];
                if baseline {
                    run_block(&p, &cfg, ctaid, &global, &mut stats).unwrap();
                } else {
                    let mut sc = Scratch::default();
                    let v = Validated::new(&p, &cfg, &global).unwrap();
                    run(&v, ctaid, &mut stats, &mut sc, &mut ()).unwrap();
                }
            }
            BASELINE_ONLY.with(|b| b.set(false));
            let mem: Vec<Vec<u32>> = (0..p.buffers.len()).map(|k| global.read(k)).collect();
            (mem, stats)
        };
        let (m0, s0) = one(true);
        let (m1, s1) = one(false);
        assert!(m0 == m1, "{}: memory differs", path.display());
        assert_eq!(s0, s1, "{}", path.display());
        assert!(s0.warp_instructions > 0);
    }
}

fn r(n: u16) -> Reg {
    Reg(n)
}

/// A hand-built program: code (an `Exit` is appended), registers and their init.
struct P {
    code: Vec<Inst>,
    nregs: usize,
    init: Vec<(Reg, RegInit)>,
    shared: Vec<SharedInfo>,
    buffers: Vec<BufferInfo>,
    block: [u32; 3],
    grid: [u32; 3],
    max_depth: usize,
    /// Local views and bytes per thread.
    local: (Vec<warpsim_kernel::LocalInfo>, u32),
}

impl P {
    fn new(code: Vec<Inst>) -> Self {
        P {
            code,
            nregs: 32,
            init: Vec::new(),
            shared: Vec::new(),
            buffers: Vec::new(),
            block: [32, 1, 1],
            grid: [1, 1, 1],
            max_depth: 8,
            local: (Vec::new(), 0),
        }
    }
    fn block(mut self, b: [u32; 3]) -> Self {
        self.block = b;
        self
    }
    fn konst(mut self, reg: u16, v: u32) -> Self {
        self.init.push((r(reg), RegInit::Const(v)));
        self
    }
    fn special(mut self, reg: u16, s: Special) -> Self {
        self.init.push((r(reg), RegInit::Special(s)));
        self
    }
    fn shared(mut self, s: SharedInfo) -> Self {
        self.shared.push(s);
        self
    }
    fn buffer(mut self, name: &str, elem: Elem, len: u64) -> Self {
        self.buffers.push(BufferInfo {
            name: name.into(),
            elem,
            len,
            init: Init::Zeros,
            expect: None,
            check: None,
            line: 1,
            constant: None,
        });
        self
    }
    fn build(self) -> Program {
        let mut code = self.code;
        code.push(Exit);
        let info = (0..code.len())
            .map(|pc| InstInfo {
                line: pc as u32 + 1,
                col: 3,
                text: format!("inst {pc}").into(),
            })
            .collect();
        let source: String = (0..code.len()).map(|pc| format!("  line {pc}\n")).collect();
        let mut shared = self.shared;
        let mut base = 0;
        for s in &mut shared {
            s.base = base;
            base += s.bytes;
        }
        Program {
            name: "test".into(),
            path: "test.ron".into(),
            source: Arc::from(source.clone()),
            launch_path: "test.ron".into(),
            launch_source: Arc::from(source),
            kernel_files: Vec::new(),
            defines: Vec::new(),
            grid: self.grid,
            block: self.block,
            buffers: self.buffers,
            shared,
            shared_bytes: base,
            local: self.local.0,
            local_bytes: self.local.1,
            code,
            info,
            nregs: self.nregs,
            init: self.init,
            max_depth: self.max_depth,
            regs_per_thread: None,
            shared_stream: None,
            formats: Vec::new(),
            mmas: Vec::new(),
            wgmmas: Vec::new(),
            tensor_maps: Vec::new(),
        }
    }
}

fn tile(name: &str, elem: Elem, dims: &[u32], pad: u32, swizzle: u32) -> SharedInfo {
    let last = *dims.last().unwrap();
    let rows: u32 = dims[..dims.len() - 1].iter().product();
    let row_len = last + pad;
    SharedInfo {
        name: name.into(),
        elem,
        dims: dims.to_vec(),
        pad,
        swizzle,
        base: 0,
        row_len,
        rows,
        bytes: rows * row_len * elem.bytes(),
        line: 1,
    }
}

fn shared_mem(array: u16, idx: &[Reg], vec: u8, data: Reg) -> Mem {
    let mut i = [Reg(0); 3];
    i[..idx.len()].copy_from_slice(idx);
    Mem {
        space: Space::Shared,
        array,
        rank: idx.len() as u8,
        idx: i,
        vec,
        data,
        elem: None,
    }
}

fn global_mem(array: u16, idx: Reg, vec: u8, data: Reg) -> Mem {
    Mem {
        space: Space::Global,
        array,
        rank: 1,
        idx: [idx, Reg(0), Reg(0)],
        vec,
        data,
        elem: None,
    }
}

struct Out {
    result: Result<(), Fault>,
    regs: Vec<Lanes>,
    stats: Stats,
    global: Global,
    nregs: usize,
}

impl Out {
    /// Register `reg` of warp `w`.
    fn reg(&self, w: usize, reg: u16) -> Lanes {
        self.regs[w * self.nregs.max(1) + reg as usize]
    }
    fn fault(&self) -> &Fault {
        self.result.as_ref().expect_err("expected a fault")
    }
}

fn exec_cfg(p: &Program, cfg: Config, ctaid: [u32; 3]) -> Out {
    let global = Global::new(p);
    let mut stats = Stats::new(p, &cfg.geometry);
    let mut sc = Scratch::default();
    let result = Validated::check(p, &cfg, &global, ctaid)
        .and_then(|v| run(&v, ctaid, &mut stats, &mut sc, &mut ()));
    Out {
        result,
        regs: sc.regs,
        stats,
        global,
        nregs: p.nregs,
    }
}

fn exec(p: &Program) -> Out {
    let out = exec_cfg(p, Config::default(), [0, 0, 0]);
    if let Err(f) = &out.result {
        panic!("unexpected fault: {f}");
    }
    out
}

fn lanes(f: impl Fn(u32) -> u32) -> Lanes {
    std::array::from_fn(|l| f(l as u32))
}
