#!/bin/sh
# Runs COMMAND inside the Debian 13 root that scripts/peers.sh makes (python3-torch 2.6), with
# chroot (so as root), sharing this machine's network: loopback servers on either side reach
# each other. torch wants /proc (CPU and boot ids) and /dev: they are mounted in a private mount
# namespace that ends with the command, so no mount outlives it whatever way it ends. Where no
# private namespace can be made (inside a chroot whose / is no mount point) the command runs
# without them, which torch survives with warnings.
#   in_torch2_root.sh ROOT COMMAND [ARG...]     (exec's COMMAND: the pid stays the caller's)
root=$1
shift
if unshare --mount --propagation private true 2>/dev/null; then
  # shellcheck disable=SC2016  # the inner shell expands $root and $@, not this one
  exec unshare --mount --propagation private /bin/sh -c \
    'root=$1; shift; mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
     exec chroot "$root" "$@"' sh "$root" "$@"
fi
exec chroot "$root" env UCX_LOG_LEVEL=fatal "$@"
