set -uo pipefail
# The sixteenth session's final run (decode): the correctness matrix, the decode and numerics
# test binaries, the decode sweep with the planner's kernels beside PyTorch's decode run, the same
# sweep with the committed tree before this session (6ebdf66, .device/sdpa-old), other shapes new
# against old (d256 with 32/8 and 16/2 heads and 2 query rows, d64, f32, 2 query rows, 32/32
# heads); registers.
o=/tmp/o-final; mkdir -p $o
r="bash .device/on-device.sh"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; $r .device/sdpa info; } > $o/info.txt 2>&1
timeout 240 $r .device/sdpa check > $o/check.txt 2>&1; echo "check exit $?" >> $o/check.txt
for n in decode numerics; do
  WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 200 $r .device/t/$n --test-threads=1 > $o/test-$n.txt 2>&1; echo "exit $?" >> $o/test-$n.txt
done
lens=256,1024,2048,4096,8192,16384,32768,65536,131072
$r .device/sdpa bench --decode --len $lens --json $o/decode-1.json > $o/decode-1.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 \
  --lens 256 1024 2048 4096 8192 16384 32768 65536 131072 > $o/torch-decode.txt 2>&1
for i in 1 2; do
  $r .device/sdpa bench --decode --len $lens --fused-only > $o/new-$i.txt 2>&1
  $r .device/sdpa-old bench --decode --len $lens --fused-only > $o/old-$i.txt 2>&1
done
kv="--kv-len 4096,16384,65536,131072 --fused-only"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $kv"
d256q2="--dtype f16 --hdim 256 --heads 32,8 --len 2 $kv"
d256g8="--dtype f16 --hdim 256 --heads 16,2 --len 1 $kv"
d256mha="--dtype f16 --hdim 256 --heads 16,16 --len 1 $kv"
d64="--dtype f16 --hdim 64 --heads 32,8 --len 1 $kv"
f32="--dtype f32 --hdim 128 --heads 32,8 --len 1 $kv"
q2="--dtype f16 --hdim 128 --heads 32,8 --len 2 $kv"
mha="--dtype f16 --hdim 128 --heads 32,32 --len 1 $kv"
for s in d256 d256q2 d256g8 d256mha d64 f32 q2 mha; do
  $r .device/sdpa bench ${!s} > $o/$s.txt 2>&1
  $r .device/sdpa-old bench ${!s} > $o/old-$s.txt 2>&1
done
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 256 --heads 32 8 \
  --lens 4096 16384 65536 131072 > $o/torch-d256.txt 2>&1
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/registers.txt 2>&1
tar -C /tmp -czf $OUT/o-final.tgz o-final
tail -2 $o/check.txt; for n in decode numerics; do echo "$n: $(grep 'test result' $o/test-$n.txt) $(tail -1 $o/test-$n.txt)"; done
grep "CS: Register" $o/registers.txt
cd $o; for f in decode-1.txt new-*.txt old-*.txt d256*.txt d64.txt f32.txt q2.txt mha.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $18, $11}')"; done
grep -E "^ *[0-9]" torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
grep -E "^ *[0-9]" torch-d256.txt | awk -F, '{print $3, $11}' | tr '\n' ' '
