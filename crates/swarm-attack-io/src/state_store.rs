//! The state store: `.swarm/state/<feature>.json`, read with exact errors and written
//! atomically, only when something changed. Callers hold the feature lock.

use crate::atomic::write_atomic;
use crate::core::state::FeatureState;
use crate::core::state_nulls::LoadedNulls;
use crate::file_error::FileError;
use crate::lock::FeatureLock;
use crate::state_writer::{self, Written};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The last state this process wrote (or read) for each state file, with the exact bytes
/// of the file then and where each task is in them. A load whose file still holds those
/// bytes returns that state without parsing (shared, not copied): `run` reads the state
/// under the lock twice per issue, each time the state it wrote itself a moment ago, and
/// parsing the whole file each time made every issue cost O(issues). Anything else that
/// changed the file (another process, a hand edit) changes the bytes, and the file is
/// parsed as always. A save re-serialises only the tasks that differ from the known
/// state's ([`crate::state_writer`]).
struct Known {
    written: Written,
    state: Arc<FeatureState>,
}

static KNOWN: std::sync::Mutex<Option<std::collections::HashMap<PathBuf, Known>>> =
    std::sync::Mutex::new(None);

fn remember(path: &Path, written: Written, state: Arc<FeatureState>) {
    if let Ok(mut known) = KNOWN.lock() {
        known
            .get_or_insert_with(Default::default)
            .insert(path.to_path_buf(), Known { written, state });
    }
}

fn known_state(path: &Path, bytes: &[u8]) -> Option<Arc<FeatureState>> {
    let known = KNOWN.lock().ok()?;
    let k = known.as_ref()?.get(path)?;
    (k.written.bytes == bytes).then(|| Arc::clone(&k.state))
}

/// Takes the known state of `path` out (a save replaces it; its bytes are reused).
fn take_known(path: &Path) -> Option<Known> {
    KNOWN.lock().ok()?.as_mut()?.remove(path)
}

/// What identifies the bytes of a state file: its length, modification time and a CRC-32
/// of its bytes. The git sync's cache names the state file it found in line with the
/// history (see [`crate::history`]); a file with another identity (a hand edit, a
/// write by another command) is synced again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StateId {
    pub len: u64,
    pub mtime_ns: i128,
    pub crc32: u32,
}

impl StateId {
    fn of(bytes: &[u8], meta: &std::fs::Metadata) -> StateId {
        use std::os::unix::fs::MetadataExt;
        StateId {
            len: bytes.len() as u64,
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            crc32: crc32fast::hash(bytes),
        }
    }

    /// The identity of the file at `path` now.
    pub fn of_file(path: &Path) -> Option<StateId> {
        let (bytes, meta) = read_with_meta(path).ok()?;
        Some(StateId::of(&bytes, &meta))
    }
}

fn read_with_meta(path: &Path) -> std::io::Result<(Vec<u8>, std::fs::Metadata)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    file.read_to_end(&mut bytes)?;
    Ok((bytes, meta))
}

/// Why a state file was not read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateStoreError {
    /// The state's path is a folder.
    #[error("the state file {} is a directory, not a file", .0.display())]
    IsDirectory(PathBuf),
    /// The file is not a state this tool can read (it is never touched then).
    #[error("{} is not a valid state file: {what} at line {line}, column {column}", path.display())]
    Invalid {
        path: PathBuf,
        /// What is wrong, naming the field when it is known.
        what: String,
        line: usize,
        column: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error(transparent)]
    File(#[from] FileError),
}

/// Loads a state file; `Ok(None)` when it does not exist. Invalid JSON is an error naming
/// file, line and column (the file is never touched).
pub fn load(path: &Path) -> Result<Option<FeatureState>, StateStoreError> {
    Ok(load_shared(path)?.map(|(state, _)| Arc::unwrap_or_clone(state)))
}

