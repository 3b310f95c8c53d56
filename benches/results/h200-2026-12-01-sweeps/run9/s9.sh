set -uo pipefail
# Sweep 9: where the subgroup kernel's combine (last workgroup) spends its ~4 us: 256 no loads, 512 no acquire barrier, 1024 no output writes.
t=/tmp/s9; mkdir -p $t
r="bash .device/on-device.sh"
d="--decode --len 4096,16384,131072 --fused-only"
for i in 1 2; do
  for k in base decode_ablate=64 decode_ablate=256 decode_ablate=512 decode_ablate=1024 decode_ablate=1792; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s9.tgz s9
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
