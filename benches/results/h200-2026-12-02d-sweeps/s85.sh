set -uo pipefail
# Run 85: K's rows in whole 128-byte lines, the two halves' 8 scores split over a key group's 8
# lanes (decode_kl=1, second version); base = the committed kernel. Checks first.
o=/tmp/s85; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
declare -A V=( [base]="" [kl1]="decode_kl=1" )
names="base kl1"
WGPU_SDPA_TUNE=decode_kl=1 timeout 200 $r .device/sdpa check > $o/check-kl1.txt 2>&1; echo "exit $?" >> $o/check-kl1.txt
echo "check kl1: $(tail -2 $o/check-kl1.txt | tr '\n' ' ')"
for t in decode numerics; do
  WGPU_SDPA_TUNE=decode_kl=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$t --test-threads=1 > $o/test-$t-kl1.txt 2>&1; echo "exit $?" >> $o/test-$t-kl1.txt
  echo "$t kl1: $(grep 'test result' $o/test-$t-kl1.txt)"
done
for n in $names; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt | tr -s ' ')"
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,8192,16384,32768,65536,131072 --fused-only"
for i in 1 2 3 4; do
  for n in $names; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s85.tgz s85
cd $o
for n in $names; do for f in $n-[1234].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done; done
