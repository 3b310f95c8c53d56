set -uo pipefail
# Run 109: the queries' chunk indices made to wait on K's data (knob decode_qdep=1: an and with a
# parameter that is 0), so that the driver cannot read the queries from workgroup memory before
# K arrives and may give their registers to the V loads at the block's start (e938327 + this,
# .device/w2). SASS at 16384 keys and timing against decode_qdep=0.
o=/tmp/s109; mkdir -p $o
SECONDS=0
cp .device/w2/pipeline_stats .device/pipeline_stats
for n in 0 1; do
  WGPU_SDPA_TUNE=decode_qdep=$n bash scripts/sass.sh capture $o/cache$n --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
  cp $o/cache$n/pipeline_stats.txt $o/stats$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 1024,4096,8192,16384,32768,131072 --fused-only"
for i in 1 2 3 4 5 6; do
  if [ $((i % 2)) = 1 ]; then order="0 1"; else order="1 0"; fi
  for n in $order; do WGPU_SDPA_TUNE=decode_qdep=$n timeout 60 bash .device/on-device.sh .device/w2/sdpa bench $d128 > $o/q$n-$i.txt 2>&1; done
done
for n in 0 1; do WGPU_SDPA_TUNE=decode_qdep=$n timeout 60 bash .device/on-device.sh .device/w2/sdpa bench --dtype f16 --hdim 64 --heads 32,8 --len 1 --kv-len 4096,16384,65536 --fused-only > $o/d64-q$n.txt 2>&1; done
WGPU_SDPA_TUNE=decode_qdep=1 timeout 100 bash .device/on-device.sh .device/w2/sdpa check --filter vector > $o/check1.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s109.tgz s109
cd $o
tail -1 check1.txt
grep -h "Register Count" stats0.txt stats1.txt
for n in 0 1; do for i in 1 2 3 4 5 6; do echo "q$n-$i: $(grep -E '^ *[0-9]+, ' q$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
for n in 0 1; do echo "d64-q$n: $(grep -E '^ *[0-9]+, ' d64-q$n.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done
