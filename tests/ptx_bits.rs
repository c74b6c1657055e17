//! The bit-field, permutation and special-function PTX instructions (`clz brev bfind bfe
//! prmt copysign sin cos lg2`; tests/fixtures/ptx/bits.ptx, kernel `bit_ops`) against the
//! H200's results of the same PTX (tests/fixtures/h200/ptx_bits/h200.txt, from run_bits.cu): every integer
//! word equal, `copysign` equal, and the approximations (`sin.approx`, `cos.approx`,
//! `lg2.approx`, which warpsim computes exactly rounded) within 2^-20 of the GPU's.

use crate::util::root;

#[test]
fn bit_operations_equal_the_h200() {
    let h200: Vec<u32> =
        std::fs::read_to_string(root().join("tests/fixtures/h200/ptx_bits/h200.txt"))
            .unwrap()
            .lines()
            .map(|l| u32::from_str_radix(l.trim(), 16).unwrap())
            .collect();
    assert_eq!(h200.len(), 288 + 128);
    let words = |name: &str| -> Vec<u32> {
        crate::kernels2::final_bytes("../tests/fixtures/ptx/bit_ops.ron", name)
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (outi, outf) = (words("outi"), words("outf"));
    const OPS: [&str; 9] = [
        "clz",
        "brev",
        "bfind.u32",
        "bfind.s32",
        "bfind.shiftamt",
        "bfe.u32",
        "bfe.s32",
        "prmt",
        "clz(t >> 1)",
    ];
    for (i, (got, want)) in outi.iter().zip(&h200[..288]).enumerate() {
        assert_eq!(
            got,
            want,
            "{} of lane {}: {got:#x}, H200 {want:#x}",
            OPS[i / 32],
            i % 32
        );
    }
    for (i, (got, want)) in outf.iter().zip(&h200[288..]).enumerate() {
        let (g, w) = (f32::from_bits(*got), f32::from_bits(*want));
        let op = ["sin.approx", "cos.approx", "lg2.approx", "copysign"][i / 32];
        if i / 32 == 3 {
            assert_eq!(got, want, "{op} of lane {}", i % 32);
        } else {
            assert!(
                (g - w).abs() <= 1.0 / (1 << 20) as f32,
                "{op} of lane {}: {g}, H200 {w}",
                i % 32
            );
        }
    }
}
