#!/usr/bin/env bash
# The Step Functions proof (.ci/stepfunctions.py): every sample exported to the Amazon States
# Language and checked by statelint, and the charts of .ci/stepfunctions/cases.json run on moto's
# Step Functions interpreter; every route (`flowchart routes --json`) of the samples whose
# conditions need Swift code, by forced decisions (`run --decide`, `handle --decide` per visit),
# and every route that needs a state to fail (Samples/payment.json's) by forced failures
# (`run --fail`, `handle --fail` per attempt; a timeout left to the definition's TimeoutSeconds);
# the Health workflow declared in Swift, exported and answered by its worker
# (Playgrounds/HealthOnStepFunctions); then 20 seeded random charts (FLOWCHART_SEED,
# FLOWCHART_RANDOM_CHARTS). Each task is answered by `flowchart handle` (or the worker), and
# visited states, final decisions and outputs are compared with Flowchart's own runs (about two
# minutes). Installs statelint and moto[stepfunctions] into a virtual environment
# (.build/stepfunctions-venv) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=".build/stepfunctions-venv"
if ! "$venv/bin/python" -c "import moto, boto3" 2>/dev/null || [ ! -x "$venv/bin/statelint" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check statelint 'moto[stepfunctions]'
fi
swift build --product flowchart >/dev/null
swift build --product HealthOnStepFunctions >/dev/null
bin="$(swift build --show-bin-path)"
PATH="$PWD/$venv/bin:$PATH" "$venv/bin/python" .ci/stepfunctions.py \
  "$bin/flowchart" "$bin/HealthOnStepFunctions"
