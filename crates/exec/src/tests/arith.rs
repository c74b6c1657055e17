use super::*;

/// Runs `inst` with r1 = a (per lane) and r2 = b, loaded from a global buffer, and
/// returns r0 as stored to another.
fn unary_binary(inst: Inst, a: Lanes, b: Lanes) -> Lanes {
    let p = P::new(vec![
        Load(global_mem(0, r(10), 1, r(1))),
        Add {
            dst: r(11),
            a: r(10),
            b: r(12),
        },
        Load(global_mem(0, r(11), 1, r(2))),
        inst,
        Store(global_mem(1, r(10), 1, r(0))),
    ])
    .special(10, Special::LaneId)
    .konst(12, 32)
    .buffer("in", Elem::U32, 64)
    .buffer("out", Elem::U32, 32)
    .build();
    let global = Global::new(&p);
    global.write(0, &[a, b].concat());
    let mut stats = Stats::new(&p, &Geometry::H200);
    run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
    global.read(1).try_into().unwrap()
}

fn bin(inst: fn(Reg, Reg, Reg) -> Inst, a: &[u32], b: &[u32]) -> Vec<u32> {
    let n = a.len();
    let a = lanes(|l| a[l as usize % n]);
    let b = lanes(|l| b[l as usize % n]);
    unary_binary(inst(r(0), r(1), r(2)), a, b)[..n].to_vec()
}

fn un(inst: fn(Reg, Reg) -> Inst, a: &[u32]) -> Vec<u32> {
    let n = a.len();
    let a = lanes(|l| a[l as usize % n]);
    unary_binary(inst(r(0), r(1)), a, [0; 32])[..n].to_vec()
}

fn i(v: i32) -> u32 {
    v as u32
}

fn f(v: f32) -> u32 {
    v.to_bits()
}

#[test]
fn integer_ops() {
    let a = [7, i(-7), u32::MAX, i(i32::MIN), 0, 100];
    let b = [2, 2, 1, i(-1), 5, i(-3)];
    macro_rules! op {
        ($v:ident) => {
            bin(|dst, a, b| $v { dst, a, b }, &a, &b)
        };
    }
    assert_eq!(op!(Add), [9, i(-5), 0, i(i32::MAX), 5, 97]);
    assert_eq!(
        op!(Sub),
        [5, i(-9), u32::MAX - 1, i(i32::MIN + 1), i(-5), 103]
    );
    assert_eq!(op!(Mul), [14, i(-14), u32::MAX, i(i32::MIN), 0, i(-300)]);
    assert_eq!(op!(DivS), [3, i(-3), u32::MAX, i(i32::MIN), 0, i(-33)]);
    assert_eq!(op!(DivU), [3, i(-7) / 2, u32::MAX, 0, 0, 0]);
    assert_eq!(op!(RemS), [1, i(-1), 0, 0, 0, 1]);
    assert_eq!(op!(RemU), [1, i(-7) % 2, 0, i(i32::MIN), 0, 100]);
    assert_eq!(op!(And), [2, 0, 1, i(i32::MIN), 0, 100 & i(-3)]);
    assert_eq!(op!(Or), [7, i(-5), u32::MAX, u32::MAX, 5, i(-3)]);
    assert_eq!(
        op!(Xor),
        [5, i(-5), u32::MAX - 1, i(i32::MAX), 5, 100 ^ i(-3)]
    );
    assert_eq!(op!(MinS), [2, i(-7), i(-1), i(i32::MIN), 0, i(-3)]);
    assert_eq!(op!(MinU), [2, 2, 1, i(i32::MIN), 0, 100]);
    assert_eq!(op!(MaxS), [7, 2, 1, i(-1), 5, 100]);
    assert_eq!(op!(MaxU), [7, i(-7), u32::MAX, u32::MAX, 5, i(-3)]);
    assert_eq!(op!(Eq), [0, 0, 0, 0, 0, 0]);
    assert_eq!(op!(Ne), [1, 1, 1, 1, 1, 1]);
    assert_eq!(op!(LtS), [0, 1, 1, 1, 1, 0]);
    assert_eq!(op!(LtU), [0, 0, 0, 1, 1, 1]);
    assert_eq!(op!(LeS), [0, 1, 1, 1, 1, 0]);
    assert_eq!(op!(LeU), [0, 0, 0, 1, 1, 1]);
    assert_eq!(
        bin(|dst, a, b| LeS { dst, a, b }, &[3, i(-3)], &[3, i(-3)]),
        [1, 1]
    );
    assert_eq!(bin(|dst, a, b| Eq { dst, a, b }, &[3], &[3]), [1]);
    assert_eq!(
        un(|dst, a| Neg { dst, a }, &a),
        [i(-7), 7, 1, i(i32::MIN), 0, i(-100)]
    );
    assert_eq!(
        un(|dst, a| Not { dst, a }, &[0, 1]),
        [u32::MAX, u32::MAX - 1]
    );
    assert_eq!(
        un(|dst, a| AbsS { dst, a }, &a),
        [7, 7, 1, i(i32::MIN), 0, 100]
    );
    assert_eq!(un(|dst, a| Mov { dst, a }, &a), a);
}

