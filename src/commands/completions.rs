//! `connect-rs completions SHELL`: a completion script generated from the clap definitions of
//! [`crate::cli`], so it follows every subcommand and flag.

use std::io::Write;

use clap::CommandFactory;

use super::CommandError;
use crate::cli::{Cli, CompletionsArgs};

/// The name the scripts complete (the binary's).
const BIN: &str = "connect-rs";

/// Runs `completions`: the script on stdout.
///
/// # Errors
/// None in practice: a closed stdout ends the output quietly.
pub fn run(args: &CompletionsArgs) -> Result<(), CommandError> {
    let _ = std::io::stdout().lock().write_all(&script(args.shell));
    Ok(())
}

/// The completion script for `shell`.
pub fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_the_subcommands() {
        use clap::ValueEnum;
        for shell in clap_complete::Shell::value_variants() {
            let text = String::from_utf8(script(*shell)).unwrap();
            for sub in ["standalone", "doctor", "completions", "man"] {
                assert!(text.contains(sub), "{shell}: no {sub}");
            }
        }
    }
}
