//! Every shipped program loads; `WARPSIM_DUMP=1` prints the lowered code.
#[test]
fn shipped_programs_load() {
    for rel in warpsim_testkit::shipped_programs() {
        let path = warpsim_testkit::path(&rel);
        let p = warpsim_lang::load_file(path.to_str().unwrap(), &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        if std::env::var_os("WARPSIM_DUMP").is_some() {
            eprintln!("== {} ({} regs)", path.display(), p.nregs);
            for (i, (c, inf)) in p.code.iter().zip(&p.info).enumerate() {
                eprintln!(
                    "{i:3} {:>3}:{:<3} {:?}   // {}",
                    inf.line, inf.col, c, inf.text
                );
            }
        }
    }
}
