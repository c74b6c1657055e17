//! The calibration data package stays consistent (issue 36): every campaign folder has its
//! `campaign.toml` and a row in `manifest.tsv`, and every row's raw-archive checksum matches
//! `raw.tsv`. Runs `python3 calibration/drive.py check`; in a shallow clone (no history to
//! find the raw files in) with `--no-git`.

use std::process::Command;

use crate::util::root;

#[test]
fn calibration_package_is_consistent() {
    let root = root();
    let shallow = Command::new("git")
        .args(["rev-parse", "--is-shallow-repository"])
        .current_dir(&root)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() != "false")
        .unwrap_or(true);
    let mut cmd = Command::new("python3");
    cmd.args(["calibration/drive.py", "check"])
        .current_dir(&root);
    if shallow {
        cmd.arg("--no-git");
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: python3 could not be started ({e})");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "calibration/drive.py check found problems:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("all consistent"), "{stdout}");
}
