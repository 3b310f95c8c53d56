set -uo pipefail
# Run 44 (eighteenth session). sdpa = the tree with d256's outputs in two parts by default
# (team_output_parts) and MERGE_ABLATE bit 16; sdpa-old = 8d2936f (before the OS_PARTS loop).
o=/tmp/s44; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
# (B) the OS_PARTS loop against the code before it, d128 and d256 (old: one part)
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/new-d128-$i.txt 2>&1
  $r .device/sdpa-old bench $d128 > $o/old-d128-$i.txt 2>&1
done
for i in 1 2; do
  $r .device/sdpa bench $d256 > $o/new-d256-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_os_parts=1 $r .device/sdpa bench $d256 > $o/new1-d256-$i.txt 2>&1
  $r .device/sdpa-old bench $d256 > $o/old-d256-$i.txt 2>&1
done
# (D) the in-pass merge's tail: no third fence; fewer splits
for i in 1 2; do for v in decode_in_pass=1 decode_in_pass=1,decode_merge_ablate=16 decode_in_pass=1,decode_wgs=200 decode_in_pass=1,decode_wgs=132 decode_in_pass=0,decode_wgs=200; do
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/tail-$v-$i.txt 2>&1
done; done
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16" "--heads 16,2 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
# (E) correctness
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
# (F) the decode sweep beside PyTorch's, d128 and d256
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
$r .device/sdpa bench --dtype f16 --hdim 256 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 > $o/d256-sweep.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 256 --heads 32 8 \
  --lens 4096 16384 65536 131072 > $o/torch-d256.txt 2>&1
tar -C /tmp -czf $OUT/s44.tgz s44
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in new-*.txt old-*.txt new1-*.txt tail-*.txt d256-sweep.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
grep -E "^ *[0-9]" torch-d256.txt | awk -F, '{print $3, $11}' | tr '\n' ' '
