//! This process's secrets (docs/security.md "4. Secrets are masked everywhere the tool writes"):
//! where they are kept, and the one masking function every writer uses.
//!
//! **Keeping GitHub credentials out of reach.** A child can read its parent's *initial*
//! environment (`/proc/$PPID/environ`), so removing the token variables from an agent's
//! environment is not enough. When the binary starts with a token variable set
//! ([`TOKEN_ENV_VARS`]), [`init_or_reexec`] writes the values into a pipe and re-executes
//! itself (same pid, same arguments, `/proc/self/exe`) with those variables removed and
//! the pipe's read end named in `SWARM_ATTACK_SECRETS_FD`; the new image reads the values
//! back, closes the pipe and keeps them in memory only. From then on the process's
//! environment — the one every child inherits and `/proc/<pid>/environ` shows — holds no
//! token. The process is also made non-dumpable, so another process of the same user
//! cannot attach to it or read its memory (root still can).
//!
//! **Masking.** [`mask`] replaces every value of the secret variables
//! ([`SECRET_ENV_VARS`]), of the variables named in `agents[].env_passthrough` and in
//! `secrets.mask_env` (registered with [`register_names`] when the config is loaded) by
//! `***`.

use crate::core::secrets::{Masker, SECRET_ENV_VARS, TOKEN_ENV_VARS};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{OnceLock, RwLock};

/// The variable that names the pipe carrying the secrets across the re-execution.
pub const SECRETS_FD_VAR: &str = "SWARM_ATTACK_SECRETS_FD";

/// The token values taken from the environment at start (variable → value).
static TOKENS: OnceLock<BTreeMap<String, String>> = OnceLock::new();

/// The masker over every known secret value.
static MASKER: RwLock<Option<Masker>> = RwLock::new(None);

