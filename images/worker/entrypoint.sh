#!/usr/bin/env bash
# A clawmark pool worker in its own container (built by `clawmark images worker`).
#   docker run --privileged --cgroupns private -v clawmark-worker:/var/lib/docker \
#     -e PREFECT_API_URL=... IMAGE POOL [options]
# It starts a Docker engine of its own (attempts' sandboxes, the gateway and the firewall live
# beside the worker, as on any worker machine), unless DOCKER_HOST names one, then serves the pool
# as a Prefect process worker. Extra arguments go to `prefect worker start`.
set -euo pipefail
pool="${1:?usage: IMAGE POOL [prefect worker start options]}"
shift
if [ -n "${CLAWMARK_IMAGE_REGISTRY:-}" ] && [ "${CLAWMARK_IMAGE_REGISTRY_INSECURE:-0}" = 1 ]; then
  mkdir -p /etc/docker  # a registry over plain HTTP (a LAN registry without TLS)
  printf '{"insecure-registries": ["%s"]}\n' "$CLAWMARK_IMAGE_REGISTRY" > /etc/docker/daemon.json
fi
# An engine of our own needs writable cgroups. In a private cgroup namespace the container's own
# subtree is mounted afresh read-write (Docker mounts cgroup v1 hierarchies read-only unless
# --privileged); on cgroup v2 the root's processes move to a leaf so controllers can be delegated.
own_cgroups() {
  if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    mount -o remount,rw /sys/fs/cgroup
    mkdir -p /sys/fs/cgroup/init
    xargs -rn1 < /sys/fs/cgroup/cgroup.procs > /sys/fs/cgroup/init/cgroup.procs || true
    sed -e 's/ / +/g' -e 's/^/+/' < /sys/fs/cgroup/cgroup.controllers > /sys/fs/cgroup/cgroup.subtree_control
    return
  fi
  awk '$3 == "cgroup" && $4 ~ /(^|,)ro(,|$)/ {print $2}' /proc/self/mounts | while read -r dir; do
    name=$(basename "$dir")
    [ "$name" = systemd ] && options=none,name=systemd || options="$name"
    umount "$dir" && mount -t cgroup -o "$options" cgroup "$dir"
  done
}
if [ -z "${DOCKER_HOST:-}" ] && [ ! -S /var/run/docker.sock ]; then
  own_cgroups
fi
bash /opt/clawmark/scripts/engine-up.sh
exec prefect worker start --pool "$pool" --type process "$@"
