#!/usr/bin/env bash
# Extract one frame every N seconds (default 10) into out/.
set -euo pipefail
video=${1:?usage: frames.sh VIDEO [SECONDS]}
every=${2:-10}
mkdir -p out
ffmpeg -hide_banner -loglevel error -i "$video" -vf "fps=1/${every}" out/frame_%04d.jpg
ls out
