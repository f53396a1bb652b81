//! Atomic file replace: temp file in the same folder, fsync, rename, fsync the folder.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Replaces `path` with `bytes` atomically; a crash leaves either the old or the new file.
/// Text is masked first ([`crate::secrets::mask`]): no secret value reaches a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let bytes = crate::secrets::mask_bytes(bytes);
    let bytes = bytes.as_ref();
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // A new file gets the usual 0644 (less the umask) rather than the temp file's private
    // 0600; a replaced file keeps its mode.
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = temp_beside(path, dir)?;
    if let Some(p) = existing {
        tmp.as_file().set_permissions(p)?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// Replaces `path` with `bytes` by a rename, like [`write_atomic`] but without any fsync:
/// for caches only, whose readers check what they read (a torn or missing file, or an old
/// one after a crash, is no cache and costs a rescan). Readers never see a partly written
/// file while the system runs.
pub fn replace_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let bytes = crate::secrets::mask_bytes(bytes);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = temp_beside(path, dir)?;
    tmp.write_all(bytes.as_ref())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A temp file `.<name>.XXXX.tmp` in `dir` (the folder of `path`), mode 0644 less the umask.
fn temp_beside(path: &Path, dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o644))
        .prefix(&format!(
            ".{}.",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("tmp")
        ))
        .suffix(".tmp")
        .tempfile_in(dir)
}

/// fsyncs a directory so a rename in it is durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_new_one_is_not_private() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        write_atomic(&p, b"1").unwrap();
        // 0644 less the umask: never the temp file's 0600 unless the umask asks for it
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o600, 0o600, "{mode:o}");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"2").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(std::fs::read(&p).unwrap(), b"2");
    }
}