/// [`load`], with the identity of the bytes read; the state is shared with this process's
/// memory of the file (copy it to change it).
pub fn load_shared(path: &Path) -> Result<Option<(Arc<FeatureState>, StateId)>, StateStoreError> {
    let (bytes, id) = match read_with_meta(path) {
        Ok((b, meta)) => {
            let id = StateId::of(&b, &meta);
            (b, id)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) if path.is_dir() => {
            return Err(StateStoreError::IsDirectory(path.to_path_buf()));
        }
        Err(e) => return Err(FileError::new("read", path, e).into()),
    };
    if let Some(state) = known_state(path, &bytes) {
        return Ok(Some((state, id)));
    }
    let state: FeatureState = serde_json::from_slice(&bytes).map_err(|e| {
        let what = match e.is_data().then(|| locate_bad_field(&bytes)).flatten() {
            Some(Located::Shape(msg)) => msg,
            Some(Located::Field(place)) => format!("{place}: {}", strip_position(&e.to_string())),
            None => strip_position(&e.to_string()).to_string(),
        };
        StateStoreError::Invalid {
            path: path.to_path_buf(),
            what,
            line: e.line(),
            column: e.column(),
            source: e,
        }
    })?;
    let state = if plain_id(path) == Some(id) {
        // a file this tool wrote with no `null` loaded as a default: nothing to look for
        state
    } else {
        with_loaded_nulls(state, &bytes)
    };
    // remembered (shared, not copied) with no task places: the next save serialises
    // every task once
    let state = Arc::new(state);
    remember(
        path,
        Written {
            bytes,
            tasks: Vec::new(),
        },
        Arc::clone(&state),
    );
    Ok(Some((state, id)))
}

/// Records where the file had `null` for a field that loads as a default
/// (docs/state.md "Compatibility with the original tool"), so that [`to_bytes`] writes those keys
/// back as they were while untouched.
///
/// A file this tool wrote (the common case) serialises back to exactly its bytes, and then
/// no `null` loaded as a default: that check costs one serialisation, where finding the
/// keys costs parsing the file again into a tree and serialising the state into another.
fn with_loaded_nulls(mut state: FeatureState, bytes: &[u8]) -> FeatureState {
    if memchr::memmem::find(bytes, b"null").is_none() {
        return state;
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if serde_json::to_vec_pretty(&state).is_ok_and(|own| own == body) {
        return state;
    }
    if let (Ok(raw), Ok(loaded)) = (
        serde_json::from_slice::<serde_json::Value>(bytes),
        serde_json::to_value(&state),
    ) {
        state.loaded_nulls = LoadedNulls::find(&raw, &loaded);
    }
    state
}

enum Located {
    /// A whole value has the wrong shape (the message replaces serde's).
    Shape(String),
    /// The task and/or field where serde's message applies.
    Field(String),
}

/// For a state file that is valid JSON but has a wrong shape: which task and field is wrong
/// (e.g. "task 2, field `dependencies`"), found by checking each field on its own.
fn locate_bad_field(bytes: &[u8]) -> Option<Located> {
    use crate::core::state::Task;
    use serde_json::{Map, Value};
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(bytes) else {
        return Some(Located::Shape("the top level must be a JSON object".into()));
    };
    // Which key of `obj` fails when added alone to a minimal valid object `base`?
    fn bad_key<T: serde::de::DeserializeOwned>(
        obj: &Map<String, Value>,
        base: &Map<String, Value>,
    ) -> Option<String> {
        obj.iter().find_map(|(k, v)| {
            let mut probe = base.clone();
            probe.insert(k.clone(), v.clone());
            serde_json::from_value::<T>(Value::Object(probe))
                .is_err()
                .then(|| format!("field `{k}`"))
        })
    }
    if let Some(Value::Array(tasks)) = top.get("tasks") {
        let base: Map<String, Value> =
            serde_json::from_value(serde_json::json!({"issue_number": 1, "stage": "BACKLOG"}))
                .ok()?;
        for (i, task) in tasks.iter().enumerate() {
            if serde_json::from_value::<Task>(task.clone()).is_ok() {
                continue;
            }
            let name = match task.get("issue_number").and_then(Value::as_u64) {
                Some(n) => format!("task {n}"),
                None => format!("task at index {i}"),
            };
            let Value::Object(obj) = task else {
                return Some(Located::Shape(format!("{name} must be a JSON object")));
            };
            return Some(Located::Field(match bad_key::<Task>(obj, &base) {
                Some(field) => format!("{name}, {field}"),
                None => name,
            }));
        }
    }
    let base: Map<String, Value> =
        serde_json::from_value(serde_json::json!({"feature_id": "x", "phase": "NO_PRD"})).ok()?;
    bad_key::<FeatureState>(&top, &base).map(Located::Field)
}

fn strip_position(msg: &str) -> &str {
    msg.find(" at line ").map_or(msg, |i| &msg[..i])
}

/// Serialises a state the way it is stored (pretty JSON, trailing newline).
pub fn to_bytes(state: &FeatureState) -> Vec<u8> {
    stored(&mut state.clone(), None).0.bytes
}

/// The stored bytes of `state`, and the `null` keys a load of them finds (those still
/// holding their default): what [`load`] would make of the bytes. Only the tasks that
/// differ from `prev`'s are serialised again when no `null` is to be written back.
fn stored(state: &mut FeatureState, prev: Option<&Known>) -> (Written, LoadedNulls) {
    if state.loaded_nulls.is_empty() {
        let prev = prev.map(|k| (&*k.state, &k.written));
        return (state_writer::write(state, prev), LoadedNulls::default());
    }
    let loaded = serde_json::to_value(&*state).unwrap_or_default();
    let mut value = loaded.clone();
    state.loaded_nulls.restore(&mut value);
    let nulls = LoadedNulls::find(&value, &loaded);
    let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
    bytes.push(b'\n');
    let written = Written {
        bytes,
        tasks: Vec::new(),
    };
    (written, nulls)
}

/// The marker of a state file (`.swarm/state/<f>.json` → `.swarm/cache/state/<f>.json.plain`)
/// naming the one state file (by [`StateId`]) this tool wrote with no `null` loaded as a
/// default, so its next load skips looking for them. A stale or broken one names no file
/// that exists: the load then looks as always.
fn plain_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("state");
    let swarm = path
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    swarm
        .join("cache")
        .join("state")
        .join(format!("{name}.plain"))
}

