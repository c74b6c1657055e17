//! `check: "pred"`: a predicate over the buffers' *final* contents that must hold for every
//! element `i` of its buffer, evaluated once per element (O(n), in parallel chunks). A failure
//! is a mismatch; the lowest failing element is reported with the buffer elements the
//! predicate names there.

use super::expect::{elem_value, fault_diag, Acc, Reference};
use super::*;

/// Checks buffer `k`'s predicate `ex` against the final words `fin` of every buffer.
pub(super) fn check_predicate(
    prog: &Program,
    k: usize,
    bi: &BufferInfo,
    ex: &Expect,
    fin: &[&[u32]],
    max_terms: u64,
) -> Result<Verdict, Diag> {
    let srcs = final_srcs(prog, fin);
    let c = compile_expect(prog, ex)?;
    let r = Reference::new(&c, &srcs, max_terms, bi.len);
    let float = c.ty == RefTy::F;
    let holds = |v: u64| if float { f(v) != 0.0 } else { v as u32 != 0 };
    let chunks: Vec<Result<Acc, (u64, EvalFault)>> = (0..r.chunks())
        .into_par_iter()
        .map(|ci| {
            let mut a = Acc::ZERO;
            r.eval_chunk(ci, |i, v| {
                if !holds(v) {
                    a.miss(i as u64);
                }
            })?;
            Ok(a)
        })
        .collect();
    let mut acc = Acc::ZERO;
    for ch in chunks {
        let a = ch.map_err(|(i, f)| fault_diag(prog, bi, ex, &c, &srcs, i, f, max_terms))?;
        acc = acc.join(a);
    }
    let first_failure = acc.first.map(|i| Failure {
        index: i,
        reads: reads_at(prog, ex, c.base, &srcs, fin, i, max_terms),
    });
    Ok(Verdict {
        buffer: bi.name.clone(),
        index: k,
        ok: acc.count == 0,
        elements: bi.len,
        mismatches: acc.count,
        first_mismatch: None,
        abs_tolerance: None,
        max_abs_error: None,
        check: Some(ex.text.clone()),
        first_failure,
    })
}

/// Every buffer's final words as the evaluator reads them.
fn final_srcs<'a>(prog: &Program, fin: &[&'a [u32]]) -> Vec<Src<'a>> {
    prog.buffers
        .iter()
        .enumerate()
        .map(|(k, bi)| {
            let words = fin.get(k).copied().unwrap_or_default();
            // Elements the words hold: narrow ones pack several to a word.
            let len = (words.len() as u64 * 4 / bi.elem.bytes() as u64).min(bi.len);
            Src {
                words,
                elem: bi.elem,
                len,
            }
        })
        .collect()
}

/// The buffer elements the predicate names outside `sum`s (`out[i + 1]`), at element `i`,
/// with their final values; those whose index cannot be computed or falls outside the buffer
/// are left out.
fn reads_at(
    prog: &Program,
    ex: &Expect,
    base: Option<usize>,
    srcs: &[Src],
    fin: &[&[u32]],
    i: u64,
    max_terms: u64,
) -> Vec<Read> {
    let mut nodes = Vec::new();
    indexed(&ex.node, &mut nodes);
    let mut out: Vec<Read> = Vec::new();
    for (name, ix) in nodes {
        let Some(buf) = prog.buffers.iter().position(|b| b.name == *name) else {
            continue;
        };
        let mut comp = Compiler {
            prog,
            expect: ex,
            base,
            vars: vec![("i".to_owned(), 0)],
            next_slot: 1,
        };
        let Ok((e, ty)) = comp.compile(ix) else {
            continue;
        };
        if ty == RefTy::F {
            continue;
        }
        let fx = lower(&e, srcs);
        let mut st = St {
            slots: vec![0; comp.next_slot as usize],
            fault: None,
            budget: max_terms,
        };
        st.slots[0] = i as u32 as u64;
        let v = fx(&mut st);
        let at = if ty == RefTy::U32 {
            v as u32 as i64
        } else {
            v as u32 as i32 as i64
        };
        if st.fault.is_some() || at < 0 || at as u64 >= srcs[buf].len {
            continue;
        }
        let words = fin.get(buf).copied().unwrap_or_default();
        let Some(value) = elem_value(prog.buffers[buf].elem, words, at as usize) else {
            continue;
        };
        let access = format!("{name}[{at}]");
        if !out.iter().any(|r| r.access == access) {
            out.push(Read { access, value });
        }
    }
    out
}

