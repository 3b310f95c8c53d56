set -uo pipefail
# Sweep 32: scattered scores (decode_scat=1) against all 4 a lane (0) at head dim 256 (8 lanes a
# key), several head layouts and dtypes, and d128 GQA/MHA again; alternating, 2 rounds.
t=/tmp/s32; mkdir -p $t
r="bash .device/on-device.sh"
for i in 1 2; do
for sh in "32,8 --len 1" "32,32 --len 1" "16,2 --len 1" "32,8 --len 2" "8,8 --len 1"; do
  n=$(echo $sh | tr -d ' ,-')
  for v in 1 0; do
    WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f16 --hdim 256 --heads $sh --kv-len 1024,16384,131072 --fused-only > $t/d256-$n-scat$v-$i.txt 2>&1
  done
done
for v in 1 0; do
  WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f32 --hdim 256 --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/d256-f32-scat$v-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 16384,131072 --fused-only > $t/d128-328-scat$v-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f16 --hdim 128 --heads 32,32 --len 1 --kv-len 16384,131072 --fused-only > $t/d128-3232-scat$v-$i.txt 2>&1
done
done
tar -C /tmp -czf $OUT/s32.tgz s32
cd $t; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
