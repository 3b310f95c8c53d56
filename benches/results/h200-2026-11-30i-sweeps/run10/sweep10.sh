set -uo pipefail
o=/tmp/s10; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
b() { local name=$1 tune=$2; shift 2; WGPU_SDPA_TUNE=$tune $new bench $sh "$@" > $o/$name.txt 2>&1; }
b base "" --hdim 64,80,128
b rflag0 coop_rflag=0 --hdim 64,80,128
b causal "" --hdim 64,128 --mask causal
b causal-plain coop_plain=1 --hdim 64,128 --mask causal
b rflag0-causal coop_rflag=0 --hdim 64,128 --mask causal
b base-again "" --hdim 64,80,128
b rflag0-again coop_rflag=0 --hdim 64,80,128
b causal-plain-again coop_plain=1 --hdim 64,128 --mask causal
tar -C /tmp -czf $OUT/s10.tgz s10
cd $o
for f in *.txt; do echo "$f: $(grep -E '^ *1, ' $f | awk -F, '{printf "%s/%s:%s ", $4,$9,$11}')"; done
