set -uo pipefail
# Run 140 (thirty-first session), tree 1dea631: the cooperative-matrix decode
# kernel (f16, 5-8 query vectors against up to 4096 keys) with the short caches' splits (knob
# decode_short=2) against its splits of at least 256 keys; sdpa check with the knob. q_len 2 of
# 32/8 heads (8 query vectors a KV head) and q_len 1 of 64/8 heads, 4 copies, two rounds.
o=/tmp/s140; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
WGPU_SDPA_TUNE=decode_short=2 timeout 150 $r .device/sdpa check > $o/check-short2.txt 2>&1; echo "exit $?" >> $o/check-short2.txt
echo "check at $SECONDS s"
declare -A K=([def]="" [s2]="decode_short=2")
names="def s2"
for i in 1 2; do
  for n in $names; do
    WGPU_SDPA_TUNE="${K[$n]}" timeout 90 $r .device/sdpa bench --len 2 --kv-len 256,1024,2048,4096 --heads 32,8 --hdim 128 --dtype f16 --fused-only --kv-copies 4 > $o/q2-$n-$i.txt 2>&1
    WGPU_SDPA_TUNE="${K[$n]}" timeout 90 $r .device/sdpa bench --decode --heads 64,8 --len 256,1024,2048,4096 --fused-only --kv-copies 4 > $o/h64-$n-$i.txt 2>&1
  done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s140.tgz s140
cd $o
echo "check: $(tail -2 check-short2.txt | tr '\n' ' ')"; grep FAIL check-short2.txt | head -3
for f in q2-*-[12].txt h64-*-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in q2-s2-1.txt h64-s2-1.txt q2-def-1.txt; do grep -E '^ *[0-9]+, ' $f | awk -F, '{print $3, $NF}' | cut -c1-110; done
