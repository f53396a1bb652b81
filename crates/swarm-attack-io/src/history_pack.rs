//! The full history scan read straight from the pack files (the cold path of
//! [`crate::history`]).
//!
//! Every commit entry of every pack (`objects/pack/*.idx` with its `.pack`) is inflated on
//! all cores with libdeflate, in one call per entry with its size known from the entry
//! header; each worker keeps only the commit's parents and what the caller's `examine`
//! finds in it. The walk from the tips then runs in memory, in exactly the order of gix's
//! breadth-first walk (`gix::traverse::commit::Simple`: tips in order, then each commit's
//! parents in order, each commit once), so the result is the one that walk gives.
//!
//! Commits the packs do not hold as plain entries (loose objects, alternates, commits stored
//! as deltas) are read through gix when the walk meets them. The reader declines (returns
//! `None`, and the caller walks with gix) when its result could differ from gix's walk or
//! it meets anything it does not expect: a shallow clone, replace refs, no pack, a missing
//! commit, an entry that does not inflate to its size, a commit it cannot parse.

use gix::hash::{ObjectId, oid};
use gix::odb::pack;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The pack entry type of a commit stored whole (not as a delta).
const OBJ_COMMIT: u8 = 1;
/// Index entries handed to a worker at a time.
const CHUNK: u32 = 16 * 1024;
/// A commit larger than this is left to gix (it is read when the walk meets it).
const MAX_COMMIT: u64 = 16 << 20;

/// What a walk read, in the order gix's breadth-first walk gives.
pub struct PackWalk<T> {
    /// Every commit reached from the tips, in walk order.
    pub ids: Vec<ObjectId>,
    /// What `examine` returned for them, in walk order.
    pub found: Vec<T>,
}

/// The type, inflated size and header length of the pack entry at the start of `data`.
fn entry_header(data: &[u8]) -> Option<(u8, u64, usize)> {
    let mut byte = *data.first()?;
    let kind = (byte >> 4) & 7;
    let mut size = u64::from(byte & 0x0f);
    let mut shift = 4;
    let mut len = 1;
    while byte & 0x80 != 0 {
        byte = *data.get(len)?;
        len += 1;
        if shift > 57 {
            return None;
        }
        size |= u64::from(byte & 0x7f) << shift;
        shift += 7;
    }
    Some((kind, size, len))
}

/// Appends the parents of the raw commit `data` (the `parent` lines after `tree`) to `out`.
fn parse_parents(data: &[u8], hex_len: usize, out: &mut Vec<ObjectId>) -> Option<()> {
    let rest = data.strip_prefix(b"tree ")?;
    if rest.get(hex_len) != Some(&b'\n') {
        return None;
    }
    let mut rest = &rest[hex_len + 1..];
    while let Some(line) = rest.strip_prefix(b"parent ") {
        if line.get(hex_len) != Some(&b'\n') {
            return None;
        }
        out.push(ObjectId::from_hex(&line[..hex_len]).ok()?);
        rest = &line[hex_len + 1..];
    }
    Some(())
}

/// One pack with its index.
struct Pack {
    index: pack::index::File,
    data: pack::data::File,
}

/// The packs of the object directory `objects` whose index names their data file.
fn open_packs(objects: &Path, hash: gix::hash::Kind) -> Option<Vec<Pack>> {
    let mut packs = Vec::new();
    for entry in std::fs::read_dir(objects.join("pack")).ok()? {
        let path = entry.ok()?.path();
        if path.extension().is_none_or(|e| e != "idx") {
            continue;
        }
        let (Ok(index), Ok(data)) = (
            pack::index::File::at(&path, hash),
            pack::data::File::at(path.with_extension("pack"), hash),
        ) else {
            continue; // its objects are read through gix if the walk needs them
        };
        if index.pack_checksum() == data.checksum() && index.num_objects() == data.num_objects() {
            packs.push(Pack { index, data });
        }
    }
    packs.sort_by(|a, b| a.index.path().cmp(b.index.path()));
    Some(packs)
}

/// The commits read so far: ids, parents (flat, `parent_end[i]` ends commit `i`'s), and
/// what `examine` found, by commit.
struct Commits<T> {
    ids: Vec<ObjectId>,
    parent_end: Vec<u32>,
    parents: Vec<ObjectId>,
    found: Vec<(u32, T)>,
}

