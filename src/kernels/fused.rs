//! The portable fused family (`wgsl/fused.wgsl`): tiles fitted to the adapter's workgroup
//! memory, one dispatch of `ceil(q_len / block_q) x q_heads x batch` workgroups.

use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::kernels::Dispatch;
use crate::planner::{check_grid, mask_kind, FusedTiles};
use crate::shader::{KernelEntry, ShaderVariant};

/// `(block_q, block_k)` candidates, most work per workgroup first.
const BLOCKS: [(u32, u32); 13] = [
    (64, 64),
    (64, 32),
    (32, 64),
    (32, 32),
    (16, 64),
    (16, 32),
    (16, 16),
    (8, 64),
    (8, 32),
    (8, 16),
    (4, 64),
    (4, 32),
    (4, 16),
];

/// Output vec4 columns per thread and row the kernel can hold in registers.
const MAX_OUT_SLOTS: u32 = 4;

/// Workgroup memory of a configuration, bytes (must match the arrays of `wgsl/fused.wgsl`).
fn workgroup_bytes(desc: &AttentionDesc, block_q: u32, block_k: u32, kv_vec4: u32) -> u32 {
    let elem = desc.dtype.size_bytes() as u32;
    let q_tile = block_q * (desc.head_dim / 4 + 1) * 4 * elem;
    let kv_tile = kv_vec4 * 4 * elem;
    let p_tile = block_q * (block_k / 4 + 1) * 16;
    let row_red = block_q * (block_k / 4) * 4;
    q_tile + kv_tile + p_tile + row_red
}

/// The largest `c <= limit` with `c % 4 == 0` and `total % c == 0`.
fn largest_chunk(total: u32, limit: u32) -> Option<u32> {
    (1..=total / 4)
        .rev()
        .map(|n| n * 4)
        .find(|&c| c <= limit && total.is_multiple_of(c))
}

/// The configuration for `(block_q, block_k)` within `budget` bytes, with chunks no smaller than
/// `min_d_chunk` / `min_k_chunk` (capped at the full sizes), if there is one.
fn configure(
    caps: &Capabilities,
    desc: &AttentionDesc,
    (block_q, block_k): (u32, u32),
    min_d_chunk: u32,
    min_k_chunk: u32,
) -> Option<FusedTiles> {
    let (d, dv) = (desc.head_dim, desc.v_head_dim);
    let workgroup_size = block_q * block_k / 16;
    if dv.div_ceil(block_k) > MAX_OUT_SLOTS
        || workgroup_size
            > caps
                .max_invocations_per_workgroup
                .min(caps.max_workgroup_size_x)
    {
        return None;
    }
    let fixed = workgroup_bytes(desc, block_q, block_k, 0);
    let budget = caps.max_workgroup_storage_bytes.checked_sub(fixed)?;
    let kv_vec4_budget = budget / (4 * desc.dtype.size_bytes() as u32);
    // K is staged as block_k rows of d_chunk (+1 vec4 of padding), V as k_chunk rows of dv (+1).
    let d_chunk = largest_chunk(d, (kv_vec4_budget / block_k).checked_sub(1)? * 4)?;
    let k_chunk = largest_chunk(block_k, kv_vec4_budget / (dv / 4 + 1))?;
    if d_chunk < min_d_chunk.min(d) || k_chunk < min_k_chunk.min(block_k) {
        return None;
    }
    let kv_vec4 = (block_k * (d_chunk / 4 + 1)).max(k_chunk * (dv / 4 + 1));
    Some(FusedTiles {
        block_q,
        block_k,
        d_chunk,
        k_chunk,
        workgroup_size,
        workgroup_bytes: workgroup_bytes(desc, block_q, block_k, kv_vec4),
    })
}

