#!/usr/bin/env bash
# Regenerates Samples/: the small photo folder the README's main command imports when no folder is given.
# Needs ImageMagick and exiftool (Debian: imagemagick libimage-exiftool-perl). The outputs are committed, so
# neither the build nor the tests need these tools.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf Samples && mkdir -p Samples/Holidays/Beach Samples/Family
make() { # path colour date offset [gps-lat gps-lon]
  convert -size 64x48 "gradient:$2" -quality 80 "$1"
  args=(-overwrite_original -q "-DateTimeOriginal=$3" "-OffsetTimeOriginal=$4" -Make=photosync -Model=Sample)
  if [ $# -ge 6 ]; then
    args+=("-GPSLatitude=${5#-}" "-GPSLatitudeRef=$([ "${5:0:1}" = - ] && echo S || echo N)"
           "-GPSLongitude=${6#-}" "-GPSLongitudeRef=$([ "${6:0:1}" = - ] && echo W || echo E)")
  fi
  exiftool "${args[@]}" "$1"
}
make Samples/Holidays/Beach/IMG_0101.jpg "skyblue-khaki" "2024:07:14 10:21:00" "+02:00" 43.695 7.265
make Samples/Holidays/Beach/IMG_0102.jpg "gold-navy" "2024:07:14 18:02:10" "+02:00" 43.696 7.266
make Samples/Holidays/IMG_0090.jpg "forestgreen-white" "2024:07:13 09:00:00" "+02:00"
make Samples/Family/IMG_2001.jpg "salmon-purple" "2023:12:24 19:30:00" "-05:00" 40.713 -74.006
make Samples/Family/IMG_2002.jpg "orchid-teal" "2023:12:25 08:15:00" "-05:00"
convert -size 96x54 gradient:black-grey Samples/Screenshot_2024-01-05.png
echo "Samples/ regenerated:"; find Samples -type f | sort
