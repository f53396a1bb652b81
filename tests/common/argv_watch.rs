//! The processes of one test, marked by `SWARM_TEST_MARK=<mark>` in their environment
//! (`procs::unique_marker`), and a watch on their argvs while a run goes on: a prompt must
//! reach an agent on stdin, never in its argv.

use super::procs::is_live;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Live processes whose environment holds `SWARM_TEST_MARK=<mark>`, with their argv. A
/// process's environment is read once (`known` remembers it): reading it locks the target's
/// memory map, and reading every process's every few milliseconds slowed the CLIs to a
/// crawl.
pub fn marked_in(
    mark: &str,
    known: &mut std::collections::HashMap<u32, bool>,
) -> Vec<(u32, String)> {
    let needle = format!("SWARM_TEST_MARK={mark}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let pids: Vec<u32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .collect();
    known.retain(|pid, _| pids.contains(pid));
    pids.into_iter()
        .filter(|pid| {
            *known.entry(*pid).or_insert_with(|| {
                std::fs::read(format!("/proc/{pid}/environ"))
                    .unwrap_or_default()
                    .split(|b| *b == 0)
                    .any(|kv| kv == needle.as_bytes())
            })
        })
        .filter(|pid| is_live(*pid))
        .map(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            (pid, String::from_utf8_lossy(&cmd).replace('\0', " "))
        })
        .collect()
}

pub fn marked(mark: &str) -> Vec<(u32, String)> {
    marked_in(mark, &mut Default::default())
}

/// The processes seen, and the argvs that carried an issue's text.
type Seen = (std::collections::BTreeSet<u32>, Vec<String>);

/// Watches, while a run goes on, the argv of every process of the test (marked by its
/// environment): how many it saw, and those whose argv carries a needle (a prompt's text).
pub struct ArgvWatch {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ArgvWatch {
    /// Watches the processes marked `mark` for argvs holding `needle`.
    pub fn start(mark: &str, needle: &str) -> ArgvWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let (st, se, mark, needle) = (
            stop.clone(),
            seen.clone(),
            mark.to_string(),
            needle.to_string(),
        );
        let thread = std::thread::spawn(move || {
            let mut known = Default::default();
            while !st.load(Ordering::Relaxed) {
                for (pid, argv) in marked_in(&mark, &mut known) {
                    let mut s = se.lock().unwrap();
                    s.0.insert(pid);
                    if argv.contains(&needle) && !s.1.contains(&argv) {
                        s.1.push(argv);
                    }
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        ArgvWatch {
            stop,
            seen,
            thread: Some(thread),
        }
    }

    /// (processes seen, argvs carrying the prompt).
    pub fn finish(mut self) -> (usize, Vec<String>) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        let s = self.seen.lock().unwrap();
        (s.0.len(), s.1.clone())
    }
}
