set -uo pipefail
# Run 65: what `@coherent` on the split rows costs. .device/sdpa is the commit; .device/sdpa-nc and
# .device/pipeline_stats-nc are built with `partial` declared without `@coherent` in
# src/shader.rs (nc.diff beside this script; profiling only: without it the merge's reads of
# the other workgroups' rows are not ordered after their stores by the Vulkan spec). Also the
# driver's SASS of both (scripts/sass.sh capture; disassembled on the development machine).
o=/tmp/s65; mkdir -p $o
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,8192,16384,65536,131072 --fused-only"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
for i in 1 2 3; do
  $r .device/sdpa bench $d128 > $o/sdpa-$i.txt 2>&1
  $r .device/sdpa-nc bench $d128 > $o/nc-$i.txt 2>&1
done
timeout 200 $r .device/sdpa-nc check > $o/check-nc.txt 2>&1; echo "exit $?" >> $o/check-nc.txt
bash scripts/sass.sh capture $o/c-commit $shape > /dev/null 2>&1
cp .device/pipeline_stats-nc .device/pipeline_stats
bash scripts/sass.sh capture $o/c-nc $shape > /dev/null 2>&1
tar -C /tmp -czf $OUT/s65.tgz s65
cd $o; tail -2 check-nc.txt; grep -i regist c-*/pipeline_stats.txt | head
for f in sdpa-*.txt nc-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s ", $3, $18}')"; done
