//! Every adapter error's kind and hint, and the causes `-v` shows.

use super::*;
use crate::io::github::errors::FailureKind;
use std::io;
use std::path::PathBuf;

fn os(kind: io::ErrorKind) -> io::Error {
    io::Error::new(kind, "the OS said no")
}

fn json_error() -> serde_json::Error {
    serde_json::from_str::<serde_json::Value>("{").unwrap_err()
}

/// (error, kind, whether it has a hint): every adapter error variant's exit code is
/// decided here, and only here.
fn table() -> Vec<(CommandError, ErrorKind, bool)> {
    let file = || FileError::new("read", &PathBuf::from("x"), os(io::ErrorKind::Other));
    let shown = || "f".to_string();
    vec![
        (file().into(), ErrorKind::Internal, false),
        (LockError::File(file()).into(), ErrorKind::Internal, false),
        (
            LockError::Held {
                feature: "auth".into(),
                holder: "pid 1".into(),
                waited_secs: 3,
                path: "l".into(),
            }
            .into(),
            ErrorKind::Locked,
            true,
        ),
        (
            ConfigError::Missing {
                shown: shown(),
                source: os(io::ErrorKind::NotFound),
            }
            .into(),
            ErrorKind::Input,
            true,
        ),
        (
            ConfigError::NotUtf8 {
                shown: shown(),
                source: os(io::ErrorKind::InvalidData),
            }
            .into(),
            ErrorKind::Input,
            false,
        ),
        (
            ConfigError::Unreadable {
                shown: shown(),
                source: os(io::ErrorKind::Other),
            }
            .into(),
            ErrorKind::Input,
            false,
        ),
        (
            ConfigError::Yaml {
                at: "c:1".into(),
                message: "m".into(),
            }
            .into(),
            ErrorKind::Input,
            false,
        ),
        (
            ConfigError::Invalid("c:1: k".into()).into(),
            ErrorKind::Input,
            false,
        ),
        (
            ConfigError::NoAgents("c:1: a".into()).into(),
            ErrorKind::Input,
            true,
        ),
        (
            ConfigError::Unloadable {
                origin: "c".into(),
                source: json_error(),
            }
            .into(),
            ErrorKind::Internal,
            false,
        ),
        (
            IssuesFileError::Missing {
                shown: shown(),
                source: os(io::ErrorKind::NotFound),
            }
            .into(),
            ErrorKind::Input,
            true,
        ),
        (
            IssuesFileError::Unreadable {
                shown: shown(),
                source: os(io::ErrorKind::Other),
            }
            .into(),
            ErrorKind::Input,
            false,
        ),
        (
            IssuesFileError::NotJson {
                shown: shown(),
                reason: "r".into(),
                line: 1,
                column: 1,
                source: json_error(),
            }
            .into(),
            ErrorKind::Input,
            false,
        ),
        (
            IssuesFileError::Invalid {
                shown: shown(),
                message: "m".into(),
            }
            .into(),
            ErrorKind::Input,
            false,
        ),
        (
            StateStoreError::IsDirectory("s".into()).into(),
            ErrorKind::Input,
            true,
        ),
        (
            StateStoreError::Invalid {
                path: "s".into(),
                what: "w".into(),
                line: 1,
                column: 1,
                source: json_error(),
            }
            .into(),
            ErrorKind::Input,
            true,
        ),
        (
            StateStoreError::File(file()).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            EventLogError::IsDirectory("e".into()).into(),
            ErrorKind::Input,
            true,
        ),
        (
            EventLogError::File(file()).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            LessonsFileError::Serialize(json_error()).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            LessonsFileError::File(file()).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            SettingsError::BadApiUrl {
                url: "u".into(),
                origin: "the default",
            }
            .into(),
            ErrorKind::Input,
            true,
        ),
        (
            HistoryError::NotARepository("d".into()).into(),
            ErrorKind::Input,
            true,
        ),
        (
            HistoryError::Git {
                dir: "d".into(),
                message: "m".into(),
            }
            .into(),
            ErrorKind::Internal,
            false,
        ),
        (
            RunLockError(os(io::ErrorKind::Other)).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            ClientBuildError("no runtime".into()).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            GitError::Spawn("no git".into()).into(),
            ErrorKind::Internal,
            false,
        ),
        (
            LockHeld {
                path: "index.lock".into(),
                pid: 7,
            }
            .into(),
            ErrorKind::Locked,
            true,
        ),
        (SpawnError::Empty.into(), ErrorKind::Input, false),
        (
            SpawnError::NotFound {
                program: "pytest".into(),
            }
            .into(),
            ErrorKind::Input,
            true,
        ),
        (
            SpawnError::Other {
                program: "pytest".into(),
                source: os(io::ErrorKind::PermissionDenied),
            }
            .into(),
            ErrorKind::Internal,
            false,
        ),
        (
            AgentError::NoCommand { agent: "a".into() }.into(),
            ErrorKind::Input,
            true,
        ),
        (
            AgentError::NotFound {
                agent: "a".into(),
                program: "claude".into(),
            }
            .into(),
            ErrorKind::Input,
            true,
        ),
        (
            AgentError::Spawn {
                agent: "a".into(),
                message: "m".into(),
            }
            .into(),
            ErrorKind::Internal,
            false,
        ),
        (LlmError::NotConfigured.into(), ErrorKind::Input, true),
        (LlmError::Spawn("m".into()).into(), ErrorKind::Input, true),
        (LlmError::TimedOut(30).into(), ErrorKind::Work, true),
        (
            LlmError::Failed {
                code: Some(1),
                stderr: "boom".into(),
            }
            .into(),
            ErrorKind::Work,
            false,
        ),
        (
            github_error(FailureKind::Forbidden, Some(403)).into(),
            ErrorKind::Work,
            false,
        ),
        (
            github_error(FailureKind::Transport, None).into(),
            ErrorKind::Work,
            false,
        ),
    ]
}

