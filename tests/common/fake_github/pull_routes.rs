//! The fake's pull requests (`/repos/<o>/<r>/pulls…`) with GitHub's shapes: create (422 when
//! an open pull request for the same head exists, as GitHub answers), list with `state` and
//! `head` (`owner:branch`) and `base` filters, get (with `merged`), update (title, body,
//! state, base), and
//! merge (`PUT …/merge` with `merge_method` merge | squash | rebase), and its commits
//! (`GET …/pulls/{n}/commits`, paginated; set by the test). A pull request is also
//! an issue (one number space; listed among the issues with a `pull_request` key). The git
//! side of a merge is the test's to do (the fake serves no repository).

use super::world::{Issue, Reply, World, json_reply, message};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// What a pull request has beyond its issue.
#[derive(Debug, Clone)]
pub struct PullMeta {
    pub head_ref: String,
    pub base_ref: String,
    pub merged_at: Option<String>,
    pub merge_method: Option<String>,
    /// Its commits, oldest first: (sha, message). The last one is the head.
    pub commits: Vec<(String, String)>,
    /// Its reviews as posted (`POST …/reviews`), in GitHub's shape.
    pub reviews: Vec<Value>,
}

const ZERO_SHA: &str = "0000000000000000000000000000000000000000";

impl World {
    fn pull_json(&self, number: u64, full: bool) -> Value {
        let i = &self.issues[&number];
        let m = &self.pulls[&number];
        let html = format!(
            "https://github.com/{}/{}/pull/{number}",
            self.owner, self.name
        );
        let repo = json!({"id": 1, "name": self.name, "full_name": format!("{}/{}", self.owner, self.name),
            "owner": self.user(&self.owner)});
        let labels: Vec<Value> = i
            .labels
            .iter()
            .filter_map(|n| self.labels.iter().find(|l| &l.name == n))
            .map(|l| self.label_json(l))
            .collect();
        let mut v = json!({
            "url": format!("{}/pulls/{number}", self.repo_url()),
            "id": i.id, "node_id": format!("PR_kwDO{}", i.id), "html_url": html,
            "number": number, "state": i.state, "locked": false, "title": i.title,
            "user": self.user("swarm-bot"),
            "body": if i.body.is_empty() { Value::Null } else { Value::String(i.body.clone()) },
            "labels": labels, "created_at": i.created_at, "updated_at": i.updated_at,
            "closed_at": i.closed_at, "merged_at": m.merged_at, "merge_commit_sha": null,
            "draft": false,
            "head": {"label": format!("{}:{}", self.owner, m.head_ref), "ref": m.head_ref,
                     "sha": m.commits.last().map_or(ZERO_SHA, |(sha, _)| sha.as_str()),
                     "repo": repo.clone()},
            "base": {"label": format!("{}:{}", self.owner, m.base_ref), "ref": m.base_ref,
                     "sha": "0000000000000000000000000000000000000000", "repo": repo},
            "author_association": "OWNER",
        });
        if full {
            v["merged"] = json!(m.merged_at.is_some());
            v["mergeable"] = json!(i.state == "open");
        }
        v
    }

    pub(super) fn pull_route(
        &mut self,
        method: &str,
        rest: &[&str],
        query: &BTreeMap<String, String>,
        sub: &str,
        input: &Value,
    ) -> Reply {
        match (method, rest) {
            ("GET", []) => {
                let state = query.get("state").map(String::as_str).unwrap_or("open");
                let head = query.get("head").cloned();
                let base = query.get("base").cloned();
                let items: Vec<Value> = self
                    .pulls
                    .iter()
                    .rev()
                    .filter(|(n, _)| state == "all" || self.issues[*n].state == state)
                    .filter(|(_, m)| {
                        head.as_deref().is_none_or(|h| {
                            h == format!("{}:{}", self.owner, m.head_ref) || h == m.head_ref
                        })
                    })
                    .filter(|(_, m)| base.as_deref().is_none_or(|b| b == m.base_ref))
                    .map(|(n, _)| self.pull_json(*n, false))
                    .collect();
                self.page(items, sub, query)
            }
            ("POST", []) => {
                let (Some(title), Some(head), Some(base)) = (
                    input["title"].as_str(),
                    input["head"].as_str(),
                    input["base"].as_str(),
                ) else {
                    return message(422, "Validation Failed");
                };
                let head = head.rsplit(':').next().unwrap_or(head).to_string();
                if self
                    .pulls
                    .iter()
                    .any(|(n, m)| m.head_ref == head && self.issues[n].state == "open")
                {
                    return message(
                        422,
                        &format!("A pull request already exists for {}:{head}.", self.owner),
                    );
                }
                let number = self.issues.keys().max().copied().unwrap_or(0) + 1;
                let now = self.now();
                let id = self.id();
                self.issues.insert(
                    number,
                    Issue {
                        id,
                        number,
                        title: title.into(),
                        body: input["body"].as_str().unwrap_or_default().into(),
                        state: "open".into(),
                        state_reason: None,
                        labels: Vec::new(),
                        created_at: now.clone(),
                        updated_at: now,
                        closed_at: None,
                        pull_request: true,
                    },
                );
                self.pulls.insert(
                    number,
                    PullMeta {
                        head_ref: head,
                        base_ref: base.into(),
                        merged_at: None,
                        merge_method: None,
                        commits: Vec::new(),
                        reviews: Vec::new(),
                    },
                );
                json_reply(201, &self.pull_json(number, true))
            }
            (m, [n, tail @ ..]) => {
                let Some(number) = n.parse::<u64>().ok().filter(|n| self.pulls.contains_key(n))
                else {
                    return message(404, "Not Found");
                };
                match (m, tail) {
                    ("GET", []) => json_reply(200, &self.pull_json(number, true)),
                    ("GET", ["commits"]) => {
                        let items = self.pulls[&number]
                            .commits
                            .iter()
                            .enumerate()
                            .map(|(k, (sha, msg))| self.commit_json(number, k, sha, msg))
                            .collect();
                        self.page(items, sub, query)
                    }
                    ("GET", ["reviews"]) => {
                        let items = self.pulls[&number].reviews.clone();
                        self.page(items, sub, query)
                    }
                    ("POST", ["reviews"]) => self.post_review(number, input),
                    ("PATCH", []) => {
                        let now = self.now();
                        let i = self.issues.get_mut(&number).expect("present");
                        if let Some(t) = input["title"].as_str() {
                            i.title = t.into();
                        }
                        if let Some(b) = input["body"].as_str() {
                            i.body = b.into();
                        }
                        if let Some(s) = input["state"].as_str() {
                            i.state = s.into();
                            i.closed_at = (s == "closed").then(|| now.clone());
                        }
                        i.updated_at = now;
                        if let Some(b) = input["base"].as_str() {
                            self.pulls.get_mut(&number).expect("present").base_ref = b.into();
                        }
                        json_reply(200, &self.pull_json(number, true))
                    }
                    ("PUT", ["merge"]) => {
                        if self.issues[&number].state != "open" {
                            return message(405, "Pull Request is not mergeable");
                        }
                        let method = input["merge_method"]
                            .as_str()
                            .unwrap_or("merge")
                            .to_string();
                        self.merge(number, &method);
                        json_reply(
                            200,
                            &json!({"sha": "0000000000000000000000000000000000000000",
                                    "merged": true, "message": "Pull Request successfully merged"}),
                        )
                    }
                    _ => message(404, "Not Found"),
                }
            }
            _ => message(404, "Not Found"),
        }
    }

