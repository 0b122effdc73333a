#!/usr/bin/env bash
# Builds deploy/Dockerfile with Docker (BuildKit) and runs the image the way
# deploy/operator does: `agent-operator run` as uid 65532 with a read-only
# root filesystem and no capabilities, against a simcluster on the host
# loaded with deploy/crds, deploy/prometheus-operator-crds and
# deploy/examples; passes when the example GrafanaAgent's objects exist and
# its status says Reconciled=True.
# Where Docker Hub is unreachable, pass --local-base: debian:12 and
# debian:12-slim are then imported from a debootstrap'ed bookworm minbase
# (a stand-in for the official images, which are built the same way).
# Usage (as root, dockerd running): deploy/verify-image.sh BUILD_BIN_DIR [--local-base]
# BUILD_BIN_DIR provides simcluster for the host side.
set -euo pipefail
bin=$(realpath "$1") local_base=${2:-}
cd "$(dirname "$0")/.."
docker=${DOCKER:-docker}
work=$(mktemp -d)
sim_pid=
cleanup() {
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$local_base" = --local-base ] && ! $docker image inspect debian:12 >/dev/null 2>&1; then
  debootstrap --variant=minbase bookworm "$work/base" http://deb.debian.org/debian >/dev/null
  rm -rf "$work/base/var/lib/apt/lists/"* "$work/base/var/cache/apt/archives/"*.deb
  tar -C "$work/base" -c . | $docker import -c 'CMD ["bash"]' - debian:12
  $docker tag debian:12 debian:12-slim
fi
DOCKER_BUILDKIT=1 $docker build --network host -f deploy/Dockerfile -t agent-operator:verify .
"$bin/simcluster" --listen 127.0.0.1:0 --kubeconfig-out "$work/kubeconfig" \
  --crds deploy/crds deploy/prometheus-operator-crds --load deploy/examples >"$work/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do [ -s "$work/kubeconfig" ] && break; sleep 0.1; done
chmod 0644 "$work/kubeconfig"
timeout 15 $docker run --rm --network host --read-only --cap-drop ALL --security-opt no-new-privileges \
  -v "$work/kubeconfig:/etc/agent-operator/kubeconfig:ro" agent-operator:verify \
  --kubeconfig /etc/agent-operator/kubeconfig --listen=0 >"$work/run.log" 2>&1 || true
kc=(kubectl --kubeconfig "$work/kubeconfig" -n monitoring)
"${kc[@]}" get secret grafana-agent-config grafana-agent-secrets >/dev/null
"${kc[@]}" get statefulset grafana-agent >/dev/null
reconciled=$("${kc[@]}" get grafanaagent grafana-agent \
  -o jsonpath='{.status.conditions[?(@.type=="Reconciled")].status}')
if [ "$reconciled" != True ]; then
  echo "verify-image: Reconciled=$reconciled; operator log:" >&2
  cat "$work/run.log" >&2
  exit 1
fi
echo "verify-image: agent-operator:verify reconciled the example GrafanaAgent (uid 65532, read-only root)"
