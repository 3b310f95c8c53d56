//! The cooperative-matrix fused family (`wgsl/fused_coop.wgsl`): S = Q·Kᵀ and O += P·V on matrix
//! fragments. The fragment configuration comes only from the adapter's list
//! ([`Capabilities::cooperative_matrix`]): on the H200 an unlisted 8x8 f32 pipeline was created
//! without error and computed garbage, so nothing else is ever tried.
//!
//! Tuning knobs (`WGPU_SDPA_TUNE`, `src/tune.rs`): `coop_words=0` stages K/V element by element
//! even where 16-byte words are possible; `coop_pipe=0|1` forces the one-tile-at-a-time or the
//! pipelined KV loop (default: pipelined above head dim 64); `coop_reverse=0` keeps causal
//! workgroups in grid order; `coop_ablate=BITS` skips parts of the kernel for profiling (wrong
//! results: 1 staging, 2 softmax, 4 Q Kᵀ, 8 P V, 16 barriers). `coop_aligned` (in
//! `src/pipelines.rs` and `src/spirv.rs`): 0 lets wgpu translate the WGSL, 2 drops the `Aligned`
//! operands from ours.

use wgpu::CooperativeScalarType;

use crate::capabilities::Capabilities;
use crate::desc::{AttentionDesc, DType};
use crate::error::{Error, Result};
use crate::kernels::{kv_in_16_byte_words, per_query_block, Dispatch};
use crate::planner::mask_kind;
use crate::shader::{CoopHeader, KernelEntry, ShaderVariant};

/// Elements of padding per staged row (`PAD` in the WGSL): 16 bytes of f16, keeping every row
/// 16-byte aligned as fragment loads need.
const PAD: u32 = 8;

/// Workgroups a grid should have for the planner to prefer it. On the H200 (132 compute units)
/// f16 L = 128, head dims 80 and 128, ran 10% slower with 32 workgroups of 128 rows than with 64
/// of 64 rows (BENCHMARKS.md, the runs before and after Q was staged in parts).
const MIN_WORKGROUPS: u64 = 64;

/// Q and O fragments per subgroup the kernel holds in registers (`q0..q7`, `o0..o7`): head dims
/// up to 128 with 16x16 fragments, up to 64 with 8x8 ones.
pub const MAX_COOP_FRAGS: u32 = 8;

/// Tiles of the cooperative-matrix kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopTiles {
    /// Fragment size (16 on NVIDIA, 8 on Apple): listed by the adapter as `frag x frag x frag`.
    pub frag: u32,
    /// Query rows per workgroup (`frag` per subgroup).
    pub block_q: u32,
    /// Keys per KV tile.
    pub block_k: u32,
    /// Subgroup size the kernel is compiled for.
    pub subgroup_size: u32,
    /// Parts the Q block is staged in (1 unless it does not fit next to the tiles at once).
    pub q_parts: u32,
    /// Threads per workgroup.
    pub workgroup_size: u32,
    /// Workgroup memory, bytes.
    pub workgroup_bytes: u32,
    /// K and V are staged in 16-byte words fetched one tile ahead (every offset and stride of K
    /// and V is a multiple of 16 bytes), else element by element.
    pub word_staging: bool,
}

/// The listed configuration for `dtype` inputs with f32 accumulators: the fragment size, 16
/// preferred over 8 (wgpu 30 expresses square fragments only).
pub fn listed_fragment(caps: &Capabilities, dtype: DType) -> Option<u32> {
    let ab = match dtype {
        DType::F16 => CooperativeScalarType::F16,
        DType::F32 => CooperativeScalarType::F32,
    };
    [16, 8].into_iter().find(|&f| {
        caps.cooperative_matrix.iter().any(|c| {
            c.m_size == f
                && c.n_size == f
                && c.k_size == f
                && c.ab_type == ab
                && c.cr_type == CooperativeScalarType::F32
        })
    })
}

/// Workgroup memory of the kernel's arrays, bytes (must match `wgsl/fused_coop.wgsl`).
fn workgroup_bytes(desc: &AttentionDesc, block_q: u32, block_k: u32, q_parts: u32) -> u32 {
    let elem = desc.dtype.size_bytes() as u32;
    (kv_elements(desc, block_q, block_k, q_parts) + block_q * (block_k + PAD)) * elem
        + block_q * (block_k + 4) * 4
        + 32
}

/// 16-byte words of a K/V tile each of `threads` invocations fetches (`NL` in the WGSL).
fn words_per_thread(desc: &AttentionDesc, block_k: u32, threads: u32) -> u32 {
    let per_word = 16 / desc.dtype.size_bytes() as u32;
    (block_k * (desc.head_dim + desc.v_head_dim) / per_word).div_ceil(threads)
}

