#!/bin/sh
# The order board full screen on a wall screen, with sound that needs no tap: Chromium in
# kiosk mode with the autoplay flag, pointed at the gateway. For a screen plugged into the
# gateway itself (BOARD_URL default) or into a second small computer on the same network
# (BOARD_URL=http://<gateway>:8000/). Run by tracker-board-kiosk.service (a systemd user
# unit) in the graphical session; see docs/operations.md, "A wall screen (kiosk)".
# The first start shows the sign-in screen once: approve its code from a signed-in screen
# (Screen (top right) -> Add a screen); the token stays in this profile.
set -eu

BOARD_URL="${BOARD_URL:-http://127.0.0.1:8000/}"
PROFILE_DIR="${PROFILE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/tracker-board-kiosk}"
CHROMIUM="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"

if [ -z "$CHROMIUM" ]; then
  echo "tracker-board-kiosk: no Chromium found (apt-get install chromium, or set CHROMIUM=)" >&2
  exit 1
fi
mkdir -p "$PROFILE_DIR"

# One flag per line: tests/deploy/kiosk.test.ts launches Chromium with exactly these.
# --autoplay-policy=no-user-gesture-required   late-order tones play with nobody touching the screen
# --kiosk                                       full screen, no address bar, no way out by tapping
# --noerrdialogs --disable-session-crashed-bubble --hide-crash-restore-bubble
#                                               no "restore pages?" bubble after a power cut
# --no-first-run --disable-translate --disable-features=Translate
#                                               no first-run or translate prompts over the board
# --check-for-update-interval=31536000          no update nag on a screen nobody reads it on
# --overscroll-history-navigation=0             a swipe on a touch screen does not go "back"
# --user-data-dir                               its own profile, where the board keeps its token
exec "$CHROMIUM" \
  --autoplay-policy=no-user-gesture-required \
  --kiosk \
  --noerrdialogs \
  --disable-session-crashed-bubble \
  --hide-crash-restore-bubble \
  --no-first-run \
  --disable-translate \
  --disable-features=Translate \
  --check-for-update-interval=31536000 \
  --overscroll-history-navigation=0 \
  --user-data-dir="$PROFILE_DIR" \
  "$BOARD_URL"
