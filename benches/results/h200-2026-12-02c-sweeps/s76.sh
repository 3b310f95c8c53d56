set -uo pipefail
# Run 76: the tree to commit (arrival counters on 128-byte lines of their own; no helpers)
# against sdpa-prev (a45d81b): checks, d128 interleaved, other shapes, the decode sweep beside
# PyTorch in one command.
o=/tmp/s76; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 200 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 150 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
for i in 1 2 3 4; do
  $r .device/sdpa-prev bench $d128 > $o/prev-d128-$i.txt 2>&1
  $r .device/sdpa bench $d128 > $o/sdpa-d128-$i.txt 2>&1
done
for shape in "d64:--dtype f16 --hdim 64 --heads 32,8 --len 1" "mha:--dtype f16 --hdim 128 --heads 32,32 --len 1" "q2:--dtype f16 --hdim 128 --heads 32,8 --len 2" "f32:--dtype f32 --hdim 128 --heads 32,8 --len 1"; do
  name=${shape%%:*}; args=${shape#*:}
  for i in 1 2; do
    $r .device/sdpa-prev bench $args --kv-len 4096,16384,131072 --fused-only > $o/$name-prev-$i.txt 2>&1
    $r .device/sdpa bench $args --kv-len 4096,16384,131072 --fused-only > $o/$name-sdpa-$i.txt 2>&1
  done
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode.json > $o/decode.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
tar -C /tmp -czf $OUT/s76.tgz s76
cd $o; tail -1 check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' test-$n.txt) $(tail -1 test-$n.txt)"; done
for f in prev-d128*.txt sdpa-d128*.txt d64*.txt mha*.txt q2*.txt f32*.txt decode.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
