#!/usr/bin/env bash
# Correct writers with their own timers and threads under a process the machine keeps stopping: runs `amqp-conformance
# selftest` on the given zoo writers (default: the six that time out on their own timers or poll from their own thread, and
# the dedicated-thread one) while it SIGSTOPs the process for STOP seconds every RUN seconds, longer than the 5 s call timeout
# by default. Every real-time bound counts time in which the process could run (SchedulingLag), so a correct writer must not be
# blamed: prints how often the process was stopped and the self-test's closing lines (caught, holding, false positives).
# The whole output is kept in $STOPPED_PROCESS_OUTPUT (default: a temporary file, named at the end).
# Usage: bash cli/bench/stopped-process.sh [STOP seconds, default 6] [RUN seconds, default 3] [cases, default 100] [writer...]
set -uo pipefail
cd "$(dirname "$0")/../.."
stop=${1:-6}; run=${2:-3}; cases=${3:-100}; shift $(( $# < 3 ? $# : 3 ))
writers=("$@")
[ ${#writers[@]} -eq 0 ] && writers=(OwnTimeoutDispose CancelAfterDrain DelayRaceDrain SystemTimerFlush MonitorWaitThread WallClockWriteTimeout DedicatedThread)
dotnet build cli/src/AmqpConformance.Cli -c Release -v q >/dev/null || exit 2
dll=$(find "${AMQPC_ARTIFACTS:-artifacts}/bin/AmqpConformance.Cli/release" -name amqp-conformance.dll | head -n 1)
args=(selftest --cases "$cases")
for w in "${writers[@]}"; do args+=(--writer "$w"); done
out=${STOPPED_PROCESS_OUTPUT:-$(mktemp)}
dotnet "$dll" "${args[@]}" >"$out" 2>&1 &
pid=$!
stops=0
while kill -0 "$pid" 2>/dev/null; do
  sleep "$run"
  kill -STOP "$pid" 2>/dev/null || break
  stops=$((stops + 1))
  sleep "$stop"
  kill -CONT "$pid" 2>/dev/null
done
wait "$pid"
code=$?
echo "stopped the process $stops times for ${stop} s (every ${run} s of running); selftest exit code $code"
grep -E "holds|FALSE|BLAMED|false positive|Correct writers|Broken writers" "$out"
echo "the whole output (each false positive's rules and replay line): $out"
exit "$code"
