set -uo pipefail
o=/tmp/s7; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
ps="bash .device/on-device.sh .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
for k in "decode_warp_pf=1" "decode_warp_pf=0" "decode_warp_pf=1,decode_warp_cpl=2" "decode_warp=0"; do
  echo "### $k" >> $o/registers.txt; WGPU_SDPA_TUNE=$k $ps >> $o/registers.txt 2>&1
done
lens=4096,16384,32768,131072
WGPU_SDPA_TUNE=decode_warp_pf=0,decode_warp_sg=16 $run bench --decode --len $lens > $o/decode-pf0-sg16.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_pf=1,decode_warp_sg=4 $run bench --decode --len $lens > $o/decode-pf1-sg4.txt 2>&1
WGPU_SDPA_TUNE=decode_warp_pf=0,decode_wgs=396 $run bench --decode --len $lens > $o/decode-pf0-wgs396.txt 2>&1
tar -C /tmp -czf $OUT/s7.tgz s7
