#!/bin/sh
# eSpeak NG as a slower engine would be: the first time a piece is rendered (by any worker of the
# test), its output waits PACED_ESPEAK_RTF times the audio's length before it is handed over, so a
# stream arrives about as fast as it plays, as a loaded neural worker's does. A piece rendered
# again (a worker resuming a job re-renders the pieces already sent) comes at eSpeak's own speed,
# as it would from the neural model's checkpoints. The audio is eSpeak's own either way.
# PACED_ESPEAK_DIR: a directory of this test's, where each rendered piece leaves a mark; pacing is
# on while the directory holds a file named `on` (a test renders its references before).
input=$(cat)
mark="$PACED_ESPEAK_DIR/$(printf '%s' "$input" | cksum | cut -d' ' -f1)"
out=$(mktemp)
printf '%s' "$input" | espeak-ng "$@" > "$out" || { rm -f "$out"; exit 1; }
if [ -e "$PACED_ESPEAK_DIR/on" ] && [ ! -e "$mark" ]; then
  # 22 050 Hz, 16-bit mono WAV: 44 100 bytes per second.
  sleep "$(awk -v b="$(wc -c < "$out")" -v r="${PACED_ESPEAK_RTF:-0.7}" 'BEGIN { printf "%.3f", b / 44100 * r }')"
  # Marked once handed over: a piece whose worker died while rendering it is rendered anew.
  : > "$mark"
fi
cat "$out"
rm -f "$out"
