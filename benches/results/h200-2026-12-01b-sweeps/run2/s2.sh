set -uo pipefail
# Sweep 2: the subgroup decode kernel touching a word of each 64-byte granule (decode_l2pf=1), of
# each 32-byte sector (2) of the next block's K and V rows, or 64-byte granules two blocks ahead
# (3), so that the block's loads find them in L2; decode_ablate=1 drops the reduce pass;
# read_bandwidth for the yardstick.
t=/tmp/s2; mkdir -p $t
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_l2pf=1 timeout 200 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
$r .device/read_bandwidth 16384 131072 > $t/read_bandwidth.txt 2>&1
d="--decode --len 1024,4096,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_l2pf=1 decode_l2pf=2 decode_l2pf=3 decode_ablate=1 decode_l2pf=1,decode_ablate=1 decode_l2pf=2,decode_ablate=1; do
    WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
for k in decode_l2pf=0 decode_l2pf=1 decode_l2pf=2; do
  WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --kv-len 16384 --q-len 1 --hdim 128 --dtype f16 > $t/regs-$k.txt 2>&1
done
tar -C /tmp -czf $OUT/s2.tgz s2
tail -2 $t/check.txt; cat $t/read_bandwidth.txt
grep -h "CS: Register" $t/regs-*.txt
cd $t; for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