#[test]
fn shifts() {
    let a = [1, 1, 1, 1, i(-16), i(-16), i(-16), 0x8000_0000];
    let b = [0, 31, 32, 100, 2, 31, 40, u32::MAX];
    assert_eq!(
        bin(|dst, a, b| Shl { dst, a, b }, &a, &b),
        [1, 0x8000_0000, 0, 0, i(-64), 0, 0, 0]
    );
    assert_eq!(
        bin(|dst, a, b| ShrS { dst, a, b }, &a, &b),
        [1, 0, 0, 0, i(-4), i(-1), i(-1), u32::MAX]
    );
    assert_eq!(
        bin(|dst, a, b| ShrU { dst, a, b }, &a, &b),
        [1, 0, 0, 0, i(-16) >> 2, 1, 0, 0]
    );
}

#[test]
fn f32_ops() {
    let a = [f(1.5), f(-2.0), f(7.5), f(f32::NAN)];
    let b = [f(0.5), f(4.0), f(2.0), f(1.0)];
    macro_rules! op {
        ($v:ident) => {
            bin(|dst, a, b| $v { dst, a, b }, &a, &b)
        };
    }
    assert_eq!(op!(FAdd)[..3], [f(2.0), f(2.0), f(9.5)]);
    assert_eq!(op!(FSub)[..3], [f(1.0), f(-6.0), f(5.5)]);
    assert_eq!(op!(FMul)[..3], [f(0.75), f(-8.0), f(15.0)]);
    assert_eq!(op!(FDiv)[..3], [f(3.0), f(-0.5), f(3.75)]);
    assert_eq!(op!(FRem)[..3], [f(0.0), f(-2.0), f(1.5)]);
    assert_eq!(op!(FMin), [f(0.5), f(-2.0), f(2.0), f(1.0)]);
    assert_eq!(op!(FMax), [f(1.5), f(4.0), f(7.5), f(1.0)]);
    assert_eq!(op!(FEq), [0, 0, 0, 0]);
    assert_eq!(op!(FNe), [1, 1, 1, 1]);
    assert_eq!(op!(FLt), [0, 1, 0, 0]);
    assert_eq!(op!(FLe), [0, 1, 0, 0]);
    assert_eq!(
        bin(|dst, a, b| FLe { dst, a, b }, &[f(2.0)], &[f(2.0)]),
        [1]
    );
    assert_eq!(
        bin(|dst, a, b| FEq { dst, a, b }, &[f(0.0)], &[f(-0.0)]),
        [1]
    );
    assert_eq!(
        un(|dst, a| FNeg { dst, a }, &a[..3]),
        [f(-1.5), f(2.0), f(-7.5)]
    );
    assert_eq!(
        un(|dst, a| FAbs { dst, a }, &a[..3]),
        [f(1.5), f(2.0), f(7.5)]
    );
    assert_eq!(
        un(|dst, a| FSqrt { dst, a }, &[f(9.0), f(2.0)]),
        [f(3.0), f(2f32.sqrt())]
    );
    // FFma with c = a: a * b + a
    assert_eq!(
        bin(
            |dst, a, b| FFma { dst, a, b, c: a },
            &[f(1.5), f(2.0)],
            &[f(2.0), f(-1.0)]
        ),
        [f(4.5), f(0.0)]
    );
}

