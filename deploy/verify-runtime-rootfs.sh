#!/usr/bin/env bash
# Checks deploy/Dockerfile's runtime stage without a Docker daemon: makes a
# minimal Debian 12 root with debootstrap, runs the stage's package install
# and user setup in a chroot, copies the programs and manifests where the
# image puts them, requires every shared library to resolve, and runs
# `agent-operator demo --for 5s` and `target-allocator` as uid 65532.
# Usage (as root): deploy/verify-runtime-rootfs.sh ROOTFS_DIR BUILD_BIN_DIR
# Needs debootstrap and network access to deb.debian.org.
set -euo pipefail
root=$1 bin=$2
cd "$(dirname "$0")/.."
# The runtime stage's apt-get install list, read from the Dockerfile itself.
packages=$(sed -n '/^FROM debian:12-slim/,/rm -rf/p' deploy/Dockerfile | grep -A2 no-install-recommends |
  tail -n +2 | grep -v 'rm -rf' | tr -d '\\' | xargs)
[ -x "$root/bin/bash" ] || debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT
cp /etc/resolv.conf "$root/etc/"
chroot "$root" /bin/bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends $packages >/dev/null && (id 65532 >/dev/null 2>&1 || (groupadd --system --gid 65532 \
  agent-operator && useradd --system --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
  --shell /usr/sbin/nologin agent-operator)) && install -d -o 65532 -g 65532 /var/lib/agent-operator"
install -m 0755 "$bin/agent-operator" "$bin/target-allocator" "$root/usr/local/bin/"
strip "$root/usr/local/bin/agent-operator" "$root/usr/local/bin/target-allocator"
mkdir -p "$root/usr/share/agent-operator"
cp -r deploy/crds deploy/prometheus-operator-crds deploy/examples "$root/usr/share/agent-operator/"
if chroot "$root" ldd /usr/local/bin/agent-operator /usr/local/bin/target-allocator | grep "not found"; then
  echo "verify-runtime-rootfs: missing shared libraries" >&2
  exit 1
fi
chroot --userspec=65532:65532 "$root" /bin/bash -c 'cd /var/lib/agent-operator &&
  /usr/local/bin/agent-operator version &&
  timeout 90 /usr/local/bin/agent-operator demo --for 5s | grep -q "reconciled 1 GrafanaAgents" &&
  { /usr/local/bin/target-allocator --config-file /nonexistent 2>/dev/null; test $? -eq 2; }'
echo "verify-runtime-rootfs: runtime stage OK ($packages)"
