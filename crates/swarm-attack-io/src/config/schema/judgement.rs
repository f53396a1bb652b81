//! The sections of the judgement keys (docs/config.md): `verify`, `review`, `analysis`,
//! `lessons`, `gates`.

use super::*;

pub static ANALYSIS: Section = Section {
    fields: &[f("agent", Ty::OptStr(Rule::AgentName))],
    required: &[],
    legacy: &[],
};

pub static LESSONS: Section = Section {
    fields: &[
        f("enabled", Ty::Bool),
        f("path", Ty::Str(Rule::NonEmpty)),
        f(
            "max",
            Ty::Uint {
                min: 0,
                max: 1000,
                unit: "lessons",
            },
        ),
        f(
            "ttl_days",
            Ty::Uint {
                min: 1,
                max: 36_500,
                unit: "days",
            },
        ),
    ],
    required: &[],
    legacy: &[],
};

pub static VERIFY: Section = Section {
    fields: &[
        f(
            "test_paths",
            Ty::StrList {
                min_items: 0,
                rule: Rule::PathGlob,
            },
        ),
        f("protect_tests", Ty::Bool),
        f("fail_before", Ty::Bool),
        f("skip_markers", Ty::Bool),
        f("require_tests", Ty::Bool),
        f(
            "test_only_labels",
            Ty::StrList {
                min_items: 0,
                rule: Rule::NonEmpty,
            },
        ),
    ],
    required: &[],
    legacy: &[],
};

pub static REVIEW: Section = Section {
    fields: &[
        f("enabled", Ty::Bool),
        f(
            "reviewers",
            Ty::StrList {
                min_items: 0,
                rule: Rule::AgentName,
            },
        ),
        f("strategy", Ty::Enum(&["single", "cross"])),
        f(
            "min_confidence",
            Ty::Uint {
                min: 0,
                max: 100,
                unit: "percent",
            },
        ),
        f(
            "cross_unmatched_min_confidence",
            Ty::Uint {
                min: 0,
                max: 100,
                unit: "percent",
            },
        ),
        f(
            "block_on",
            Ty::StrList {
                min_items: 0,
                rule: Rule::Severity,
            },
        ),
        f(
            "fix_rounds",
            Ty::Uint {
                min: 0,
                max: 10,
                unit: "rounds",
            },
        ),
        f("on_error", Ty::Enum(&["block", "land"])),
        f("post_to_pr", Ty::Bool),
    ],
    required: &[],
    legacy: &[],
};

pub static SPECIFY_GATE: Section = Section {
    fields: &[
        f("enabled", Ty::Bool),
        f(
            "min_score",
            Ty::Uint {
                min: 0,
                max: 10,
                unit: "points",
            },
        ),
    ],
    required: &[],
    legacy: &[],
};

pub static RISK_GATE: Section = Section {
    fields: &[
        f("enabled", Ty::Bool),
        f(
            "keywords",
            Ty::StrList {
                min_items: 0,
                rule: Rule::NonEmpty,
            },
        ),
        f(
            "paths",
            Ty::StrList {
                min_items: 0,
                rule: Rule::NonEmpty,
            },
        ),
        f("review", Ty::Enum(&["single", "cross"])),
        f("landing", Ty::Enum(&["commit", "pr"])),
    ],
    required: &[],
    legacy: &[],
};

pub static GATES: Section = Section {
    fields: &[
        f("specify", Ty::Section(&SPECIFY_GATE)),
        f("risk", Ty::Section(&RISK_GATE)),
    ],
    required: &[],
    legacy: &[],
};