/// The extra variable names whose values are masked (config).
static NAMES: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Called first thing by the binary: takes the token values out of the environment (see
/// the module docs). Returns only in the process that keeps running: either the
/// re-executed image, or this one when re-execution is impossible (then the values stay
/// in the environment too, and children still get none: every spawn removes them).
pub fn init_or_reexec() {
    if let Some(tokens) = read_inherited() {
        let _ = TOKENS.set(tokens);
        harden();
        return;
    }
    let tokens: BTreeMap<String, String> = TOKEN_ENV_VARS
        .iter()
        .filter_map(|k| crate::env::var(k).ok().map(|v| (k.to_string(), v)))
        .collect();
    if !tokens.is_empty() {
        reexec(&tokens); // returns only on failure
    }
    let _ = TOKENS.set(tokens);
    harden();
}

/// Keeps other processes of the same user from attaching to this one or reading its memory
/// (`/proc/<pid>/mem`, `environ`): they would find the tokens there.
fn harden() {
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_dumpable(false);
}

/// Re-executes the binary without the token variables, the values on a pipe. Returns only
/// when that is impossible.
fn reexec(tokens: &BTreeMap<String, String>) {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let mut payload = Vec::new();
    for (k, v) in tokens {
        payload.extend_from_slice(k.as_bytes());
        payload.push(b'=');
        payload.extend_from_slice(v.as_bytes());
        payload.push(0);
    }
    // a pipe holds 64 KiB without a reader; the values are far smaller
    if payload.len() > 60 * 1024 {
        return;
    }
    // `pipe()` (not `pipe2(O_CLOEXEC)`): the read end must survive `exec`
    let Ok((read_end, write_end)) = nix::unistd::pipe() else {
        return;
    };
    let mut w = std::fs::File::from(write_end);
    if w.write_all(&payload).is_err() {
        return;
    }
    drop(w); // the new image reads to end of file
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_default();
    let mut cmd = std::process::Command::new("/proc/self/exe");
    cmd.arg0(argv0).args(args);
    for k in TOKEN_ENV_VARS {
        cmd.env_remove(k);
    }
    cmd.env(SECRETS_FD_VAR, read_end.as_raw_fd().to_string());
    let _ = cmd.exec(); // only returns on failure
    drop(read_end);
}

/// In the re-executed image: the values from the inherited pipe (`None` when this image was
/// not started by [`reexec`]).
fn read_inherited() -> Option<BTreeMap<String, String>> {
    use std::io::Read;
    let fd: i32 = crate::env::var(SECRETS_FD_VAR).ok()?.trim().parse().ok()?;
    // only an inherited pipe above stdio: never take over another descriptor
    let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    if fd < 3 || !target.to_string_lossy().starts_with("pipe:") {
        return None;
    }
    #[allow(unsafe_code)]
    // SAFETY: `fd` is an open pipe descriptor this image inherited from `reexec` (checked
    // above) that nothing else in the process owns or uses; it is owned, read and closed here.
    let owned = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let mut payload = Vec::new();
    std::fs::File::from(owned).read_to_end(&mut payload).ok()?;
    Some(
        payload
            .split(|b| *b == 0)
            .filter_map(|rec| {
                let rec = String::from_utf8_lossy(rec);
                let (k, v) = rec.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect(),
    )
}

/// The value of a secret variable: a token kept in memory, else the environment.
pub fn get(var: &str) -> Option<String> {
    if let Some(v) = TOKENS.get().and_then(|t| t.get(var)) {
        return Some(v.clone());
    }
    crate::env::var(var).ok()
}

/// Adds variable names whose values are masked (`secrets.mask_env`,
/// `agents[].env_passthrough`).
pub fn register_names<I: IntoIterator<Item = S>, S: AsRef<str>>(names: I) {
    let mut n = NAMES.write().unwrap_or_else(|e| e.into_inner());
    let before = n.len();
    for name in names {
        let name = name.as_ref();
        if !n.iter().any(|x| x == name) {
            n.push(name.to_string());
        }
    }
    if n.len() != before {
        *MASKER.write().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn masker() -> Masker {
    if let Some(m) = MASKER.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return m.clone();
    }
    let names = NAMES.read().unwrap_or_else(|e| e.into_inner()).clone();
    let values = SECRET_ENV_VARS
        .iter()
        .map(|s| s.to_string())
        .chain(names)
        .filter_map(|k| get(&k));
    let m = Masker::new(values);
    *MASKER.write().unwrap_or_else(|e| e.into_inner()) = Some(m.clone());
    m
}

/// `text` with every secret value replaced by `***` — the one masking function every writer
/// (state, events, outbox, comments, `--json`, stdout/stderr) uses.
pub fn mask(text: &str) -> Cow<'_, str> {
    match masker().mask(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// Masks every string inside a JSON value.
pub fn mask_json(value: &mut serde_json::Value) {
    masker().mask_json(value)
}

/// Writes `bytes` to `path` (plain write, not atomic), masked when they are text.
pub fn write_file(
    path: impl AsRef<std::path::Path>,
    bytes: impl AsRef<[u8]>,
) -> std::io::Result<()> {
    std::fs::write(path, mask_bytes(bytes.as_ref()).as_ref())
}

/// `bytes` masked when they are UTF-8 text (binary data is kept as is).
pub fn mask_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    match std::str::from_utf8(bytes) {
        Ok(text) => match mask(text) {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        },
        Err(_) => Cow::Borrowed(bytes),
    }
}

/// Masks a file written by someone else (a child's saved output) in place; lossy UTF-8
/// so a secret next to invalid bytes is still masked. Files over 64 MiB are left alone.
pub fn mask_file(path: &std::path::Path) {
    let Ok(meta) = std::fs::metadata(path) else {
        return;
    };
    if meta.len() > 64 * 1024 * 1024 || masker().is_empty() {
        return;
    }
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    if let Cow::Owned(masked) = masker().mask(&text) {
        let _ = crate::atomic::write_atomic(path, masked.as_bytes());
    }
}