/// The f64-based FFma agrees bit for bit with `f32::mul_add`, on random operands and on
/// the hard cases: ties after the sum, cancellation, subnormals, infinities and NaN.
#[test]
fn fma_f32_is_correctly_rounded() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0 + f32::EPSILON,
        1.0 - f32::EPSILON / 2.0,
        3.0,
        1.0 / 3.0,
    ];
    let check = |a: f32, b: f32, c: f32| {
        let want = a.mul_add(b, c);
        let got = fma_f32::<false>(a, b, c);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "fma({a:e}, {b:e}, {c:e}) = {got:e}, want {want:e}"
        );
    };
    for &a in &special {
        for &b in &special {
            for &c in &special {
                check(a, b, c);
            }
        }
    }
    for _ in 0..200_000 {
        let r = next();
        let a = f32::from_bits(r as u32);
        let b = f32::from_bits((r >> 32) as u32);
        // c near -a*b (cancellation) or near a tie of the product, or random.
        let c = match next() % 4 {
            0 => -((a as f64 * b as f64) as f32),
            1 => f32::from_bits(next() as u32),
            2 => (a * b) * f32::EPSILON / 2.0,
            _ => f32::from_bits((a * b).to_bits() ^ (next() as u32 & 0xff)),
        };
        check(a, b, c);
        // Small exponents, where ties and subnormals are common.
        let m = |v: u64| f32::from_bits(0x3f80_0000 | (v as u32 & 0x7f_ffff));
        let (a, b) = (m(next()), m(next()));
        check(a, b, -(a * b));
        check(a, b, f32::from_bits(next() as u32 & 0x807f_ffff));
        check(
            a * 1e-30,
            b * 1e-10,
            f32::from_bits(next() as u32 & 0x80ff_ffff),
        );
    }
}

/// Runs a 64-bit instruction on per-lane f64 values: r2:r3 = a, r4:r5 = b, r6:r7 = c,
/// result in r0:r1 (or r0 for comparisons), written to a f64 buffer.
fn f64_op(inst: Inst, a: &[f64], b: &[f64], c: &[f64], result_words: u32) -> Vec<u64> {
    let n = a.len();
    let p = P::new(vec![
        // in[lane], in[32 + lane], in[64 + lane]
        Load(global_mem(0, r(10), 1, r(2))),
        Add {
            dst: r(11),
            a: r(10),
            b: r(12),
        },
        Load(global_mem(0, r(11), 1, r(4))),
        Add {
            dst: r(11),
            a: r(11),
            b: r(12),
        },
        Load(global_mem(0, r(11), 1, r(6))),
        inst,
        Store(global_mem(1, r(10), 1, r(0))),
    ])
    .special(10, Special::LaneId)
    .konst(12, 32)
    .konst(1, 0)
    .buffer("in", Elem::F64, 96)
    .buffer("out", Elem::F64, 32)
    .build();
    let global = Global::new(&p);
    let mut words = Vec::new();
    for v in [a, b, c] {
        for l in 0..32 {
            let bits = v[l % n].to_bits();
            words.extend([bits as u32, (bits >> 32) as u32]);
        }
    }
    global.write(0, &words);
    let mut stats = Stats::new(&p, &Geometry::H200);
    run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
    let out = global.read(1);
    (0..n)
        .map(|l| {
            let lo = out[2 * l] as u64;
            let hi = out[2 * l + 1] as u64;
            if result_words == 1 {
                lo
            } else {
                lo | hi << 32
            }
        })
        .collect()
}

