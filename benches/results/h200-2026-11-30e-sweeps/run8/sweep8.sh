set -uo pipefail
o=/tmp/s8; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
ps="bash .device/on-device.sh .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
for k in "decode_warp_pf=1" "decode_warp_pf=0" "decode_warp_pf=0,decode_warp_cpl=2"; do
  echo "### $k" >> $o/registers.txt; WGPU_SDPA_TUNE=$k $ps >> $o/registers.txt 2>&1
done
lens=4096,16384,32768,131072
WGPU_SDPA_TUNE=decode_warp_pf=1,decode_wgs=132 $run bench --decode --len $lens > $o/decode-pf1-wgs132.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_pf=1,decode_warp_sg=16,decode_wgs=132 $run bench --decode --len $lens > $o/decode-pf1-sg16-wgs132.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_pf=0,decode_wgs=132,decode_warp_sg=16 $run bench --decode --len $lens > $o/decode-pf0-sg16-wgs132.txt 2>&1
tar -C /tmp -czf $OUT/s8.tgz s8
grep -E "###|CS: Register" $o/registers.txt
for f in $o/decode*.txt; do echo "== $f"; cut -d, -f3,11,19,21 $f | tail -4 | cut -c1-110; done
