#!/usr/bin/env python3
"""No god objects in host-example (issue 37): every type has at most 40
public methods, and its inherent `impl` blocks sit in at most 6 files.

Counts, per type, the `pub fn` and `pub async fn` (not `pub(crate)` or
narrower) of its inherent impl blocks (`impl Type {`, `impl Type<'_> {`,
`impl<'h> Type<'h> {`; trait impls are not the type's own surface), over
every `.rs` file under host-example/src. Prints the widest types; exits 1
naming each type over a limit.

The app layer's services (issue 37) stand on each other only through
the services passed in to them (their fields, set by `Host`'s accessors
in `app/services.rs`): inside a service's `impl` block, reaching another
service through the host (`self.host.admin()`, `host.runs()`) fails
this script too, naming the file and line."""
import collections
import pathlib
import re
import sys

MAX_METHODS = 40
MAX_FILES = 6

root = pathlib.Path(__file__).resolve().parent.parent / "host-example" / "src"
impl = re.compile(r"^impl(?:<[^>]*>)? ([A-Z]\w*)(?:<[^>]*>)? \{$")
public = re.compile(r"^    pub (?:const )?(?:async )?(?:unsafe )?fn \w+")
services_rs = (root / "app" / "services.rs").read_text()
services = set(re.findall(r"^    (\w+) \{[^}]*\};$", services_rs, re.M))
assert services, "no services declared in app/services.rs"
accessor = re.compile(
    r"\bhost\s*\.\s*(?:" + "|".join(sorted(s.lower() for s in services)) + r")\(\)"
)
back_doors = []
methods = collections.Counter()
files = collections.defaultdict(set)
for path in sorted(root.rglob("*.rs")):
    current = None
    block = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if current in services:
            block.append((number, line))
        if current is None:
            found = impl.match(line)
            if found:
                current = found.group(1)
                files[current].add(path.relative_to(root.parent).as_posix())
        elif line == "}":
            if current in services:
                text = "\n".join(l for _, l in block)
                for found in accessor.finditer(text):
                    at = block[text.count("\n", 0, found.start())][0]
                    back_doors.append(
                        f"{path.relative_to(root.parent).as_posix()}:{at}: {current} reaches "
                        f"`{' '.join(found.group().split())}` through the host; pass it in"
                    )
            current = None
            block = []
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
for line in back_doors:
    print(f"back door: {line}", file=sys.stderr)
print(f"services, each reaching the others only as passed in: {', '.join(sorted(services))}")
sys.exit(1 if over or back_doors else 0)