fn github_error(kind: FailureKind, status: Option<u16>) -> GithubError {
    GithubError {
        kind,
        status,
        message: "Resource not accessible by integration".into(),
        code: None,
        maybe_applied: false,
        request: "PATCH /repos/o/r/issues/4".into(),
    }
}

#[test]
fn a_github_failure_is_told_as_its_sentence_and_keeps_the_request_as_its_cause() {
    let e = CommandError::github(
        github_error(FailureKind::Forbidden, Some(403)),
        "o/r",
        "GH_TOKEN",
        "GitHub issue #4",
        true,
    );
    assert_eq!(e.kind, ErrorKind::Work);
    assert!(e.hint.is_none());
    assert_eq!(
        e.message,
        "the token in GH_TOKEN lacks `issues: write` on o/r (403 Resource not accessible by integration), so GitHub issue #4 could not be changed"
    );
    // `-v` shows the request the sentence does not name
    assert_eq!(
        e.causes(),
        ["PATCH /repos/o/r/issues/4 → 403 Resource not accessible by integration"]
    );
    let plain: CommandError = github_error(FailureKind::Forbidden, Some(403)).into();
    assert_eq!(
        plain.message,
        "PATCH /repos/o/r/issues/4 → 403 Resource not accessible by integration"
    );
}

#[test]
fn with_message_rewords_and_keeps_kind_hint_and_source() {
    let held = LockHeld {
        path: "/repo/.git/index.lock".into(),
        pid: 7,
    };
    let e = CommandError::from(held)
        .with_message(".git/index.lock is held by a running git (pid 7); no agent was started");
    assert_eq!(e.kind, ErrorKind::Locked);
    assert_eq!(e.kind.exit_code(), 3);
    assert_eq!(
        e.hint.as_deref(),
        Some("wait for that git command to finish (or stop it), then run again")
    );
    assert_eq!(
        e.source.as_deref().map(|s| s.to_string()).as_deref(),
        Some(
            "/repo/.git/index.lock is held by a running git (pid 7); wait for it to finish, or stop it"
        )
    );
    // a spawn failure's OS error is the cause `-v` shows under the caller's words
    let e = CommandError::from(SpawnError::Other {
        program: "pytest".into(),
        source: os(io::ErrorKind::PermissionDenied),
    })
    .with_message("the test command could not start");
    assert_eq!(e.kind, ErrorKind::Internal);
    assert_eq!(
        e.causes(),
        ["`pytest` could not be started: the OS said no"]
    );
}

#[test]
fn each_adapter_error_gets_its_kind_and_hint_and_keeps_its_own_sentence_and_source() {
    for (e, kind, hint) in table() {
        assert_eq!(e.kind, kind, "{}", e.message);
        assert_eq!(e.hint.is_some(), hint, "{}", e.message);
        let source = e.source.as_deref().expect("the adapter error is kept");
        // the message is the adapter's sentence, except where the From words it for
        // the user (a sync outside a git repository)
        if !e.message.contains("cannot be synced from git history") {
            assert_eq!(source.to_string(), e.message);
        }
        assert!(!e.message.contains('\n'), "{}", e.message);
    }
}

#[test]
fn causes_leave_out_what_the_message_already_says() {
    // the message names the OS error: nothing to add
    let e: CommandError =
        FileError::new("read", &PathBuf::from("x"), os(io::ErrorKind::Other)).into();
    assert_eq!(e.message, "could not read x: the OS said no");
    assert!(e.causes().is_empty(), "{:?}", e.causes());
    // the message does not: the OS error is the cause
    let e: CommandError = ConfigError::Missing {
        shown: "c.yaml".into(),
        source: os(io::ErrorKind::NotFound),
    }
    .into();
    assert_eq!(e.causes(), ["the OS said no"]);
    // a longer chain: each link that adds something, outermost first (the OS error
    // under `could not open y: …` says nothing new)
    let inner = io::Error::new(
        io::ErrorKind::NotFound,
        FileError::new("open", &PathBuf::from("y"), os(io::ErrorKind::Other)),
    );
    let e: CommandError = ConfigError::Missing {
        shown: "c.yaml".into(),
        source: inner,
    }
    .into();
    assert_eq!(e.causes(), ["could not open y: the OS said no"]);
    let plain = CommandError::input("no cause");
    assert!(plain.causes().is_empty());
    assert!(Error::source(&plain).is_none());
}
