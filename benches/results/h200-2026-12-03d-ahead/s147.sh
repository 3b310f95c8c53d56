set -uo pipefail
# Run 147 (thirty-second session), tree b1eb980: the cooperative-matrix decode kernel (K and V
# read once for 8 query vectors) for 64/8 heads at long caches with more workgroups
# (decode_coop=1 with decode_wgs=264..1056), and its registers.
o=/tmp/s147; mkdir -p $o
r="bash .device/on-device.sh"
WGPU_SDPA_TUNE=decode_coop=1 timeout 60 $r .device/pipeline_stats --heads 64,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-coop.txt 2>&1
for v in decode_coop=1 decode_coop=1,decode_wgs=528 decode_coop=1,decode_wgs=792 decode_coop=1,decode_wgs=1056 none; do
  WGPU_SDPA_TUNE=$v timeout 60 $r .device/sdpa bench --decode --heads 64,8 --len 16384,131072 --fused-only --kv-copies 4 --budget-ms 100 > $o/g8-$v.txt 2>&1
done
tar -C /tmp -czf $OUT/s147.tgz s147
cd $o
grep -i -E "Register Count|shared|local" stats-coop.txt | head -6
for f in g8-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' g8-decode_coop=1,decode_wgs=1056.txt | awk -F, '{print $NF}'
