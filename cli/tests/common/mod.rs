//! Running the `sawah` binary from the command-line tests.

use std::process::Command;

/// Runs `sawah ARGS` and returns its exit code, standard output and standard error.
pub fn sawah(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_sawah"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
