"""invoice-reader: one JSON record per invoice number (duplicates merged), with its status."""

import json
import sys
from pathlib import Path


def fields(path: Path) -> dict[str, str]:
    pairs = (line.split("：", 1) for line in path.read_text(encoding="utf-8").splitlines() if "：" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def main(folder: str) -> None:
    seen: dict[str, dict] = {}
    for path in sorted(Path(folder).glob("*.txt")):
        record = fields(path)
        number = record.get("发票号码", path.stem)
        entry = seen.setdefault(number, {"号码": number, "价税合计": record.get("价税合计"),
                                         "状态": record.get("状态", "正常"), "文件": []})
        entry["文件"].append(path.name)
    print(json.dumps(list(seen.values()), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
