//! `connect-rs man`: roff man pages generated from the clap definitions of [`crate::cli`].
//! Without `--out`, `connect-rs.1` (every option, the subcommands listed) goes to stdout; with
//! `--out DIR`, `connect-rs.1` and one `connect-rs-<command>.1` per subcommand, nested ones
//! included (`connect-rs-topics-read.1`), are written into `DIR`, one path printed per page.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;

use super::{CommandError, EXIT_STARTUP};
use crate::cli::{Cli, ManArgs};

/// Runs `man`.
///
/// # Errors
/// Exit 2 when the directory cannot be created or a page cannot be written.
pub fn run(args: &ManArgs) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    match &args.out {
        None => {
            let _ = out.write_all(&page());
        }
        Some(dir) => {
            let written = write_pages(dir).map_err(|e| CommandError::new(EXIT_STARTUP, e))?;
            for path in written {
                let _ = writeln!(out, "{}", path.display());
            }
        }
    }
    Ok(())
}

/// `connect-rs.1`.
pub fn page() -> Vec<u8> {
    let mut out = Vec::new();
    // Rendering into memory cannot fail.
    let _ = clap_mangen::Man::new(command()).render(&mut out);
    out
}

/// The clap command the pages describe: built (subcommands know their full names), without
/// clap's `help` subcommand, which has no page.
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Writes every page into `dir` (created if needed); the paths written, top page first.
///
/// # Errors
/// The directory or a page cannot be written (naming it).
pub fn write_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| crate::fs_hint::explain_dir_error(dir, e))
        .with_context(|| format!("Cannot create the directory {}", dir.display()))?;
    let mut written = Vec::new();
    write_tree(&command(), dir, &mut written)?;
    Ok(written)
}

fn write_tree(cmd: &clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    let path = dir.join(man.get_filename());
    let mut bytes = Vec::new();
    man.render(&mut bytes)
        .and_then(|()| std::fs::write(&path, bytes))
        .with_context(|| format!("Cannot write the man page {}", path.display()))?;
    written.push(path);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_tree(sub, dir, written)?;
    }
    Ok(())
}
