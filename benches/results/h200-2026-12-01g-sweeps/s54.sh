set -uo pipefail
# Run 54 (nineteenth session). sdpa = merge_groups with one group of 4 splits a round by default
# (MERGE_GROUPS 1) and, for 2 or 3 (knob decode_merge_groups), the loads of groups wholly past
# the splits skipped instead of clamped; sdpa-prev = run 52's sdpa.
o=/tmp/s54; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
for i in 1 2; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  for g in 1 2 3; do
    WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/sdpa bench $d128 > $o/sdpa-d128-g$g-$i.txt 2>&1
  done
done
$r .device/sdpa-prev bench $d64 > $o/prev-d64.txt 2>&1
$r .device/sdpa-prev bench $d256 > $o/prev-d256.txt 2>&1
for g in 1 2 3; do WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/sdpa bench $d64 > $o/sdpa-d64-g$g.txt 2>&1; done
for g in 1 2; do WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/sdpa bench $d256 > $o/sdpa-d256-g$g.txt 2>&1; done
$r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16 > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s54.tgz s54
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in prev*.txt sdpa*.txt decode*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
