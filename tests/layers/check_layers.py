#!/usr/bin/python3
"""The layering test: every include of the project against the rules of
docs/layers.txt (the rules docs/architecture.md "Layers" states).

    check_layers.py [ROOT] [--rules FILE] [--no-stale-check]

ROOT is the source tree (default: this script's tree); the rules default to
ROOT/docs/layers.txt. Every `#include "..."` line of the scanned folders is
resolved as the build resolves it (the including file's folder, then the
include roots) to a file, both files are given their layer, and the include
must be allowed: a layer may include itself, what its `may` rule lists, and
what a `known` entry allows for that one file. An `#include <...>` is checked
too when it names a file of the tree (so that angle brackets do not hide an
include of src/ from a program). Prints each violation as
`file:line: rule broken` and exits 1 if there is any; a `known` entry that no
longer matches an include is reported too, so that the allow-list only
shrinks.
"""
import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cc", ".inc"}


class Rules:
    def __init__(self, path):
        self.scan = []    # folders whose files are checked
        self.roots = []   # include directories, in the build's order
        self.layers = []  # layer patterns ("src/policy/*": each folder below)
        self.may = {}     # layer pattern -> allowed targets (layers or files)
        self.known = []   # [file, include, reason, used]
        for number, raw in enumerate(path.read_text().splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(" ")
            rest = rest.strip()
            if word == "scan":
                self.scan += rest.split()
            elif word == "roots":
                self.roots += rest.split()
            elif word == "layer":
                self.layers.append(rest)
            elif word == "may":
                layer, _, targets = rest.partition(":")
                self.may.setdefault(layer.strip(), []).extend(targets.split())
            elif word == "known":
                file, _, include = rest.partition(":")
                self.known.append([file.strip(), include.strip(), raw.partition("#")[2].strip(), False])
            else:
                sys.exit(f"{path}:{number}: unknown rule word '{word}'")
        for layer in self.may:
            if layer not in self.layers:
                sys.exit(f"{path}: 'may {layer}:' names no layer")

    def layer_of(self, rel):
        """The layer of a file (a path from the root): the longest pattern
        that contains it; "a/*" stands for each folder below a."""
        best = None
        for pattern in self.layers:
            if pattern.endswith("/*"):
                base = pattern[:-2]
                parts = rel.split("/")
                depth = len(base.split("/"))
                if rel.startswith(base + "/") and len(parts) > depth + 1:
                    name = "/".join(parts[: depth + 1])
                    candidate = (len(base) + 1, pattern, name)
                else:
                    continue
            elif rel == pattern or rel.startswith(pattern + "/"):
                candidate = (len(pattern), pattern, pattern)
            else:
                continue
            if best is None or candidate[0] > best[0]:
                best = candidate
        return (best[1], best[2]) if best else (None, None)

    def allows(self, pattern, name, target_rel):
        """Whether a file of layer `name` (of pattern `pattern`) may include
        target_rel: its own layer, a layer or pattern its rule lists, or a
        file or folder its rule lists inside another layer."""
        target_pattern, target_name = self.layer_of(target_rel)
        if target_name is not None and target_name == name:
            return True
        for allowed in self.may.get(pattern, []):
            if target_name is not None and allowed in (target_name, target_pattern):
                return True
            if target_name is not None and allowed.startswith(target_name + "/") and (
                    target_rel == allowed or target_rel.startswith(allowed + "/")):
                return True
        return False


def resolve(root, rules, including, spelled, quoted):
    """The file an include names, as a path from the root, or None."""
    candidates = [including.parent / spelled] if quoted else []
    candidates += [root / r / spelled for r in rules.roots]
    for c in candidates:
        if c.is_file():
            return c.resolve().relative_to(root.resolve()).as_posix()
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    parser.add_argument("--rules", type=pathlib.Path)
    parser.add_argument("--no-stale-check", action="store_true",
                        help="do not report allow-list entries that match nothing (for a tree other than the rules')")
    args = parser.parse_args()
    root = args.root.resolve()
    rules_path = args.rules or root / "docs" / "layers.txt"
    rules = Rules(rules_path)
    violations = []
    checked = 0
    for folder in rules.scan:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            pattern, name = rules.layer_of(rel)
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quoted, spelled = m.group(1) == '"', m.group(2)
                target = resolve(root, rules, path, spelled, quoted)
                if target is None:
                    if quoted:
                        violations.append(f"{rel}:{number}: #include \"{spelled}\" names no file of the tree "
                                          f"(looked beside the file and in {', '.join(rules.roots)})")
                    continue
                checked += 1
                if pattern is None:
                    violations.append(f"{rel}:{number}: {rel} is in no layer of {rules_path.name}")
                    continue
                if rules.allows(pattern, name, target):
                    continue
                entry = next((k for k in rules.known if k[0] == rel and k[1] == spelled), None)
                if entry is not None:
                    entry[3] = True
                    continue
                target_layer = rules.layer_of(target)[1] or target
                allowed = " ".join(rules.may.get(pattern, [])) or "nothing outside itself"
                violations.append(f"{rel}:{number}: #include \"{spelled}\" ({target}): {name} may not include "
                                  f"{target_layer} (layer {pattern} may include: {allowed})")
    for file, include, reason, used in rules.known:
        if not used and not args.no_stale_check:
            violations.append(f"{rules_path}: known {file}: {include} matches no forbidden include any more: "
                              f"remove it from the allow-list")
    for v in violations:
        print(v)
    print(f"{checked} includes checked against {rules_path}: {len(violations)} violation(s), "
          f"{sum(k[3] for k in rules.known)} known and allowed for now")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
