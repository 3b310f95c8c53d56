// A 16-byte word of f32 for wgsl/coop_stage_vec.wgsl: 4 elements.
const CH: u32 = 4u;

fn put_word(at: u32, w: vec4<u32>) {
    let x = bitcast<vec4<f32>>(w);
    kv_s[at] = x.x;
    kv_s[at + 1u] = x.y;
    kv_s[at + 2u] = x.z;
    kv_s[at + 3u] = x.w;
}
