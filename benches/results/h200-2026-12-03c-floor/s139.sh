set -uo pipefail
# Run 139 (thirty-first session), tree 979dde5 (decode_short=2 gives the portable decode kernel
# the short caches' splits): sdpa check with the knob; d192 f16 (the portable decode kernel: the
# subgroup kernel needs the lanes of a K row and V's chunks to divide 32) and d128 f16 on the
# portable kernel (decode_sg=0), default against decode_short=2, 4 copies, two rounds.
o=/tmp/s139; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
WGPU_SDPA_TUNE=decode_short=2 timeout 150 $r .device/sdpa check > $o/check-short2.txt 2>&1; echo "exit $?" >> $o/check-short2.txt
echo "check at $SECONDS s"
declare -A K=([def]="" [s2]="decode_short=2")
lens="256,1024,2048,4096,8192"
names="def s2"
for i in 1 2; do
  for n in $names; do
    WGPU_SDPA_TUNE="${K[$n]}" timeout 90 $r .device/sdpa bench --decode --hdim 192 --len $lens --fused-only --kv-copies 4 > $o/d192-$n-$i.txt 2>&1
    WGPU_SDPA_TUNE="${K[$n]},decode_sg=0" timeout 90 $r .device/sdpa bench --decode --len $lens --fused-only --kv-copies 4 > $o/d128p-$n-$i.txt 2>&1
  done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s139.tgz s139
cd $o
echo "check: $(tail -2 check-short2.txt | tr '\n' ' ')"; grep FAIL check-short2.txt | head -3
for f in d192-*-[12].txt d128p-*-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in d192-s2-1.txt d128p-s2-1.txt; do grep -E '^ *[0-9]+, ' $f | awk -F, '{print $4, $3, $NF}' | cut -c1-120; done
