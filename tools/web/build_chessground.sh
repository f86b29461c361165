#!/bin/sh
# Rebuild the vendored chessground (lichess's board, GPL-3.0-or-later) that the
# web page draws its boards with: ficsfen/web/static/vendor/chessground/.
#
# It takes the pinned release from the npm registry (`npm pack`, which checks
# the tarball against the registry's integrity hash; this script checks it
# again against the hash pinned here) and copies what the page loads: the
# single-file ES module bundle (dist/chessground.min.js), the base CSS, the
# brown board and the cburnett pieces, the licence.  No Node is needed to
# install or run ficsfen: only to rebuild these files.
#
# Usage: tools/web/build_chessground.sh   (from anywhere; npm on the PATH)
# To move to another release, change VERSION and INTEGRITY (`npm view
# chessground@X dist.integrity`), run it, and commit the files it writes.
set -eu

VERSION=9.2.1
INTEGRITY=sha512-KIdxm0zD69e62XRwdnFB0XUNYSzn5HM3pMazRCwpfruRUowFI8y+1OAK5YSyBff29myeV1/4o5Q8T191+Irbog==

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/../../ficsfen/web/static/vendor/chessground"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

cd "$work"
npm pack --silent "chessground@$VERSION" >/dev/null
tarball="chessground-$VERSION.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$INTEGRITY" ]; then
    echo "build_chessground: $tarball is not the pinned release (integrity $actual)" >&2
    exit 1
fi
tar -xzf "$tarball"

rm -rf "$dest"
mkdir -p "$dest"
cp package/dist/chessground.min.js "$dest/chessground.js"
cp package/assets/chessground.base.css package/assets/chessground.brown.css \
   package/assets/chessground.cburnett.css package/LICENSE "$dest/"
cat > "$dest/VERSION" <<INFO
chessground $VERSION (https://github.com/lichess-org/chessground)
from the npm registry: $INTEGRITY
rebuilt by tools/web/build_chessground.sh: chessground.js is the package's
dist/chessground.min.js, the CSS files its assets/, LICENSE its licence
(GPL-3.0-or-later).
INFO
echo "chessground $VERSION -> $dest"
