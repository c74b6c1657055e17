//! The loader's half of the bad-program corpus in tests/bad/: every file that is wrong
//! before it runs is refused with the message its first line expects.

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
    for b in warpsim_testkit::bad_programs() {
        let (path, src, expect) = (b.path, b.src, b.expect);
        let name = b.name.trim_end_matches(".ron");
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