/// Elements of the K/V staging array, which also stages Q (in `q_parts` parts) at the start.
fn kv_elements(desc: &AttentionDesc, block_q: u32, block_k: u32, q_parts: u32) -> u32 {
    (block_k * (desc.head_dim + PAD) + block_k * (desc.v_head_dim + PAD))
        .max(block_q / q_parts * (desc.head_dim + PAD))
}

/// Why the cooperative-matrix kernel cannot serve `desc` on `caps`, or its tiles. `forced` pins
/// `(block_q, block_k)` (tuning); `block_q` must then be a multiple of the fragment size.
pub fn fit_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    forced: Option<(u32, u32)>,
) -> Result<CoopTiles> {
    let unavailable = |reason: String| Error::PathUnavailable {
        path: "fused (cooperative matrix)".into(),
        reason,
    };
    let frag = listed_fragment(caps, desc.dtype).ok_or_else(|| {
        unavailable(format!(
            "the adapter lists no square cooperative-matrix configuration with {} inputs and f32 accumulators",
            desc.dtype
        ))
    })?;
    let subgroup = caps.subgroup_min_size;
    if !caps.subgroups
        || subgroup == 0
        || subgroup != caps.subgroup_max_size
        || !subgroup.is_multiple_of(frag)
    {
        return Err(unavailable(format!(
            "needs subgroups of one known size that {frag} divides (adapter: {}..{})",
            caps.subgroup_min_size, caps.subgroup_max_size
        )));
    }
    for (field, d) in [("head_dim", desc.head_dim), ("v_head_dim", desc.v_head_dim)] {
        if !d.is_multiple_of(frag) || d > MAX_COOP_FRAGS * frag {
            return Err(unavailable(format!(
                "{field} {d} must be a multiple of the fragment size {frag} and at most {}",
                MAX_COOP_FRAGS * frag
            )));
        }
    }
    let lanes_per_row = subgroup / frag;
    let candidates = match forced {
        Some((block_q, block_k)) if block_q.is_multiple_of(frag) && block_q > 0 => {
            vec![(block_q / frag, block_k)]
        }
        Some((block_q, _)) => {
            return Err(Error::invalid(
                "fused_blocks",
                block_q,
                format!(
                "block_q of the cooperative kernel must be a multiple of the fragment size {frag}"
            ),
            ))
        }
        // Measured on the H200 (BENCHMARKS.md, f16, L = 4096): 8 subgroups x 32 keys where it
        // fits, then 4 x 32; 4 x 64 was the slowest of those that fit. Head dims up to 64: 4 x 32
        // first (1.40 against 1.48 ms; causal 0.80 against 0.90).
        None => {
            let mut list = vec![
                (8, 32),
                (4, 32),
                (8, 16),
                (4, 16),
                (4, 64),
                (2, 32),
                (2, 16),
                (1, 32),
                (1, 16),
            ];
            if desc.head_dim <= 64 && desc.v_head_dim <= 64 {
                list.swap(0, 1);
            }
            list
        }
    };
    // Staging Q in parts needs fragment arithmetic, which Metal's simdgroup matrices lack.
    let max_q_parts = if caps.backend == wgpu::Backend::Metal {
        1
    } else {
        4
    };
    let configurations: Vec<(u32, u32, u32)> = candidates
        .into_iter()
        .flat_map(|(warps, block_k)| {
            [1, 2, 4]
                .into_iter()
                .filter(move |&parts| parts <= max_q_parts.min(warps))
                .map(move |parts| (warps, block_k, parts))
        })
        .collect();
    let fits = |&(warps, block_k, q_parts): &(u32, u32, u32)| {
        block_k.is_multiple_of(frag)
            // each lane's keys in the softmax: 1 to 8 chunks of 4
            && (block_k / lanes_per_row).is_multiple_of(4)
            && block_k / lanes_per_row <= 32
            && warps * subgroup
                <= caps
                    .max_invocations_per_workgroup
                    .min(caps.max_workgroup_size_x)
            && workgroup_bytes(desc, warps * frag, block_k, q_parts)
                <= caps.max_workgroup_storage_bytes
    };
    // Unless tiles are forced: 8 or 4 subgroups with enough workgroups to spread over a GPU's
    // compute units when the query is long enough for that, else the first that fits (both
    // measured: BENCHMARKS.md).
    let grid = |warps: u32| {
        desc.batch as u64 * desc.q_heads as u64 * desc.q_len.div_ceil(warps * frag) as u64
    };
    type Preference<'a> = &'a dyn Fn(&(u32, u32, u32)) -> bool;
    let preferences: [Preference; 2] = [
        &|c| forced.is_some() || (c.0 >= 4 && grid(c.0) >= MIN_WORKGROUPS),
        &|_| true,
    ];
    for prefer in preferences {
        if let Some(&(warps, block_k, q_parts)) = configurations
            .iter()
            .filter(|c| prefer(c))
            .find(|c| fits(c))
        {
            let block_q = warps * frag;
            let word_staging = kv_in_16_byte_words(desc)
                && words_per_thread(desc, block_k, warps * subgroup) <= 8
                && crate::tune::knob("coop_words") != Some(0);
            return Ok(CoopTiles {
                word_staging,
                frag,
                block_q,
                block_k,
                subgroup_size: subgroup,
                q_parts,
                workgroup_size: warps * subgroup,
                workgroup_bytes: workgroup_bytes(desc, block_q, block_k, q_parts),
            });
        }
    }
    Err(unavailable(format!(
        "its smallest tiles need more than {} bytes of workgroup memory",
        caps.max_workgroup_storage_bytes
    )))
}

