#!/usr/bin/env bash
# The NVIDIA driver's machine code (SASS) for the pipelines the planner emits for one shape.
# The driver exposes no internal representation through VK_KHR_pipeline_executable_properties,
# but it writes each pipeline it compiles to its shader disk cache; this reads them back.
#
#   On the GPU machine (from the project root, `.device/` built with `prepare.sh --examples`):
#     bash scripts/sass.sh capture DIR [pipeline_stats options...]
#       e.g. bash scripts/sass.sh capture /tmp/c --q-len 4096 --hdim 128 --dtype f16
#     compiles the shape's pipelines with the disk cache pointed at DIR (tar it into $OUT).
#   Anywhere (no GPU needed):
#     bash scripts/sass.sh disasm DIR OUT
#     unpacks DIR's cache with `nvcachedec` (github.com/therontarigo/nvcachetools, built with
#     libzstd) and disassembles every compiled object with NVIDIA's `nvdisasm` (pip package
#     `nvidia-cuda-nvdisasm`), both found on PATH or through $NVCACHEDEC / $NVDISASM, into
#     OUT/objectNNNNN.sass, largest (the attention kernel) first in OUT/index.txt. Where
#     nvdisasm rejects an object, its code section is extracted with `nvucdump` (beside
#     nvcachedec) and disassembled as raw SM90 code.
set -euo pipefail
mode=${1:?usage: sass.sh capture DIR [pipeline_stats options...] | sass.sh disasm DIR OUT}
case "$mode" in
  capture)
    dir=${2:?capture needs DIR}; shift 2
    mkdir -p "$dir"
    export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
    export __GL_SHADER_DISK_CACHE_PATH=$(cd "$dir" && pwd)
    bash .device/on-device.sh .device/pipeline_stats "$@" > "$dir/pipeline_stats.txt"
    echo "cache and pipeline statistics in $dir"
    ;;
  disasm)
    dir=${2:?disasm needs DIR}; out=${3:?disasm needs OUT}
    dec=${NVCACHEDEC:-nvcachedec}; dis=${NVDISASM:-nvdisasm}
    ucdump=${NVUCDUMP:-$(dirname "$(command -v "$dec")")/nvucdump}
    mkdir -p "$out/objects"
    find "$dir" -name '*.toc' | while read -r toc; do "$dec" "$toc" "$out/objects" > /dev/null 2>&1; done
    : > "$out/index.txt"
    for obj in $(ls -S "$out"/objects/*.nvuc); do
      name=$(basename "$obj" .nvuc)
      if ! "$dis" "$obj" > "$out/$name.sass" 2> /dev/null; then
        rm -rf "$out/sections-$name"; mkdir -p "$out/sections-$name"
        "$ucdump" "$obj" "$out/sections-$name" > /dev/null 2>&1
        code=$(ls -S "$out/sections-$name"/section*_0001.bin | head -1)
        "$dis" --binary SM90 "$code" > "$out/$name.sass"
      fi
      echo "$name.sass $(grep -m1 'Register count' "$out/$name.sass" | tr -s ' \t' ' ') lines $(wc -l < "$out/$name.sass")" >> "$out/index.txt"
    done
    cat "$out/index.txt"
    ;;
  *)
    echo "usage: sass.sh capture DIR [pipeline_stats options...] | sass.sh disasm DIR OUT" >&2
    exit 2
    ;;
esac
