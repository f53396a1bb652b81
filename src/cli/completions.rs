//! `completions <shell>` (clap_complete) and `man` (clap_mangen): printed to stdout.

use crate::cli::Cli;
use crate::error::{CmdResult, CommandError};
use clap::CommandFactory;
use std::io::Write;

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> CmdResult<u8> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "swarm-attack", &mut out);
    print(&out)
}

/// Prints the man page (roff).
pub fn man() -> CmdResult<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| CommandError::internal(format!("could not render the man page: {e}")))?;
    print(&out)
}

fn print(bytes: &[u8]) -> CmdResult<u8> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(CommandError::internal(format!("could not write: {e}"))),
    }
}
