set -uo pipefail
# Run 143 (thirty-second session): the loads a block ahead past the team's last block: read
# (decode_sg_pf=1), the last block's again (3: L1/L2 hits), or not asked for (4: a uniform
# branch); d128 two rounds interleaved; 32/32 and 64/8 heads and f32 with and without 1;
# registers.
o=/tmp/s143; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for v in decode_sg_pf=3 decode_sg_pf=4; do
  for kv in 16384 131072; do
    WGPU_SDPA_TUNE=$v timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len $kv --hdim 128 --dtype f16 > $o/stats-$v-$kv.txt 2>&1
  done
done
all="256,1024,2048,4096,8192,16384,32768,65536,131072"
for i in 1 2; do
  for v in none decode_sg_pf=1 decode_sg_pf=3 decode_sg_pf=4; do
    WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --len $all --fused-only --kv-copies 4 --budget-ms 150 > $o/d128-$v-$i.txt 2>&1
  done
done
long="4096,8192,16384,32768,65536,131072"
for v in none decode_sg_pf=1; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads 32,32 --len $long --fused-only --kv-copies 4 --budget-ms 150 > $o/mha-$v-1.txt 2>&1
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads 64,8 --len $long --fused-only --kv-copies 4 --budget-ms 150 > $o/g8-$v-1.txt 2>&1
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --dtype f32 --len $long --fused-only --kv-copies 4 --budget-ms 150 > $o/f32-$v-1.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s143.tgz s143
cd $o
for f in stats-*.txt; do echo "$f: $(grep -i -E 'Register Count' $f | head -1 | tr -s ' ')"; done
for f in d128*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in mha*.txt g8*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
for f in f32*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=8*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' mha-none-1.txt g8-none-1.txt f32-none-1.txt | awk -F, '{print $NF}' | sort | uniq | head
