"""SWE-bench 5.x `log_parser` names -> clawmark parsers, and `parse_log` over them."""

from __future__ import annotations

from typing import Callable

from clawmark.swe.parsers import cargo, django, go, javascript, jvm, native, php, pytest, ruby, sympy
from clawmark.swe.parsers.base import MAX_LOG_CHARS, LogParser, LogParserError, StatusMap, UnknownLogParser

PARSERS: dict[str, LogParser] = {
    # Python (SWE-bench Verified and the other Python sets)
    "parse_log_pytest": pytest.parse_pytest,
    "parse_log_pytest_options": pytest.parse_pytest_options,
    "parse_log_pytest_v2": pytest.parse_pytest_v2,
    "parse_log_django": django.parse_django,
    "parse_log_sympy": sympy.parse_sympy,
    "parse_log_seaborn": pytest.parse_seaborn,
    "parse_log_matplotlib": pytest.parse_matplotlib,
    **dict.fromkeys(["parse_log_astroid", "parse_log_flask", "parse_log_marshmallow", "parse_log_pvlib",
                     "parse_log_pyvista", "parse_log_sqlfluff", "parse_log_xarray"], pytest.parse_pytest),
    **dict.fromkeys(["parse_log_pydicom", "parse_log_requests", "parse_log_pylint"],
                    pytest.parse_pytest_options),
    **dict.fromkeys(["parse_log_astropy", "parse_log_scikit", "parse_log_sphinx"], pytest.parse_pytest_v2),
    # Go, Rust
    "parse_log_gotest": go.parse_gotest,
    "parse_log_cargo": cargo.parse_cargo,
    # JavaScript / TypeScript
    "parse_log_jest": javascript.parse_jest,
    "parse_log_jest_json": javascript.parse_jest_json,
    "parse_log_vitest": javascript.parse_vitest,
    "parse_log_tap": javascript.parse_tap,
    "parse_log_karma": javascript.parse_karma,
    # Java
    "parse_log_maven": jvm.parse_maven,
    "parse_log_ant": jvm.parse_ant,
    "parse_log_gradle_custom": jvm.parse_gradle_custom,
    # PHP, Ruby
    "parse_log_phpunit": php.parse_phpunit,
    "parse_log_rspec_transformed_json": ruby.parse_rspec_transformed_json,
    "parse_log_ruby_unit": ruby.parse_ruby_unit,
    "parse_log_minitest": ruby.parse_minitest,
    "parse_log_cucumber": ruby.parse_cucumber,
    # C / C++
    "parse_log_redis": native.parse_redis,
    "parse_log_jq": native.parse_jq,
    "parse_log_googletest": native.parse_googletest,
    "parse_log_doctest": native.parse_doctest,
    "parse_log_micropython_test": native.parse_micropython_test,
}

# Repositories whose instances used different runners over time: the PR number (taken from
# the instance id as SWE-bench does) picks the parser.
_BY_PULL_REQUEST: dict[str, tuple[Callable[[str], str], dict[str, LogParser]]] = {
    "parse_log_immutable_js": (lambda iid: iid.split("-")[-1],
                               {"2006": javascript.parse_jest, "2005": javascript.parse_jest_json}),
    "parse_log_jekyll": (lambda iid: iid.split("-")[1] if "-" in iid else "",
                         {**dict.fromkeys(["9141", "8047", "8167"], ruby.parse_minitest),
                          **dict.fromkeys(["8761", "8771"], ruby.parse_cucumber)}),
}


def known_parsers() -> list[str]:
    """Every `log_parser` name clawmark can read, sorted."""
    return sorted([*PARSERS, *_BY_PULL_REQUEST])


def get_parser(name: str, instance_id: str = "") -> LogParser:
    """The parser for `name`; raises UnknownLogParser (or LogParserError for a per-instance
    parser that does not know this instance)."""
    if name in PARSERS:
        return PARSERS[name]
    if name in _BY_PULL_REQUEST:
        pull_request_of, by_number = _BY_PULL_REQUEST[name]
        number = pull_request_of(instance_id)
        if number not in by_number:
            raise LogParserError(f"{name} has no runner for instance {instance_id!r} (PR {number!r})")
        return by_number[number]
    raise UnknownLogParser(name, known_parsers())


def parse_log(log_parser_name: str, text: str, instance_id: str = "") -> StatusMap:
    """Test name -> TestStatus for `text` read by the named SWE-bench 5.x parser."""
    parser = get_parser(log_parser_name, instance_id)
    if len(text) > MAX_LOG_CHARS:
        raise LogParserError(f"test log of {len(text)} characters exceeds {MAX_LOG_CHARS}")
    return parser(text)
