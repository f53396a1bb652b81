//! Secrets (docs/security.md "4. Secrets are masked everywhere the tool writes"): which environment
//! variables hold them, and the one masking rule every writer applies — each secret value, raw or
//! JSON-escaped, becomes `***`.

use std::borrow::Cow;

/// The variables that carry GitHub credentials. They never reach an agent, a test, an LLM
/// command or git (except a push, through `GIT_CONFIG_*`) unless an agent's
/// `env_passthrough` names them.
pub const TOKEN_ENV_VARS: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_PAT",
    "GH_ENTERPRISE_TOKEN",
    "INPUT_GITHUB-TOKEN",
];

/// Every variable whose value is masked wherever the tool writes (besides those named in
/// `agents[].env_passthrough` and `secrets.mask_env`).
pub const SECRET_ENV_VARS: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_PAT",
    "GH_ENTERPRISE_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
];

/// What replaces a secret value.
pub const MASK: &str = "***";

/// Values shorter than this are not masked (masking `1` or `yes` everywhere would garble
/// every text; no real credential is that short).
pub const MIN_SECRET_LEN: usize = 6;

/// The secret values to mask.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Masker {
    /// Longest first, so a secret that contains another is masked whole.
    values: Vec<String>,
}

impl Masker {
    /// A masker for `values` (blank and too short ones are ignored).
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(values: I) -> Masker {
        let mut m = Masker::default();
        for v in values {
            m.add(v.as_ref());
        }
        m
    }

    /// Adds a value (trimmed; ignored when shorter than [`MIN_SECRET_LEN`]).
    pub fn add(&mut self, value: &str) {
        let v = value.trim();
        if v.chars().count() < MIN_SECRET_LEN || self.values.iter().any(|x| x == v) {
            return;
        }
        self.values.push(v.to_string());
        // its JSON-escaped form too (a value with quotes, backslashes or control chars)
        let quoted = serde_json::to_string(v).unwrap_or_default();
        // exactly the surrounding quotes (the value itself may end with an escaped one)
        let escaped = quoted
            .strip_prefix('"')
            .and_then(|q| q.strip_suffix('"'))
            .unwrap_or(v);
        if escaped != v && !self.values.iter().any(|x| x == escaped) {
            self.values.push(escaped.to_string());
        }
        self.values
            .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret value replaced by [`MASK`].
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.values.iter().any(|v| text.contains(v.as_str())) {
            return Cow::Borrowed(text);
        }
        let mut out = text.to_string();
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), MASK);
            }
        }
        Cow::Owned(out)
    }

    /// Masks every string (keys included) inside a JSON value.
    pub fn mask_json(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(s) => {
                if let Cow::Owned(m) = self.mask(s) {
                    *s = m;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|v| self.mask_json(v)),
            Value::Object(o) => {
                let old = std::mem::take(o);
                for (k, mut v) in old {
                    self.mask_json(&mut v);
                    o.insert(self.mask(&k).into_owned(), v);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn masks_every_value_and_its_json_escape() {
        let m = Masker::new(["ghp_secretvalue", "sk-ant-\"quoted\"", "short"]);
        assert_eq!(m.mask("a ghp_secretvalue b"), "a *** b");
        assert_eq!(m.mask(r#"{"x":"sk-ant-\"quoted\""}"#), r#"{"x":"***"}"#);
        assert_eq!(m.mask("short stays"), "short stays");
        let mut v = serde_json::json!({"k": ["ghp_secretvalue!"], "ghp_secretvalue": 1});
        m.mask_json(&mut v);
        assert_eq!(v, serde_json::json!({"k": ["***!"], "***": 1}));
    }

    #[test]
    fn a_secret_containing_another_is_masked_whole() {
        let m = Masker::new(["abcdef", "xxabcdefxx"]);
        assert_eq!(m.mask("xxabcdefxx abcdef"), "*** ***");
    }

    proptest! {
        #[test]
        fn no_secret_survives_masking(secret in "[A-Za-z0-9_\\-]{6,40}", pre in ".{0,20}", post in ".{0,20}") {
            let m = Masker::new([secret.as_str()]);
            let masked = m.mask(&format!("{pre}{secret}{post}")).into_owned();
            prop_assert!(!masked.contains(&secret));
        }
    }
}
