set -uo pipefail
# Sweep 31: the lanes' outputs in workgroup memory between blocks (decode_acc=1), with and
# without the scattered scores, against neither; registers; check and decode with the knob.
t=/tmp/s31; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for v in "acc=0,decode_scat=0" "acc=1,decode_scat=0" "acc=1,decode_scat=1"; do
  WGPU_SDPA_TUNE=decode_$v $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 2>&1 | grep -A2 "^registers:" | sed "s/^/$v /" >> $t/registers.txt
done
WGPU_SDPA_TUNE=decode_acc=1 timeout 240 $r .device/sdpa check --filter vector > $t/check.txt 2>&1
WGPU_SDPA_TUNE=decode_acc=1 WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/decode > $t/test-decode.txt 2>&1; echo "exit $?" >> $t/test-decode.txt
for i in 1 2; do
  for v in "acc=0,decode_scat=0" "acc=1,decode_scat=0" "acc=1,decode_scat=1"; do
    WGPU_SDPA_TUNE=decode_$v $r .device/sdpa bench $q > $t/$v-$i.txt 2>&1
  done
done
for sh in "32,32 --len 1 --hdim 128" "32,8 --len 1 --hdim 256" "32,8 --len 1 --hdim 64"; do
  n=$(echo $sh | tr -d ' ,-')
  for v in "acc=0,decode_scat=0" "acc=1,decode_scat=0" "acc=1,decode_scat=1"; do
    WGPU_SDPA_TUNE=decode_$v $r .device/sdpa bench --dtype f16 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-$v.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s31.tgz s31
cd $t; cat registers.txt | grep vector_subgroup | cut -c1-60; tail -1 check.txt; grep -E "test result|exit" test-*.txt; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
