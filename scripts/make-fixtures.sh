#!/usr/bin/env bash
# Regenerates the small media fixtures of MediaProbeTests (Tests/MediaProbeTests/Fixtures).
#
# The outputs are committed: the tests never need ImageMagick, exiftool, ffmpeg or libheif at run time.
# Run from anywhere: `bash scripts/make-fixtures.sh`. Needs (Debian 12): imagemagick (with its heic/avif
# delegate, libheif), libimage-exiftool-perl, ffmpeg, libheif-examples (heif-enc, heif-info), python3. With
# INSTALL=1 (and root) it installs them first. FIXTURES_OUT=DIR writes the fixtures there instead (to compare
# a regeneration with the committed files, or to take one new fixture only).
#
# Every fixture is tiny (a few KiB); the values written here are the values the tests expect, so keep both
# in step when changing either.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${FIXTURES_OUT:-$here/../Tests/MediaProbeTests/Fixtures}"

if [[ "${INSTALL:-0}" == 1 ]]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q imagemagick libimage-exiftool-perl ffmpeg \
        libheif-examples python3
fi

# ImageMagick 6 is `convert`; prefer the real binary over any wrapper earlier on PATH.
IM=/usr/bin/convert
[[ -x "$IM" ]] || IM="$(command -v convert)"
for tool in exiftool ffmpeg heif-enc heif-info python3; do
    command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# exiftool: no backup files, and keep quiet about what it did.
ex() { exiftool -q -q -overwrite_original "$@"; }
# A small picture with some structure, so lossy encoders have something to encode.
picture() { "$IM" -size "$1" gradient:navy-orange -fill white -draw "circle 8,8 12,8" -strip "${@:2}"; }

# 1. camera.jpg: 64x48, Orientation 1, make/model, DateTimeOriginal with offset and sub-seconds, GPS N/E.
picture 64x48 -quality 40 camera.jpg
ex -all= \
    -Make="Canon" -Model="Canon EOS R5" -Orientation#=1 \
    -DateTimeOriginal="2023:07:14 18:30:05" -SubSecTimeOriginal=25 -OffsetTimeOriginal="+02:00" \
    -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E \
    -GPSAltitude=35.5 -GPSAltitudeRef#=0 \
    camera.jpg

# 2. portrait.jpg: stored 64x48, Orientation 6 (rotate 90 CW): displayed 48x64. No offset tag (a floating
#    wall-clock time), OffsetTime (IFD0) absent too. GPS S/W, altitude below sea level.
picture 64x48 -quality 40 portrait.jpg
ex -all= \
    -Make="Apple" -Model="iPhone 12" -Orientation#=6 \
    -DateTimeOriginal="2022:12:24 09:15:00" \
    -GPSLatitude=22.9519 -GPSLatitudeRef=S -GPSLongitude=43.2105 -GPSLongitudeRef=W \
    -GPSAltitude=12 -GPSAltitudeRef#=1 \
    portrait.jpg

# 3. lying-future.jpg: latitude 123 (impossible), a date in 2999, an absurd offset.
picture 32x32 -quality 40 lying-future.jpg
ex -all= \
    -Make="Lie Camera" -Model="L1" \
    -DateTimeOriginal="2999:01:01 00:00:00" -OffsetTimeOriginal="+02:00" \
    -GPSLatitude=123 -GPSLatitudeRef=N -GPSLongitude=10 -GPSLongitudeRef=E \
    lying-future.jpg

# 4. lying-past.jpg: a date in 1700, longitude 200, orientation 9 (undefined).
picture 32x32 -quality 40 lying-past.jpg
ex -all= \
    -Make="Lie Camera" -Model="L2" -Orientation#=9 \
    -DateTimeOriginal="1700:06:01 12:00:00" \
    -GPSLatitude=10 -GPSLatitudeRef=N -GPSLongitude=200 -GPSLongitudeRef=W \
    lying-past.jpg

# 5. panorama-hdr.jpg: 200x50 (4:1) from a camera, CustomRendered 3 (Apple: HDR, original saved).
picture 200x50 -quality 30 panorama-hdr.jpg
ex -all= -Make="Apple" -Model="iPhone 12" -CustomRendered#=3 \
    -DateTimeOriginal="2021:03:03 03:03:03" -OffsetTimeOriginal="-05:00" panorama-hdr.jpg

# 6. plain.png: 40x30, no metadata.
picture 40x30 plain.png

