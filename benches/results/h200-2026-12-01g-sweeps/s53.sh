set -uo pipefail
# Run 53 (nineteenth session). sdpa = the in-pass merge and the reduce pass issuing the loads of
# MERGE_GROUPS groups of 4 splits before merging any (knob decode_merge_groups 1..4; default 3
# in pass, 2 in the reduce pass); sdpa-prev = run 52's sdpa (one group a round).
o=/tmp/s53; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
k="--kv-len 4096,8192,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $k"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $k"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $k"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
for i in 1 2 3; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  for g in 1 2 3 4; do
    WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/sdpa bench $d128 > $o/sdpa-d128-g$g-$i.txt 2>&1
  done
done
for s in mha d64 q2 f32; do
  $r .device/sdpa-prev bench ${!s} > $o/prev-$s.txt 2>&1
  for g in 2 3 4; do WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/sdpa bench ${!s} > $o/sdpa-$s-g$g.txt 2>&1; done
done
# The reduce pass: d256 (its default) and d128 with decode_in_pass=0.
for i in 1 2; do
  $r .device/sdpa-prev bench $d256 > $o/prev-d256-$i.txt 2>&1
  WGPU_SDPA_TUNE=decode_in_pass=0 $r .device/sdpa-prev bench $d128 > $o/prev-d128-reduce-$i.txt 2>&1
  for g in 1 2 3; do
    WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/sdpa bench $d256 > $o/sdpa-d256-g$g-$i.txt 2>&1
    WGPU_SDPA_TUNE=decode_in_pass=0,decode_merge_groups=$g $r .device/sdpa bench $d128 > $o/sdpa-d128-reduce-g$g-$i.txt 2>&1
  done
done
WGPU_SDPA_TUNE=decode_in_pass=1 $r .device/sdpa bench $d256 > $o/sdpa-d256-inpass-g3.txt 2>&1
WGPU_SDPA_TUNE=decode_in_pass=1,decode_merge_groups=4 $r .device/sdpa bench $d256 > $o/sdpa-d256-inpass-g4.txt 2>&1
{ for g in 1 2 3 4; do echo "### groups $g"; WGPU_SDPA_TUNE=decode_merge_groups=$g $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 128 --dtype f16; done; echo "### d64"; $r .device/pipeline_stats --kv-len 16384 --heads 32,8 --q-len 1 --hdim 64 --dtype f16; } > $o/registers.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
WGPU_SDPA_TUNE=decode_merge_groups=4 $r .device/sdpa bench --decode --len $lens --fused-only > $o/decode-g4.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s53.tgz s53
cd $o; tail -2 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
grep "CS: Register" registers.txt | awk '{print $4}' | tr '\n' ' '; echo
for f in prev*.txt sdpa*.txt decode*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
