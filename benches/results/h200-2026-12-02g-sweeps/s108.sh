set -uo pipefail
# Run 108: run 100's staged V with the next block's V loads unconditional (decode_stage=3, rows
# past the split clamped or not loaded), so that no branch lets the driver move them past the
# scores; SASS and timing against decode_stage=0 and 1 (6ae7ac9 + stage.diff + this, .device/w2).
o=/tmp/s108; mkdir -p $o
SECONDS=0
cp .device/w2/pipeline_stats .device/pipeline_stats
WGPU_SDPA_TUNE=decode_stage=3 bash scripts/sass.sh capture $o/cache3 --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
cp $o/cache3/pipeline_stats.txt $o/stats3.txt
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only"
for i in 1 2 3 4; do
  if [ $((i % 2)) = 1 ]; then order="0 3 1"; else order="1 3 0"; fi
  for n in $order; do WGPU_SDPA_TUNE=decode_stage=$n timeout 60 bash .device/on-device.sh .device/w2/sdpa bench $d128 > $o/st$n-$i.txt 2>&1; done
done
WGPU_SDPA_TUNE=decode_stage=3 timeout 100 bash .device/on-device.sh .device/w2/sdpa check --filter vector > $o/check3.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s108.tgz s108
cd $o
tail -1 check3.txt
grep -h "Register Count" stats3.txt
for n in 0 3 1; do for i in 1 2 3 4; do echo "st$n-$i: $(grep -E '^ *[0-9]+, ' st$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
