"""The audit's secret scan finds a value in each form an agent or a tool may re-encode it into
(base64 and base64url at any alignment and wrapped into lines, percent-encoding, JSON escaping,
hex), says which, across chunk boundaries, and flags no similar value nor a too-short one."""

from __future__ import annotations

import base64
import json
import random
from urllib.parse import quote, urlencode

import pytest
from typer.testing import CliRunner

from clawmark.audit import Secret, environment_secrets
from clawmark.audit.files import LOCAL, chunks
from clawmark.audit.secrets import MIN_SECRET_CHARS, SecretScan
from clawmark.cli.main import app
from clawmark.results import ResultStore
from clawmark.results.synthetic import example_row

KEY = Secret("OPENAI_API_KEY", "sk-audit-fake-1f2e3d4c5b6a7988")
# Punctuation that JSON and URLs escape and whose base64 holds `+` and `/` at every alignment.
PUNCT = Secret(".privacy DB_PASSWORD", 'p/w+d "q"~~~???>>> ok')
SIMILAR = "sk-audit-fake-1f2e3d4c6b6a7988"  # the key with one character changed

ENCODERS = {
    "JSON-escaped": lambda v: json.dumps({"cmd": f"login {v}"}),
    "percent-encoded": lambda v: "GET /cb?" + urlencode({"token": v, "next": "/home"}),
    "hex-encoded": lambda v: f"dump: {v.encode().hex()}",
    "base64-encoded": lambda v: f"Authorization: Basic {base64.b64encode(f'agent:{v}'.encode()).decode()}",
    "base64url-encoded": lambda v: f"state={base64.urlsafe_b64encode(f'user={v};exp=1'.encode()).decode()}",
}


def found(text: str | bytes, *secrets: Secret) -> set[str]:
    data = text.encode() if isinstance(text, str) else text
    return {hit.describe() for hit in SecretScan(secrets).found_in(data)}


def described(secret: Secret, how: str = "") -> str:
    return f"secret {secret.name} {secret.masked()}" + (f", {how}" if how else "")


def test_the_exact_value_is_found_as_before():
    assert found(f"debug: Bearer {KEY.value}\n", KEY) == {described(KEY)}


@pytest.mark.parametrize("how", sorted(ENCODERS))
def test_each_encoding_is_found_and_named_with_the_value_masked(how):
    text = ENCODERS[how](PUNCT.value)
    assert PUNCT.value.encode() not in text.encode()  # only the encoded form is there
    [finding] = found(text, PUNCT)
    assert finding == described(PUNCT, how)
    assert PUNCT.value[4:] not in finding  # masked: its first 4 characters and its length


def test_uppercase_hex_and_fully_percent_encoded_values_are_found():
    assert found(KEY.value.encode().hex().upper(), KEY) == {described(KEY, "hex-encoded")}
    every_byte = "".join(f"%{b:02x}" for b in KEY.value.encode())
    assert found(f"https://x.test/?t={every_byte}", KEY) == {described(KEY, "percent-encoded")}
    assert found(quote(PUNCT.value, safe="/"), PUNCT) == {described(PUNCT, "percent-encoded")}


def test_a_json_string_escaped_twice_is_found():
    """A tool call's arguments are a JSON string inside the JSON transcript."""
    transcript = json.dumps({"tool_calls": [{"arguments": json.dumps({"password": PUNCT.value})}]})
    assert found(transcript, PUNCT) == {described(PUNCT, "JSON-escaped")}


@pytest.mark.parametrize("secret,altchars,how", [
    (KEY, None, "base64-encoded"), (PUNCT, None, "base64-encoded"), (PUNCT, b"-_", "base64url-encoded"),
    (KEY, b"-_", "base64-encoded"),  # its base64 holds no + nor /: the same in both alphabets
])
def test_a_base64_value_is_found_at_every_offset_of_a_longer_blob(secret, altchars, how):
    """The value starts 0, 1, 2 (and 3, 4, 5) bytes into random bytes that are then encoded
    whole, followed by more random bytes, so its characters take each of the three alignments."""
    rng = random.Random(12)
    for offset in range(6):
        blob = rng.randbytes(offset) + secret.value.encode() + rng.randbytes(rng.randrange(1, 40))
        encoded = base64.b64encode(blob, altchars)
        assert found(b"data:" + encoded + b"\n", secret) == {described(secret, how)}, (secret, offset)


