#!/bin/sh
# run_small_dev_shm.sh SIZE COMMAND...: runs COMMAND with a tmpfs of SIZE mounted on /dev/shm in a
# private mount namespace, so the rest of the machine keeps its own. Exits 77 (CTest: skipped) with a
# message where the namespace or the mount cannot be made (no privilege, no unshare).
size=$1
shift
if ! command -v unshare >/dev/null 2>&1; then
  echo "skipped: unshare(1) not found"
  exit 77
fi
if ! unshare -m true 2>/dev/null; then
  echo "skipped: cannot make a private mount namespace (unshare -m)"
  exit 77
fi
# The mount and the run share one namespace: the inner script mounts, checks, then execs the command.
exec unshare -m sh -c '
  mount --make-rprivate / 2>/dev/null
  if ! mount -t tmpfs -o size="$0" tmpfs /dev/shm 2>/dev/null; then
    echo "skipped: cannot mount a tmpfs of $0 on /dev/shm in a private mount namespace"
    exit 77
  fi
  df -h /dev/shm
  exec "$@"' "$size" "$@"