# 7. screenshot.png: 60x120, no camera make/model, EXIF UserComment "Screenshot" (eXIf chunk), as iOS does.
picture 60x120 screenshot.png
ex -UserComment="Screenshot" -PixelXDimension=60 -PixelYDimension=120 screenshot.png

# 8. anim.gif: 20x10, two frames.
"$IM" -size 20x10 xc:red xc:blue -loop 0 -delay 10 anim.gif

# 9. WebP: lossy (VP8), lossless (VP8L), extended (VP8X with an EXIF chunk). Odd sizes on purpose.
picture 33x17 -quality 30 lossy.webp
picture 35x19 -define webp:lossless=true lossless.webp
picture 37x21 -quality 30 extended.webp
ex -Make="Google" -Model="Pixel 7" -DateTimeOriginal="2020:02:29 23:59:59" -OffsetTimeOriginal="+09:00" \
    extended.webp

# 10. image.tiff: 24x16 TIFF with EXIF; tiny.dng: the same with a DNGVersion tag (detection only).
picture 24x16 -compress zip image.tiff
ex -Make="Nikon" -Model="Scanner" -Orientation#=8 -DateTimeOriginal="2019:01:01 00:00:01" image.tiff
cp image.tiff tiny.dng
ex -DNGVersion="1.4.0.0" -Make="Leica" -Model="Q2" -Orientation#=1 tiny.dng

# 11. HEIC and AVIF (ImageMagick's libheif delegate), with EXIF written by exiftool.
picture 16x16 -quality 30 image.heic
ex -Make="Apple" -Model="iPhone 15" -DateTimeOriginal="2024:01:02 03:04:05" -OffsetTimeOriginal="+01:00" \
    -GPSLatitude=35.6586 -GPSLatitudeRef=N -GPSLongitude=139.7454 -GPSLongitudeRef=E image.heic
picture 16x16 -quality 30 image.avif

