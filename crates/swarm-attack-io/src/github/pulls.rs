//! The pull-request routes: open pull requests for the supersession gate, and the ones a
//! `git.landing: pr` landing opens, finds and updates. Boring on purpose: which issue a
//! pull request links is decided in `core::pull_link`.

use crate::core::pull_link::OpenPull;
use crate::github::api::{Api, Fetched, encode_segment};
use crate::github::client::Request;
use crate::github::errors::GithubError;
use http::Method;
use serde_json::{Value, json};

/// A pull request as the landing needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullInfo {
    pub number: u64,
    /// `open` or `closed`.
    pub state: String,
    pub merged: bool,
    pub head_ref: String,
    /// The branch it merges into.
    pub base_ref: String,
    pub html_url: String,
    pub title: String,
    pub body: String,
}

/// The open pull requests, with the listing's ETag when it can be reused.
pub type OpenPulls = (Vec<OpenPull>, Option<String>);

fn pull_of(v: &Value) -> PullInfo {
    PullInfo {
        number: v["number"].as_u64().unwrap_or(0),
        state: v["state"].as_str().unwrap_or("open").to_string(),
        merged: v["merged"].as_bool().unwrap_or(false)
            || v["merged_at"].as_str().is_some_and(|s| !s.is_empty()),
        head_ref: v["head"]["ref"].as_str().unwrap_or_default().to_string(),
        base_ref: v["base"]["ref"].as_str().unwrap_or_default().to_string(),
        html_url: v["html_url"].as_str().unwrap_or_default().to_string(),
        title: v["title"].as_str().unwrap_or_default().to_string(),
        body: v["body"].as_str().unwrap_or_default().to_string(),
    }
}

impl Api {
    /// Every open pull request of the repository (one listing, paginated), conditionally on
    /// `etag`: `NotModified` when GitHub answers `304` to it. The ETag returned with a
    /// fresh listing is the first page's, and only when there is no second page (a change
    /// on a later page would not change the first page's ETag).
    pub fn list_open_pulls(
        &mut self,
        etag: Option<&str>,
    ) -> Result<Fetched<OpenPulls>, GithubError> {
        let mut req = Request::get(self.path("/pulls?state=open&per_page=100"));
        req.if_none_match = etag.map(String::from);
        let resp = self.client.send(&req)?;
        if resp.not_modified() {
            return Ok(Fetched::NotModified);
        }
        let mut items = match resp.body {
            Value::Array(items) => items,
            _ => Vec::new(),
        };
        let etag = match resp.next {
            Some(next) => {
                items.extend(self.get_all(next)?);
                None
            }
            None => resp.etag,
        };
        let pulls = items
            .iter()
            .map(|v| {
                let p = pull_of(v);
                OpenPull {
                    number: p.number,
                    head_ref: p.head_ref,
                    title: p.title,
                    body: p.body,
                    head_sha: v["head"]["sha"].as_str().unwrap_or_default().to_string(),
                    commits: Vec::new(),
                }
            })
            .collect();
        Ok(Fetched::Fresh((pulls, etag)))
    }

    /// The messages of a pull request's commits, oldest first
    /// (`GET /repos/{o}/{r}/pulls/{n}/commits`; GitHub lists at most 250).
    pub fn pull_commit_messages(&mut self, number: u64) -> Result<Vec<String>, GithubError> {
        let items = self.get_all(self.path(&format!("/pulls/{number}/commits?per_page=100")))?;
        Ok(items
            .iter()
            .filter_map(|c| c["commit"]["message"].as_str().map(str::to_string))
            .collect())
    }

    /// Pull requests (open and closed) whose head is `branch` of this repository.
    pub fn pulls_for_branch(&mut self, branch: &str) -> Result<Vec<PullInfo>, GithubError> {
        let owner = self
            .repo()
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        let path = self.path(&format!(
            "/pulls?state=all&per_page=100&head={}",
            encode_segment(&format!("{owner}:{branch}"))
        ));
        let items = self.get_all(path)?;
        Ok(items.iter().map(pull_of).collect())
    }

    /// One pull request.
    pub fn get_pull(&mut self, number: u64) -> Result<PullInfo, GithubError> {
        let resp = self
            .client
            .send(&Request::get(self.path(&format!("/pulls/{number}"))))?;
        Ok(pull_of(&resp.body))
    }

    /// Opens a pull request from `head` into `base`.
    pub fn create_pull(
        &mut self,
        title: &str,
        head: &str,
        base: &str,
        body: &str,
    ) -> Result<PullInfo, GithubError> {
        let req = Request::write(
            Method::POST,
            self.path("/pulls"),
            Some(json!({"title": title, "head": head, "base": base, "body": body})),
        );
        Ok(pull_of(&self.client.send(&req)?.body))
    }

    /// Sets a pull request's title and body (and the branch it merges into, when given).
    pub fn update_pull(
        &mut self,
        number: u64,
        title: &str,
        body: &str,
        base: Option<&str>,
    ) -> Result<PullInfo, GithubError> {
        let mut patch = json!({"title": title, "body": body});
        if let Some(b) = base {
            patch["base"] = json!(b);
        }
        let req = Request::write(
            Method::PATCH,
            self.path(&format!("/pulls/{number}")),
            Some(patch),
        );
        Ok(pull_of(&self.client.send(&req)?.body))
    }

    /// Open pull requests that merge into `base` (a stacked dependency's branch).
    pub fn open_pulls_into(&mut self, base: &str) -> Result<Vec<PullInfo>, GithubError> {
        let path = self.path(&format!(
            "/pulls?state=open&per_page=100&base={}",
            encode_segment(base)
        ));
        let items = self.get_all(path)?;
        Ok(items.iter().map(pull_of).collect())
    }

    /// Retargets pull request `number` to merge into `base`.
    pub fn retarget_pull(&mut self, number: u64, base: &str) -> Result<PullInfo, GithubError> {
        let req = Request::write(
            Method::PATCH,
            self.path(&format!("/pulls/{number}")),
            Some(json!({"base": base})),
        );
        Ok(pull_of(&self.client.send(&req)?.body))
    }

    /// The bodies of a pull request's reviews
    /// (`GET /repos/{o}/{r}/pulls/{n}/reviews`, paginated).
    pub fn pull_review_bodies(&mut self, number: u64) -> Result<Vec<String>, GithubError> {
        let items = self.get_all(self.path(&format!("/pulls/{number}/reviews?per_page=100")))?;
        Ok(items
            .iter()
            .filter_map(|r| r["body"].as_str().map(str::to_string))
            .collect())
    }

    /// Posts a review of `commit` on pull request `number` with event `COMMENT` (the only
    /// event the tool uses: it never approves nor requests changes) and inline comments on
    /// lines of the new version.
    pub fn comment_review(
        &mut self,
        number: u64,
        commit: &str,
        body: &str,
        comments: &[crate::core::review::pull::Inline],
    ) -> Result<(), GithubError> {
        let comments: Vec<Value> = comments
            .iter()
            .map(|c| json!({"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body}))
            .collect();
        let req = Request::write(
            Method::POST,
            self.path(&format!("/pulls/{number}/reviews")),
            Some(json!({
                "commit_id": commit,
                "body": body,
                "event": crate::core::review::pull::EVENT,
                "comments": comments,
            })),
        );
        self.client.send(&req)?;
        Ok(())
    }
}
