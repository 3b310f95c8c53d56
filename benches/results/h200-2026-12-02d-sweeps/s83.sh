set -uo pipefail
# Run 83 (profiling, wrong results): what the loads' shape costs. decode_kx=1 loads K's rows the
# way V's are (16 lanes a row, 2 rows an instruction: 4 whole 128-byte lines), 2 V's the way K's
# are (4 lanes a row, 8 rows an instruction: 8 half lines), 3 both; base = the committed kernel.
o=/tmp/s83; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
declare -A V=( [base]="" [kx1]="decode_kx=1" [kx2]="decode_kx=2" [kx3]="decode_kx=3" )
names="base kx1 kx2 kx3"
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
tar -C /tmp -czf $OUT/s83.tgz s83
cd $o
for n in $names; do for f in $n-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
