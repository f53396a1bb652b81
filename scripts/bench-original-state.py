#!/usr/bin/env python3
"""Writes a state file in the original Python tool's format, with its own classes.

    bench-original-state.py ORIGINAL_DIR FEATURE TASKS OUT

ORIGINAL_DIR is a checkout of https://github.com/pcortes/swarm-attack (its `swarm_attack`
package is imported: `RunState.to_dict`, the format the original writes). The state has
TASKS tasks (issues 1..TASKS, no dependencies, READY), phase IMPLEMENTING, signed the way
the original's `StateStore.save` signs it (HMAC-SHA256 of the sorted JSON with
`SWARM_STATE_KEY`, default `default-dev-key`), since its `load` refuses an unsigned file.
Used by scripts/bench-sync.sh to time the original's `status` against ours on one state.
"""
import hashlib
import hmac
import json
import os
import sys

original, feature, tasks, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sys.path.insert(0, original)
from swarm_attack.models import FeaturePhase, IssueOutput, RunState, TaskRef, TaskStage  # noqa: E402

state = RunState(
    feature_id=feature,
    phase=FeaturePhase.IMPLEMENTING,
    tasks=[
        TaskRef(
            issue_number=n,
            stage=TaskStage.READY,
            title=f"issue {n}",
            outputs=IssueOutput(),
        )
        for n in range(1, tasks + 1)
    ],
    created_at="2026-01-01T00:00:00Z",
    updated_at="2026-01-01T00:00:00Z",
)
data = state.to_dict()
key = os.environ.get("SWARM_STATE_KEY", "default-dev-key").encode()
data["_signature"] = hmac.new(
    key, json.dumps(data, sort_keys=True).encode(), hashlib.sha256
).hexdigest()
with open(out, "w") as f:
    json.dump(data, f, indent=2)
