set -uo pipefail
# Run 80: V's loads in a branch after K's (decode_vx=8: issued with K's, waited for at P V), the
# next block's K loads issued before this block's P V (16), each with V clamped past key_end (2);
# with 16 teams a workgroup (one an SM, 16 splits); base = the committed kernel.
o=/tmp/s80; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
T16="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1"
declare -A V=( [base]="" [vx8]="decode_vx=8" [vx10]="decode_vx=10" [vx16]="decode_vx=16" [vx18]="decode_vx=18" [t16vx2]="$T16,decode_vx=2" [t16vx10]="$T16,decode_vx=10" [t16vx18]="$T16,decode_vx=18" )
names="base vx8 vx10 vx16 vx18 t16vx2 t16vx10 t16vx18"
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
for n in vx8 vx16; do WGPU_SDPA_TUNE="${V[$n]}" bash scripts/sass.sh capture $o/c-$n $shape > /dev/null 2>&1; done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
for n in vx10 vx18; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-$n.txt 2>&1; echo "exit $?" >> $o/check-$n.txt
  WGPU_SDPA_TUNE="${V[$n]}" WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/decode --test-threads=1 > $o/test-decode-$n.txt 2>&1; echo "exit $?" >> $o/test-decode-$n.txt
done
tar -C /tmp -czf $OUT/s80.tgz s80
cd $o
for f in check-*.txt; do echo "$f: $(tail -2 $f | tr '\n' ' ')"; done
for f in test-*.txt; do echo "$f: $(grep 'test result' $f) $(tail -1 $f)"; done
for n in $names; do for f in $n-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
