//! The loader's half of the bad-program corpus in tests/bad/: every file that is wrong
//! before it runs is refused with the message its first line expects.

fn corpus() -> Vec<(String, String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/bad");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "ron") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let expect = src
            .lines()
            .next()
            .unwrap()
            .trim_start_matches("// expect:")
            .trim()
            .to_owned();
        out.push((path.to_str().unwrap().to_owned(), src, expect));
    }
    out.sort();
    out
}

#[test]
fn load_errors_say_what_and_where() {
    let runtime = [
        "out_of_bounds",
        "misaligned",
        "deadlock",
        "divergent_barrier",
        "runaway",
        "div_zero",
        "global_oob",
        "huge_sum",
        "shfl_divergent",
        "narrow_misaligned",
        "pair_global_misaligned",
    ];
    let mut checked = 0;
    for (path, src, expect) in corpus() {
        let name = path.rsplit('/').next().unwrap().trim_end_matches(".ron");
        let res = warpsim_lang::load_str(&path, &src, &Default::default());
        if runtime.contains(&name) {
            assert!(res.is_ok(), "{name} should load: {:?}", res.err());
            continue;
        }
        let e = res.expect_err(name);
        let text = e.to_string();
        eprintln!("{name}: {text}\n   help: {:?}", e.help);
        assert!(text.contains(&expect), "{name}: `{text}` lacks `{expect}`");
        assert!(
            text.starts_with(&path),
            "{name}: `{text}` does not start with the file"
        );
        assert!(e.line().is_some(), "{name}: no line in `{text}`");
        checked += 1;
    }
    assert!(checked >= 8);
}
