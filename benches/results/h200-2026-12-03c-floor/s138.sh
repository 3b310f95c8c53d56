set -uo pipefail
# Run 138 (thirty-first session), tree eec5179: d256 (and d192: teams' outputs in two parts)
# merges its splits in pass against up to 4096 keys. sdpa check, tests/decode.rs and
# tests/embedding.rs; then the new default beside the reduce pass (decode_in_pass=0), 4 copies of
# K and V, d192 and d256 f16 and d256 f32, two rounds interleaved.
o=/tmp/s138; mkdir -p $o /tmp/t138
r="bash .device/on-device.sh"
SECONDS=0
for t in decode embedding; do gunzip -c .device/t/$t.gz > /tmp/t138/$t && chmod +x /tmp/t138/$t; done
timeout 150 $r .device/sdpa check > $o/check.txt 2>&1; echo "exit $?" >> $o/check.txt
for t in decode embedding; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r /tmp/t138/$t --test-threads=1 > $o/test-$t.txt 2>&1; echo "exit $?" >> $o/test-$t.txt
done
echo "tests at $SECONDS s"
declare -A K=([def]="" [rp]="decode_in_pass=0")
lens="256,1024,2048,4096,8192"
names="def rp"
for i in 1 2; do
  for n in $names; do
    WGPU_SDPA_TUNE="${K[$n]}" timeout 90 $r .device/sdpa bench --decode --hdim 192,256 --len $lens --fused-only --kv-copies 4 > $o/f16-$n-$i.txt 2>&1
    WGPU_SDPA_TUNE="${K[$n]}" timeout 90 $r .device/sdpa bench --decode --dtype f32 --hdim 256 --len $lens --fused-only --kv-copies 4 > $o/f32-$n-$i.txt 2>&1
  done
  names=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s138.tgz s138
cd $o
echo "check: $(tail -2 check.txt | tr '\n' ' ')"; grep FAIL check.txt | head -3
for t in decode embedding; do echo "$t tests: $(grep 'test result' test-$t.txt) $(tail -1 test-$t.txt)"; done
for f in f16-*-[12].txt f32-*-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{e=($8 ~ /f32/)?4:2; b=2*e*$1*$6*$3*$4; printf "d%s/%s:%.1f/p%.1f ", $4+0, $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' f16-def-1.txt | awk -F, '{print $4, $3, $NF}' | cut -c1-200
