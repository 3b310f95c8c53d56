set -uo pipefail
# Run 82: step 3's lanes in the xor layout (decode_xm=1: P by shuffles with constant xor masks, no
# lane indices), and f16 chunks addressed in vec4s (3); with 16 teams a workgroup; base = the
# committed kernel. Checks first.
o=/tmp/s82; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
T16="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1"
declare -A V=( [base]="" [xm1]="decode_xm=1" [xm3]="decode_xm=3" [t16xm3]="$T16,decode_xm=3" [t16]="$T16" )
names="base xm1 xm3 t16 t16xm3"
for n in xm1 xm3 t16xm3; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-$n.txt 2>&1; echo "exit $?" >> $o/check-$n.txt
  echo "check $n: $(tail -2 $o/check-$n.txt | tr '\n' ' ')"
done
for n in xm1 xm3; do
  WGPU_SDPA_TUNE="${V[$n]}" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode-$n.txt 2>&1; echo "exit $?" >> $o/test-decode-$n.txt
  echo "decode $n: $(grep 'test result' $o/test-decode-$n.txt)"
done
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
for n in xm1 xm3; do WGPU_SDPA_TUNE="${V[$n]}" bash scripts/sass.sh capture $o/c-$n $shape > /dev/null 2>&1; done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s82.tgz s82
cd $o
for n in $names; do for f in $n-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