fn plain_id(path: &Path) -> Option<StateId> {
    serde_json::from_slice(&std::fs::read(plain_path(path)).ok()?).ok()
}

/// Records (or forgets) that the file just written from `bytes` loads with no nulls.
fn record_plain(path: &Path, bytes: &[u8], plain: bool) {
    let marker = plain_path(path);
    let meta = std::fs::metadata(path).ok();
    // the bytes on disk are `bytes` unless secrets were masked: then the ids differ and
    // the marker names no file
    match meta.filter(|_| plain) {
        Some(meta) => {
            let id = StateId::of(bytes, &meta);
            // a cache: no fsync (a torn file names no state file)
            if let Some(dir) = marker.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&marker, serde_json::to_vec(&id).unwrap_or_default());
        }
        None => {
            let _ = std::fs::remove_file(&marker);
        }
    }
}

/// Writes `state` atomically and returns it as this process now knows the file. The lock
/// proves the caller holds the feature.
pub fn save(
    _lock: &FeatureLock,
    path: &Path,
    mut state: FeatureState,
) -> Result<Arc<FeatureState>, StateStoreError> {
    let prev = take_known(path);
    let (written, nulls) = stored(&mut state, prev.as_ref());
    drop(prev);
    write_atomic(path, &written.bytes).map_err(FileError::at("write", path))?;
    record_plain(path, &written.bytes, nulls.is_empty());
    state.loaded_nulls = nulls;
    let state = Arc::new(state);
    remember(path, written, Arc::clone(&state));
    Ok(state)
}

