//! The stored bytes of a feature state (pretty JSON, trailing newline) built from the bytes
//! written before: only the tasks that differ from the previous state's task at the same
//! place are serialised again. `run` writes the state twice per issue, and serialising every
//! task each time made an issue cost O(issues); the bytes are exactly what
//! `serde_json::to_vec_pretty` of the whole state gives (tested below, after random edits).

use crate::core::state::FeatureState;
use std::ops::Range;

/// A state's stored bytes and where each task's object is in them.
#[derive(Debug, Clone, Default)]
pub struct Written {
    pub bytes: Vec<u8>,
    /// One range per task, in order; empty when unknown (then nothing is reused).
    pub tasks: Vec<Range<usize>>,
}

/// The top-level `tasks` key of the state with its tasks taken out. A JSON string never
/// holds a raw newline, and only top-level keys are indented by two spaces, so this is the
/// field itself, never text inside a value.
const EMPTY_TASKS: &[u8] = b"\n  \"tasks\": []";

/// The stored bytes of `state` (its `loaded_nulls` must be empty: those states go through
/// a JSON tree), reusing the bytes of each task equal to the task at the same index of
/// `prev`, whose stored bytes are `written`. `state` is only borrowed mutably to serialise
/// its fields without its tasks; it is left as it was.
pub fn write(state: &mut FeatureState, prev: Option<(&FeatureState, &Written)>) -> Written {
    let tasks = std::mem::take(&mut state.tasks);
    let head = serde_json::to_vec_pretty(&*state);
    state.tasks = tasks;
    let head = head.unwrap_or_default();
    let Some(at) = memchr::memmem::find(&head, EMPTY_TASKS) else {
        let mut bytes = serde_json::to_vec_pretty(&*state).unwrap_or_default();
        bytes.push(b'\n');
        return Written {
            bytes,
            tasks: Vec::new(),
        };
    };
    let split = at + EMPTY_TASKS.len() - 2;
    let capacity = prev.map_or(head.len(), |(_, w)| w.bytes.len()) + 64;
    let mut out = Vec::with_capacity(capacity);
    out.extend_from_slice(&head[..split]);
    let mut ranges = Vec::with_capacity(state.tasks.len());
    if state.tasks.is_empty() {
        out.extend_from_slice(b"[]");
    } else {
        out.push(b'[');
        for (i, task) in state.tasks.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
            let start = out.len();
            let same = prev.and_then(|(p, w)| {
                let range = w.tasks.get(i)?;
                (p.tasks.len() == w.tasks.len() && p.tasks.get(i) == Some(task))
                    .then(|| &w.bytes[range.clone()])
            });
            match same {
                Some(bytes) => out.extend_from_slice(bytes),
                None => {
                    // pretty JSON of the task alone, every line indented two levels more
                    let own = serde_json::to_vec_pretty(task).unwrap_or_default();
                    for line in own.split_inclusive(|b| *b == b'\n') {
                        out.extend_from_slice(line);
                        if line.ends_with(b"\n") {
                            out.extend_from_slice(b"    ");
                        }
                    }
                }
            }
            ranges.push(start..out.len());
        }
        out.extend_from_slice(b"\n  ]");
    }
    out.extend_from_slice(&head[split + 2..]);
    out.push(b'\n');
    Written {
        bytes: out,
        tasks: ranges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::state::{EvidenceRecord, Task};
    use proptest::prelude::*;

    fn full(state: &FeatureState) -> Vec<u8> {
        let mut b = serde_json::to_vec_pretty(state).unwrap();
        b.push(b'\n');
        b
    }

    fn task(n: u32, text: &str) -> Task {
        let mut t = Task::new(n, text);
        t.body = Some(format!("line one\nline \"two\" {text}\t\u{e9}"));
        t.outputs
            .extra
            .insert("tasks".into(), serde_json::json!({"k": [1, 2]}));
        t.extra
            .insert("custom".into(), serde_json::json!(["\n  \"tasks\": []"]));
        t
    }

    /// One edit of a state: what `run`, `greenlight` and the sync do to it.
    #[derive(Debug, Clone)]
    enum Edit {
        Progress(usize, u8),
        Evidence(usize, String),
        Push(String),
        Remove(usize),
        Swap(usize, usize),
        Phase,
        Extra(String),
        Nothing,
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (0usize..40, 0u8..4).prop_map(|(i, s)| Edit::Progress(i, s)),
            (0usize..40, "[a-z\"\\\\\n ]{0,12}").prop_map(|(i, s)| Edit::Evidence(i, s)),
            "[a-z\n\"]{0,8}".prop_map(Edit::Push),
            (0usize..40).prop_map(Edit::Remove),
            (0usize..40, 0usize..40).prop_map(|(a, b)| Edit::Swap(a, b)),
            Just(Edit::Phase),
            "[a-z]{1,6}".prop_map(Edit::Extra),
            Just(Edit::Nothing),
        ]
    }

    fn apply(state: &mut FeatureState, e: &Edit) {
        let n = state.tasks.len();
        match e.clone() {
            Edit::Progress(i, s) if n > 0 => {
                // (stages change only through the core's transitions: a commit and a
                // retry stand in for what a stage change does to the bytes)
                let t = &mut state.tasks[i % n];
                t.retries += u32::from(s);
                t.commit = (s % 2 == 1).then(|| format!("c{s}"));
            }
            Edit::Evidence(i, d) if n > 0 => state.tasks[i % n].evidence.push(EvidenceRecord {
                source: "subject".into(),
                commit: Some("abc".into()),
                detail: Some(d),
            }),
            Edit::Push(t) => {
                let next = state
                    .tasks
                    .iter()
                    .map(|t| t.issue_number)
                    .max()
                    .unwrap_or(0)
                    + 1;
                state.tasks.push(task(next, &t));
            }
            Edit::Remove(i) if n > 0 => {
                state.tasks.remove(i % n);
            }
            Edit::Swap(a, b) if n > 0 => state.tasks.swap(a % n, b % n),
            Edit::Phase => state.updated_at.push('x'),
            Edit::Extra(k) => {
                state.extra.insert(k, serde_json::json!({"tasks": []}));
            }
            _ => {}
        }
    }

    #[test]
    fn an_empty_state_and_one_task_are_written_as_the_full_writer_writes_them() {
        let mut s = FeatureState::new("f", "t");
        assert_eq!(write(&mut s, None).bytes, full(&s));
        s.tasks.push(task(1, "a"));
        let w = write(&mut s, None);
        assert_eq!(w.bytes, full(&s));
        let again = write(&mut s.clone(), Some((&s, &w)));
        assert_eq!(again.bytes, full(&s));
        assert_eq!(again.tasks, w.tasks);
        // an unchanged task's bytes are taken from what was written, not serialised again
        let fake = Written {
            bytes: b"{}".to_vec(),
            tasks: std::iter::once(0..2).collect(),
        };
        let reused = write(&mut s.clone(), Some((&s, &fake)));
        assert!(
            memchr::memmem::find(&reused.bytes, b"[\n    {}\n  ]").is_some(),
            "{}",
            String::from_utf8_lossy(&reused.bytes)
        );
    }

    proptest! {
        #[test]
        fn the_bytes_equal_the_full_writers_after_random_edits(
            start in 0usize..12,
            rounds in proptest::collection::vec(proptest::collection::vec(edit(), 0..5), 1..8),
        ) {
            let mut state = FeatureState::new("f", "t");
            for i in 0..start {
                state.tasks.push(task(i as u32 + 1, &format!("t{i}")));
            }
            let mut prev = state.clone();
            let mut written = write(&mut state, None);
            prop_assert_eq!(&written.bytes, &full(&state));
            for edits in rounds {
                for e in &edits {
                    apply(&mut state, e);
                }
                let next = write(&mut state, Some((&prev, &written)));
                let want = full(&state);
                prop_assert_eq!(
                    String::from_utf8_lossy(&next.bytes),
                    String::from_utf8_lossy(&want)
                );
                prop_assert_eq!(next.tasks.len(), state.tasks.len());
                prev = state.clone();
                written = next;
            }
        }
    }
}
