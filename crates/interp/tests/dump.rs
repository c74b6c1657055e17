#[test]
fn dump_transpose() {
    let p = warpsim_interp::load_file(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../programs/transpose.ron"),
        &Default::default(),
    )
    .unwrap();
    for (i, (c, inf)) in p.code.iter().zip(&p.info).enumerate() {
        eprintln!(
            "{i:3} {:>3}:{:<3} {:?}   // {}",
            inf.line, inf.col, c, inf.text
        );
    }
    eprintln!("nregs {} init {:?}", p.nregs, p.init);
}
