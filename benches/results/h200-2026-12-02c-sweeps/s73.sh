set -uo pipefail
# Run 73: when the splits of a query group arrive at its counter (examples/arrival_spread.rs,
# decode_merge_ablate=1024: the first to count polls until the last has), and the poll's
# period (sdpa bench with 1024 against 3072: 1000 polls more).
o=/tmp/s73; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } > $o/info.txt 2>&1
for len in 8192 16384 32768 131072; do
  WGPU_SDPA_TUNE=decode_merge_ablate=1024 timeout 60 $r .device/arrival_spread $len > $o/spread-$len.txt 2>&1
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only"
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/sdpa-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_merge_ablate=1 $r .device/sdpa bench $d128 > $o/a1-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_merge_ablate=1024 $r .device/sdpa bench $d128 > $o/a1024-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_merge_ablate=3072 $r .device/sdpa bench $d128 > $o/a3072-$i.txt 2>&1
done
tar -C /tmp -czf $OUT/s73.tgz s73
pushd $o > /dev/null; for f in spread-*.txt; do echo "== $f"; cut -c1-400 $f; done
for f in sdpa*.txt a1-*.txt a1024*.txt a3072*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
popd > /dev/null
bash scripts/sass.sh capture /tmp/s73c --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
tar -C /tmp -czf $OUT/s73c.tgz s73c
