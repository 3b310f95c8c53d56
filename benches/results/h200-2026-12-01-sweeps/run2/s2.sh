set -uo pipefail
# Sweep 2: where the tile time goes. ABLATE 64: every tile reads the split's first tile (cache-resident);
# 128: the loads kept, almost no math; 192 both.
t=/tmp/s2; mkdir -p $t
r="bash .device/on-device.sh"
for k in decode_ablate=64 decode_ablate=128 decode_ablate=192 decode_pf=2,decode_seq=1,decode_ablate=64 decode_pf=2,decode_seq=1,decode_ablate=128; do
  echo "### $k"; WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim 128 2>&1 | grep "CS: Register"
done > $t/registers.txt 2>&1
d="--decode --len 16384,32768,65536,131072 --fused-only"
for i in 1 2; do
  for k in base decode_ablate=64 decode_ablate=128 decode_ablate=192 decode_pf=2,decode_seq=1,decode_ablate=64 decode_pf=2,decode_seq=1,decode_ablate=128 decode_ablate=1 decode_ablate=5; do
    WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s2.tgz s2
cd $t; cat registers.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