/// The one dispatch of the cooperative-matrix kernel with tiles `t`.
pub fn plan(caps: &Capabilities, desc: &AttentionDesc, t: &CoopTiles) -> Result<Vec<Dispatch>> {
    let variant = ShaderVariant {
        entry: KernelEntry::FusedCoop,
        dtype: desc.dtype,
        stage: desc.dtype,
        coop: Some(CoopHeader {
            frag: t.frag,
            q_frags: desc.head_dim / t.frag,
            o_frags: desc.v_head_dim / t.frag,
            q_parts: t.q_parts,
            word_staging: t.word_staging,
        }),
        constants: vec![
            ("BQ", t.block_q),
            ("BK", t.block_k),
            ("HEAD_DIM", desc.head_dim),
            ("V_HEAD_DIM", desc.v_head_dim),
            (
                "KV_ELEMS",
                kv_elements(desc, t.block_q, t.block_k, t.q_parts),
            ),
            ("Q_PARTS", t.q_parts),
            ("SG", t.subgroup_size),
            ("WG", t.workgroup_size),
            ("MASK_KIND", mask_kind(desc)),
            ("PAD", PAD),
            ("NCH", t.block_k / (t.subgroup_size / t.frag) / 4),
            // Pipelined tiles: H200, f16, L = 4096: d80 2.07 against 2.11 ms, d128 2.36 against
            // 2.41, but d64 2.00 against 1.49 (more live fragments than its best schedule has).
            (
                "PIPE",
                (t.block_k / t.frag <= 4
                    && crate::tune::knob("coop_pipe").map_or(desc.head_dim > 64, |v| v == 1))
                    as u32,
            ),
            (
                "REVERSE",
                (crate::tune::knob("coop_reverse") != Some(0)) as u32,
            ),
            ("ABLATE", crate::tune::knob("coop_ablate").unwrap_or(0)),
        ],
    };
    let mut variant = variant;
    if t.word_staging {
        variant
            .constants
            .push(("NL", words_per_thread(desc, t.block_k, t.workgroup_size)));
    }
    per_query_block(caps, desc, variant, t.block_q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_comes_from_the_list_only() {
        let nvidia = Capabilities::nvidia_vulkan();
        assert_eq!(listed_fragment(&nvidia, DType::F16), Some(16));
        // The H200 lists no f32 inputs: no cooperative f32 kernel there.
        assert_eq!(listed_fragment(&nvidia, DType::F32), None);
        let apple = Capabilities::apple_m_series();
        assert_eq!(listed_fragment(&apple, DType::F16), Some(8));
        assert_eq!(listed_fragment(&apple, DType::F32), Some(8));
        assert_eq!(listed_fragment(&Capabilities::lavapipe(), DType::F16), None);
    }

    #[test]
    fn q_is_staged_in_parts_only_where_fragments_have_arithmetic() {
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, 128).with_dtype(DType::F16);
        let nvidia = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None).unwrap();
        assert_eq!(
            (nvidia.block_q, nvidia.block_k, nvidia.q_parts),
            (128, 32, 2),
            "{nvidia:?}"
        );
        let d64 = AttentionDesc::new(1, 32, 32, 4096, 4096, 64).with_dtype(DType::F16);
        assert_eq!(
            fit_tiles(&Capabilities::apple_m_series(), &d64, None)
                .unwrap()
                .q_parts,
            1
        );
    }

    #[test]
    fn tiles_fit_the_profiles() {
        for (caps, dtype) in [
            (Capabilities::nvidia_vulkan(), DType::F16),
            (Capabilities::apple_m_series(), DType::F16),
            (Capabilities::apple_m_series(), DType::F32),
        ] {
            for d in [16, 32, 48, 64, 80, 96, 112, 128]
                .into_iter()
                .filter(|d| d % 16 == 0 || caps.backend == wgpu::Backend::Metal)
            {
                let frag = listed_fragment(&caps, dtype).unwrap();
                if d > MAX_COOP_FRAGS * frag {
                    continue;
                }
                let desc = AttentionDesc::new(1, 8, 8, 256, 256, d).with_dtype(dtype);
                let t = fit_tiles(&caps, &desc, None).unwrap();
                assert!(
                    t.workgroup_bytes <= caps.max_workgroup_storage_bytes,
                    "{t:?}"
                );
                assert_eq!(t.block_q, t.frag * t.workgroup_size / t.subgroup_size);
            }
        }
    }
}
