// A 16-byte word of f32 for wgsl/coop_stage_vec.wgsl, split (wgsl/coop_split_f32.wgsl): 4
// elements times K's or V's factor, their f16 hi parts at `at` and lo parts at `at + KV_LO`.
const CH: u32 = 4u;

fn put_word(at: u32, w: vec4<u32>) {
    let f = select(kv_factors.y, kv_factors.x, at < BK * (HEAD_DIM + PAD));
    let x = bitcast<vec4<f32>>(w) * f;
    let hi = split_part(x, 0u);
    let lo = split_part(x, 1u);
    kv_s[at] = hi.x;
    kv_s[at + 1u] = hi.y;
    kv_s[at + 2u] = hi.z;
    kv_s[at + 3u] = hi.w;
    kv_s[at + KV_LO] = lo.x;
    kv_s[at + KV_LO + 1u] = lo.y;
    kv_s[at + KV_LO + 2u] = lo.z;
    kv_s[at + KV_LO + 3u] = lo.w;
}
