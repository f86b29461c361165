#!/bin/sh
# Rebuild the vendored chessops (lichess's chess rules, GPL-3.0-or-later) that the
# web page uses for legal moves, SAN and promotions:
# ficsfen/web/static/vendor/chessops/chessops.js.
#
# chessops ships as many ES modules and depends on @badrap/result (MIT); the page
# loads one file.  This script takes both pinned releases from the npm registry
# (`npm pack`, whose tarballs are checked here against the sha512 hashes pinned
# below), lays them out as node_modules in a temporary directory, and bundles the
# whole chessops API (its index: rules, variants, FEN, SAN, UCI, chessground
# helpers) into one minified ES module with esbuild, itself fetched from the npm
# registry into that temporary directory at the pinned version.  It writes the
# bundle, both licences and VERSION (the releases, their integrity hashes and the
# bundle's sha256).  No Node is needed to install or run ficsfen: only to rebuild
# this file.
#
# Usage: tools/web/build_chessops.sh   (from anywhere; npm on the PATH)
# To move to another release, change the versions and hashes below (`npm view
# chessops@X dist.integrity`, likewise for @badrap/result), run it, and commit
# the files it writes.
set -eu

CHESSOPS_VERSION=0.15.1
CHESSOPS_INTEGRITY=sha512-hQDwv90AFkrPEsRJBebh3ZE+xDga25TCCv4lavNT2plZmd33UKNFYaZsE+7rafMbnBRrDEWUVsSYFqY3qCIGZw==
RESULT_VERSION=0.3.1
RESULT_INTEGRITY=sha512-ECvpsyZYknoRD0peG1K+UkX5llld3TyK1Ot9Cq2epSoWK19nyzpGKVl98sadSmohu5wHNuiDl+Ex9SVdcIjiFg==
ESBUILD_VERSION=0.28.2

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/../../ficsfen/web/static/vendor/chessops"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# fetch NAME VERSION INTEGRITY DIR: npm pack the release, check its hash, unpack into DIR
fetch() {
    tarball=$(npm pack --silent "$1@$2" | tail -n 1)
    actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [ "$actual" != "$3" ]; then
        echo "build_chessops: $tarball is not the pinned release (integrity $actual)" >&2
        exit 1
    fi
    mkdir -p "$4"
    tar -xzf "$tarball" -C "$4" --strip-components=1
}

cd "$work"
fetch chessops "$CHESSOPS_VERSION" "$CHESSOPS_INTEGRITY" node_modules/chessops
fetch @badrap/result "$RESULT_VERSION" "$RESULT_INTEGRITY" node_modules/@badrap/result
mkdir tool
npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix tool "esbuild@$ESBUILD_VERSION"
echo 'export * from "chessops";' > entry.js
tool/node_modules/.bin/esbuild entry.js --bundle --format=esm --minify --target=es2020 \
    --legal-comments=none --log-level=warning --outfile=chessops.js

rm -rf "$dest"
mkdir -p "$dest"
cp chessops.js "$dest/chessops.js"
cp node_modules/chessops/LICENSE.txt "$dest/LICENSE"
cp node_modules/@badrap/result/LICENSE "$dest/LICENSE.badrap-result"
bundle="sha256-$(openssl dgst -sha256 -binary chessops.js | base64 -w0)"
cat > "$dest/VERSION" <<INFO
chessops $CHESSOPS_VERSION (https://github.com/niklasf/chessops)
from the npm registry: $CHESSOPS_INTEGRITY
with @badrap/result $RESULT_VERSION (https://github.com/badrap/result, MIT)
from the npm registry: $RESULT_INTEGRITY
bundled by esbuild $ESBUILD_VERSION: $bundle
rebuilt by tools/web/build_chessops.sh: chessops.js is the package's whole API
(its index) and @badrap/result in one minified ES module; LICENSE is chessops'
licence (GPL-3.0-or-later), LICENSE.badrap-result the MIT licence of @badrap/result.
INFO
echo "chessops $CHESSOPS_VERSION -> $dest"