/// The `buf[index]` nodes of `n`, outside `sum`s, in the order written.
fn indexed<'n>(n: &'n Node, out: &mut Vec<(&'n String, &'n Node)>) {
    match &n.kind {
        Kind::Int { .. } | Kind::Float(_) | Kind::Name(_) => {}
        Kind::Index(name, idx) => {
            if let [ix] = idx.as_slice() {
                indexed(ix, out);
                out.push((name, ix));
            }
        }
        Kind::Call(f, _) if f == "sum" => {}
        Kind::Call(_, args) => args.iter().for_each(|a| indexed(a, out)),
        Kind::Unary(_, a) => indexed(a, out),
        Kind::Binary(_, a, b) => {
            indexed(a, out);
            indexed(b, out);
        }
        Kind::Cond(c, a, b) => {
            indexed(c, out);
            indexed(a, out);
            indexed(b, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsim_exec::init_words;
    use warpsim_lang::{load_str, Options};

    fn prog(buffers: &str) -> Result<Program, Diag> {
        let src = format!(
            "Program(name: \"t\", defines: {{ \"N\": 1000 }}, launch: (grid: [1], block: [32]),\n buffers: [\n{buffers}\n], body: [])"
        );
        load_str("t.ron", &src, &Options::default())
    }

    /// Checks `p` with buffer 0's final words set to `out`, the others as initialised.
    fn verdicts(p: &Program, out: Vec<u32>) -> Vec<Verdict> {
        let init: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
        let mut fin = init.clone();
        fin[0] = out;
        check(p, &init, &fin).unwrap()
    }

    #[test]
    fn a_sorted_buffer_passes_and_an_unsorted_one_fails_with_its_values() {
        let p = prog(
            "(name: \"out\", ty: I32, len: \"N\", init: Random(3),
              expect: \"permutation(out)\", check: \"i + 1 == N || out[i] <= out[i + 1]\")",
        )
        .unwrap();
        let mut sorted = init_words(&p.buffers[0]);
        // I32 words compare signed (Random fills the whole range).
        sorted.sort_by_key(|&w| w as i32);
        let v = verdicts(&p, sorted.clone());
        assert_eq!(v.len(), 2, "the check, then the permutation");
        assert_eq!(
            v[0].check.as_deref(),
            Some("i + 1 == N || out[i] <= out[i + 1]")
        );
        assert!(v[0].ok && v[1].ok);
        assert_eq!(v[0].elements, 1000);
        // Swap two neighbours: still a permutation, one element out of order.
        let mut bad = sorted.clone();
        let k = (1..1000).find(|&k| bad[k] != bad[k - 1]).unwrap() + 10;
        bad.swap(k, k + 1);
        let (lo, hi) = (bad[k + 1] as i32, bad[k] as i32);
        let v = verdicts(&p, bad);
        assert!(!v[0].ok && v[1].ok);
        assert_eq!(v[0].mismatches, 1);
        let f = v[0].first_failure.as_ref().unwrap();
        assert_eq!(f.index, k as u64);
        assert_eq!(
            f.to_string(),
            format!("[{k}]: out[{k}] = {hi}, out[{}] = {lo}", k + 1)
        );
        assert_eq!(f.reads[0].value, Num::Int(hi as i64));
        // Reversed: every neighbour pair that differs fails.
        let mut rev = sorted.clone();
        rev.reverse();
        let fails = (0..999)
            .filter(|&k| rev[k] as i32 > rev[k + 1] as i32)
            .count() as u64;
        let v = verdicts(&p, rev);
        assert_eq!(v[0].mismatches, fails);
        assert!(fails > 900);
    }

    #[test]
    fn float_predicates_read_other_buffers_final_contents() {
        let p = prog(
            "(name: \"y\", ty: F32, len: \"N\", check: \"y[i] >= 0.0 && y[i] == f32(x[i] * x[i])\"),
             (name: \"x\", ty: F32, len: \"N\", init: Random(9))",
        )
        .unwrap();
        let x = init_words(&p.buffers[1]);
        let sq: Vec<u32> = x
            .iter()
            .map(|&w| (f32::from_bits(w) * f32::from_bits(w)).to_bits())
            .collect();
        assert!(verdicts(&p, sq.clone())[0].ok);
        let mut bad = sq;
        bad[7] = (-1.0f32).to_bits();
        let v = verdicts(&p, bad);
        assert_eq!(v[0].mismatches, 1);
        let f = v[0].first_failure.as_ref().unwrap();
        assert_eq!(f.index, 7);
        assert_eq!(f.reads[0].access, "y[7]");
        assert_eq!(f.reads[0].value, Num::Float(-1.0));
        assert_eq!(f.reads[1].access, "x[7]");
    }

    #[test]
    fn loader_errors_point_into_the_predicate() {
        let e =
            prog("(name: \"out\", ty: I32, len: 8, check: \"out[i] <= outt[i + 1]\")").unwrap_err();
        assert!(
            e.message.contains("`outt` is not a buffer"),
            "{}",
            e.message
        );
        assert_eq!(e.location, "t.ron:3:50");
        let e = prog("(name: \"out\", ty: I32, len: 8, check: \"permutation(out)\")").unwrap_err();
        assert!(e.message.contains("not a predicate"), "{}", e.message);
        let e = prog("(name: \"out\", ty: I32, len: 8, check: \"out[j] > 0\")").unwrap_err();
        assert!(e.message.contains("unknown name `j`"), "{}", e.message);
    }

    #[test]
    fn a_predicate_reading_out_of_bounds_is_an_error_at_its_place() {
        let p = prog("(name: \"out\", ty: I32, len: 8, check: \"out[i] <= out[i + 1]\")").unwrap();
        let init: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
        let e = check(&p, &init, &init).unwrap_err();
        assert!(
            e.message.contains("`out[8]` at element i = 7"),
            "{}",
            e.message
        );
        assert_eq!(e.phase, Phase::Verify);
    }

    #[test]
    fn predicates_over_narrow_buffers_see_every_element() {
        // Two i16 (four u8) elements to a word: the predicate reads all `len` of them (it
        // divided by zero here once: found by the `gen` fuzz target).
        let p = prog(
            "(name: \"h\", ty: I16, len: 1024, init: Iota, check: \"h[i] == i32(i)\"),
             (name: \"b\", ty: U8, len: 7, init: Iota, check: \"i + 1 == 7 || b[i] < b[i + 1]\")",
        )
        .unwrap();
        let init: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
        let v = check(&p, &init, &init).unwrap();
        assert!(v.iter().all(|v| v.ok), "{v:?}");
        assert_eq!((v[0].elements, v[1].elements), (1024, 7));
        let mut bad = init.clone();
        bad[0][100] = 0; // elements 200 and 201
        let v = check(&p, &init, &bad).unwrap();
        assert_eq!(v[0].mismatches, 2);
        assert_eq!(v[0].first_failure.as_ref().unwrap().index, 200);
    }
}
