"""Task runtime: the container a closed-loop task package runs in, as the package is.

`with TaskEnv(task, TaskEnvConfig(...), logs_dir) as sandbox:` gives a running container
(`clawmark.runtime.sandbox.Sandbox`) ready for the first executor turn, in this order:

0. The package is a read-only input (clawmark/taskenv/package_guard.py): its files' digests are taken
   first and checked when the environment is left (a change: `PackageChanged`, naming the
   files); a task with pre_exec scripts is copied into `work_dir` and the copy is what runs,
   is injected and is judged (`TaskEnv.task`), pruned at the end to its hidden references.
1. pre_exec scripts run on the HOST from the (copied) package folder, with only the task's `.privacy`
   variables (values from `config.credentials`, else the runner's environment; unset ones are named in the log) plus
   PATH/HOME/LANG-like basics and SNAPSHOT_MODE=1 in snapshot mode, under a per-task file
   lock unless `pre_exec_parallel_safe` (failure: `PreExecFailed`, log in `logs_dir/pre_exec/`).
2. A container of the workstation image (`images/workstation/`, built when missing; attempts pick
   `browser` or `desktop` by the task: clawmark/taskenv/headed.py) with the
   cpu, memory, pids and lifetime limits and `clawmark.*` labels.
3. `on_layout` hooks, once the layout and the executor user exist and before anything of the
   package is there or runs: the web proxy installs its CA in every trust store here, so
   services, the desktop's Chromium and every turn trust it (clawmark/webproxy/proxied_task.py).
4. The package copied in (never mounted):
   - sources -> `/tmp_workspace/clawbench/sources/` (`*_snapshot.json` left out only when the task
     has an offline snapshot path (SNAPSHOT_MODE in `.privacy`, task_snapshot) and snapshot mode is off),
     owned by the executor;
   - base skills (default: upstream's five for upstream-layout tasks, none for clawmark's own;
     their `bin/` commands linked into /usr/local/bin), then the task's skill folders, whatever
     their entry file -> `/root/skills/<name>/`, root-owned, mode 0755/0644;
   - services -> `/opt/clawbench/services/<path>/`, inside a root-only 0700 folder.
   `/tmp_workspace/results/` (deliverables) and `/tmp_workspace/clawbench/logs/` exist and
   belong to the executor.
5. `before_services` hooks (an upstream-layout headed task's desktop, as upstream's runner orders
   it: clawmark/taskenv/headed.py), then services start as root, in declaration order, with `bash -lc "<start>"` from their folder
   and umask 000: oneshot ones block (service_timeout_s), background ones are detached and must
   listen on the port their command names within service_ready_s (or stay alive for a short
   grace when they name none). Failure: `ServiceFailed`, log in `logs_dir/services/`. Logs
   live in `/tmp_workspace/clawbench/logs/services/<name>.log`; `/tmp_workspace` is then
   handed to the executor again (what services seeded becomes its own).

With `config.cache_setup` (a sweep's default) steps 2-5 up to the first background service run
once per input hash in a capture container and every attempt starts from the committed image,
starting its background services and hooks again (clawmark/taskenv/setup_cache.py; the record
and the row say `setup_cache`: captured, hit, or off and why).

Who the executor is (`runtime_profile`, recorded in the row and the cell key): `root-least`
for upstream-layout tasks, as upstream's runner (its tasks apt-install software), or
`user-least`, uid:gid 1000:1000 (`claw`; created when the image lacks it), for clawmark's own.
Either way the container keeps its least-privilege profile: capabilities dropped to what set-up
needs, no-new-privileges, no engine socket. Services run as root. `/root` is 0711 so a
non-root executor reaches `/root/skills` without listing `/root`.

Network (`network_policy`, per sweep): `none` - the internal clawmark network, which reaches
only the model gateway on the host; `registries-only` - the same internal network plus
HTTP(S)_PROXY pointing at a host-side proxy (`clawmark.runtime.registry_proxy`) that tunnels
only to PyPI, npm and Debian hosts, and only for the registered addresses of registries-only
containers (pip, npm, curl, apt honour it; a client that ignores proxy variables gets
nowhere, and DNS inside stays off); `full` - the routed clawmark-open network plus the
gateway host name. The executor reaches the gateway (`http://clawmark-gateway:<port>`) under
all three, and under none of them another container or a host service listening on all
interfaces (`clawmark.runtime.network`). Root in the container keeps only the capabilities
set-up and services need (`clawmark.runtime.privileges`), under no-new-privileges.

Hidden material never enters: references/, pre_exec scripts and `.privacy`
(`task.hidden_paths()`) are filtered out of every copy and nothing of the package is mounted.
`.privacy` values (`config.credentials`) go where upstream puts them: the pre_exec's and the
container's environment (`-e`); never a label, `taskenv.json`, or a dump of the config.
`TaskEnv.snapshot_results(dest)` copies `/tmp_workspace/results` out for the judge.
"""

from clawmark.taskenv.config import NetworkPolicy, TaskEnvConfig
from clawmark.taskenv.env import TaskEnv
from clawmark.taskenv.errors import PreExecFailed, ServiceFailed, TaskEnvError
from clawmark.taskenv.package_guard import PackageChanged
from clawmark.taskenv.container_layout import LOGS_DIR, RESULTS_DIR, SKILLS_DIR, SOURCES_DIR

__all__ = ["LOGS_DIR", "RESULTS_DIR", "SKILLS_DIR", "SOURCES_DIR", "NetworkPolicy", "PackageChanged", "PreExecFailed",
           "ServiceFailed", "TaskEnv", "TaskEnvConfig", "TaskEnvError"]
