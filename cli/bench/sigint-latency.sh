#!/usr/bin/env bash
# Measures how fast `amqp-conformance run` stops on SIGINT: starts a long run N times (default 10), sends SIGINT once the
# progress bar is up, and prints the exit code and the time from the signal to the process's exit.
# Usage: bash cli/bench/sigint-latency.sh [runs]   (builds the CLI first)
set -uo pipefail
set -m  # job control: a background job of a non-interactive shell would otherwise start with SIGINT ignored
cd "$(dirname "$0")/../.."
runs=${1:-10}
dotnet build cli/src/AmqpConformance.Cli -c Release -v q >/dev/null || exit 2
dll=$(find artifacts/bin/AmqpConformance.Cli/release -name amqp-conformance.dll | head -n 1)
out=$(mktemp)
printf '| run | exit code | ms from SIGINT to exit |\n|---:|---:|---:|\n'
for i in $(seq 1 "$runs"); do
  dotnet "$dll" run --writer background --cases 1000000 --invariant order --report "$(mktemp -d)" >"$out" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do grep -q Background "$out" && break; sleep 0.05; done
  sleep 1
  start=$(date +%s%N)
  kill -INT "$pid"
  wait "$pid"
  code=$?
  end=$(date +%s%N)
  printf '| %d | %d | %d |\n' "$i" "$code" $(( (end - start) / 1000000 ))
done
rm -f "$out"
