//! A feature's id, checked once where it enters (an argument, a GitHub event, a file name)
//! and trusted everywhere after: it names the feature's folder under the specs directory,
//! its state, event log and lock files, its branches and markers (docs/architecture.md).
//!
//! Valid: 2–64 characters `a-z`, `0-9`, `.`, `_`, `-`, starting and ending with a letter or
//! digit — so it is never a path (`/`, `..`) and never needs quoting.

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

/// A valid feature id (see the module doc). Built only by [`FeatureId::parse`] (or its
/// `FromStr` / `Deserialize`), so holding one proves it was checked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct FeatureId(String);

/// The error for a text that is not a valid feature id; its message is the one the user
/// sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidFeatureId(pub String);

impl fmt::Display for InvalidFeatureId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a valid feature id: use 2–64 characters a-z, 0-9, `.`, `_`, `-`, starting and ending with a letter or digit",
            self.0
        )
    }
}

impl std::error::Error for InvalidFeatureId {}

/// Whether `id` is a valid feature id: `^[a-z0-9][a-z0-9._-]{0,62}[a-z0-9]$`.
pub fn is_valid(id: &str) -> bool {
    let b = id.as_bytes();
    let edge = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mid = |c: u8| edge(c) || c == b'.' || c == b'_' || c == b'-';
    (2..=64).contains(&b.len()) && edge(b[0]) && edge(b[b.len() - 1]) && b.iter().all(|c| mid(*c))
}

impl FeatureId {
    /// Checks `id`.
    pub fn parse(id: &str) -> Result<FeatureId, InvalidFeatureId> {
        if is_valid(id) {
            Ok(FeatureId(id.to_string()))
        } else {
            Err(InvalidFeatureId(id.to_string()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for FeatureId {
    type Err = InvalidFeatureId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FeatureId::parse(s)
    }
}

impl TryFrom<String> for FeatureId {
    type Error = InvalidFeatureId;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        if is_valid(&s) {
            Ok(FeatureId(s))
        } else {
            Err(InvalidFeatureId(s))
        }
    }
}

impl<'de> serde::Deserialize<'de> for FeatureId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        FeatureId::try_from(s).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for FeatureId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for FeatureId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl AsRef<std::path::Path> for FeatureId {
    fn as_ref(&self) -> &std::path::Path {
        std::path::Path::new(&self.0)
    }
}

impl Deref for FeatureId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for FeatureId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for FeatureId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for FeatureId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<FeatureId> for String {
    fn from(f: FeatureId) -> String {
        f.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn valid_and_invalid_ids() {
        for ok in ["auth", "a1", "my.feature-2_x", &"a".repeat(64)] {
            assert_eq!(FeatureId::parse(ok).unwrap().as_str(), ok);
        }
        for bad in [
            "a",
            "-a",
            "a-",
            "Auth",
            "a/b",
            "../x",
            "",
            &"a".repeat(65),
            "a b",
        ] {
            assert!(FeatureId::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_error_names_the_text_and_the_rule() {
        assert_eq!(
            FeatureId::parse("Bad Id").unwrap_err().to_string(),
            "`Bad Id` is not a valid feature id: use 2–64 characters a-z, 0-9, `.`, `_`, `-`, starting and ending with a letter or digit"
        );
    }

    #[test]
    fn deserialize_checks_and_serialize_is_the_text() {
        let f: FeatureId = serde_json::from_str("\"auth\"").unwrap();
        assert_eq!(serde_json::to_string(&f).unwrap(), "\"auth\"");
        let e = serde_json::from_str::<FeatureId>("\"../x\"").unwrap_err();
        assert!(e.to_string().contains("not a valid feature id"), "{e}");
    }

    proptest! {
        #[test]
        fn parse_agrees_with_the_rule_and_round_trips(s in "[a-zA-Z0-9._/ -]{0,70}") {
            let parsed = FeatureId::parse(&s);
            prop_assert_eq!(parsed.is_ok(), is_valid(&s));
            if let Ok(f) = parsed {
                prop_assert_eq!(f.to_string(), s.clone());
                prop_assert_eq!(f.as_str().parse::<FeatureId>().unwrap(), f.clone());
                prop_assert!(!f.contains('/') && f.as_str() != "..");
            }
        }
    }
}
