"""mail-digest: one JSON line per .eml with the meeting times it mentions and what kind of mail it is."""

import email
import json
import re
import sys
from pathlib import Path

TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
TOPIC = re.compile(r"主题(?:不变)?[:：]\s*([^。\s]+)|「([^」]+)」")


def kind(subject: str, body: str, times: list[str]) -> str:
    text = subject + body
    if "推广" in text or "营销" in text:
        return "promo"
    if "改到" in text or "改期" in text:
        return "reschedule"
    if "取消" in text:
        return "cancel"
    return "invite" if times and ("会" in text or "评审" in text) else "none"


def main(folder: str) -> None:
    for path in sorted(Path(folder).glob("*.eml")):
        message = email.message_from_string(path.read_text(encoding="utf-8"))
        body = message.get_payload()
        times = TIME.findall(body)
        topic = next((a or b for a, b in TOPIC.findall(body)), None)
        print(json.dumps({"mail": path.name, "from": message["From"], "subject": message["Subject"],
                          "kind": kind(message["Subject"], body, times), "times": times, "topic": topic},
                         ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1])
