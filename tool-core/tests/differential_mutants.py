#!/usr/bin/env python3
"""Mutants of the generated argument checks: each breaks one JSON Schema
keyword's check (or its wording) in a scratch worktree of HEAD, and the
differential test (src/checks/differential.rs) must then fail. Shows the
test has cases enough to find a disagreement in every supported keyword.

    python3 tool-core/tests/differential_mutants.py

Needs git and cargo; builds in its own target directory (about a minute a
mutant on two cores).
"""
import os, subprocess, tempfile

REPO = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
TREE = tempfile.mkdtemp(prefix="mutants.")
subprocess.run(["git", "-C", REPO, "worktree", "add", "-q", "--detach", TREE, "HEAD"], check=True)
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target", "mutants"))
W = TREE + "/tool-core/src/checks/"
muts=[
 ("type", "walk.rs", "        if types.admits(value) {\n            return true;\n        }", "        if true || types.admits(value) {\n            return true;\n        }"),
 ("required", "walk.rs", "            return seen == required;", "            return seen == required || true;"),
 ("additionalProperties", "walk.rs", "                    Member::Unknown if !deny_unknown => {", "                    Member::Unknown if true => {"),
 ("minimum", "walk.rs", "            && !keywords.minimum.or(least).is_some_and(below)", "            && !keywords.minimum.or(least).is_some_and(|_| false)"),
 ("maximum", "walk.rs", "            && !keywords.maximum.or(most).is_some_and(above)", "            && !keywords.maximum.or(most).is_some_and(|_| false)"),
 ("minLength", "walk.rs", "            if let Some(least) = least.filter(|&least| length < least) {", "            if let Some(least) = least.filter(|&least| length < least && false) {"),
 ("maxLength", "walk.rs", "            if let Some(most) = most.filter(|&most| length > most) {", "            if let Some(most) = most.filter(|&most| length > most && false) {"),
 ("pattern", "walk.rs", "            && !pattern.is_match(text)", "            && !pattern.is_match(text) && false"),
 ("format", "walk.rs", "            && !format.admits(text)", "            && !format.admits(text) && false"),
 ("maxItems", "walk.rs", "        if let Some(most) = keywords.max_length.or(own_counts.1).filter(|&m| count > m) {", "        if let Some(most) = keywords.max_length.or(own_counts.1).filter(|&m| count > m && false) {"),
 ("uniqueItems", "walk.rs", "        if unique && !all_unique(items) {", "        if unique && !all_unique(items) && false {"),
 ("enum", "walk.rs", "        if !is_one_of(value, names) {", "        if !is_one_of(value, names) && false {"),
 ("oneOf", "walk.rs", "    pub fn one_of(&mut self, value: &Value, branch: impl FnOnce(&mut Self) -> bool) -> bool {\n        if self.quietly(branch) {", "    pub fn one_of(&mut self, value: &Value, branch: impl FnOnce(&mut Self) -> bool) -> bool {\n        if self.quietly(branch) || true {"),
 ("anyOf", "walk.rs", "        if self.quietly(branch) {\n            return true;\n        }\n        self.refuse(|| {\n            format!(\"{value} is not valid under any of the schemas listed in the 'anyOf' keyword\")", "        if self.quietly(branch) || true {\n            return true;\n        }\n        self.refuse(|| {\n            format!(\"{value} is not valid under any of the schemas listed in the 'anyOf' keyword\")"),
 ("message-wording", "walk.rs", "is greater than the maximum of", "is more than the maximum of"),
]
missed = 0
for name, f, old, new in muts:
    p=W+f; s=open(p).read()
    if old not in s: print(name, "PATTERN NOT FOUND"); continue
    open(p,'w').write(s.replace(old,new,1))
    r=subprocess.run(f"cd {TREE} && CARGO_TARGET_DIR={TARGET} cargo test -q -p tool-core --lib checks::differential 2>&1 | tail -40",shell=True,capture_output=True,text=True)
    open(p,'w').write(s)
    out=r.stdout
    caught = "test result: FAILED" in out or "panicked" in out
    detail=[l for l in out.splitlines() if "accepted by one side" in l or "Test failed" in l][:1]
    missed += not caught
    print(f"{name}: {'caught' if caught else 'NOT CAUGHT'} {detail[0][:160] if detail else ''}", flush=True)
subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", TREE], check=True)
raise SystemExit(1 if missed else 0)
