set -uo pipefail
# Sweep 25: the reduce pass loading 8 splits a round (33 splits in one round for 8 lanes, where
# 4 a round took two) against d989657 (sdpa-base); alternating, 3 rounds.
t=/tmp/s25; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
$r .device/sdpa check --filter vector > $t/check.txt 2>&1
for i in 1 2 3; do
  $r .device/sdpa bench $q > $t/r8-$i.txt 2>&1
  $r .device/sdpa-base bench $q > $t/base-$i.txt 2>&1
done
for sh in "32,8 --len 2" "32,32 --len 1"; do
  n=$(echo $sh | tr -d ' ,-')
  $r .device/sdpa bench --dtype f16 --hdim 128 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-r8.txt 2>&1
  $r .device/sdpa-base bench --dtype f16 --hdim 128 --heads $sh --kv-len 16384,131072 --fused-only > $t/$n-base.txt 2>&1
done
tar -C /tmp -czf $OUT/s25.tgz s25
cd $t; grep -h passed check.txt; for f in *.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
