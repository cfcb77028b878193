"""Oneshot service for zh_205_inbox_digest: writes the user's synced mails as .eml files."""

import sys
from pathlib import Path

MAILS = {
    "001.eml": ("王经理", "周会改期", "原定周一的周会改到 2026-04-07 10:00，主题：季度复盘。"),
    "002.eml": ("李工", "方案评审邀请", "请于 2026-04-08 15:00 参加「支付网关方案评审」。"),
    "003.eml": ("HR", "体检通知", "年度体检在 2026-04-10 全天，不需要开会。"),
    "004.eml": ("张总", "客户拜访", "2026-04-09 09:30 和星河科技开会，主题：续约沟通。"),
    "005.eml": ("张总", "改期：客户拜访", "星河科技那边临时有事，原定 2026-04-09 09:30 的会改到 2026-04-10 16:00，"
                                     "主题不变：续约沟通。原时间作废。"),
    "006.eml": ("市场部", "【推广】线上研讨会", "诚邀您报名 2026-04-12 10:00 的公开直播课。本邮件为营销推广，无需回复。"),
}


def main(target: str) -> None:
    folder = Path(target)
    folder.mkdir(parents=True, exist_ok=True)
    for name, (sender, subject, body) in MAILS.items():
        text = f"From: {sender}\nSubject: {subject}\nContent-Type: text/plain; charset=utf-8\n\n{body}\n"
        (folder / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
