"""The shell script that ends a container's processes and keeps the container (Sandbox.end_processes)."""

# Every process of the container but init (PID 1), the container's own lifetime command (the
# first child of init: the lowest PID whose parent is 1) and this script; three passes catch what
# a dying process forks. Shell builtins only, so any image can run it.
KILL_ALL_BUT_INIT = r"""
main=""
for d in /proc/[0-9]*; do
  p=${d#/proc/}; pp=""
  while read -r key value; do [ "$key" = "PPid:" ] && pp=$value && break; done < "$d/status" 2>/dev/null
  if [ "$p" != 1 ] && [ "$pp" = 1 ] && { [ -z "$main" ] || [ "$p" -lt "$main" ]; }; then main=$p; fi
done
for pass in 1 2 3; do
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    case "$p" in 1|"$main"|"$$") ;; *) kill -KILL "$p" 2>/dev/null ;; esac
  done
done
true
"""
