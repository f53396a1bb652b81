//! `completions <shell>` (clap_complete) and `man` (clap_mangen): printed to stdout.

use crate::cli::Cli;
use crate::error::{CmdResult, CommandError};
use crate::io::ui::Ui;
use clap::CommandFactory;
use std::io::Write;

/// Prints the completion script for `shell`.
pub fn completions(ui: &Ui, shell: clap_complete::Shell) -> CmdResult<u8> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "swarm-attack", &mut out);
    print(ui, &out)
}

/// Prints the man page (roff).
pub fn man(ui: &Ui) -> CmdResult<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| CommandError::internal(format!("could not render the man page: {e}")))?;
    print(ui, &out)
}

fn print(ui: &Ui, bytes: &[u8]) -> CmdResult<u8> {
    let mut stdout = ui.out_writer();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(0),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(CommandError::internal(format!("could not write: {e}"))),
    }
}
