// P rounded to f16 as the P V product on f16 fragments sees it, for the sums of P of the decode
// kernels on cooperative matrices (wgsl/vector_coop.wgsl, wgsl/vector_coop_teams.wgsl): so that
// the output is a weighted mean of V whose weights f16 perturbed by up to 2^-12.

// Non-negative finite `x` rounded to f16's 11 significant bits (to nearest, ties to even), as
// f32: exactly f16(x) where that is normal (P <= 2^RESCALE_LOG2; below 2^-14, where f16 keeps
// fewer bits, the two differ by under 2^-25, against row sums of at least 1). On the bits: the
// NVIDIA compiler took f32(f16(x)) for x.
fn round_f16(x: vec4<f32>) -> vec4<f32> {
    let b = bitcast<vec4<u32>>(x);
    let r = (b + vec4<u32>(0xfffu) + ((b >> vec4<u32>(13u)) & vec4<u32>(1u))) & vec4<u32>(0xffffe000u);
    return bitcast<vec4<f32>>(r);
}
