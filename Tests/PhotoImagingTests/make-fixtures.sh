#!/usr/bin/env bash
# Regenerates the small fixtures of Tests/PhotoImagingTests/Fixtures (committed; a few KB each).
# Needs ImageMagick (convert), libvips-tools (vips), exiftool, heif-enc (libheif-examples), ffmpeg, python3.
set -euo pipefail
cd "$(dirname "$0")/Fixtures"
IM=/usr/bin/convert

# The pattern: four coloured quadrants (red, green / blue, yellow), 96×64. Every orientation must show it.
$IM \( -size 48x32 xc:'#ff0000' -size 48x32 xc:'#00ff00' +append \) \
    \( -size 48x32 xc:'#0000ff' -size 48x32 xc:'#ffff00' +append \) -append -strip pattern.png

# orient-N.jpg: pixels stored so that EXIF orientation N shows the pattern upright.
transforms=(none "" -flop "-rotate 180" -flip -transpose "-rotate -90" -transverse "-rotate 90")
for n in 1 2 3 4 5 6 7 8; do
  # shellcheck disable=SC2086
  $IM pattern.png ${transforms[$n]} -quality 95 -strip "orient-$n.jpg"
  exiftool -q -n -overwrite_original -Orientation="$n" "orient-$n.jpg"
done

# Colour: the pattern converted to Display P3 (profile embedded), and to CMYK (profile embedded).
vips icc_transform pattern.png p3.png p3 --input-profile srgb --embedded=false
vips icc_transform pattern.png cmyk.jpg[strip] cmyk --input-profile srgb  # no profile: libvips' CMYK fallback
vips icc_transform cmyk.jpg cmyk-expected.png srgb --input-profile cmyk  # its golden

# Alpha: left half opaque red, right half transparent blue.
$IM -size 32x32 xc:'rgba(255,0,0,1)' -size 32x32 xc:'rgba(0,0,255,0)' +append -strip alpha.png

# A camera-like JPEG (1200×800) whose EXIF thumbnail (160×107) is the pattern in grey: a degraded result
# is told from the final one by its colour.
$IM pattern.png -resize 1200x800! -quality 85 -strip camera.jpg
$IM pattern.png -resize 160x107! -colorspace Gray -quality 80 -strip camera-thumb.jpg
exiftool -q -overwrite_original '-ThumbnailImage<=camera-thumb.jpg' -Orientation#=6 camera.jpg
rm camera-thumb.jpg

# HEIF with a thumbnail.
$IM pattern.png -resize 192x128! heif-source.png
heif-enc -q 80 -t 64 -o image.heic heif-source.png >/dev/null
rm heif-source.png

# A short video (8 frames, 64×48, H.264) rotated 90° by its display matrix, and its first frame as
# ffmpeg shows it (rotation applied): the poster's golden.
ffmpeg -loglevel error -y -f lavfi -i "testsrc=size=64x48:rate=8" -frames:v 8 -pix_fmt yuv420p -c:v libx264 clip-plain.mp4
ffmpeg -loglevel error -y -i clip-plain.mp4 -c copy -metadata:s:v:0 rotate=90 clip.mp4
ffmpeg -loglevel error -y -i clip.mp4 -frames:v 1 clip-poster.png
rm clip-plain.mp4

# Bad input.
head -c 5000 camera.jpg > truncated.jpg
python3 - <<'PY'
import struct, zlib
jpeg = open("orient-1.jpg", "rb").read()
# corrupt.jpg: a JPEG whose Huffman tables are impossible (every code length count 255).
dht = jpeg.index(b"\xff\xc4")
corrupt = bytearray(jpeg)
corrupt[dht + 5:dht + 21] = b"\xff" * 16
open("corrupt.jpg", "wb").write(bytes(corrupt))
open("not-an-image.jpg", "wb").write(b"This is a text file with a .jpg name.\n")
# bomb.gif: a logical screen of 65535×65535 and one 65535×65535 frame of a few bytes of LZW data.
gif = b"GIF89a" + struct.pack("<HHBBB", 65535, 65535, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
gif += b"\x2c" + struct.pack("<HHHHB", 0, 0, 65535, 65535, 0) + b"\x02\x02\x4c\x01\x00\x3b"
open("bomb.gif", "wb").write(gif)
# bomb.png: a 100000×100000 greyscale PNG whose only row data is one compressed block.
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(b"\x00" * 100001 * 16, 9)) + chunk(b"IEND", b"")
open("bomb.png", "wb").write(png)
# bomb.jpg: the header of orient-1.jpg with its frame size set to 65500×65500.
sof = jpeg.index(b"\xff\xc0")
bomb = bytearray(jpeg)
bomb[sof + 5:sof + 9] = struct.pack(">HH", 65500, 65500)
open("bomb.jpg", "wb").write(bytes(bomb))
PY
ls -la
