//! Work bounded before it starts: names and sweeps of any size refused or handled without a
//! panic or an abort (issue 42, item 1's bounds).

use super::{case, write};

#[test]
fn a_trace_name_of_65536_characters_and_more_prices() {
    let lanes: String = (0..32).map(|l| format!(" {}", l * 4)).collect();
    for n in [65_535, 65_536, 70_000, 1 << 20] {
        let name = "n".repeat(n);
        let t = write(
            &format!("long_name_{n}.trace"),
            &format!("{name} ld 4{lanes}\nb ld 4{lanes}\n"),
        );
        let o = case(&["access", &t], 0, None, "");
        assert!(o.stdout.contains(&name), "the name was cut");
        assert!(o.stdout.contains("2 accesses"), "{:.200}", o.stdout);
    }
}

#[test]
fn sweeps_past_what_can_run_are_refused() {
    let t = "programs/transpose.ron";
    for v in ["1000001", "18446744073709551615", "0"] {
        case(
            &["sweep", t, "-D", "PAD=0,1", "--max-variants", v],
            2,
            None,
            "--max-variants",
        );
    }
    // Ranges whose length overflows.
    for r in [
        "PAD=-9223372036854775808..9223372036854775807",
        "PAD=0..9223372036854775807",
        "PAD=-9223372036854775808..0",
    ] {
        case(
            &["sweep", t, "-D", r],
            2,
            None,
            "empty or longer than 4096 values",
        );
    }
    // At the ceiling, the product is still checked before anything is listed.
    case(
        &[
            "sweep",
            t,
            "-D",
            "PAD=0..4000",
            "-D",
            "SWIZZLE=0..4000",
            "--max-variants",
            "1000000",
        ],
        2,
        None,
        "more than --max-variants 1000000",
    );
}

#[test]
fn launches_past_max_threads_are_refused_up_front_and_the_flag_raises_it() {
    let big = |g: &str, b: &str| {
        format!("Program(name: \"l\", launch: (grid: {g}, block: {b}), body: [])\n")
    };
    let p = write(
        "launch_huge.ron",
        &big("[2147483647, 65535, 65535]", "[1024]"),
    );
    for cmd in ["check", "run", "sweep", "advise"] {
        case(&[cmd, &p], 2, Some(&p), "threads in all");
    }
    // Just past the default, and at it.
    let p = write("launch_past.ron", &big("[4194305]", "[1024]"));
    case(&["check", &p], 2, Some(&p), "--max-threads");
    let p = write("launch_at.ron", &big("[4194304]", "[1024]"));
    case(&["check", &p], 0, None, "");
    // Lowered and raised.
    case(
        &["run", "programs/transpose.ron", "--max-threads", "1000"],
        2,
        None,
        "more than the 1000",
    );
    let p = write("launch_raised.ron", &big("[4194305]", "[1024]"));
    case(&["check", &p, "--max-threads", "5000000000"], 0, None, "");
}
