//! The GitHub Action's rules (docs/action.md "What each event does"), pure: reading a webhook
//! payload into a trigger, deciding whom to trust, parsing `/swarm` commands, dependencies and the
//! feature label.

use serde_json::Value;

/// Who sent the event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sender {
    pub login: String,
    /// `User`, `Bot`, `Organization`, ...
    pub kind: String,
}

/// The issue as the triggering event showed it (the body snapshot used for prompts).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IssueSnapshot {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub labels: Vec<String>,
    pub state: String,
    pub author: String,
    pub author_association: String,
    pub is_pull_request: bool,
}

/// What triggered the Action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    Issue {
        action: String,
        issue: IssueSnapshot,
        label: Option<String>,
    },
    Comment {
        action: String,
        issue: IssueSnapshot,
        body: String,
        author: String,
        author_association: String,
    },
    Push {
        git_ref: String,
        after: String,
    },
    WorkflowDispatch,
    Other {
        name: String,
    },
}

/// A parsed event: the trigger and its sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionEvent {
    pub name: String,
    pub trigger: Trigger,
    pub sender: Sender,
}

impl ActionEvent {
    /// The `action` field, where the event has one.
    pub fn action(&self) -> Option<&str> {
        match &self.trigger {
            Trigger::Issue { action, .. } | Trigger::Comment { action, .. } => Some(action),
            _ => None,
        }
    }
    /// The GitHub issue number, where the event concerns one.
    pub fn issue_number(&self) -> Option<u64> {
        match &self.trigger {
            Trigger::Issue { issue, .. } | Trigger::Comment { issue, .. } => Some(issue.number),
            _ => None,
        }
    }
    /// The association of the person acting (comment author, or issue author for issues).
    pub fn association(&self) -> Option<&str> {
        match &self.trigger {
            Trigger::Comment {
                author_association, ..
            } => Some(author_association),
            Trigger::Issue { issue, .. } => Some(&issue.author_association),
            _ => None,
        }
    }
}

