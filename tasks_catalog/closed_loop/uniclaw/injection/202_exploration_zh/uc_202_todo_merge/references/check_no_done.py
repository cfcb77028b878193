"""Cap check: todo.md holds no completed item (`- [x]`)."""

import os
import sys

path = os.path.join(os.environ["CLAWMARK_RESULTS"], "todo.md")
text = open(path, encoding="utf-8").read() if os.path.isfile(path) else ""
if "[x]" in text.lower():
    sys.exit("a completed item is listed")
print("no completed items")