#[test]
fn f64_pairs() {
    let a = [1.5, -2.0, 1e300, 0.1];
    let b = [0.25, 4.0, 1e10, 0.2];
    let c = [1.0, 1.0, 1.0, 1.0];
    let d = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let (x, y, z) = (r(2), r(4), r(6));
    let dst = r(0);
    let two = |i: Inst| f64_op(i, &a, &b, &c, 2);
    let one = |i: Inst| f64_op(i, &a, &b, &c, 1);
    assert_eq!(
        two(DAdd { dst, a: x, b: y }),
        d(&[1.75, 2.0, 1e300 + 1e10, 0.1 + 0.2])
    );
    assert_eq!(
        two(DSub { dst, a: x, b: y }),
        d(&[1.25, -6.0, 1e300, 0.1 - 0.2])
    );
    assert_eq!(
        two(DMul { dst, a: x, b: y }),
        d(&[0.375, -8.0, f64::INFINITY, 0.1 * 0.2])
    );
    assert_eq!(two(DDiv { dst, a: x, b: y }), d(&[6.0, -0.5, 1e290, 0.5]));
    assert_eq!(
        two(DRem { dst, a: x, b: y }),
        d(&[0.0, -2.0, 1e300 % 1e10, 0.1])
    );
    assert_eq!(two(DMin { dst, a: x, b: y }), d(&[0.25, -2.0, 1e10, 0.1]));
    assert_eq!(two(DMax { dst, a: x, b: y }), d(&[1.5, 4.0, 1e300, 0.2]));
    assert_eq!(one(DEq { dst, a: x, b: x }), [1, 1, 1, 1]);
    assert_eq!(one(DNe { dst, a: x, b: y }), [1, 1, 1, 1]);
    assert_eq!(one(DLt { dst, a: x, b: y }), [0, 1, 0, 1]);
    assert_eq!(one(DLe { dst, a: x, b: x }), [1, 1, 1, 1]);
    assert_eq!(two(DNeg { dst, a: x }), d(&[-1.5, 2.0, -1e300, -0.1]));
    assert_eq!(two(DAbs { dst, a: x }), d(&[1.5, 2.0, 1e300, 0.1]));
    assert_eq!(two(DSqrt { dst, a: y }), d(&[0.5, 2.0, 1e5, 0.2f64.sqrt()]));
    assert_eq!(
        two(DFma {
            dst,
            a: x,
            b: y,
            c: z
        }),
        d(&[1.375, -7.0, f64::INFINITY, 0.1f64.mul_add(0.2, 1.0)])
    );
    assert_eq!(two(Mov64 { dst, a: y }), d(&b));
}

#[test]
fn select_and_select64() {
    // r1 = lane, r2 = 1000 + lane via Add, c = lane & 1
    let p = P::new(vec![
        Add {
            dst: r(2),
            a: r(1),
            b: r(3),
        },
        And {
            dst: r(4),
            a: r(1),
            b: r(5),
        },
        Select {
            dst: r(0),
            c: r(4),
            a: r(1),
            b: r(2),
        },
        // 64-bit: (r1, r2) vs (r2, r1)
        Select64 {
            dst: r(6),
            c: r(4),
            a: r(1),
            b: r(2),
        },
    ])
    .special(1, Special::LaneId)
    .konst(3, 1000)
    .konst(5, 1)
    .build();
    let o = exec(&p);
    assert_eq!(
        o.reg(0, 0),
        lanes(|l| if l & 1 == 1 { l } else { 1000 + l })
    );
    // a = r1:r2 = (l, 1000+l); b = r2:r3 = (1000+l, 1000)
    assert_eq!(
        o.reg(0, 6),
        lanes(|l| if l & 1 == 1 { l } else { 1000 + l })
    );
    assert_eq!(
        o.reg(0, 7),
        lanes(|l| if l & 1 == 1 { 1000 + l } else { 1000 })
    );
}

