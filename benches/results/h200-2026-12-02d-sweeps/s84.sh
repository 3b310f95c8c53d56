set -uo pipefail
# Run 84: K's rows read in whole 128-byte lines (decode_kl=1: 8 lanes a K row, each block's keys
# in two halves); with 16 teams a workgroup; base = the committed kernel. Checks first.
o=/tmp/s84; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
T16="decode_teams=16,decode_wgs=132,decode_os_parts=1,decode_in_pass=1"
declare -A V=( [base]="" [kl1]="decode_kl=1" [t16kl1]="$T16,decode_kl=1" )
names="base kl1 t16kl1"
WGPU_SDPA_TUNE=decode_kl=1 timeout 200 $r .device/sdpa check > $o/check-kl1.txt 2>&1; echo "exit $?" >> $o/check-kl1.txt
echo "check kl1: $(tail -2 $o/check-kl1.txt | tr '\n' ' ')"
WGPU_SDPA_TUNE="$T16,decode_kl=1" timeout 200 $r .device/sdpa check --filter vector > $o/check-t16kl1.txt 2>&1; echo "exit $?" >> $o/check-t16kl1.txt
echo "check t16kl1: $(tail -2 $o/check-t16kl1.txt | tr '\n' ' ')"
for t in decode numerics; do
  WGPU_SDPA_TUNE=decode_kl=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$t --test-threads=1 > $o/test-$t-kl1.txt 2>&1; echo "exit $?" >> $o/test-$t-kl1.txt
  echo "$t kl1: $(grep 'test result' $o/test-$t-kl1.txt)"
done
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
WGPU_SDPA_TUNE=decode_kl=1 bash scripts/sass.sh capture $o/c-kl1 $shape > /dev/null 2>&1
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s84.tgz s84
cd $o
for n in $names; do for f in $n-[123].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