/// Writes `new` only when it differs from `old` (ignoring `updated_at`), stamping
/// `updated_at = now`. Returns whether it wrote, and the state.
pub fn save_if_changed(
    lock: &FeatureLock,
    path: &Path,
    old: Option<&FeatureState>,
    mut new: FeatureState,
    now: &str,
) -> Result<(bool, Arc<FeatureState>), StateStoreError> {
    if let Some(old) = old
        && !old.differs_from(&new)
    {
        return Ok((false, Arc::new(new)));
    }
    new.updated_at = now.to_string();
    Ok((true, save(lock, path, new)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// What a load in a fresh process (no remembered state) makes of the file.
    fn parsed(path: &Path) -> FeatureState {
        let bytes = std::fs::read(path).unwrap();
        with_loaded_nulls(serde_json::from_slice(&bytes).unwrap(), &bytes)
    }

    /// The lock of feature `f` in `dir`.
    fn lock_in(dir: &std::path::Path) -> FeatureLock {
        let ui = crate::ui::Ui::captured(Default::default());
        FeatureLock::acquire_named(&ui, &dir.join("f.lock"), "f", Duration::from_secs(5)).unwrap()
    }

    #[test]
    fn a_load_after_a_save_is_what_parsing_the_file_gives_and_sees_outside_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state/f.json");
        let lock = lock_in(tmp.path());
        // a file of the original tool: `null` where this tool loads defaults
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"feature_id": "f", "phase": "IMPLEMENTING", "cost_by_phase": null,
               "tasks": [{"issue_number": 1, "stage": "READY", "dependencies": null},
                         {"issue_number": 2, "stage": "READY", "dependencies": null}]}"#,
        )
        .unwrap();
        let mut s = load(&path).unwrap().unwrap();
        assert!(!s.loaded_nulls.is_empty());
        // one null key is changed, the others stay untouched
        s.tasks[0].dependencies = vec![2];
        save(&lock, &path, s.clone()).unwrap();
        let again = load(&path).unwrap().unwrap();
        assert_eq!(again, parsed(&path));
        assert_eq!(to_bytes(&again), std::fs::read(&path).unwrap());
        // the change went back to the default: written as a default, as a fresh load would
        let mut back = again.clone();
        back.tasks[0].dependencies.clear();
        let mut fresh = parsed(&path);
        fresh.tasks[0].dependencies.clear();
        assert_eq!(to_bytes(&back), to_bytes(&fresh));
        // another process (or a hand edit) changes the file: it is read again
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("IMPLEMENTING", "COMPLETE")).unwrap();
        let edited = load(&path).unwrap().unwrap();
        assert_eq!(edited, parsed(&path));
        assert_ne!(edited.phase, again.phase);
    }

    #[test]
    fn a_written_file_is_named_plain_and_a_hand_edit_is_looked_at_again() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state/f.json");
        let lock = lock_in(tmp.path());
        let mut s = FeatureState::new("f", "t");
        s.tasks.push(crate::core::state::Task::new(1, "a"));
        save(&lock, &path, s.clone()).unwrap();
        // the marker names exactly the file written
        assert_eq!(plain_id(&path), StateId::of_file(&path));
        assert!(plain_id(&path).is_some());
        let again = load(&path).unwrap().unwrap();
        assert!(again.loaded_nulls.is_empty());
        assert_eq!(to_bytes(&again), std::fs::read(&path).unwrap());
        // a hand edit puts a `null` where a default loads: found, and written back
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = text.replacen("\"dependencies\": []", "\"dependencies\": null", 1);
        assert_ne!(edited, text);
        std::fs::write(&path, &edited).unwrap();
        let hand = load(&path).unwrap().unwrap();
        assert!(!hand.loaded_nulls.is_empty());
        assert_eq!(to_bytes(&hand), edited.as_bytes());
        // saved with that null kept: no marker names the file
        save(&lock, &path, hand.clone()).unwrap();
        assert_eq!(plain_id(&path), None);
    }

    fn loaded(bytes: &[u8]) -> FeatureState {
        with_loaded_nulls(serde_json::from_slice(bytes).unwrap(), bytes)
    }

    #[test]
    fn a_file_this_tool_wrote_loads_with_no_nulls_to_restore_and_writes_back_the_same() {
        let hand = br#"{"feature_id": "f", "phase": "READY_TO_IMPLEMENT", "tasks": [
            {"issue_number": 1, "stage": "READY", "title": "a", "dependencies": null, "retries": null},
            {"issue_number": 2, "stage": "BACKLOG", "title": "b", "dependencies": [1]}]}"#;
        let state = loaded(hand);
        assert!(
            !state.loaded_nulls.is_empty(),
            "hand-written nulls are found"
        );
        let written = to_bytes(&state);
        let text = String::from_utf8(written.clone()).unwrap();
        assert!(text.contains("\"retries\": null"), "{text}");
        // our own file (nulls included) takes the text comparison, and finds the same
        let again = loaded(&written);
        assert_eq!(
            again.loaded_nulls.is_empty(),
            LoadedNulls::find(
                &serde_json::from_slice(&written).unwrap(),
                &serde_json::to_value(&again).unwrap()
            )
            .is_empty()
        );
        assert_eq!(to_bytes(&again), written);
        let plain = to_bytes(&serde_json::from_slice::<FeatureState>(hand).unwrap());
        let reloaded = loaded(&plain);
        assert!(reloaded.loaded_nulls.is_empty());
        assert_eq!(to_bytes(&reloaded), plain);
    }
}