fn s(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn snapshot(issue: &Value) -> Result<IssueSnapshot, String> {
    let number = issue
        .get("number")
        .and_then(Value::as_u64)
        .ok_or("field `issue.number` is missing or not a number")?;
    let labels = issue
        .get("labels")
        .and_then(Value::as_array)
        .map(|ls| {
            ls.iter()
                .filter_map(|l| l.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(IssueSnapshot {
        number,
        title: s(issue, "title"),
        body: s(issue, "body"),
        labels,
        state: s(issue, "state"),
        author: issue.get("user").map(|u| s(u, "login")).unwrap_or_default(),
        author_association: s(issue, "author_association"),
        is_pull_request: issue.get("pull_request").is_some_and(|p| !p.is_null()),
    })
}

/// Reads a webhook payload for event `name`. Errors name the missing field.
pub fn parse_event(name: &str, payload: &Value) -> Result<ActionEvent, String> {
    let sender = payload
        .get("sender")
        .map(|v| Sender {
            login: s(v, "login"),
            kind: s(v, "type"),
        })
        .unwrap_or_default();
    let trigger = match name {
        "issues" => {
            let issue = payload.get("issue").ok_or("field `issue` is missing")?;
            Trigger::Issue {
                action: s(payload, "action"),
                issue: snapshot(issue)?,
                label: payload
                    .get("label")
                    .and_then(|l| l.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }
        }
        "issue_comment" => {
            let issue = payload.get("issue").ok_or("field `issue` is missing")?;
            let comment = payload.get("comment").ok_or("field `comment` is missing")?;
            Trigger::Comment {
                action: s(payload, "action"),
                issue: snapshot(issue)?,
                body: s(comment, "body"),
                author: comment
                    .get("user")
                    .map(|u| s(u, "login"))
                    .unwrap_or_default(),
                author_association: s(comment, "author_association"),
            }
        }
        "push" => Trigger::Push {
            git_ref: s(payload, "ref"),
            after: s(payload, "after"),
        },
        "workflow_dispatch" => Trigger::WorkflowDispatch,
        other => Trigger::Other {
            name: other.to_string(),
        },
    };
    Ok(ActionEvent {
        name: name.to_string(),
        trigger,
        sender,
    })
}

/// Whether the sender may drive the tool at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SenderVerdict {
    Allowed,
    /// The tool's own bot: ignored so it never loops on its own events.
    OwnBot,
    /// A `Bot` sender not in `github.allowed_bots`.
    UnlistedBot,
}

/// Decides on the sender (docs/action.md "Who is listened to").
pub fn check_sender(sender: &Sender, bot_login: &str, allowed_bots: &[String]) -> SenderVerdict {
    if sender.login.eq_ignore_ascii_case(bot_login) {
        return SenderVerdict::OwnBot;
    }
    let is_bot = sender.kind == "Bot" || sender.login.ends_with("[bot]");
    if is_bot
        && !allowed_bots
            .iter()
            .any(|b| b.eq_ignore_ascii_case(&sender.login))
    {
        return SenderVerdict::UnlistedBot;
    }
    SenderVerdict::Allowed
}

/// Trust from `author_association`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// OWNER, MEMBER, COLLABORATOR.
    Trusted,
    /// Anything else: ask the permission endpoint (private org members can show as
    /// CONTRIBUTOR or NONE).
    CheckPermission,
}

pub fn trust_from_association(association: &str) -> Trust {
    match association {
        "OWNER" | "MEMBER" | "COLLABORATOR" => Trust::Trusted,
        _ => Trust::CheckPermission,
    }
}

/// Whether a `permission` answer of the collaborators endpoint grants write access.
pub fn permission_grants_write(permission: &str) -> bool {
    matches!(permission, "write" | "maintain" | "admin")
}

/// A `/swarm` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwarmCommand {
    Status,
    Plan,
    Retry,
    Unblock,
    Skip,
}

impl SwarmCommand {
    pub fn as_str(self) -> &'static str {
        match self {
            SwarmCommand::Status => "status",
            SwarmCommand::Plan => "plan",
            SwarmCommand::Retry => "retry",
            SwarmCommand::Unblock => "unblock",
            SwarmCommand::Skip => "skip",
        }
    }
}

/// The `/swarm <command>` at the start of a line of a comment, if any. An unknown
/// subcommand is `Err(word)`.
pub fn parse_command(body: &str) -> Option<Result<SwarmCommand, String>> {
    for line in body.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("/swarm") else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            continue;
        }
        let word = rest
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        return Some(match word.as_str() {
            "status" | "" => Ok(SwarmCommand::Status),
            "plan" => Ok(SwarmCommand::Plan),
            "retry" => Ok(SwarmCommand::Retry),
            "unblock" => Ok(SwarmCommand::Unblock),
            "skip" => Ok(SwarmCommand::Skip),
            other => Err(other.to_string()),
        });
    }
    None
}