    /// `POST /pulls/{n}/reviews` as GitHub validates it: `event` one of `APPROVE`,
    /// `REQUEST_CHANGES`, `COMMENT` (a review without one stays `PENDING`), each inline
    /// comment with a `path`, a `body` and a positive `line`; a comment whose `line` is
    /// above 1000 stands for a line outside the diff (422, "Line could not be resolved").
    fn post_review(&mut self, number: u64, input: &Value) -> Reply {
        let state = match input["event"].as_str() {
            Some("APPROVE") => "APPROVED",
            Some("REQUEST_CHANGES") => "CHANGES_REQUESTED",
            Some("COMMENT") => "COMMENTED",
            None => "PENDING",
            Some(_) => return message(422, "Unprocessable Entity"),
        };
        let comments = input["comments"].as_array().cloned().unwrap_or_default();
        for c in &comments {
            let ok = c["path"].as_str().is_some()
                && c["body"].as_str().is_some()
                && c["line"].as_u64().is_some_and(|l| l > 0);
            if !ok {
                return message(422, "Unprocessable Entity");
            }
            if c["line"].as_u64().is_some_and(|l| l > 1000) {
                return message(422, "Line could not be resolved");
            }
        }
        let id = self.id();
        let review = json!({
            "id": id,
            "node_id": format!("PRR_kwDO{id}"),
            "user": self.user("swarm-bot"),
            "body": input["body"].as_str().unwrap_or_default(),
            "state": state,
            "commit_id": input["commit_id"].as_str().unwrap_or(ZERO_SHA),
            "html_url": format!("https://github.com/{}/{}/pull/{number}#pullrequestreview-{id}", self.owner, self.name),
            "submitted_at": self.now(),
            "author_association": "OWNER",
            "comments": comments,
        });
        self.pulls
            .get_mut(&number)
            .expect("present")
            .reviews
            .push(review.clone());
        json_reply(200, &review)
    }

    /// One item of `GET /pulls/{n}/commits`, in GitHub's shape.
    fn commit_json(&self, number: u64, k: usize, sha: &str, message: &str) -> Value {
        let commits = &self.pulls[&number].commits;
        let parents: Vec<Value> = k
            .checked_sub(1)
            .map(|p| &commits[p].0)
            .into_iter()
            .map(|p| json!({"sha": p, "url": format!("{}/commits/{p}", self.repo_url())}))
            .collect();
        let person = json!({"name": "Teammate", "email": "teammate@example.com",
                            "date": "2026-01-01T00:00:00Z"});
        json!({
            "sha": sha,
            "node_id": format!("C_kwDO{sha}"),
            "commit": {
                "author": person, "committer": person, "message": message,
                "tree": {"sha": ZERO_SHA, "url": format!("{}/git/trees/{ZERO_SHA}", self.repo_url())},
                "url": format!("{}/git/commits/{sha}", self.repo_url()),
                "comment_count": 0,
                "verification": {"verified": false, "reason": "unsigned", "signature": null,
                                 "payload": null, "verified_at": null},
            },
            "url": format!("{}/commits/{sha}", self.repo_url()),
            "html_url": format!("https://github.com/{}/{}/commit/{sha}", self.owner, self.name),
            "comments_url": format!("{}/commits/{sha}/comments", self.repo_url()),
            "author": self.user("teammate"),
            "committer": self.user("teammate"),
            "parents": parents,
        })
    }

    pub(super) fn merge(&mut self, number: u64, method: &str) {
        let now = self.now();
        let i = self.issues.get_mut(&number).expect("present");
        i.state = "closed".into();
        i.closed_at = Some(now.clone());
        i.updated_at = now.clone();
        let m = self.pulls.get_mut(&number).expect("present");
        m.merged_at = Some(now);
        m.merge_method = Some(method.into());
    }
}
