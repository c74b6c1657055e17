//! Control characters from users (file names, kernel names, trace names, quoted source lines,
//! `explain` arguments, GPU names) never reach the terminal raw: they are printed as `\u{…}`
//! (issue 42, item 5).

use super::{case, scratch, write};

const ESC: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J";
const SHOWN: &str = "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J";

/// Asserts that neither stream has a control character other than newline and tab.
fn clean(o: &super::Outcome) {
    for (what, s) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        assert!(
            !s.chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t' || c == '\u{202e}'),
            "{what} has a control character: {s:?}"
        );
    }
}

#[test]
fn file_names_are_escaped() {
    let missing = format!("/no/such/{ESC}.ron");
    let o = case(&["check", &missing], 2, None, SHOWN);
    clean(&o);
    let o = case(
        &["run", "programs/transpose.ron", "--gpu", &missing],
        2,
        None,
        SHOWN,
    );
    clean(&o);
    let o = case(&["access", &missing], 2, None, SHOWN);
    clean(&o);
    let o = case(
        &[
            "run",
            "programs/transpose.ron",
            "--svg",
            &format!("/no/such/{ESC}/x.svg"),
        ],
        2,
        None,
        SHOWN,
    );
    clean(&o);
    // A file whose name has them, with an error in it: the location is escaped.
    let p = scratch().join(format!("bad{ESC}.ron"));
    std::fs::write(&p, "Program(name: 1)").unwrap();
    let o = case(&["check", p.to_str().unwrap()], 2, None, SHOWN);
    clean(&o);
}

#[test]
fn names_and_source_lines_are_escaped() {
    let src = std::fs::read_to_string(crate::util::root().join("programs/transpose.ron")).unwrap();
    // A kernel name with escapes (RON's `\u{…}`) and a bidirectional override.
    let named = src.replace("name: \"transpose\"", "name: \"t\\u{1b}[2J\\u{202e}x\"");
    let p = write("esc_name.ron", &named);
    for cmd in ["check", "run"] {
        let o = case(&[cmd, &p], 0, None, "");
        clean(&o);
        assert!(o.stdout.contains("\\u{1b}[2J\\u{202e}x"), "{}", o.stdout);
    }
    let o = case(&["sweep", &p, "-D", "PAD=0,1"], 0, None, "");
    clean(&o);
    // A raw escape on the line an error quotes.
    let raw = src.replace("body: [", &format!("bogus{ESC}: 1, body: ["));
    let p = write("esc_line.ron", &raw);
    let o = case(&["check", &p], 2, Some(&p), "");
    clean(&o);
}

#[test]
fn traces_and_explain_arguments_are_escaped() {
    let lanes: String = (0..32).map(|l| format!(" {}", l * 4)).collect();
    let t = write("esc.trace", &format!("a{ESC}b ld 4{lanes}\n"));
    let o = case(&["access", &t], 0, None, "");
    clean(&o);
    assert!(o.stdout.contains(SHOWN), "{}", o.stdout);
    let o = case(&["access", &t, "--format", "tsv"], 0, None, "");
    clean(&o);
    // A malformed line with them.
    let t = write("esc_bad.trace", &format!("a ld {ESC}{lanes}\n"));
    let o = case(&["access", &t], 2, None, SHOWN);
    clean(&o);
    let o = case(&["explain", &format!("tid * 4 {ESC}")], 2, None, "");
    clean(&o);
    let o = case(&["explain", &format!("tid{ESC}")], 2, None, "");
    clean(&o);
}

#[test]
fn usage_errors_quote_arguments_escaped() {
    for args in [
        vec!["run", "programs/transpose.ron", "--banks", ESC],
        vec!["run", "programs/transpose.ron", ESC],
        vec![ESC],
        vec!["sweep", "programs/transpose.ron", "--max-variants", ESC],
    ] {
        // (clap's plain rendering drops the escapes; on a terminal too since it is rendered
        // plain.)
        let o = case(&args, 2, None, "error:");
        clean(&o);
    }
    // Help and version still print, exit 0.
    case(&["--version"], 0, None, "");
}

/// A string with escapes (`"\t"`, `"\u{41}"`) is shorter than its text in the file: errors
/// inside it still point at the right column, in the kernel and in the reference, and their
/// literals are found in order (the Let's "\t1" before the Store's "\t1 + bad").
#[test]
fn errors_inside_strings_with_escapes_point_at_the_column() {
    let body = |stmt: &str| {
        format!(
            "Program(\n    name: \"esc\",\n    launch: (grid: [1], block: [32]),\n    buffers: \
             [(name: \"out\", ty: I32, len: 32, expect: \"\\t\\u{{41}}B + nosuch[i]\")],\n    \
             body: [Let(\"t\", \"\\t1\"), {stmt}],\n)\n"
        )
    };
    // `bad` in the Store's "\t1 + bad", which follows the Let's "\t1".
    let p = write("esc1.ron", &body(r#"Store("out[tid.x]", "\t1 + bad")"#));
    let o = case(&["check", &p], 2, Some(&p), "unknown name `bad`");
    let want = format!(
        "esc1.ron:5:{}",
        1 + "    body: [Let(\"t\", \"\\t1\"), Store(\"out[tid.x]\", \"\\t1 + ".len()
    );
    assert!(o.stderr.contains(&want), "{want}: {}", o.stderr);
    let p = write("esc2.ron", &body(r#"Store("out[tid.x]", "1")"#));
    let o = case(&["check", &p], 2, Some(&p), "unknown name `AB`");
    let want = format!(
        "esc2.ron:4:{}",
        1 + "    buffers: [(name: \"out\", ty: I32, len: 32, expect: \"\\t".len()
    );
    assert!(o.stderr.contains(&want), "{want}: {}", o.stderr);
}
