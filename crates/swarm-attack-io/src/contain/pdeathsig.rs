//! The one place this crate uses `unsafe`: [`std::os::unix::process::CommandExt::pre_exec`],
//! to ask the kernel (Linux `PR_SET_PDEATHSIG`) to send SIGKILL to a started process when
//! the thread that started it dies. The closure only makes that one `prctl` system call,
//! and `getppid` (both async-signal-safe: no allocation, no lock), as `pre_exec` requires.

#![allow(unsafe_code)]

use std::process::Command;

/// Makes the process `cmd` starts receive SIGKILL when its parent (thread) dies.
pub fn kill_with_parent(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs between fork and exec; it calls only `prctl(2)` and `getppid(2)`
    // through nix's thin wrappers (no allocation, no locks): async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                .map_err(std::io::Error::from)?;
            // the parent died before the request took effect: do not start orphaned
            if nix::unistd::getppid() != parent {
                return Err(nix::errno::Errno::ESRCH.into());
            }
            Ok(())
        });
    }
}
