set -uo pipefail
# Run 149 (thirty-third session): the cooperative-matrix subgroup kernel (decode_ct=1,
# wgsl/vector_coop_teams.wgsl): correctness (sdpa check, tests/decode.rs), registers, speed.
o=/tmp/s149; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
WGPU_SDPA_TUNE=decode_ct=1 timeout 200 $r .device/sdpa check > $o/check-ct.txt 2>&1; echo "check rc=$? at $SECONDS s"
tail -5 $o/check-ct.txt
gunzip -c .device/t/decode.gz > /tmp/decode_t; chmod +x /tmp/decode_t
WGPU_SDPA_TUNE=decode_ct=1 timeout 200 $r /tmp/decode_t --test-threads 1 > $o/decode-ct.txt 2>&1; echo "decode rc=$? at $SECONDS s"
grep -E "^test |test result" $o/decode-ct.txt | head -20
for h in 64,8 32,8; do
  WGPU_SDPA_TUNE=decode_ct=1 timeout 60 $r .device/pipeline_stats --heads $h --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-$h.txt 2>&1
done
grep -iE "regist|vector_coop_teams|name" $o/stats-*.txt | head -20
lens="1024,4096,16384,65536,131072"
for h in 64,8 32,8; do
for v in none decode_ct=1 decode_ct=1,decode_ablate=128 decode_ct=1,decode_teams=4; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s149.tgz s149
cd $o
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
