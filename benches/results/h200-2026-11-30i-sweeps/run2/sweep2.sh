set -uo pipefail
o=/tmp/s2; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"
sh="--fused-only --dtype f16 --len 4096"
b() { local name=$1 tune=$2; shift 2; WGPU_SDPA_TUNE=$tune $new bench $sh "$@" > $o/$name.txt 2>&1; }
b d64-64x32-s4 "" --hdim 64
b d64-64x32-s8 coop_spad=8 --hdim 64
b d64-128x32-s8q2 coop_spad=8 --hdim 64 --blocks 128x32
b d64-128x32-s4q2 coop_spad=4,coop_qparts=2 --hdim 64 --blocks 128x32
b d64-128x32-s4q1 coop_spad=4,coop_qparts=1 --hdim 64 --blocks 128x32
b d64-128x32-s8q4 coop_spad=8,coop_qparts=4 --hdim 64 --blocks 128x32
b d64-128x32-s8q2-plain0 coop_spad=8,coop_plain=0 --hdim 64 --blocks 128x32
b d64-128x32-s8q2-pipe1 coop_spad=8,coop_pipe=1 --hdim 64 --blocks 128x32
b d128-s8 coop_spad=8 --hdim 128
b d128-s8q4 coop_spad=8,coop_qparts=4 --hdim 128
b d128-s8-pipe1 coop_spad=8,coop_pipe=1 --hdim 128
b d80-s8q4 coop_spad=8,coop_qparts=4 --hdim 80
b d64-128x32-s8q2-again coop_spad=8 --hdim 64 --blocks 128x32
b d64-64x32-s4-again "" --hdim 64
{
for k in "" coop_spad=8; do echo "### d64 64x32 $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --q-len 4096 --hdim 64 --dtype f16 --blocks 64x32; done
for k in coop_spad=8 coop_spad=4,coop_qparts=2 coop_spad=4,coop_qparts=1; do echo "### d64 128x32 $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --q-len 4096 --hdim 64 --dtype f16 --blocks 128x32; done
for k in "" coop_spad=8; do echo "### d128 $k"; WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --q-len 4096 --hdim 128 --dtype f16; done
} > $o/regs.txt 2>&1
python3 .device/torch_sdpa_bench.py --dtype float16 --hdim 64 128 --lens 4096 > $o/torch.txt 2>&1
tar -C /tmp -czf $OUT/s2.tgz s2
