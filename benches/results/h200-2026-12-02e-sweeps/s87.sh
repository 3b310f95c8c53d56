set -uo pipefail
# Run 87: V rows past key_end clamped to the last key (decode_vc=1) with 8 teams, and 16 teams a
# workgroup (one an SM, T16) with and without it, all with K in whole lines; base = committed.
o=/tmp/s87; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
T16="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1"
declare -A V=( [base]="" [vc]="decode_vc=1" [t16]="$T16" [t16vc]="$T16,decode_vc=1" )
names="base vc t16 t16vc"
SECONDS=0
for n in base t16vc; do
  WGPU_SDPA_TUNE="${V[$n]}" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 --nocapture > $o/test-decode-$n.txt 2>&1; echo "exit $?" >> $o/test-decode-$n.txt
  echo "decode $n: $(grep 'test result' $o/test-decode-$n.txt) $(grep -ci skipped $o/test-decode-$n.txt) skipped-lines"
done
for n in vc t16vc; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-$n.txt 2>&1; echo "exit $?" >> $o/check-$n.txt
  echo "check $n: $(tail -2 $o/check-$n.txt | tr '\n' ' ')"
done
echo "checks took $SECONDS s"
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2 3 4; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" timeout 100 $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
  echo "round $i at $SECONDS s"
done
tar -C /tmp -czf $OUT/s87.tgz s87
cd $o
for n in $names; do for f in $n-[1234].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
