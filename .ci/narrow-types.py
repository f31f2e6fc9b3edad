#!/usr/bin/env python3
"""No god objects in host-example (issue 37): every type has at most 40
public methods, and its inherent `impl` blocks sit in at most 6 files.

Counts, per type, the `pub fn` and `pub async fn` (not `pub(crate)` or
narrower) of its inherent impl blocks (`impl Type {`, `impl Type<'_> {`,
`impl<'h> Type<'h> {`; trait impls are not the type's own surface), over
every `.rs` file under host-example/src. Prints the widest types; exits 1
naming each type over a limit."""
import collections
import pathlib
import re
import sys

MAX_METHODS = 40
MAX_FILES = 6

root = pathlib.Path(__file__).resolve().parent.parent / "host-example" / "src"
impl = re.compile(r"^impl(?:<[^>]*>)? ([A-Z]\w*)(?:<[^>]*>)? \{$")
public = re.compile(r"^    pub (?:const )?(?:async )?(?:unsafe )?fn \w+")
methods = collections.Counter()
files = collections.defaultdict(set)
for path in sorted(root.rglob("*.rs")):
    current = None
    for line in path.read_text().splitlines():
        if current is None:
            found = impl.match(line)
            if found:
                current = found.group(1)
                files[current].add(path.relative_to(root.parent).as_posix())
        elif line == "}":
            current = None
        elif public.match(line):
            methods[current] += 1
widest = sorted(files, key=lambda name: (-methods[name], name))
for name in widest[:8]:
    print(f"{name}: {methods[name]} public methods in {len(files[name])} files")
over = [
    f"{name}: {methods[name]} public methods (at most {MAX_METHODS}), in {len(files[name])} files (at most {MAX_FILES}): {', '.join(sorted(files[name]))}"
    for name in widest
    if methods[name] > MAX_METHODS or len(files[name]) > MAX_FILES
]
for line in over:
    print(f"too wide: {line}", file=sys.stderr)
sys.exit(1 if over else 0)
