//! Opens a file in the user's browser (`report --open`): `$BROWSER` when set, else
//! `xdg-open` (`open` on macOS). The path is one argument; no shell is involved; the
//! opener gets no token variable.

use std::path::Path;
use std::process::{Command, Stdio};

/// Starts the opener and returns without waiting for the browser.
pub fn open(path: &Path) -> std::io::Result<()> {
    let program = crate::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    let mut cmd = Command::new(program.trim());
    cmd.arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // like every child of the tool: no token within reach
    for k in crate::core::secrets::TOKEN_ENV_VARS {
        cmd.env_remove(k);
    }
    cmd.env_remove(crate::secrets::SECRETS_FD_VAR);
    let mut child = cmd.spawn()?;
    // reap it in the background so no zombie is left while the command finishes
    std::thread::spawn(move || child.wait());
    Ok(())
}
