"""Record/replay of the web, and a guard against irreversible requests, for one attempt.

A host-side mitmdump (mitmproxy 11.0.2 in its own venv, `scripts/webproxy-up.sh`) with our
addon (`addon.py`), bound to the gateway network's host address, sits in front of the task
container: HTTP(S)_PROXY in its environment, the proxy's CA in its trust stores (system
bundle; REQUESTS_CA_BUNDLE / SSL_CERT_FILE / PIP_CERT / NODE_EXTRA_CA_CERTS / CURL_CA_BUNDLE;
Chromium's NSS db when certutil is there). Modes (`WebProxyConfig.mode`, per sweep):

- `live`: forward; block rules apply.
- `record`: forward and save every exchange, in order, in the task's archive
  `<archive_root>/<task_id>/` (`archive.py`: one JSON file each, with what replay matches on:
  the body's hash, the cookies and the `match_headers`, by default Accept and Accept-Language).
- `replay`: answer only from the archive: a request gets the recordings of its method and
  URL whose recorded body, cookies and headers it shares, in recorded order (the last one
  repeats). Anything else gets a 502 naming the miss and what did not match (body, cookies,
  a header) and is never fetched. `replay-or-live`: misses go live. Hits and misses are
  counted (`row_web_counts` -> the row's `web_hits`, `web_misses`; `webproxy.json` also lists
  why each missed). Archives recorded before matching on cookies and headers still replay,
  matched on method, URL and body only.

Block rules (sweep `block:` + the task's `web_rules.yaml`; `IRREVERSIBLE_RULES` is a starting
set) refuse matching requests in every mode with a 403 that tells the claw the action was not
performed, and save the request with its payload in `<web_dir>/blocked/NNNN.json`.
Package registries pass through untouched (`passthrough_hosts`). With replay on, the task's
hash is `web_task_hash(task, web)`, folding in the archive's digest.
"""

from clawmark.webproxy.archive import archive_digest
from clawmark.webproxy.config import IRREVERSIBLE_RULES, BlockRule, WebMode, WebProxyConfig, load_rules, task_rules
from clawmark.webproxy.errors import WebArchiveMissing, WebProxyError
from clawmark.webproxy.proxy import WebProxy, WebStats
from clawmark.webproxy.proxied_task import ProxiedTaskEnv, blocked_requests_note, row_web_counts, web_task_env, web_task_hash

__all__ = ["IRREVERSIBLE_RULES", "BlockRule", "ProxiedTaskEnv", "WebArchiveMissing", "WebMode", "WebProxy", "WebProxyConfig",
           "WebProxyError", "WebStats", "archive_digest", "blocked_requests_note", "load_rules", "row_web_counts", "task_rules",
           "web_task_env", "web_task_hash"]
