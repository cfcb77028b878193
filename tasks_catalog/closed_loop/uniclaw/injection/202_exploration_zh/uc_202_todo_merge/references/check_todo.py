"""C2/C3: todo.md lists the three open items once each, in file order, nothing archived or done."""

import os
import sys

path = os.path.join(os.environ["CLAWMARK_RESULTS"], "todo.md")
if not os.path.isfile(path):
    sys.exit("todo.md missing")
lines = [l.strip() for l in open(path, encoding="utf-8") if l.strip()]
expected = ["- [ ] 预约会议室", "- [ ] 回复客户邮件", "- [ ] 整理发票"]
if lines != expected:
    sys.exit(f"lines {lines}, expected {expected}")
print("three open items, once each, in order")