/// Cvt of one value per lane from `from` to `to`, through registers r2(:r3) -> r0(:r1).
fn cvt1(from: Elem, to: Elem, vals: &[u64]) -> Vec<u64> {
    let n = vals.len();
    let mut code = vec![Load(global_mem(0, r(10), 1, r(2)))];
    code.push(Cvt {
        dst: r(0),
        a: r(2),
        from,
        to,
    });
    code.push(Store(global_mem(1, r(10), 1, r(0))));
    let p = P::new(code)
        .special(10, Special::LaneId)
        .buffer("in", from, 32)
        .buffer("out", to, 32)
        .build();
    let global = Global::new(&p);
    let wi = from.bytes() as usize / 4;
    let mut words = Vec::new();
    for l in 0..32 {
        let v = vals[l % n];
        words.push(v as u32);
        if wi == 2 {
            words.push((v >> 32) as u32);
        }
    }
    global.write(0, &words);
    let mut stats = Stats::new(&p, &Geometry::H200);
    run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
    let out = global.read(1);
    let wo = to.bytes() as usize / 4;
    (0..n)
        .map(|l| {
            if wo == 2 {
                out[2 * l] as u64 | (out[2 * l + 1] as u64) << 32
            } else {
                out[l] as u64
            }
        })
        .collect()
}

#[test]
fn conversions() {
    use Elem::*;
    let f32s = |v: &[f32]| v.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>();
    let f64s = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let u = |v: &[i64]| v.iter().map(|&x| x as u32 as u64).collect::<Vec<_>>();
    assert_eq!(
        cvt1(F32, I32, &f32s(&[3.7, -3.7, f32::NAN, 1e10, -1e10, -0.5])),
        u(&[3, -3, 0, i32::MAX as i64, i32::MIN as i64, 0])
    );
    assert_eq!(
        cvt1(F32, U32, &f32s(&[3.7, -1.0, f32::NAN, 1e10, 4e9])),
        u(&[3, 0, 0, u32::MAX as i64, 4_000_000_000])
    );
    assert_eq!(
        cvt1(I32, F32, &u(&[-3, 16_777_217, i32::MIN as i64])),
        f32s(&[-3.0, 16_777_216.0, -2147483648.0])
    );
    assert_eq!(
        cvt1(U32, F32, &u(&[u32::MAX as i64])),
        f32s(&[4294967296.0])
    );
    assert_eq!(
        cvt1(I32, F64, &u(&[-3, i32::MIN as i64])),
        f64s(&[-3.0, i32::MIN as f64])
    );
    assert_eq!(
        cvt1(U32, F64, &u(&[u32::MAX as i64])),
        f64s(&[u32::MAX as f64])
    );
    assert_eq!(
        cvt1(F64, I32, &f64s(&[-2.9, 1e20, f64::NAN])),
        u(&[-2, i32::MAX as i64, 0])
    );
    assert_eq!(
        cvt1(F64, U32, &f64s(&[-2.9, 1e20, 7.99])),
        u(&[0, u32::MAX as i64, 7])
    );
    assert_eq!(
        cvt1(F64, F32, &f64s(&[0.1, 1e300])),
        f32s(&[0.1, f32::INFINITY])
    );
    assert_eq!(cvt1(F32, F64, &f32s(&[0.1])), f64s(&[0.1f32 as f64]));
    assert_eq!(cvt1(I32, U32, &u(&[-1])), u(&[u32::MAX as i64]));
    assert_eq!(cvt1(U32, I32, &u(&[u32::MAX as i64])), u(&[-1]));
    assert_eq!(cvt1(F64, F64, &f64s(&[0.3])), f64s(&[0.3]));
}
