#!/usr/bin/env bash
# Deployment checks run by .ci/run before the test suite (tests/test_chart.py and
# tests/test_compose.py check the same artefacts in detail):
#   helm lint --strict          the chart, with its default values and the two-site example
#   helm template               both, rendered for the oldest and newest Kubernetes supported
#   kubernetes-validate --strict every rendered manifest against the Kubernetes JSON schemas,
#                               offline (Strimzi KafkaTopic is a CRD: warned about, not failed)
#   docker-compose config       deploy/compose.yaml parsed and validated by Docker Compose itself
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/fetch-tools.sh >/dev/null
helm=.tools/bin/helm
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

$helm lint --strict helm/folio
$helm lint --strict helm/folio -f helm/folio/ci/two-sites-values.yaml
$helm lint helm/folio-stack
for kube in 1.27.0 1.37.0; do
    $helm template folio helm/folio --namespace folio --kube-version "$kube" > "$out/default.yaml"
    $helm template folio helm/folio --namespace folio --kube-version "$kube" \
        -f helm/folio/ci/two-sites-values.yaml > "$out/two-sites.yaml"
    python3 -m kubernetes_validate --strict --quiet -k "$kube" "$out/default.yaml" "$out/two-sites.yaml"
    echo "kubernetes-validate $kube: $(grep -c '^kind:' "$out/default.yaml") + $(grep -c '^kind:' "$out/two-sites.yaml") manifests"
done
if [ -f deploy/compose.yaml ]; then
    .tools/bin/docker-compose -f deploy/compose.yaml config --quiet
    echo "docker-compose config: deploy/compose.yaml valid"
fi
