set -uo pipefail
# Run 102: the queries staged as f16 for the scores (`decode_qh=1`: half the registers for the
# query chunks a block reads from workgroup memory) against this tree's default (`new`, the
# committed 6ae7ac9's kernels) and 88689aa (`old`); registers and SASS of qh.
o=/tmp/s102; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
WGPU_SDPA_TUNE=decode_qh=1 bash scripts/sass.sh capture $o/cache-qh $shape > $o/capture.txt 2>&1
grep "CS: Register" $o/cache-qh/pipeline_stats.txt
declare -A V=( [old]="" [new]="" [qh]="decode_qh=1" )
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 256,1024,4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6 7 8; do
  if [ $((i % 2)) = 1 ]; then order="old new qh"; else order="qh new old"; fi
  for n in $order; do
    b=.device/sdpa; [ $n = old ] && b=.device/sdpa0
    WGPU_SDPA_TUNE="${V[$n]}" timeout 60 $r $b bench $d128 > $o/$n-$i.txt 2>&1
  done
done
for n in old new qh; do for i in 1 2 3 4 5 6 7 8; do echo "$n-$i: $(grep -E '^ *[0-9]+, ' $o/$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
WGPU_SDPA_REQUIRE_ADAPTER=1 WGPU_SDPA_TUNE=decode_qh=1 timeout 120 $r .device/t/decode > $o/decode-qh.txt 2>&1; echo "decode qh rc=$?"; grep -E "test result" $o/decode-qh.txt
tar -C /tmp -czf $OUT/s102.tgz s102
