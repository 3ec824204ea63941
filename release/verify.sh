#!/usr/bin/env bash
# Verifies a downloaded GPUScheduler release in DIR (default: .):
#   release/verify.sh [DIR] [ALLOWED_SIGNERS]
# 1. SHA256SUMS.sig is a valid `ssh-keygen -Y sign -n file` signature of
#    SHA256SUMS by the identity "release@gpuscheduler" listed in ALLOWED_SIGNERS
#    (default: DIR/allowed_signers; a line "release@gpuscheduler ssh-ed25519 AAAA…"
#    with the maintainers' published public key — fetch it from a place you trust,
#    not from the same download);
# 2. every tarball in DIR named in SHA256SUMS has that checksum.
# Exits non-zero on any mismatch. IDENTITY overrides the signer identity.
set -euo pipefail
dir=${1:-.}
signers=${2:-$dir/allowed_signers}
identity=${IDENTITY:-release@gpuscheduler}
case $signers in /*) ;; *) signers="$PWD/$signers" ;; esac
cd "$dir"
[ -f SHA256SUMS ] || { echo "verify: no SHA256SUMS in $dir" >&2; exit 1; }
[ -f SHA256SUMS.sig ] || { echo "verify: no SHA256SUMS.sig in $dir: unsigned release" >&2; exit 1; }
[ -f "$signers" ] || { echo "verify: no allowed signers file $signers" >&2; exit 1; }
ssh-keygen -Y verify -f "$signers" -I "$identity" -n file -s SHA256SUMS.sig < SHA256SUMS
sha256sum --check --ignore-missing --strict SHA256SUMS
echo "verify: OK"
