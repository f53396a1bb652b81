//! The GitHub routes this tool uses, typed, always with the explicit repository in the path.
//! Boring on purpose: the decisions (which labels, which comment) are made in core.

use crate::core::github_plan::{IssueOp, IssueState, LabelOp};
use crate::core::github_status::LabelSpec;
use crate::github::client::{Client, Request, Response};
use crate::github::errors::{FailureKind, GithubError};
use http::Method;
use serde_json::{Value, json};

/// Most pages followed for one listing (100 items each).
const MAX_PAGES: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelInfo {
    pub name: String,
    pub color: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueInfo {
    pub number: u64,
    pub open: bool,
    pub labels: Vec<LabelInfo>,
    pub title: String,
    pub body: String,
    pub is_pull_request: bool,
    pub etag: Option<String>,
    /// The author's login and association (`OWNER`, `MEMBER`, `CONTRIBUTOR`, ...).
    pub author: String,
    pub author_association: String,
    /// How many comments the issue has (GitHub's `comments`), when the answer says.
    pub comments: Option<u64>,
}

impl IssueInfo {
    pub fn label_names(&self) -> Vec<String> {
        self.labels.iter().map(|l| l.name.clone()).collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentInfo {
    pub id: u64,
    pub body: String,
    /// The commenter's login (`user.login`).
    pub author: String,
    /// GitHub's `author_association` of the commenter (`OWNER`, `NONE`, ...).
    pub association: String,
}

/// A conditional read's answer.
#[derive(Debug, Clone)]
pub enum Fetched<T> {
    NotModified,
    Fresh(T),
}

/// Percent-encodes one path segment (label names contain `:`).
pub fn encode_segment(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn label_of(v: &Value) -> LabelInfo {
    if let Some(name) = v.as_str() {
        // some servers echo the names they were sent
        return LabelInfo {
            name: name.to_string(),
            color: String::new(),
        };
    }
    LabelInfo {
        name: v["name"].as_str().unwrap_or_default().to_string(),
        color: v["color"].as_str().unwrap_or_default().to_string(),
    }
}

fn issue_of(v: &Value, etag: Option<String>) -> IssueInfo {
    IssueInfo {
        number: v["number"].as_u64().unwrap_or(0),
        open: v["state"].as_str() != Some("closed"),
        labels: v["labels"]
            .as_array()
            .map(|a| a.iter().map(label_of).collect())
            .unwrap_or_default(),
        title: v["title"].as_str().unwrap_or_default().to_string(),
        body: v["body"].as_str().unwrap_or_default().to_string(),
        is_pull_request: v.get("pull_request").is_some_and(|p| !p.is_null()),
        etag,
        author: v["user"]["login"].as_str().unwrap_or_default().to_string(),
        author_association: v["author_association"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        comments: v["comments"].as_u64(),
    }
}

/// The typed API over one repository.
#[derive(Debug)]
pub struct Api {
    pub client: Client,
    base: String,
}

impl Api {
    pub fn new(client: Client) -> Api {
        let (owner, name) = client
            .settings
            .repo
            .split_once('/')
            .unwrap_or((&client.settings.repo, ""));
        let base = format!("/repos/{}/{}", encode_segment(owner), encode_segment(name));
        Api { client, base }
    }

    pub fn repo(&self) -> &str {
        &self.client.settings.repo
    }

    pub(super) fn path(&self, rest: &str) -> String {
        format!("{}{rest}", self.base)
    }

    pub(super) fn get_all(&mut self, first: String) -> Result<Vec<Value>, GithubError> {
        let mut out = Vec::new();
        let mut next = Some(first);
        let mut pages = 0;
        while let Some(path) = next.take() {
            let resp = self.client.send(&Request::get(path))?;
            if let Value::Array(items) = resp.body {
                out.extend(items);
            }
            pages += 1;
            if pages < MAX_PAGES {
                next = resp.next;
            }
        }
        Ok(out)
    }

    /// Every label of the repository.
    pub fn list_labels(&mut self) -> Result<Vec<LabelInfo>, GithubError> {
        let items = self.get_all(self.path("/labels?per_page=100"))?;
        Ok(items.iter().map(label_of).collect())
    }

    pub fn get_label(&mut self, name: &str) -> Result<LabelInfo, GithubError> {
        let path = self.path(&format!("/labels/{}", encode_segment(name)));
        let resp = self.client.send(&Request::get(path))?;
        Ok(label_of(&resp.body))
    }

    /// The request that carries out a label write.
    pub fn label_request(&self, op: &LabelOp) -> Request {
        match op {
            LabelOp::Create(spec) => {
                let mut req = Request::write(
                    Method::POST,
                    self.path("/labels"),
                    Some(
                        json!({"name": spec.name, "color": spec.color, "description": spec.description}),
                    ),
                );
                // a repeated create answers 422 already_exists, never a duplicate
                req.idempotent = true;
                req
            }
            LabelOp::Recolor(spec) => Request::write(
                Method::PATCH,
                self.path(&format!("/labels/{}", encode_segment(spec.name))),
                Some(json!({"color": spec.color, "description": spec.description})),
            ),
        }
    }

    /// Creates a label; a label that already exists (422 `already_exists`, e.g. created
    /// behind an earlier failure) is checked and recoloured when needed.
    pub fn ensure_label(&mut self, op: &LabelOp) -> Result<(), GithubError> {
        match self.client.send(&self.label_request(op)) {
            Ok(_) => Ok(()),
            Err(e)
                if e.kind == FailureKind::Validation
                    && e.code.as_deref() == Some("already_exists") =>
            {
                let spec: &LabelSpec = match op {
                    LabelOp::Create(s) | LabelOp::Recolor(s) => s,
                };
                let current = self.get_label(spec.name)?;
                if !current.color.eq_ignore_ascii_case(spec.color) {
                    self.client
                        .send(&self.label_request(&LabelOp::Recolor(*spec)))?;
                }
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Reads an issue, conditionally when `etag` is given.
    pub fn get_issue(
        &mut self,
        number: u64,
        etag: Option<&str>,
    ) -> Result<Fetched<IssueInfo>, GithubError> {
        let mut req = Request::get(self.path(&format!("/issues/{number}")));
        req.if_none_match = etag.map(String::from);
        let resp = self.client.send(&req)?;
        if resp.not_modified() {
            return Ok(Fetched::NotModified);
        }
        Ok(Fetched::Fresh(issue_of(&resp.body, resp.etag)))
    }

    /// Every comment on an issue, oldest first.
    pub fn list_comments(&mut self, number: u64) -> Result<Vec<CommentInfo>, GithubError> {
        let items = self.get_all(self.path(&format!("/issues/{number}/comments?per_page=100")))?;
        Ok(items
            .iter()
            .map(|c| CommentInfo {
                id: c["id"].as_u64().unwrap_or(0),
                body: c["body"].as_str().unwrap_or_default().to_string(),
                author: c["user"]["login"].as_str().unwrap_or_default().to_string(),
                association: c["author_association"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect())
    }

    /// The request that carries out an issue write.
    pub fn issue_request(&self, number: u64, op: &IssueOp) -> Request {
        match op {
            IssueOp::CreateComment { body } => Request::write(
                Method::POST,
                self.path(&format!("/issues/{number}/comments")),
                Some(json!({ "body": body })),
            ),
            IssueOp::UpdateComment { comment_id, body } => Request::write(
                Method::PATCH,
                self.path(&format!("/issues/comments/{comment_id}")),
                Some(json!({ "body": body })),
            ),
            IssueOp::DeleteComment { comment_id } => Request::write(
                Method::DELETE,
                self.path(&format!("/issues/comments/{comment_id}")),
                None,
            ),
            IssueOp::UpdateIssue { labels, state } => {
                let mut body = serde_json::Map::new();
                if let Some(l) = labels {
                    body.insert("labels".into(), json!(l));
                }
                match state {
                    Some(IssueState::Closed) => {
                        body.insert("state".into(), json!("closed"));
                        body.insert("state_reason".into(), json!("completed"));
                    }
                    Some(IssueState::Open) => {
                        body.insert("state".into(), json!("open"));
                    }
                    None => {}
                }
                Request::write(
                    Method::PATCH,
                    self.path(&format!("/issues/{number}")),
                    Some(Value::Object(body)),
                )
            }
        }
    }

    /// Sends an issue write; returns the response (the issue for `UpdateIssue`, the comment
    /// for `CreateComment`).
    pub fn apply_issue_op(&mut self, number: u64, op: &IssueOp) -> Result<Response, GithubError> {
        let req = self.issue_request(number, op);
        match self.client.send(&req) {
            // Deleting what is already gone is done.
            Err(e)
                if matches!(op, IssueOp::DeleteComment { .. })
                    && e.kind == FailureKind::NotFound =>
            {
                Ok(Response {
                    status: 404,
                    etag: None,
                    next: None,
                    body: Value::Null,
                })
            }
            r => r,
        }
    }

    /// Sets an issue's labels with the dedicated endpoint (`PUT .../issues/{n}/labels`);
    /// returns the labels the issue has afterwards.
    pub fn set_labels(
        &mut self,
        number: u64,
        labels: &[String],
    ) -> Result<Vec<LabelInfo>, GithubError> {
        let req = Request::write(
            Method::PUT,
            self.path(&format!("/issues/{number}/labels")),
            Some(json!({ "labels": labels })),
        );
        let resp = self.client.send(&req)?;
        Ok(resp
            .body
            .as_array()
            .map(|a| a.iter().map(label_of).collect())
            .unwrap_or_default())
    }

    /// The issue in an `UpdateIssue` answer.
    pub fn issue_from(resp: &Response) -> IssueInfo {
        issue_of(&resp.body, resp.etag.clone())
    }

    /// Issues (not pull requests) of the repository, open and closed, newest first; only
    /// those updated since `since` (RFC 3339) when given.
    pub fn list_issues(&mut self, since: Option<&str>) -> Result<Vec<IssueInfo>, GithubError> {
        let mut path = self.path("/issues?state=all&per_page=100&sort=created&direction=desc");
        if let Some(s) = since {
            path.push_str(&format!("&since={}", encode_segment(s)));
        }
        let items = self.get_all(path)?;
        Ok(items
            .iter()
            .map(|v| issue_of(v, None))
            .filter(|i| !i.is_pull_request)
            .collect())
    }

    /// Open issues (and pull requests) carrying `label`.
    pub fn list_open_issues_labeled(&mut self, label: &str) -> Result<Vec<IssueInfo>, GithubError> {
        let path = self.path(&format!(
            "/issues?state=open&labels={}&per_page=100",
            encode_segment(label)
        ));
        let items = self.get_all(path)?;
        Ok(items.iter().map(|v| issue_of(v, None)).collect())
    }

    /// A user's permission on the repository (`admin`, `maintain`, `write`, `triage`,
    /// `read`, `none`); a user GitHub does not know has `none`.
    pub fn permission(&mut self, user: &str) -> Result<String, GithubError> {
        let path = self.path(&format!(
            "/collaborators/{}/permission",
            encode_segment(user)
        ));
        match self.client.send(&Request::get(path)) {
            Ok(resp) => Ok(resp
                .body
                .get("permission")
                .or_else(|| resp.body.get("role_name"))
                .and_then(Value::as_str)
                .unwrap_or("none")
                .to_string()),
            Err(e) if e.kind == FailureKind::NotFound => Ok("none".into()),
            Err(e) => Err(e),
        }
    }

    pub fn create_issue_request(&self, title: &str, body: &str, labels: &[String]) -> Request {
        Request::write(
            Method::POST,
            self.path("/issues"),
            Some(json!({"title": title, "body": body, "labels": labels})),
        )
    }

    /// Creates an issue (never retried on a 5xx: the caller looks for it first).
    pub fn create_issue(
        &mut self,
        title: &str,
        body: &str,
        labels: &[String],
    ) -> Result<IssueInfo, GithubError> {
        let req = self.create_issue_request(title, body, labels);
        let resp = self.client.send(&req)?;
        Ok(issue_of(&resp.body, resp.etag))
    }
}

#[cfg(test)]
mod tests {
    use super::encode_segment;

    #[test]
    fn label_names_are_encoded() {
        assert_eq!(encode_segment("swarm:in-progress"), "swarm%3Ain-progress");
        assert_eq!(encode_segment("a b"), "a%20b");
    }
}
