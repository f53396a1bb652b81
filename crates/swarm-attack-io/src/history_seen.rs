//! The set of commits a feature's scan has read, kept next to its history cache
//! (`<feature>.seen`), so an incremental scan can stop exactly where the history it already
//! knows begins, whatever the commit dates say.
//!
//! Layout: a 32-byte header (`SWSEEN01`, id width, a token the JSON cache names, the number
//! of sorted ids), the sorted ids, then ids appended by incremental scans in any order. The
//! JSON cache records the token and how many ids are valid, so ids appended by a sync whose
//! cache was never written are ignored (and cut off by the next append). A lookup is a
//! binary search with positioned reads: the sorted part is never loaded whole.

use gix::hash::ObjectId;
use std::collections::HashSet;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

const MAGIC: &[u8; 8] = b"SWSEEN01";
const HEADER: u64 = 32;

/// What a sync adds to the seen set when its cache is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeenUpdate {
    /// A full scan: these ids replace the file.
    Replace(Vec<ObjectId>),
    /// An incremental scan: these ids follow the `base` valid ones.
    Append { base: u64, ids: Vec<ObjectId> },
}

/// The seen set of a cache, opened for lookups.
pub struct SeenSet {
    file: File,
    width: usize,
    sorted: u64,
    tail: HashSet<ObjectId>,
    buf: Vec<u8>,
}

fn header(width: usize, token: u64, sorted: u64) -> [u8; HEADER as usize] {
    let mut h = [0u8; HEADER as usize];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&(width as u32).to_le_bytes());
    h[16..24].copy_from_slice(&token.to_le_bytes());
    h[24..32].copy_from_slice(&sorted.to_le_bytes());
    h
}

impl SeenSet {
    /// Opens the seen file written with `token` holding `count` valid ids; `None` when it
    /// is missing or does not match (the caller then scans everything).
    pub fn open(path: &Path, token: u64, count: u64) -> Option<SeenSet> {
        let file = File::open(path).ok()?;
        let mut h = [0u8; HEADER as usize];
        file.read_exact_at(&mut h, 0).ok()?;
        let width = u32::from_le_bytes(h[8..12].try_into().ok()?) as usize;
        let file_token = u64::from_le_bytes(h[16..24].try_into().ok()?);
        let sorted = u64::from_le_bytes(h[24..32].try_into().ok()?);
        if &h[..8] != MAGIC || file_token != token || !(20..=64).contains(&width) || sorted > count
        {
            return None;
        }
        let len = file.metadata().ok()?.len();
        if len < HEADER + count * width as u64 {
            return None;
        }
        let mut raw = vec![0u8; ((count - sorted) * width as u64) as usize];
        file.read_exact_at(&mut raw, HEADER + sorted * width as u64)
            .ok()?;
        let tail = raw
            .chunks_exact(width)
            .map(|c| ObjectId::try_from(c).ok())
            .collect::<Option<HashSet<_>>>()?;
        Some(SeenSet {
            file,
            width,
            sorted,
            tail,
            buf: vec![0u8; width],
        })
    }

    /// Whether `id` was read by an earlier scan.
    pub fn contains(&mut self, id: &ObjectId) -> bool {
        if self.tail.contains(id) {
            return true;
        }
        let want = id.as_slice();
        if want.len() != self.width {
            return false;
        }
        let (mut lo, mut hi) = (0u64, self.sorted);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self
                .file
                .read_exact_at(&mut self.buf, HEADER + mid * self.width as u64)
                .is_err()
            {
                return false;
            }
            match self.buf.as_slice().cmp(want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

/// A token for a new seen file (differs between writes, so a cache never names a file it
/// was not written with).
pub fn new_token() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    nanos ^ (u64::from(std::process::id()) << 32) ^ 0x9e37_79b9_7f4a_7c15
}

/// Writes a sorted seen file with all `ids` atomically.
fn write_sorted(path: &Path, token: u64, mut ids: Vec<ObjectId>) -> std::io::Result<()> {
    ids.sort_unstable();
    ids.dedup();
    let width = ids.first().map_or(20, |id| id.as_slice().len());
    let mut bytes = Vec::with_capacity(HEADER as usize + ids.len() * width);
    bytes.extend_from_slice(&header(width, token, ids.len() as u64));
    for id in &ids {
        bytes.extend_from_slice(id.as_slice());
    }
    crate::atomic::write_atomic(path, &bytes)
}

/// Applies `update` to the seen file at `path`; returns the (token, valid id count) the
/// JSON cache must name. `token` is the one the cache currently names (for an append).
pub fn apply(path: &Path, token: u64, update: &SeenUpdate) -> std::io::Result<(u64, u64)> {
    match update {
        SeenUpdate::Replace(ids) => {
            let token = new_token();
            let mut ids = ids.clone();
            ids.sort_unstable();
            ids.dedup();
            let n = ids.len() as u64;
            write_sorted(path, token, ids)?;
            Ok((token, n))
        }
        SeenUpdate::Append { base, ids } => {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)?;
            let mut h = [0u8; HEADER as usize];
            file.read_exact_at(&mut h, 0)?;
            let width = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes")) as usize;
            let sorted = u64::from_le_bytes(h[24..32].try_into().expect("8 bytes"));
            let tail = base - sorted.min(*base) + ids.len() as u64;
            if tail > 4096 + sorted / 64 {
                // compact: one sorted file again, under a new token
                let mut raw = vec![0u8; (*base * width as u64) as usize];
                file.read_exact_at(&mut raw, HEADER)?;
                let mut all: Vec<ObjectId> = raw
                    .chunks_exact(width)
                    .filter_map(|c| ObjectId::try_from(c).ok())
                    .collect();
                all.extend(ids.iter().copied());
                return apply(path, token, &SeenUpdate::Replace(all));
            }
            // cut what a sync whose cache was never written appended, then append
            file.set_len(HEADER + base * width as u64)?;
            let mut bytes = Vec::with_capacity(ids.len() * width);
            for id in ids {
                bytes.extend_from_slice(id.as_slice());
            }
            file.write_all_at(&bytes, HEADER + base * width as u64)?;
            file.sync_data()?;
            Ok((token, base + ids.len() as u64))
        }
    }
}