def test_base64_and_hex_wrapped_into_lines_are_found():
    """`echo $KEY | base64` wraps at 76 columns and `xxd -p` at 60: a long key spans lines,
    raw in a log or JSON-escaped in a transcript."""
    long_key = Secret("ANTHROPIC_API_KEY", "sk-ant-api03-" + "".join(random.Random(3).choices("abcdefXYZ0123_-", k=95)))
    encoded = base64.encodebytes((long_key.value + "\n").encode()).decode()  # 76-column lines
    assert encoded.count("\n") >= 2
    assert found(f"$ echo $KEY | base64\n{encoded}", long_key) == {described(long_key, "base64-encoded")}
    assert found(json.dumps({"output": encoded.replace("\n", "\r\n")}), long_key) == \
        {described(long_key, "base64-encoded")}
    hexed = long_key.value.encode().hex()
    lines = "\n".join(hexed[i:i + 60] for i in range(0, len(hexed), 60))
    assert found(lines, long_key) == {described(long_key, "hex-encoded")}


@pytest.mark.parametrize("how", ["exact", *sorted(ENCODERS)])
def test_a_match_straddling_a_chunk_boundary_is_found_at_every_split(how, tmp_path):
    """The file read by the audit's own reader in small chunks, then split at every byte."""
    text = (f"start {PUNCT.value} end" if how == "exact" else ENCODERS[how](PUNCT.value)).encode()
    scan = SecretScan([PUNCT, KEY])
    path = tmp_path / "agent.log"
    path.write_bytes(b"x" * 50 + text + b"y" * 50)
    expected = [described(PUNCT, "" if how == "exact" else how)]
    assert [hit.describe() for hit in scan.found_in_stream(chunks((LOCAL, str(path)), 7))] == expected
    for split in range(len(text) + 1):
        assert [hit.describe() for hit in scan.found_in_stream([text[:split], text[split:]])] == expected, split


def test_wrapped_base64_and_hex_straddling_a_chunk_boundary_are_found():
    """JSON-escaped CRLF line breaks: base64 in 76 columns, and hex in 4 (`xxd -p -c 2`), whose
    wrapped form spans twice the bytes of its needle."""
    long_key = Secret("K_API_KEY", "k" * 20 + "".join(random.Random(5).choices("0123456789abcdef", k=100)))
    hexed = long_key.value.encode().hex()
    texts = {"base64": base64.encodebytes(long_key.value.encode()).decode().replace("\n", "\r\n"),
             "hex": "\r\n".join(hexed[i:i + 4] for i in range(0, len(hexed), 4))}
    scan = SecretScan([long_key])
    for encoding, output in texts.items():
        text = json.dumps({"output": output}).encode()
        for split in range(0, len(text) + 1, 3):
            assert [h.encoding for h in scan.found_in_stream([text[:split], text[split:]])] == [encoding], split


def test_a_similar_but_different_value_is_not_flagged_in_any_form():
    for how, encode in ENCODERS.items():
        assert found(encode(SIMILAR), KEY) == set(), how
    assert found(SIMILAR.encode().hex().upper() + SIMILAR, KEY) == set()
    for offset in range(3):
        assert found(base64.b64encode(b"u" * offset + SIMILAR.encode()), KEY) == set()


def test_values_shorter_than_the_minimum_are_not_secrets():
    short = "x" * (MIN_SECRET_CHARS - 1)
    names = [s.name for s in environment_secrets({"A_API_KEY": short, "B_API_KEY": short + "y"})]
    assert names == ["B_API_KEY"]
    every_form = f"{short} {short.encode().hex()} {base64.b64encode(short.encode()).decode()}"
    assert found(every_form, Secret("GIVEN_TOKEN", short)) == set()  # a secret given in code is held to it too
    assert SecretScan([Secret("EMPTY", "")]).found_in_stream([b"anything"]) == []


def test_the_audit_command_reports_a_base64_leak_masked_and_exits_1(tmp_path):
    store = ResultStore(tmp_path / "results")
    row = example_row(sweep_id="enc-audit", task_id="zh_201_invoice_sum", claw="reference", language="zh",
                      status="fail", score=0.4, turns=1)
    log = store.layout(row.sweep_id, row.cell_key).dir / "logs" / "agent.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    encoded = base64.b64encode(f"{KEY.value}\n".encode()).decode()
    log.write_text(f"$ echo $OPENAI_API_KEY | base64\n{encoded}\n")
    store.write(row)
    result = CliRunner().invoke(app, ["audit", "enc-audit", "--results", str(tmp_path / "results")],
                                env={KEY.name: KEY.value})
    assert result.exit_code == 1, result.output
    leaks = [line for line in result.output.splitlines() if line.startswith("LEAK ")]
    assert len(leaks) == 1 and leaks[0].endswith(f"logs/agent.log: {described(KEY, 'base64-encoded')}"), leaks
    assert KEY.value not in result.output and encoded[:20] not in result.output
