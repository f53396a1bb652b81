//! The process tree as `/proc` shows it (Linux): a process's parent, group and start time,
//! and every descendant of a process (found by walking `/proc/*/stat` parent links, so it
//! includes descendants that left the process group or session with `setsid`).

/// What `/proc/<pid>/stat` says about a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub ppid: u32,
    pub pgrp: u32,
    /// Start time in clock ticks after boot: with the pid, identifies one process (pids are
    /// reused, start times are not).
    pub start: u64,
    /// `Z` for a zombie.
    pub state: char,
}

/// The stat line of `pid`, or `None` when the process is gone (or `/proc` is missing).
pub fn stat(pid: u32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// Parses a `/proc/<pid>/stat` line (the command name may hold spaces and parentheses: the
/// fields follow the last `)`).
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let (_, rest) = text.rsplit_once(')')?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // f[0] is field 3 (state); field n is f[n - 3]
    Some(ProcStat {
        state: f.first()?.chars().next()?,
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
    })
}

/// Every live (non-zombie) descendant of `root`, parents before their children.
pub fn descendants(root: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let all: Vec<(u32, ProcStat)> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        for (pid, st) in &all {
            if st.ppid == parent && !found.contains(pid) {
                found.push(*pid);
            }
        }
        i += 1;
    }
    found.remove(0);
    found.retain(|p| all.iter().any(|(q, st)| q == p && st.state != 'Z'));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_parentheses_in_the_name_parses() {
        let line = "42 (a (b) c) S 7 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 123456 1 1";
        let s = parse_stat(line).unwrap();
        assert_eq!((s.ppid, s.pgrp, s.start, s.state), (7, 42, 123456, 'S'));
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn this_process_has_a_start_time_and_a_child_is_its_descendant() {
        let me = std::process::id();
        assert!(stat(me).is_some_and(|s| s.start > 0));
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert!(descendants(me).contains(&child.id()));
        let _ = child.kill();
        let _ = child.wait();
        assert!(!descendants(me).contains(&child.id()));
    }
}
