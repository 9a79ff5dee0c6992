#!/bin/sh
# eSpeak NG, slowed down by 0.5 s per piece for texts that ask for it ("Take your time"), so a test
# can keep a worker busy for as long as it needs; any other text runs at full speed. The audio is
# eSpeak's own either way.
input=$(cat)
case "$input" in
  *"Take your time"*) sleep 0.5 ;;
esac
printf '%s' "$input" | exec espeak-ng "$@"
