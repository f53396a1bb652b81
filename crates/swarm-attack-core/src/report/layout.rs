//! Placement on the timeline: worker lanes for attempts, rows for the runs of one issue
//! (runs that overlap in time — the two agents of a PARALLEL or SYNTHESIS attempt — go on
//! rows side by side; runs in sequence — retries — share a row), and the dependency graph's
//! layers.

use super::{IssueReport, LaneSpan};
use std::collections::BTreeMap;

/// Puts each item (start, end) on the first row free at its start (items sorted by start).
/// Returns the row of each item, in input order, and the number of rows.
pub fn pack(spans: &[(u64, u64)]) -> (Vec<u32>, u32) {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].0, spans[i].1));
    let mut ends: Vec<u64> = Vec::new();
    let mut rows = vec![0u32; spans.len()];
    for i in order {
        let (start, end) = spans[i];
        let row = match ends.iter().position(|e| *e <= start) {
            Some(r) => r,
            None => {
                ends.push(0);
                ends.len() - 1
            }
        };
        ends[row] = end.max(start + 1);
        rows[i] = row as u32;
    }
    (rows, ends.len() as u32)
}

/// Lanes drawn one by one; attempts on later lanes share the last drawn row.
pub const MAX_LANES: u32 = 32;

/// Every attempt kept in detail on a worker lane (folded attempts have no lane: they span
/// a whole range of an issue's history). Returns the spans and the number of lanes.
pub fn worker_lanes(issues: &[IssueReport], max_ms: u64) -> (Vec<LaneSpan>, u32) {
    let mut spans = Vec::new();
    for i in issues {
        for a in &i.attempts {
            spans.push(LaneSpan {
                lane: 0,
                issue: i.issue,
                attempt: a.attempt,
                start_ms: a.start_ms,
                end_ms: a.end_ms.unwrap_or(max_ms).max(a.start_ms),
                outcome: a.outcome,
            });
        }
    }
    spans.sort_by_key(|s| (s.start_ms, s.end_ms, s.issue));
    let ranges: Vec<(u64, u64)> = spans.iter().map(|s| (s.start_ms, s.end_ms)).collect();
    let (rows, count) = pack(&ranges);
    for (s, r) in spans.iter_mut().zip(rows) {
        s.lane = r;
    }
    (spans, count)
}

/// The layer of each issue in the dependency graph: 0 for issues without (known)
/// dependencies, else one more than the deepest dependency. Cycles are cut.
pub fn layers(issues: &[IssueReport]) -> BTreeMap<u64, u32> {
    let deps: BTreeMap<u64, &[u64]> = issues
        .iter()
        .map(|i| (i.issue, i.dependencies.as_slice()))
        .collect();
    let mut memo: BTreeMap<u64, u32> = BTreeMap::new();
    for &n in deps.keys() {
        layer_of(n, &deps, &mut memo, &mut Vec::new());
    }
    memo
}

fn layer_of(
    n: u64,
    deps: &BTreeMap<u64, &[u64]>,
    memo: &mut BTreeMap<u64, u32>,
    path: &mut Vec<u64>,
) -> u32 {
    if let Some(l) = memo.get(&n) {
        return *l;
    }
    if path.contains(&n) || path.len() > 500 {
        return 0;
    }
    path.push(n);
    let mut layer = 0;
    for d in deps.get(&n).copied().unwrap_or(&[]) {
        if deps.contains_key(d) {
            layer = layer.max(layer_of(*d, deps, memo, path) + 1);
        }
    }
    path.pop();
    memo.insert(n, layer);
    layer
}
