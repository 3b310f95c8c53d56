set -uo pipefail
# Run 107: the SASS of run 100's staged-V variant (6ae7ac9 + stage.diff, .device/w2) at 16384 keys,
# decode_stage=0 and 1, to see where the driver put the next block's V loads.
o=/tmp/s107; mkdir -p $o
SECONDS=0
cp .device/w2/pipeline_stats .device/pipeline_stats
for n in 0 1; do
  WGPU_SDPA_TUNE=decode_stage=$n bash scripts/sass.sh capture $o/cache$n --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > /dev/null 2>&1
  cp $o/cache$n/pipeline_stats.txt $o/stats$n.txt
done
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,131072 --fused-only"
for i in 1 2 3; do for n in 0 1; do WGPU_SDPA_TUNE=decode_stage=$n timeout 60 bash .device/on-device.sh .device/w2/sdpa bench $d128 > $o/st$n-$i.txt 2>&1; done; done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s107.tgz s107
cd $o
grep -h "Register Count" stats0.txt stats1.txt
for n in 0 1; do for i in 1 2 3; do echo "st$n-$i: $(grep -E '^ *[0-9]+, ' st$n-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done; done
