set -uo pipefail
# Sweep 29: sweep 28's scattered scores with the shuffles out of the validity branch (run 28's
# were inside it: wrong where a workgroup has fewer than 4 query vectors); scat 1/0 alternating.
t=/tmp/s29; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
timeout 240 $r .device/sdpa check --filter vector > $t/check.txt 2>&1
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
for i in 1 2; do
  WGPU_SDPA_TUNE=decode_scat=1 $r .device/sdpa bench $q > $t/scat-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_scat=0 $r .device/sdpa bench $q > $t/old-$i.txt 2>&1
done
for sh in "32,32 --len 1 --hdim 128" "32,8 --len 1 --hdim 256"; do
  n=$(echo $sh | tr -d ' ,-')
  for v in 1 0; do
    WGPU_SDPA_TUNE=decode_scat=$v $r .device/sdpa bench --dtype f16 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-scat$v.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s29.tgz s29
cd $t; tail -1 check.txt; grep -E "test result|exit" test-*.txt; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