impl<T> Commits<T> {
    fn new() -> Self {
        Commits {
            ids: Vec::new(),
            parent_end: Vec::new(),
            parents: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Adds one commit from its raw data; `None` when it cannot be parsed.
    fn push(
        &mut self,
        id: ObjectId,
        data: &[u8],
        hex_len: usize,
        examine: &(impl Fn(&oid, &[u8]) -> Option<T> + Sync),
    ) -> Option<u32> {
        let slot = u32::try_from(self.ids.len()).ok()?;
        parse_parents(data, hex_len, &mut self.parents)?;
        self.ids.push(id);
        self.parent_end
            .push(u32::try_from(self.parents.len()).ok()?);
        if let Some(t) = examine(&id, data) {
            self.found.push((slot, t));
        }
        Some(slot)
    }

    fn parents_of(&self, slot: u32) -> &[ObjectId] {
        let slot = slot as usize;
        let start = if slot == 0 {
            0
        } else {
            self.parent_end[slot - 1] as usize
        };
        &self.parents[start..self.parent_end[slot] as usize]
    }

    /// Appends `other`'s commits after these.
    fn append(&mut self, other: Commits<T>) -> Option<()> {
        let base = u32::try_from(self.ids.len()).ok()?;
        let parent_base = u32::try_from(self.parents.len()).ok()?;
        self.ids.extend(other.ids);
        self.parents.extend(other.parents);
        self.parent_end
            .extend(other.parent_end.into_iter().map(|e| e + parent_base));
        self.found
            .extend(other.found.into_iter().map(|(slot, t)| (slot + base, t)));
        Some(())
    }
}

/// Reads the commits stored whole in index entries `range` of `pack`.
fn read_range<T>(
    pack: &Pack,
    range: std::ops::Range<u32>,
    hex_len: usize,
    examine: &(impl Fn(&oid, &[u8]) -> Option<T> + Sync),
    inflater: &mut libdeflater::Decompressor,
    buf: &mut Vec<u8>,
) -> Option<Commits<T>> {
    let bytes = pack.data.entry_slice(0..pack.data.pack_end() as u64)?;
    let mut out = Commits::new();
    for i in range {
        let offset = usize::try_from(pack.index.pack_offset_at_index(i)).ok()?;
        let (kind, size, header) = entry_header(bytes.get(offset..)?)?;
        if kind != OBJ_COMMIT || size > MAX_COMMIT {
            continue;
        }
        buf.resize(size as usize, 0);
        match inflater.zlib_decompress(bytes.get(offset + header..)?, buf) {
            Ok(n) if n == buf.len() => {}
            _ => return None,
        }
        out.push(pack.index.oid_at_index(i).to_owned(), buf, hex_len, examine)?;
    }
    Some(out)
}

/// Reads every commit stored whole in `packs`, on up to `threads` threads.
fn read_packs<T: Send>(
    packs: &[Pack],
    hex_len: usize,
    threads: usize,
    examine: &(impl Fn(&oid, &[u8]) -> Option<T> + Sync),
) -> Option<Commits<T>> {
    let items: Vec<(usize, std::ops::Range<u32>)> = packs
        .iter()
        .enumerate()
        .flat_map(|(p, pack)| {
            let n = pack.index.num_objects();
            (0..n.div_ceil(CHUNK)).map(move |c| (p, c * CHUNK..n.min((c + 1) * CHUNK)))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let work = || -> Option<Vec<(usize, Commits<T>)>> {
        let mut inflater = libdeflater::Decompressor::new();
        let mut buf = Vec::new();
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some((p, range)) = items.get(k) else {
                return Some(done);
            };
            let commits = read_range(
                &packs[*p],
                range.clone(),
                hex_len,
                examine,
                &mut inflater,
                &mut buf,
            );
            done.push((k, commits?));
        }
    };
    let threads = threads.clamp(1, items.len().max(1));
    let mut parts: Vec<(usize, Commits<T>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in handles {
            match (h.join().ok().flatten(), all.as_mut()) {
                (Some(part), Some(all)) => all.extend(part),
                _ => all = None,
            }
        }
        all
    })?;
    parts.sort_by_key(|(k, _)| *k);
    let mut commits = Commits::new();
    for (_, part) in parts {
        commits.append(part)?;
    }
    Some(commits)
}

/// Walks everything `tips` reach (all parents), reading the commits from the packs of
/// `repo`; `None` when this reader does not apply (see the module documentation).
pub fn walk<T: Send>(
    repo: &gix::Repository,
    tips: &[ObjectId],
    examine: impl Fn(&oid, &[u8]) -> Option<T> + Sync,
) -> Option<PackWalk<T>> {
    let store = repo.objects.store_ref();
    if tips.is_empty() || repo.is_shallow().unwrap_or(true) || store.replacements().next().is_some()
    {
        return None;
    }
    let packs = open_packs(store.path(), repo.object_hash())?;
    if packs.is_empty() {
        return None;
    }
    let hex_len = repo.object_hash().len_in_hex();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let mut commits = read_packs(&packs, hex_len, threads, &examine)?;
    drop(packs);

    let mut slots: gix::hashtable::HashMap<ObjectId, u32> =
        gix::hashtable::HashMap::with_capacity_and_hasher(commits.ids.len(), Default::default());
    for (slot, id) in commits.ids.iter().enumerate() {
        slots.entry(*id).or_insert(slot as u32);
    }
    let mut buf = Vec::new();
    // the slot of `id`, reading it through gix when the packs did not hold it whole
    let mut slot_of = |id: ObjectId, commits: &mut Commits<T>| -> Option<u32> {
        if let Some(slot) = slots.get(&id) {
            return Some(*slot);
        }
        let data = gix::objs::Find::try_find(&repo.objects, &id, &mut buf).ok()??;
        if data.kind != gix::objs::Kind::Commit {
            return None;
        }
        let slot = commits.push(id, data.data, hex_len, &examine)?;
        slots.insert(id, slot);
        Some(slot)
    };

    let mut visited = vec![false; commits.ids.len()];
    let mut queue: VecDeque<u32> = VecDeque::new();
    let mut order: Vec<u32> = Vec::with_capacity(commits.ids.len());
    let visit = |slot: u32, visited: &mut Vec<bool>, queue: &mut VecDeque<u32>| {
        let slot_index = slot as usize;
        if slot_index >= visited.len() {
            visited.resize(slot_index + 1, false);
        }
        if !visited[slot_index] {
            visited[slot_index] = true;
            queue.push_back(slot);
        }
    };
    for tip in tips {
        let slot = slot_of(*tip, &mut commits)?;
        visit(slot, &mut visited, &mut queue);
    }
    let mut parents: Vec<ObjectId> = Vec::new();
    while let Some(slot) = queue.pop_front() {
        order.push(slot);
        parents.clear();
        parents.extend_from_slice(commits.parents_of(slot));
        for parent in &parents {
            let p = slot_of(*parent, &mut commits)?;
            visit(p, &mut visited, &mut queue);
        }
    }

    let mut rank = vec![u32::MAX; commits.ids.len()];
    for (r, slot) in order.iter().enumerate() {
        rank[*slot as usize] = r as u32;
    }
    let mut found: Vec<(u32, T)> = commits
        .found
        .into_iter()
        .filter_map(|(slot, t)| Some((rank[slot as usize], t)).filter(|(r, _)| *r != u32::MAX))
        .collect();
    found.sort_by_key(|(r, _)| *r);
    Some(PackWalk {
        ids: order.iter().map(|s| commits.ids[*s as usize]).collect(),
        found: found.into_iter().map(|(_, t)| t).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_headers_give_type_size_and_length() {
        // commit, size 5: one byte
        assert_eq!(entry_header(&[0x15, 0xff]), Some((1, 5, 1)));
        // tree, size 0x1f3 = 3 + (0x1f << 4): two bytes
        assert_eq!(entry_header(&[0xa3, 0x1f]), Some((2, 0x1f3, 2)));
        // ofs-delta, three bytes: 0xf + (0x7f << 4) + (0x01 << 11)
        assert_eq!(
            entry_header(&[0xef, 0xff, 0x01]),
            Some((6, 0xf + (0x7f << 4) + (1 << 11), 3))
        );
        // a size that never ends, or nothing at all
        assert_eq!(entry_header(&[0x9f, 0x80]), None);
        assert_eq!(entry_header(&[]), None);
        assert_eq!(entry_header(&[0x9f; 12]), None);
    }

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    fn parents(data: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        parse_parents(data.as_bytes(), 40, &mut out)?;
        Some(out.iter().map(|id| id.to_string()).collect())
    }

    #[test]
    fn parents_are_the_parent_lines_after_the_tree_in_order() {
        let root = format!("tree {A}\nauthor a <a> 1 +0000\n\nmsg\nparent {B}\n");
        assert_eq!(parents(&root), Some(vec![]));
        let merge = format!("tree {A}\nparent {B}\nparent {A}\nauthor a <a> 1 +0000\n\nm");
        assert_eq!(parents(&merge), Some(vec![B.to_string(), A.to_string()]));
        // not a commit, or a damaged one: declined
        assert_eq!(parents(&format!("parent {B}\n")), None);
        assert_eq!(parents(&format!("tree {A}\nparent 12345\n")), None);
        assert_eq!(parents(&format!("tree {A}x")), None);
        assert_eq!(
            parents(&format!("tree {A}\nparent {}\n", "z".repeat(40))),
            None
        );
    }
}
