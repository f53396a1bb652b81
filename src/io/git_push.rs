//! Pushing the branch the Action's run landed commits on. The token reaches git through
//! `GIT_CONFIG_*` environment variables (an `http.extraheader`), never through argv or a
//! file, and never appears in output.

use std::process::Command;

/// Base64 (standard alphabet, padded) of `bytes`.
pub fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Force-pushes `commit` to `refs/heads/<branch>` on `remote` (a branch the tool owns, e.g.
/// `swarm/<feature>/issue-<N>`). The token, when given, reaches git as in [`push_head`].
pub fn push_commit(
    root: &std::path::Path,
    remote: &str,
    commit: &str,
    branch: &str,
    token: Option<&str>,
    server: &str,
) -> Result<(), String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        .args(["push", "--porcelain", "--force", "--"])
        .arg(remote)
        .arg(format!("{commit}:refs/heads/{branch}"));
    run_push(cmd, token, server)
}

fn run_push(mut cmd: Command, token: Option<&str>, server: &str) -> Result<(), String> {
    cmd.env("GIT_TERMINAL_PROMPT", "0");
    if let Some(t) = token.filter(|t| !t.is_empty()) {
        let header = format!(
            "AUTHORIZATION: basic {}",
            base64(format!("x-access-token:{t}").as_bytes())
        );
        cmd.env("GIT_CONFIG_COUNT", "1")
            .env(
                "GIT_CONFIG_KEY_0",
                format!("http.{}/.extraheader", server.trim_end_matches('/')),
            )
            .env("GIT_CONFIG_VALUE_0", header);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("git could not start: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let mut msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if let Some(t) = token.filter(|t| !t.is_empty()) {
        msg = msg.replace(t, "[REDACTED]");
    }
    Err(msg)
}

/// Pushes `HEAD` to `refs/heads/<branch>` on `origin`. With `token`, authenticates to
/// `server` (e.g. `https://github.com`) as GitHub Actions does. Returns git's error text on
/// failure (with any token scrubbed).
pub fn push_head(
    root: &std::path::Path,
    branch: &str,
    token: Option<&str>,
    server: &str,
) -> Result<(), String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        .args(["push", "--porcelain", "origin"])
        .arg(format!("HEAD:refs/heads/{branch}"));
    run_push(cmd, token, server)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_rfc_vectors() {
        let v = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (i, o) in v {
            assert_eq!(super::base64(i.as_bytes()), o);
        }
    }
}
