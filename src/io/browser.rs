//! Opens a file in the user's browser (`report --open`): `$BROWSER` when set, else
//! `xdg-open` (`open` on macOS). The path is one argument; no shell is involved.

use std::path::Path;
use std::process::{Command, Stdio};

/// Starts the opener and returns without waiting for the browser.
pub fn open(path: &Path) -> std::io::Result<()> {
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    let mut child = Command::new(program.trim())
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    // reap it in the background so no zombie is left while the command finishes
    std::thread::spawn(move || child.wait());
    Ok(())
}