/// Issue numbers from lines "Depends on #N" / "Blocked by #N" (several numbers allowed,
/// case-insensitive, list markers allowed). Sorted, deduplicated, never `own`.
pub fn dependencies_from_body(body: &str, own: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for line in body.lines() {
        let l = line
            .trim()
            .trim_start_matches(['-', '*', '+', ' '])
            .trim_start();
        let lower = l.to_ascii_lowercase();
        let rest = if let Some(r) = lower.strip_prefix("depends on") {
            r
        } else if let Some(r) = lower.strip_prefix("blocked by") {
            r
        } else {
            continue;
        };
        let bytes = rest.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'#' {
                let start = i + 1;
                let mut end = start;
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                let next_alnum = end < bytes.len() && bytes[end].is_ascii_alphanumeric();
                if end > start
                    && !next_alnum
                    && let Ok(n) = rest[start..end].parse::<u64>()
                    && n != own
                {
                    out.push(n);
                }
                i = end.max(i + 1);
            } else {
                i += 1;
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The feature an issue belongs to: a `swarm-feature:<name>` label, else `default`.
pub fn feature_from_labels(labels: &[String], default: &str) -> String {
    labels
        .iter()
        .find_map(|l| {
            l.strip_prefix("swarm-feature:")
                .map(|f| f.trim().to_string())
        })
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// Whether the issue carries the trigger label.
pub fn has_trigger_label(labels: &[String], trigger: &str) -> bool {
    labels.iter().any(|l| l.eq_ignore_ascii_case(trigger))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_command("/swarm retry"), Some(Ok(SwarmCommand::Retry)));
        assert_eq!(
            parse_command("thanks!\n  /swarm Unblock please"),
            Some(Ok(SwarmCommand::Unblock))
        );
        assert_eq!(parse_command("/swarm"), Some(Ok(SwarmCommand::Status)));
        assert_eq!(parse_command("/swarmy retry"), None);
        assert_eq!(parse_command("please /swarm retry"), None);
        assert_eq!(parse_command("/swarm destroy"), Some(Err("destroy".into())));
    }

    #[test]
    fn dependencies() {
        let body =
            "Intro\nDepends on #12, #3\n- blocked by #7\nRef #9\nDepends on #12x and #4\nsee #5";
        assert_eq!(dependencies_from_body(body, 3), vec![4, 7, 12]);
    }

    #[test]
    fn senders() {
        let bot = Sender {
            login: "github-actions[bot]".into(),
            kind: "Bot".into(),
        };
        assert_eq!(
            check_sender(&bot, "github-actions[bot]", &[]),
            SenderVerdict::OwnBot
        );
        let other = Sender {
            login: "renovate[bot]".into(),
            kind: "Bot".into(),
        };
        assert_eq!(
            check_sender(&other, "github-actions[bot]", &[]),
            SenderVerdict::UnlistedBot
        );
        assert_eq!(
            check_sender(&other, "github-actions[bot]", &["renovate[bot]".into()]),
            SenderVerdict::Allowed
        );
        let user = Sender {
            login: "alice".into(),
            kind: "User".into(),
        };
        assert_eq!(
            check_sender(&user, "github-actions[bot]", &[]),
            SenderVerdict::Allowed
        );
    }

    #[test]
    fn trust_and_features() {
        assert_eq!(trust_from_association("OWNER"), Trust::Trusted);
        assert_eq!(trust_from_association("NONE"), Trust::CheckPermission);
        assert_eq!(
            trust_from_association("CONTRIBUTOR"),
            Trust::CheckPermission
        );
        assert!(
            permission_grants_write("maintain")
                && !permission_grants_write("read")
                && !permission_grants_write("triage")
        );
        let labels = vec!["bug".to_string(), "swarm-feature:auth".to_string()];
        assert_eq!(feature_from_labels(&labels, "github"), "auth");
        assert_eq!(feature_from_labels(&[], "github"), "github");
        assert!(has_trigger_label(&["Swarm".into()], "swarm"));
    }

    #[test]
    fn real_payloads_parse() {
        macro_rules! fixture {
            ($f:literal) => {
                serde_json::from_str::<Value>(include_str!(concat!(
                    "../../../tests/fixtures/webhooks/",
                    $f
                )))
                .unwrap()
            };
        }
        let e = parse_event("issues", &fixture!("issues.labeled.json")).unwrap();
        assert_eq!(e.action(), Some("labeled"));
        assert_eq!(e.sender.login, "Codertocat");
        let e = parse_event("issue_comment", &fixture!("issue_comment.created.json")).unwrap();
        assert_eq!(e.association(), Some("OWNER"));
        let e = parse_event("push", &fixture!("push.json")).unwrap();
        assert!(matches!(e.trigger, Trigger::Push { .. }));
        assert!(matches!(
            parse_event("star", &Value::Null).unwrap().trigger,
            Trigger::Other { .. }
        ));
        assert!(parse_event("issues", &serde_json::json!({"action": "opened"})).is_err());
    }
}
