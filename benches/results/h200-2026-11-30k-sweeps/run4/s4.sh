#!/usr/bin/env bash
# Sweep 4: the cleaned loop (unconditional fetch, P V per O fragment) as the default, against
# the commit before at every f16 head dim; the halves staging and causal d64 blocks again.
set -u
o=/tmp/s4; mkdir -p $o
r="bash .device/on-device.sh"
new="$r .device/sdpa"; old="$r .device/sdpa-old"
$new check --filter "coop" > $o/check.txt 2>&1
a="--fused-only --dtype f16 --len 4096 --hdim 32,48,64,80,96,112,128 --mask none,causal"
$old bench $a > $o/old.txt 2>&1; $new bench $a > $o/new.txt 2>&1
g="--fused-only --dtype f16 --len 4096 --hdim 128 --heads 32,8"
$old bench $g > $o/old-gqa.txt 2>&1; $new bench $g > $o/new-gqa.txt 2>&1
h="--fused-only --dtype f16 --len 4096 --hdim 64,80,96,112,128 --mask none"
for w in 0 1; do WGPU_SDPA_TUNE=coop_f16word=$w $new bench $h > $o/new-word$w.txt 2>&1; done
c="--fused-only --dtype f16 --len 4096 --hdim 64,80 --mask causal"
WGPU_SDPA_TUNE=coop_bq=128,coop_bk=32 $new bench $c > $o/new-c128.txt 2>&1
WGPU_SDPA_TUNE=coop_plain=1 $new bench $c > $o/new-cplain.txt 2>&1
WGPU_SDPA_TUNE=coop_bq=128,coop_bk=32,coop_plain=1 $new bench $c > $o/new-c128plain.txt 2>&1
f="--fused-only --dtype f32 --len 4096 --hdim 64,128"
$old bench $f > $o/old32.txt 2>&1; $new bench $f > $o/new32.txt 2>&1
tar -C /tmp -czf $OUT/s4.tgz s4