/// Fits the tiles to the adapter: the largest blocks whose whole K and V tiles fit, then blocks
/// that stage K and V in chunks, then anything that fits. `forced` pins `(block_q, block_k)`.
pub fn fit_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    forced: Option<(u32, u32)>,
) -> Result<FusedTiles> {
    if let Some((block_q, block_k)) = forced {
        if block_q % 4 != 0 || block_k % 4 != 0 || block_q == 0 || block_k == 0 {
            return Err(Error::invalid(
                "fused_blocks",
                format!("({block_q}, {block_k})"),
                "block_q and block_k must be non-zero multiples of 4",
            ));
        }
        return configure(caps, desc, (block_q, block_k), 4, 4).ok_or_else(|| {
            Error::invalid(
                "fused_blocks",
                format!("({block_q}, {block_k})"),
                format!(
                    "does not fit {} bytes of workgroup memory / {} invocations with v_head_dim {}",
                    caps.max_workgroup_storage_bytes,
                    caps.max_invocations_per_workgroup,
                    desc.v_head_dim
                ),
            )
        });
    }
    // Blocks much taller than the query length only add padding rows.
    let useful_q = desc.q_len.next_power_of_two().max(16);
    let passes: [(bool, u32, u32); 3] = [(true, u32::MAX, u32::MAX), (true, 32, 16), (false, 4, 4)];
    for (only_useful, min_d_chunk, min_k_chunk) in passes {
        for &blocks in BLOCKS.iter().filter(|b| !only_useful || b.0 <= useful_q) {
            if let Some(t) = configure(caps, desc, blocks, min_d_chunk, min_k_chunk) {
                return Ok(t);
            }
        }
    }
    Err(Error::limit(
        "fused kernel workgroup memory (smallest tiles)",
        workgroup_bytes(
            desc,
            4,
            16,
            16 * (desc.head_dim.max(desc.v_head_dim) / 4 + 1),
        ) as u64,
        "max_compute_workgroup_storage_size",
        caps.max_workgroup_storage_bytes as u64,
    ))
}

/// The one dispatch of the fused kernel with tiles `t`.
pub fn plan(caps: &Capabilities, desc: &AttentionDesc, t: &FusedTiles) -> Result<Vec<Dispatch>> {
    let kv_vec4 = (t.block_k * (t.d_chunk / 4 + 1)).max(t.k_chunk * (desc.v_head_dim / 4 + 1));
    let variant = ShaderVariant {
        entry: KernelEntry::Fused,
        dtype: desc.dtype,
        constants: vec![
            ("BQ", t.block_q),
            ("BK", t.block_k),
            ("HEAD_DIM", desc.head_dim),
            ("V_HEAD_DIM", desc.v_head_dim),
            ("DC", t.d_chunk),
            ("KC", t.k_chunk),
            ("NS", desc.v_head_dim.div_ceil(t.block_k)),
            ("KV_VEC4", kv_vec4),
            ("WG", t.workgroup_size),
            ("MASK_KIND", mask_kind(desc)),
        ],
    };
    let dispatch = Dispatch {
        variant,
        workgroups: [desc.q_len.div_ceil(t.block_q), desc.q_heads, desc.batch],
    };
    check_grid(caps, "fused", dispatch.workgroups)?;
    Ok(vec![dispatch])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::DType;

    #[test]
    fn tiles_fit_every_profile_and_head_dim() {
        for (name, caps) in Capabilities::profiles() {
            for dtype in [DType::F32, DType::F16] {
                for d in (8..=256).step_by(8) {
                    let desc = AttentionDesc::new(1, 1, 1, 128, 128, d).with_dtype(dtype);
                    let t = fit_tiles(&caps, &desc, None)
                        .unwrap_or_else(|e| panic!("{name} {dtype} d={d}: {e}"));
                    assert!(
                        t.workgroup_bytes <= caps.max_workgroup_storage_bytes,
                        "{name} {d} {t:?}"
                    );
                    assert_eq!(d % t.d_chunk, 0);
                    assert_eq!(t.block_k % t.k_chunk, 0);
                    assert!(d.div_ceil(t.block_k) <= MAX_OUT_SLOTS);
                }
            }
        }
    }

    #[test]
    fn more_memory_gives_larger_tiles() {
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, 128).with_dtype(DType::F16);
        let browser = fit_tiles(&Capabilities::browser_webgpu(), &desc, None).unwrap();
        let nvidia = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None).unwrap();
        assert!(nvidia.block_q * nvidia.block_k > browser.block_q * browser.block_k);
    }
}
