#!/bin/sh
# Makes main-library.sqlite: a library whose mirror state is the core's (Schema/0003_mirror.sql, schema
# version 6), written by a photosync built before the mirror moved to SyncWorker (the main branch at
# 85523e8 or 4825f94). MirrorUpgradeTests opens a copy with the current build.
#
# Usage: make-fixture.sh PATH-TO-OLD-photosync
# The folder it mirrors: the media of ../ in PHOTOS (its path is in the fixture; the test rewrites it).
set -eu
photosync=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/photosync-upgrade-fixture.XXXXXX)
photos=$work/Photos
mkdir -p "$photos/2023/trip" "$photos/screens"
cp "$here/../camera.jpg" "$photos/2023/camera.jpg"
cp "$here/../portrait.jpg" "$photos/2023/trip/portrait.jpg"
cp "$here/../clip.mov" "$photos/2023/trip/clip.mov"
cp "$here/../plain.png" "$photos/plain.png"
cp "$here/../screenshot.png" "$photos/screens/screenshot.png"
"$photosync" scan --library "$work/Library.photosync" --quiet "$photos"
# One file moved after the scan, and scanned again: a stat cache entry whose asset kept its identity.
mv "$photos/plain.png" "$photos/screens/plain.png"
"$photosync" scan --library "$work/Library.photosync" --quiet "$photos"
# One database file, no write-ahead log: checkpoint and leave the journal mode as the library sets it.
sqlite3 "$work/Library.photosync/Photos.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1 || true
cp "$work/Library.photosync/Photos.sqlite" "$here/main-library.sqlite"
echo "$photos" > "$here/main-library.root"
rm -rf "$work"
