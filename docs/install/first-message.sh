#!/bin/bash
# first-message.sh BIN [N]: the time from starting `BIN run` to the first
# MQTT message a subscriber receives, N times (default 10), then the
# median. Each run starts a fresh Mosquitto (no retained messages) and a
# subscriber already waiting on liarsdice/#; the table has no camera and
# no board. Needs mosquitto and mosquitto-clients (apt). docs/install.md,
# Startup, quotes it.
set -euo pipefail
bin=$(realpath "$1"); n=${2:-10}; port=${PORT:-18830}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; cd "$dir"
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" > mosquitto.conf
times=()
for _ in $(seq "$n"); do
	rm -rf state && mkdir state
	cat > liarsd.yaml <<YAML
table: t1
rules: star-board
seats:
  - {name: ann, x: 640, y: 120}
  - {name: bob, x: 1120, y: 360}
state_dir: $dir/state
broker:
  url: tcp://127.0.0.1:$port
log:
  level: warn
YAML
	mosquitto -c mosquitto.conf >/dev/null 2>&1 & broker=$!
	sleep 0.3
	mosquitto_sub -p "$port" -t 'liarsdice/#' -C 1 -F '%U' > first & sub=$!
	sleep 0.3
	t0=$(date +%s.%N)
	"$bin" run --config liarsd.yaml >/dev/null 2>&1 & daemon=$!
	wait "$sub"
	t1=$(cut -d' ' -f1 first)
	kill "$daemon" "$broker"; wait "$daemon" "$broker" 2>/dev/null || true
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	echo "$ms ms"
	times+=("$ms")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "median %d ms, min %d ms over %d runs\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], NR }'
