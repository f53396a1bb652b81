//! Task stages and feature phases (docs/state.md "Stages and phases"), with room for names this
//! tool does not know (kept verbatim, reported as warnings, never dropped).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

macro_rules! name_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant,)+
            /// A name this tool does not know, kept as written.
            Unknown(String),
        }

        impl $name {
            /// Every known variant, in declaration order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The name as written in state files.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)+
                    $name::Unknown(s) => s,
                }
            }

            /// Parses a name; unknown names become `Unknown`.
            pub fn parse(s: &str) -> Self {
                match s {
                    $($text => $name::$variant,)+
                    other => $name::Unknown(other.to_string()),
                }
            }

            /// Whether this is a name the tool knows.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Ok($name::parse(&s))
            }
        }
    };
}

name_enum! {
    /// The stage of one task.
    Stage {
        Backlog => "BACKLOG",
        Ready => "READY",
        InProgress => "IN_PROGRESS",
        Interrupted => "INTERRUPTED",
        Blocked => "BLOCKED",
        Done => "DONE",
        Skipped => "SKIPPED",
        Split => "SPLIT",
        InReview => "IN_REVIEW",
    }
}

name_enum! {
    /// The phase of a feature (the original tool's names).
    Phase {
        NoPrd => "NO_PRD",
        PrdReady => "PRD_READY",
        SpecInProgress => "SPEC_IN_PROGRESS",
        SpecNeedsApproval => "SPEC_NEEDS_APPROVAL",
        SpecApproved => "SPEC_APPROVED",
        IssuesCreating => "ISSUES_CREATING",
        IssuesValidating => "ISSUES_VALIDATING",
        IssuesNeedReview => "ISSUES_NEED_REVIEW",
        ReadyToImplement => "READY_TO_IMPLEMENT",
        Implementing => "IMPLEMENTING",
        Complete => "COMPLETE",
        Blocked => "BLOCKED",
    }
}

impl Stage {
    /// The `swarm:*` label for this stage (docs/github.md "What an issue shows"), if any.
    pub fn label(&self) -> Option<&'static str> {
        match self {
            Stage::Ready | Stage::Backlog | Stage::Interrupted => Some("swarm:ready"),
            Stage::InProgress => Some("swarm:in-progress"),
            Stage::Blocked => Some("swarm:blocked"),
            Stage::Done => Some("swarm:done"),
            Stage::InReview => Some("swarm:in-review"),
            Stage::Skipped | Stage::Split | Stage::Unknown(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_round_trip_and_unknown_is_kept() {
        for s in Stage::KNOWN {
            assert_eq!(&Stage::parse(s.as_str()), s);
        }
        let s: Stage = serde_json::from_str("\"REVIEWING\"").unwrap();
        assert_eq!(s, Stage::Unknown("REVIEWING".into()));
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"REVIEWING\"");
        assert!(!s.is_known());
    }

    #[test]
    fn labels_follow_spec_clarifications() {
        assert_eq!(Stage::Backlog.label(), Some("swarm:ready"));
        assert_eq!(Stage::Interrupted.label(), Some("swarm:ready"));
        assert_eq!(Stage::InProgress.label(), Some("swarm:in-progress"));
        assert_eq!(Stage::Skipped.label(), None);
        assert_eq!(Stage::Split.label(), None);
        assert_eq!(Stage::InReview.label(), Some("swarm:in-review"));
    }
}
