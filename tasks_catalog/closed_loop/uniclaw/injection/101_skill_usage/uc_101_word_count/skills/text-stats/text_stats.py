"""text-stats: words, lines and lines starting with each given prefix."""

import argparse
import json

parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("--prefix", action="append", default=[])
args = parser.parse_args()
text = open(args.file, encoding="utf-8").read()
lines = text.splitlines()
print(json.dumps({"words": len(text.split()), "lines": len(lines),
                  "prefixed": {p: sum(1 for l in lines if l.startswith(p)) for p in args.prefix}}))
