"""Prints "same library" when two exports of `kf-evolve library` hold the
same rules, statistics, best schedules and counted candidates (where they
were stored aside), else what differs."""
import json
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
for library in (a, b):
    library.pop("path", None)
if a == b:
    print("same library")
else:
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            print("differ in %s:\n  %s\n  %s" % (key, json.dumps(a.get(key))[:500],
                                                 json.dumps(b.get(key))[:500]))
