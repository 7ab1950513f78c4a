#!/usr/bin/env python3
"""Prints a recipe of a guide: the fenced block that follows the line
`<!-- recipe: NAME -->` in FILE, so that the tests run the very YAML and
shell the docs show (scripts/action-test.sh, scripts/image-test.sh).

Usage: doc-recipe.py FILE NAME
"""
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
path, name = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
marker = "<!-- recipe: %s -->" % name
try:
    start = lines.index(marker)
except ValueError:
    sys.exit("doc-recipe: %s has no %s" % (path, marker))
i = start + 1
while i < len(lines) and not lines[i].startswith("```"):
    i += 1
if i == len(lines):
    sys.exit("doc-recipe: no fenced block after %s in %s" % (marker, path))
j = i + 1
while j < len(lines) and not lines[j].startswith("```"):
    j += 1
print("\n".join(lines[i + 1:j]))
