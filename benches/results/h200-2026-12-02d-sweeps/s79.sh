set -uo pipefail
# Run 79: 16 teams a workgroup, one workgroup an SM (16 splits at 16384 keys, 128 workgroups),
# merged in pass or by the reduce pass; V past key_end clamped (decode_vx=2); the committed
# kernel (base), three rounds interleaved.
o=/tmp/s79; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
declare -A V=( [base]="" [vx2]="decode_vx=2" [t16]="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1" [t16r]="decode_teams=16,decode_wgs=132" [t16vx2]="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1,decode_vx=2" [t16w]="decode_teams=16,decode_wgs=128,decode_os_parts=1,decode_in_pass=1,decode_grain=0" )
names="base vx2 t16 t16r t16vx2 t16w"
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ') $(grep -m1 '^plan' $o/stats-$n.txt)"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
WGPU_SDPA_TUNE="${V[t16]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-t16.txt 2>&1; echo "exit $?" >> $o/check-t16.txt
WGPU_SDPA_TUNE="${V[vx2]}" timeout 200 $r .device/sdpa check --filter vector > $o/check-vx2.txt 2>&1; echo "exit $?" >> $o/check-vx2.txt
tar -C /tmp -czf $OUT/s79.tgz s79
cd $o
for f in check-*.txt; do echo "$f: $(tail -2 $f | tr '\n' ' ')"; done
for n in $names; do for f in $n-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
