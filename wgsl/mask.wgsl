// Where masks are applied: every kernel turns a raw q·k into a score through `masked_score`.
//
// Scores live in log2 units (scale * log2(e) folded in, f32) so the softmax uses exp2.
// Nothing here relies on IEEE infinities: Metal compiles with fast math, where comparisons with
// inf may be folded away. A key a mask removes gets the finite EXCLUDED, an additive -inf is
// recognised by its bit pattern, and every other score is clamped to at least FLOOR.
// The running max starts at FLOOR, so exp2(EXCLUDED - max) is exactly 0 and no NaN appears;
// a row whose keys are all excluded ends with a sum of 0 and writes zeros (documented).

// 0: none, 1: causal, 2: boolean (one byte per element), 3: additive f32, 4: additive f16.
override MASK_KIND: u32 = 0u;

@group(0) @binding(5) var<storage, read> mask_words: array<u32>;

const LOG2E: f32 = 1.4426950408889634;
const EXCLUDED: f32 = -3.0e38;
const FLOOR: f32 = -1.0e30;

// Does the causal mask let query row `qi` see key `kj`?
fn causal_visible(qi: u32, kj: u32) -> bool {
    return i32(kj) <= i32(qi) + p.causal_shift;
}

fn mask_index(b: u32, h: u32, qi: u32, kj: u32) -> u32 {
    return p.mask.x + b * p.mask.y + h * p.mask.z + qi * p.mask.w + kj;
}

// The score of key `kj` for query row `qi` of head `h` in batch `b`, from qk = q·k.
fn masked_score(qk: f32, b: u32, h: u32, qi: u32, kj: u32) -> f32 {
    var s = qk * p.scale_log2;
    if (MASK_KIND == 1u) {
        if (!causal_visible(qi, kj)) {
            return EXCLUDED;
        }
    } else if (MASK_KIND == 2u) {
        let i = mask_index(b, h, qi, kj);
        let byte = (mask_words[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu;
        if (byte == 0u) {
            return EXCLUDED;
        }
    } else if (MASK_KIND == 3u) {
        let bits = mask_words[mask_index(b, h, qi, kj)];
        if (bits == 0xff800000u) {
            return EXCLUDED;
        }
        s += bitcast<f32>(bits) * LOG2E;
    } else if (MASK_KIND == 4u) {
        let i = mask_index(b, h, qi, kj);
        let word = mask_words[i >> 1u];
        let bits = (word >> ((i & 1u) * 16u)) & 0xffffu;
        if (bits == 0xfc00u) {
            return EXCLUDED;
        }
        s += unpack2x16float(word)[i & 1u] * LOG2E;
    }
    return max(s, FLOOR);
}
