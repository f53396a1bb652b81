//! Pushing the branch the Action's run landed commits on (and the tool's own
//! `swarm/<feature>/issue-<N>` branches), and fetching such a branch back for a stacked
//! dependent (`git.stack`). The token reaches git through
//! `GIT_CONFIG_*` environment variables (an `http.extraheader`), never through argv or a
//! file, and never appears in output.

use super::exec::{self, GitError, Hooks, Invocation};

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

/// Pushes `HEAD` to `refs/heads/<branch>` on `origin`. With `token`, authenticates to
/// `server` (e.g. `https://github.com`) as GitHub Actions does. The error carries git's
/// message with any token masked.
pub fn push_head(
    root: &std::path::Path,
    branch: &str,
    token: Option<&str>,
    server: &str,
    hooks: Hooks,
) -> Result<(), GitError> {
    let refspec = format!("HEAD:refs/heads/{branch}");
    push(
        root,
        &["push", "--porcelain", "origin", refspec.as_str()],
        token,
        server,
        hooks,
    )
}

/// Force-pushes `commit` to `refs/heads/<branch>` on `remote` (a branch the tool owns, e.g.
/// `swarm/<feature>/issue-<N>` for `git.landing: pr`), authenticated as [`push_head`].
pub fn push_commit(
    root: &std::path::Path,
    remote: &str,
    commit: &str,
    branch: &str,
    token: Option<&str>,
    server: &str,
    hooks: Hooks,
) -> Result<(), GitError> {
    let refspec = format!("{commit}:refs/heads/{branch}");
    push(
        root,
        &[
            "push",
            "--porcelain",
            "--force",
            "--",
            remote,
            refspec.as_str(),
        ],
        token,
        server,
        hooks,
    )
}

/// Fetches `refs/heads/<branch>` of `remote` into `into` (a ref of the tool's own, e.g.
/// `refs/swarm-attack/stack/<feature>/issue-<N>`) and returns the commit it names,
/// authenticated as [`push_head`].
pub fn fetch_branch(
    root: &std::path::Path,
    remote: &str,
    branch: &str,
    into: &str,
    token: Option<&str>,
    server: &str,
) -> Result<String, GitError> {
    let refspec = format!("+refs/heads/{branch}:{into}");
    push(
        root,
        &[
            "fetch",
            "--no-tags",
            "--quiet",
            "--",
            remote,
            refspec.as_str(),
        ],
        token,
        server,
        Hooks::Off,
    )?;
    let commit = format!("{into}^{{commit}}");
    exec::run(
        &Invocation::new(root, &["rev-parse", "--verify", "--quiet", commit.as_str()]),
        |_| {},
    )
    .map(|out| out.trim().to_string())
}

/// Runs an authenticated `git <args>` against a remote (push or fetch).
fn push(
    root: &std::path::Path,
    args: &[&str],
    token: Option<&str>,
    server: &str,
    hooks: Hooks,
) -> Result<(), GitError> {
    let mut env = Vec::new();
    if let Some(t) = token.filter(|t| !t.is_empty()) {
        let header = format!(
            "AUTHORIZATION: basic {}",
            base64(format!("x-access-token:{t}").as_bytes())
        );
        env.push(("GIT_CONFIG_COUNT".to_string(), "1".to_string()));
        env.push((
            "GIT_CONFIG_KEY_0".to_string(),
            format!("http.{}/.extraheader", server.trim_end_matches('/')),
        ));
        env.push(("GIT_CONFIG_VALUE_0".to_string(), header));
    }
    let inv = Invocation {
        hooks,
        env: &env,
        ..Invocation::new(root, args)
    };
    exec::run(&inv, |_| {})
        .map(|_| ())
        .map_err(|e| match (e, token) {
            (
                GitError::Failed {
                    args,
                    dir,
                    message,
                    code,
                },
                Some(t),
            ) if !t.is_empty() => GitError::Failed {
                args,
                dir,
                message: message.replace(t, crate::core::secrets::MASK),
                code,
            },
            (e, _) => e,
        })
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
