set -uo pipefail
# Sweep 17 (sweep 16 with branch-free loader loads): loader subgroups staging K and V in workgroup memory (two stages) while the teams
# compute from there (decode_loaders, decode_teams); 32/8 heads, d128, f16, one query row.
t=/tmp/s17; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
cfgs="decode_loaders=0 decode_teams=4,decode_loaders=4 decode_teams=4,decode_loaders=2 decode_teams=4,decode_loaders=1 decode_teams=2,decode_loaders=2 decode_teams=2,decode_loaders=1 decode_teams=4,decode_loaders=4,decode_wgs=528 decode_teams=2,decode_loaders=2,decode_wgs=528"
for c in $cfgs; do
  WGPU_SDPA_TUNE=$c $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$c.txt 2>&1
done
WGPU_SDPA_TUNE=decode_teams=4,decode_loaders=4 $r .device/sdpa check --filter vector > $t/check-t4l4.txt 2>&1
WGPU_SDPA_TUNE=decode_teams=2,decode_loaders=1 $r .device/sdpa check --filter vector > $t/check-t2l1.txt 2>&1
for i in 1 2; do
for c in $cfgs; do
  WGPU_SDPA_TUNE=$c $r .device/sdpa bench $q > $t/b-$c-$i.txt 2>&1
done
done
tar -C /tmp -czf $OUT/s17.tgz s17
cd $t; for f in ps-*.txt; do echo "$f: $(grep -iE 'register count|local memory size|shared memory' $f | head -3 | awk '{print $3}' | tr '\n' ' ')"; done
grep -h "passed" check-*.txt
for f in b-*-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
