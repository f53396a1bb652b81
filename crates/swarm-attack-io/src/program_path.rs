//! Finding a program the way `execvp` does: a name with a `/` is a path (relative to the
//! command's working directory); a bare name is looked up in each `PATH` entry, and only an
//! executable regular file counts.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Where `program` would be started from, or `None` when there is no such executable.
/// `path_var` is the `PATH` the command gets (`None`: this process's); `cwd` is its working
/// directory (`None`: this process's).
pub fn find(program: &str, path_var: Option<&OsStr>, cwd: Option<&Path>) -> Option<PathBuf> {
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = Path::new(program);
        let full = match cwd {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p.to_path_buf(),
        };
        return full.exists().then_some(full);
    }
    let owned;
    let path_var = match path_var {
        Some(v) => v,
        None => {
            owned = crate::env::var_os("PATH")?;
            owned.as_os_str()
        }
    };
    std::env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|cand| is_executable(cand))
}

/// Whether `p` is a regular file with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_search_path_and_paths_are_taken_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("mytool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths([dir.path()]).unwrap();
        assert_eq!(find("mytool", Some(&path), None), None, "not executable");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find("mytool", Some(&path), None), Some(tool.clone()));
        assert_eq!(find("nope-xyz", Some(&path), None), None);
        assert_eq!(
            find("./mytool", None, Some(dir.path())),
            Some(dir.path().join("./mytool"))
        );
        assert_eq!(find("", None, None), None);
    }
}
