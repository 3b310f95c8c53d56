//! The unfused family: Q·Kᵀ into an f32 score matrix (`wgsl/unfused_scores.wgsl`), a row softmax
//! in place with scale and mask (`wgsl/unfused_softmax.wgsl`), then P·V
//! (`wgsl/unfused_pv.wgsl`). The score matrix is `Lq * Lk * 4` bytes of scratch per head; heads
//! run in chunks that fit one storage binding.

use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::kernels::Dispatch;
use crate::planner::{check_grid, mask_kind};
use crate::shader::{KernelEntry, ShaderVariant};

/// Rows and columns of the GEMM tiles (`TILE` in both GEMM shaders).
const GEMM_TILE: u32 = 64;

/// Bytes of the f32 score matrix of one `(batch, head)`.
fn head_scores_bytes(desc: &AttentionDesc) -> u64 {
    desc.q_len as u64 * desc.kv_len as u64 * 4
}

/// A 1-D count of workgroups as a 2-D grid that fits the per-dimension limit.
pub(crate) fn grid_2d(count: u32, max_per_dim: u32) -> [u32; 3] {
    let x = count.min(max_per_dim).max(1);
    [x, count.div_ceil(x), 1]
}

/// The dispatches and the scratch size, checked against the adapter. The heads run in chunks
/// whose score matrices fit one storage binding (one chunk when everything fits), all chunks
/// sharing one scratch buffer.
pub fn plan(caps: &Capabilities, desc: &AttentionDesc) -> Result<(Vec<Dispatch>, u64)> {
    let limit = caps
        .max_storage_binding_bytes
        .min(caps.max_buffer_bytes)
        .min(u32::MAX as u64 * 4);
    let per_head = head_scores_bytes(desc);
    if per_head > limit {
        return Err(Error::limit(
            "unfused score matrix bytes of one head (Lq * Lk * 4)",
            per_head,
            "max_storage_buffer_binding_size",
            limit,
        ));
    }
    let heads = desc.batch * desc.q_heads;
    // Each chunk's heads are one grid dimension, so a chunk holds at most that many.
    let chunk = heads
        .min((limit / per_head) as u32)
        .min(caps.max_workgroups_per_dimension);
    let row_tiles = desc.q_len.div_ceil(GEMM_TILE);
    let variant = |entry, constants| ShaderVariant::new(entry, desc.dtype, constants);
    let mut dispatches = Vec::new();
    for head_base in (0..heads).step_by(chunk as usize) {
        let count = chunk.min(heads - head_base);
        let rows = count as u64 * desc.q_len as u64;
        let rows = u32::try_from(rows)
            .map_err(|_| Error::limit("softmax rows", rows, "u32", u32::MAX as u64))?;
        dispatches.extend([
            Dispatch {
                variant: variant(KernelEntry::UnfusedScores, vec![]),
                workgroups: [desc.kv_len.div_ceil(GEMM_TILE), row_tiles, count],
                head_base,
                head_count: count,
                splits: None,
            },
            Dispatch {
                variant: variant(
                    KernelEntry::UnfusedSoftmax,
                    vec![("MASK_KIND", mask_kind(desc))],
                ),
                workgroups: grid_2d(rows, caps.max_workgroups_per_dimension),
                head_base,
                head_count: count,
                splits: None,
            },
            Dispatch {
                variant: variant(KernelEntry::UnfusedPv, vec![]),
                workgroups: [desc.v_head_dim.div_ceil(GEMM_TILE), row_tiles, count],
                head_base,
                head_count: count,
                splits: None,
            },
        ]);
    }
    for d in &dispatches {
        check_grid(caps, d.variant.entry.name(), d.workgroups)?;
    }
    Ok((dispatches, chunk as u64 * per_head))
}
