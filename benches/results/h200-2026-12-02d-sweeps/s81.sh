set -uo pipefail
# Run 81: V's loads issued after the scores' FMAs (decode_vx=32; 34 with V clamped past key_end),
# alone and with 16 teams a workgroup; base = the committed kernel; t16vx2 again.
o=/tmp/s81; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
T16="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1"
declare -A V=( [base]="" [vx32]="decode_vx=32" [vx34]="decode_vx=34" [t16vx2]="$T16,decode_vx=2" [t16vx34]="$T16,decode_vx=34" )
names="base vx32 vx34 t16vx2 t16vx34"
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
for n in vx34 t16vx34; do
  WGPU_SDPA_TUNE="${V[$n]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-$n.txt 2>&1; echo "exit $?" >> $o/check-$n.txt
done
tar -C /tmp -czf $OUT/s81.tgz s81
cd $o
for f in check-*.txt; do echo "$f: $(tail -2 $f | tr '\n' ' ')"; done
for n in $names; do for f in $n-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
