set -uo pipefail
o=/tmp/s12; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
$new check --filter coop > $o/check-coop.txt 2>&1
$new bench --fused-only --dtype f16 --hdim 64 --len 128,256,512,4096 > $o/d64.txt 2>&1
$new bench --fused-only --no-decode --dtype f16 --hdim 64 --heads 32,8 --len 256 --kv-len 512,4096,16384 > $o/d64-short.txt 2>&1
tar -C /tmp -czf $OUT/s12.tgz s12
cd $o; tail -n 1 check-coop.txt
for f in d*.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s/%s:%s ", $2,$3,$4,$11}')"; done
grep -o "BQ=[0-9]*" d64.txt d64-short.txt