# 12. Videos: 1 s, 16x16 (and 32x16 rotated), no audio.
vid() { ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc=size=$1:rate=10:duration=1" \
    -c:v libx264 -preset ultrafast -crf 45 -pix_fmt yuv420p -bitexact "${@:2}"; }
# clip.mp4: ISO brand isom, creation time and an ISO 6709 location (udta ©xyz).
vid 16x16 -metadata creation_time="2020-06-01T12:00:00Z" -metadata location="+40.6892-074.0445/" \
    -movflags +faststart clip.mp4
# clip.mov: QuickTime, 32x16 rotated by a 90-degree display matrix (displayed 16x32), moov at the end,
# Apple metadata keys (mdta) with a creation date carrying an offset, a Live Photo content identifier.
vid 32x16 -f mov -movflags use_metadata_tags \
    -metadata com.apple.quicktime.creationdate="2021-05-01T10:20:30+0200" \
    -metadata com.apple.quicktime.make="Apple" -metadata com.apple.quicktime.model="iPhone 12" \
    -metadata com.apple.quicktime.location.ISO6709="+51.5007-000.1246+020.000/" \
    -metadata com.apple.quicktime.content.identifier="4F1E2D3C-0000-4000-8000-00000000BEEF" \
    clip.mov
# ffmpeg 5.1 no longer turns rotate metadata into a display matrix; exiftool writes the tkhd matrix.
ex -Rotation=90 clip.mov
# clip.m4v: the iPod muxer writes an "M4V " brand.
vid 16x16 -f ipod clip.m4v

# 13. Lies about the kind: text named .jpg, a JPEG named .txt.
printf 'This is not a picture.\nJust text, named like one.\n' > text.jpg
"$IM" -size 8x8 xc:green -strip -quality 50 jpeg:jpeg-named.txt

# 14. rotated-crop.heic: coded 64x48 (a one-tile grid, as heif-enc writes it), then a `clap` crop to 60x40 and
#     an `irot` of 90° anticlockwise on the primary item (in that order): displayed 40x60, orientation 8
#     (left). heif-enc 1.15 writes neither property, so a small rewriter adds them (below). EXIF and XMP (an
#     xmp:CreateDate and a Google burst identifier) are written by exiftool afterwards.
cat > add-clap-irot.py <<'PYTHON'
import struct, sys
# add-clap-irot.py IN OUT WIDTH HEIGHT ANGLE: gives the primary item of a HEIF file a centred `clap` crop to
# WIDTH x HEIGHT and an `irot` of ANGLE x 90 degrees anticlockwise (in that order, both essential), moving the
# file offsets in `iloc` by the bytes inserted into `meta`. Handles ipma version 0 with 1-byte indexes (what
# heif-enc writes) and iloc versions 0-2.
src, dst, width, height, angle = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
data = bytearray(open(src, 'rb').read())

def boxes(start, end):
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack('>I4s', data[at:at + 8])
        yield kind.decode('latin1'), at, size
        at += size

meta = next(b for b in boxes(0, len(data)) if b[0] == 'meta')
children = {k: (a, s) for k, a, s in boxes(meta[1] + 12, meta[1] + meta[2])}
primary = struct.unpack('>H', data[children['pitm'][0] + 12:children['pitm'][0] + 14])[0]
iprp = children['iprp']
inner = {k: (a, s) for k, a, s in boxes(iprp[0] + 8, iprp[0] + iprp[1])}
ipco, ipma = inner['ipco'], inner['ipma']
count = sum(1 for _ in boxes(ipco[0] + 8, ipco[0] + ipco[1]))
properties = struct.pack('>I4s8I', 40, b'clap', width, 1, height, 1, 0, 1, 0, 1) + struct.pack('>I4sB', 9, b'irot', angle)

at = ipma[0] + 16
for _ in range(struct.unpack('>I', data[ipma[0] + 12:ipma[0] + 16])[0]):
    item, n = struct.unpack('>HB', data[at:at + 3])
    if item == primary:
        data[at + 2] = n + 2
        data[at + 3 + n:at + 3 + n] = bytes([0x80 | (count + 1), 0x80 | (count + 2)])
        break
    at += 3 + n
else:
    sys.exit('primary item not in ipma')
data[ipco[0] + ipco[1]:ipco[0] + ipco[1]] = properties
added = len(properties) + 2
def grow(box_at, by):
    struct.pack_into('>I', data, box_at, struct.unpack('>I', data[box_at:box_at + 4])[0] + by)
grow(ipco[0], len(properties)); grow(ipma[0] + len(properties), 2); grow(iprp[0], added); grow(meta[1], added)

iloc = children['iloc'][0] + (added if children['iloc'][0] > ipco[0] else 0)
version, sizes, more = data[iloc + 8], data[iloc + 12], data[iloc + 13]
offset_size, length_size, base_size = sizes >> 4, sizes & 15, more >> 4
index_size = more & 15 if version >= 1 else 0
def field(at, size, delta=0):
    value = int.from_bytes(data[at:at + size], 'big') if size else 0
    if size and delta: data[at:at + size] = (value + delta).to_bytes(size, 'big')
    return value
at = iloc + 14
items = field(at, 2 if version < 2 else 4); at += 2 if version < 2 else 4
for _ in range(items):
    at += 2 if version < 2 else 4
    method = 0
    if version >= 1:
        method = field(at, 2) & 15; at += 2
    at += 2
    if method == 0: field(at, base_size, added if base_size else 0)
    at += base_size
    extents = field(at, 2); at += 2
    for _ in range(extents):
        at += index_size
        if method == 0 and not base_size: field(at, offset_size, added)
        at += offset_size + length_size
open(dst, 'wb').write(data)
PYTHON
picture 64x48 -quality 90 rotated-crop.jpg
heif-enc -q 30 -o rotated-plain.heic rotated-crop.jpg
python3 add-clap-irot.py rotated-plain.heic rotated-crop.heic 60 40 1
ex -Make="Apple" -Model="iPhone 13" -DateTimeOriginal="2022:08:09 10:11:12" -OffsetTimeOriginal="+03:00" \
    -XMP-xmp:CreateDate="2022-08-09T10:11:12+03:00" -XMP-GCamera:BurstID="HEIC-BURST-7" rotated-crop.heic
heif-info rotated-crop.heic | grep -q "image: 40x60" || { echo "rotated-crop.heic: unexpected size" >&2; exit 1; }

[[ -n "${FIXTURES_OUT:-}" ]] || rm -f "$out"/*
cp camera.jpg portrait.jpg lying-future.jpg lying-past.jpg panorama-hdr.jpg plain.png screenshot.png \
    anim.gif lossy.webp lossless.webp extended.webp image.tiff tiny.dng image.heic image.avif \
    clip.mp4 clip.mov clip.m4v text.jpg jpeg-named.txt rotated-crop.heic "$out"/
ls -l "$out"
du -sh "$out"
