//! Every shipped program loads; `WARPSIM_DUMP=1` prints the lowered code.
#[test]
fn shipped_programs_load() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../programs");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    if let Ok(rd) = std::fs::read_dir(format!("{dir}/examples")) {
        paths.extend(rd.map(|e| e.unwrap().path()));
    }
    for path in paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
    {
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
