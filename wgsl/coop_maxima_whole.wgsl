// The split f32 variant's maxima (wgsl/coop_split_f32.wgsl) with the keys whole: the scratch
// holds nothing else.

@group(0) @binding(6) var<storage, read> chunk_max: array<f32>;

fn split_max(i: u32) -> f32 {
    return chunk_max[i];
}
