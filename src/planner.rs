//! Who decides fused vs unfused: the planner checks a description against an adapter and picks
//! the kernel, its tiles and its dispatches, and says why.

use std::fmt;

use crate::capabilities::Capabilities;
use crate::desc::{AttentionDesc, DType, Tensor};
use crate::error::{Error, Result};
use crate::kernels::fused_coop::{self, CoopTiles};
use crate::kernels::vector::{self, VectorTiles};
use crate::kernels::{fused, unfused, Dispatch};
use crate::loop_budget;
use crate::shader::ShaderVariant;

/// The query length from which `Path::Auto` picks the fused kernel (the seed's threshold).
pub const DEFAULT_FUSED_THRESHOLD: u32 = 32;

/// Which kernel to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Path {
    /// Let the planner choose by query length and adapter.
    #[default]
    Auto,
    /// The fused (flash) kernel; an error if it cannot serve the description.
    Fused,
    /// Q·Kᵀ -> softmax -> P·V with the scores in device memory.
    Unfused,
    /// The decode kernel for short queries (`q_len <= 32`; `Auto` takes it for `q_len <= 8`
    /// and, against long enough caches, up to 32: see `kernels::vector::auto_takes`).
    Vector,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Path::Auto => "auto",
            Path::Fused => "fused",
            Path::Unfused => "unfused",
            Path::Vector => "vector",
        })
    }
}

impl std::str::FromStr for Path {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Path::Auto),
            "fused" => Ok(Path::Fused),
            "unfused" => Ok(Path::Unfused),
            "vector" => Ok(Path::Vector),
            _ => Err(Error::invalid(
                "path",
                s,
                "must be one of auto, fused, unfused, vector",
            )),
        }
    }
}

/// Tile sizes of the portable fused kernel, fitted to the adapter's workgroup memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FusedTiles {
    /// Query rows per workgroup.
    pub block_q: u32,
    /// Keys per KV tile.
    pub block_k: u32,
    /// Head dims of K staged at once (`head_dim` when the whole row fits).
    pub d_chunk: u32,
    /// Keys of V staged at once (`block_k` when the whole tile fits).
    pub k_chunk: u32,
    /// Q stays in workgroup memory for the whole kernel (else it is staged with each K chunk).
    pub q_resident: bool,
    /// The dtype of the workgroup-memory tiles (f16 inputs may be staged as f32).
    pub stage: DType,
    /// Query rows per thread: 4, or 8 (two row quads, each K and V read feeding both).
    pub rows_per_thread: u32,
    /// Keys per thread and row in S = Q K^T: 4, or 8 (two key quads, each Q read feeding both).
    pub keys_per_thread: u32,
    /// Parts P passes through workgroup memory in: 1, or 2 (half a tile's keys at a time, with 8
    /// keys per thread), which leaves room for larger chunks.
    pub p_parts: u32,
    /// Threads per workgroup: `block_q * block_k / (keys_per_thread * rows_per_thread)`.
    pub workgroup_size: u32,
    /// Workgroup memory used, bytes.
    pub workgroup_bytes: u32,
    /// KV splits (flash-decoding: each workgroup takes `split_len` keys, a second pass combines
    /// them); 1 without.
    pub kv_splits: u32,
    /// Keys per split (a multiple of `block_k`; `kv_len` without splits).
    pub split_len: u32,
}

/// The kernel a plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Three dispatches with the f32 scores in a scratch buffer.
    Unfused,
    /// One dispatch of the portable fused kernel.
    Fused(FusedTiles),
    /// One dispatch of the cooperative-matrix fused kernel.
    FusedCoop(CoopTiles),
    /// The decode kernel: a split pass, and a reduce pass when the keys are split.
    Vector(VectorTiles),
}

impl Kernel {
    /// A short name: `unfused` or `fused`.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::Unfused => "unfused",
            Kernel::Fused(_) => "fused",
            Kernel::FusedCoop(_) => "fused-coop",
            Kernel::Vector(_) => "vector",
        }
    }
}

/// Options of the planner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// Which kernel (default: auto).
    pub path: Path,
    /// `Auto` picks the fused kernel from this query length on.
    pub fused_threshold: u32,
    /// Force the fused kernel's `(block_q, block_k)` (for tuning); `None` lets the planner fit them.
    pub fused_blocks: Option<(u32, u32)>,
    /// Force the fused kernel's staging dtype (f32 for f16 inputs trades workgroup memory for
    /// conversions); `None` stages in the storage dtype.
    pub fused_stage: Option<DType>,
    /// The fused kernel's variant: `None` picks the cooperative-matrix one where the adapter lists
    /// a configuration for the dtype (for f32 where only f16 is listed: split onto f16 fragments,
    /// from q_len 33 and 512 x 512 query x key positions, see `kernels::fused_coop`),
    /// `Some(true)` requires it (split at any length), `Some(false)` takes the portable.
    /// `Some(true)` with a `fused_stage` is an error (the stage is the portable kernel's).
    pub cooperative: Option<bool>,
    /// Force the decode kernel's number of KV splits (tests, tuning); `None` lets the planner
    /// choose from `kv_len` and the adapter.
    pub decode_splits: Option<u32>,
    /// Force the fused kernels' number of KV splits (tests, tuning; the portable kernel and the
    /// cooperative-matrix kernel, split f32 included); `None` lets the planner split the keys
    /// where the query blocks alone would leave the GPU idle.
    pub fused_kv_splits: Option<u32>,
    /// Whether the decode kernel's last KV split to finish merges the splits in its own
    /// dispatch, in place of the reduce pass (a second dispatch), where the adapter allows it
    /// (see [`crate::kernels::vector::merges_in_pass`]: the subgroup kernel on Vulkan with
    /// `@coherent` storage). `None` lets the planner choose
    /// ([`crate::kernels::vector::merges_in_pass_by_default`]); `Some(true)` merges in pass
    /// wherever the adapter allows it, `Some(false)` keeps the reduce pass.
    pub decode_merge_in_pass: Option<bool>,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            path: Path::Auto,
            fused_threshold: DEFAULT_FUSED_THRESHOLD,
            fused_blocks: None,
            fused_stage: None,
            cooperative: None,
            decode_splits: None,
            fused_kv_splits: None,
            decode_merge_in_pass: None,
        }
    }
}

/// What will run for one description on one adapter, and why.
#[derive(Debug, Clone)]
pub struct Plan {
    desc: AttentionDesc,
    kernel: Kernel,
    reason: String,
    dispatches: Vec<Dispatch>,
    scratch_bytes: u64,
}

impl Plan {
    /// The kernel chosen.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Why it was chosen.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The description planned for.
    pub fn desc(&self) -> &AttentionDesc {
        &self.desc
    }

    /// The dispatches, in order.
    pub fn dispatches(&self) -> &[Dispatch] {
        &self.dispatches
    }

    /// Every shader variant the plan compiles.
    pub fn shader_variants(&self) -> Vec<ShaderVariant> {
        self.dispatches.iter().map(|d| d.variant.clone()).collect()
    }

    /// Bytes of device memory the plan needs beyond the caller's tensors (the unfused score
    /// matrix; 0 for the fused kernel, whose memory is O(tile)).
    pub fn scratch_bytes(&self) -> u64 {
        self.scratch_bytes
    }

    /// Bytes of the arrival counters of a decode plan whose split pass merges its own splits
    /// (zeros, kept so between calls; 0 for every other plan). See
    /// [`crate::kernels::vector::merges_in_pass`].
    pub fn arrival_bytes(&self) -> u64 {
        match self.kernel {
            Kernel::Vector(t) => 4 * vector::arrival_counters(&self.desc, &t),
            _ => 0,
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kernel {
            Kernel::Unfused => write!(
                f,
                "unfused (scores {} KiB)",
                self.scratch_bytes.div_ceil(1024)
            )?,
            Kernel::Fused(t) => write!(
                f,
                "fused BQ={} BK={}{} d_chunk={} k_chunk={} q_{} stage={} rows/thread={} keys/thread={} p_parts={} threads={} wg_mem={}B",
                t.block_q,
                t.block_k,
                if t.kv_splits > 1 {
                    format!(" kv_splits={}x{}", t.kv_splits, t.split_len)
                } else {
                    String::new()
                },
                t.d_chunk,
                t.k_chunk,
                if t.q_resident { "resident" } else { "streamed" },
                t.stage,
                t.rows_per_thread,
                t.keys_per_thread,
                t.p_parts,
                t.workgroup_size,
                t.workgroup_bytes
            )?,
            Kernel::FusedCoop(t) => write!(
                f,
                "fused-coop frag={0}x{0}{7} BQ={1} BK={2}{8} q_parts={3} staging={4} threads={5} wg_mem={6}B",
                t.frag,
                t.block_q,
                t.block_k,
                t.q_parts,
                if t.word_staging { "words" } else { "elements" },
                t.workgroup_size,
                t.workgroup_bytes,
                if t.split { " split=f16x3" } else { "" },
                if t.kv_splits > 1 {
                    format!(" kv_splits={}x{}", t.kv_splits, t.split_len)
                } else {
                    String::new()
                }
            )?,
            Kernel::Vector(t) => write!(
                f,
                "vector rows={} BK={}{}{}{}{}{}{}{} splits={}x{}{} threads={} wg_mem={}B",
                t.rows,
                t.block_k,
                if t.matrix { " coop" } else { "" },
                t.workgroup_size
                    .checked_div(t.team)
                    .map_or(String::new(), |teams| format!(" subgroups={teams}x{}", t.team)),
                if t.scattered { " scattered" } else { "" },
                if t.whole_lines { " whole_k_lines" } else { "" },
                if t.clamped_v { " clamped_v" } else { "" },
                if t.half_queries { " half_queries" } else { "" },
                if t.k_ahead { " k_ahead" } else { "" },
                t.kv_splits,
                t.split_len,
                if t.merged { " merged_in_pass" } else { "" },
                t.workgroup_size,
                t.workgroup_bytes
            )?,
        }
        write!(f, ": {}", self.reason)
    }
}

/// Checks the parts of a description every kernel needs from the adapter: the dtype's feature
/// and each tensor's binding size.
fn check_adapter(caps: &Capabilities, desc: &AttentionDesc) -> Result<()> {
    if desc.dtype == DType::F16 && !caps.shader_f16 {
        return Err(Error::MissingFeature {
            feature: "SHADER_F16".into(),
            needed_for: "dtype f16".into(),
            adapter: caps.adapter_name.clone(),
        });
    }
    for tensor in [Tensor::Q, Tensor::K, Tensor::V, Tensor::Out, Tensor::Mask] {
        let bytes = desc.required_bytes(tensor).next_multiple_of(4);
        if bytes > caps.max_storage_binding_bytes {
            return Err(Error::limit(
                format!("{} bytes", tensor.name()),
                bytes,
                "max_storage_buffer_binding_size",
                caps.max_storage_binding_bytes,
            ));
        }
    }
    Ok(())
}

/// Plans `desc` on an adapter with capabilities `caps`.
pub fn plan(caps: &Capabilities, desc: &AttentionDesc, options: &PlanOptions) -> Result<Plan> {
    desc.validate()?;
    check_adapter(caps, desc)?;
    let unfused_plan = |reason: String| -> Result<Plan> {
        let (dispatches, scratch_bytes) = unfused::plan(caps, desc)?;
        Ok(Plan {
            desc: desc.clone(),
            kernel: Kernel::Unfused,
            reason,
            dispatches,
            scratch_bytes,
        })
    };
    let vector_plan = |reason: String| -> Result<Plan> {
        let mut tiles = vector::fit_tiles(caps, desc, options.decode_splits)?;
        // Where a driver bounds the loop iterations of an invocation (src/loop_budget.rs), more
        // KV splits shorten each workgroup's loop; unless the splits were forced.
        while options.decode_splits.is_none()
            && !loop_budget::fits(caps, desc, Kernel::Vector(tiles))
        {
            let more = vector::fit_tiles(caps, desc, Some(tiles.kv_splits * 2))?;
            if more.kv_splits <= tiles.kv_splits {
                break;
            }
            tiles = more;
        }
        if options
            .decode_merge_in_pass
            .unwrap_or_else(|| vector::merges_in_pass_by_default(desc, &tiles))
        {
            tiles = tiles.with_in_pass_merge(caps, desc);
        }
        let (dispatches, scratch_bytes) = vector::plan(caps, desc, &tiles)?;
        let reason = match (tiles.matrix, desc.kv_len <= vector::MATRIX_MAX_KV_LEN) {
            // The cooperative-matrix subgroup kernel.
            (true, _) if tiles.team > 0 => {
                let vectors = desc.group_size() * desc.q_len;
                if vector::coop_teams_rule(caps, desc) {
                    format!(
                        "{reason}; cooperative matrices 16x16 listed by the adapter, {vectors} \
                         query vectors a KV head against kv_len {} >= {}",
                        desc.kv_len,
                        vector::COOP_TEAMS_MIN_KV_LEN
                    )
                } else {
                    // Only where knob `decode_ct=1` asks for it.
                    format!(
                        "{reason}; cooperative matrices 16x16 listed by the adapter (decode_ct=1)"
                    )
                }
            }
            (true, true) => format!(
                "{reason}; cooperative matrices 16x16 listed by the adapter, kv_len {} <= {}",
                desc.kv_len,
                vector::MATRIX_MAX_KV_LEN
            ),
            // Past the limit only where knob `decode_coop=1` asks for them.
            (true, false) => {
                format!(
                    "{reason}; cooperative matrices 16x16 listed by the adapter (decode_coop=1)"
                )
            }
            (false, _) => reason,
        };
        Ok(Plan {
            desc: desc.clone(),
            kernel: Kernel::Vector(tiles),
            reason,
            dispatches,
            scratch_bytes,
        })
    };
    let fused_plan = |mut reason: String| -> Result<Plan> {
        if let (Some(true), Some(stage)) = (options.cooperative, options.fused_stage) {
            return Err(Error::invalid(
                "fused_stage",
                stage,
                "pins the portable fused kernel's staging, but cooperative = true requires the \
                 cooperative-matrix kernel (leave one of them unset)",
            ));
        }
        let coop = if options.cooperative == Some(false) || options.fused_stage.is_some() {
            None
        } else {
            let fitted = fused_coop::fit_tiles(caps, desc, options.fused_blocks).and_then(|t| {
                if t.split && options.cooperative.is_none() && fused_coop::split_too_short(desc) {
                    return Err(Error::PathUnavailable {
                        path: "fused (cooperative matrix)".into(),
                        reason: format!(
                            "f32 split onto f16 fragments measured slower than the portable \
                             kernel below q_len {} or q_len x kv_len = {}",
                            fused_coop::split_min_q_len(),
                            fused_coop::SPLIT_MIN_POSITIONS
                        ),
                    });
                }
                match options.fused_kv_splits {
                    Some(n) => fused_coop::force_kv_splits(desc, t, n),
                    None => Ok(t),
                }
            });
            match fitted {
                Ok(t) => Some(t),
                Err(e) if options.cooperative == Some(true) => return Err(e),
                Err(why) => {
                    reason = format!(
                        "{reason}; portable variant: {}",
                        match why {
                            Error::PathUnavailable { reason, .. } => reason,
                            other => other.to_string(),
                        }
                    );
                    None
                }
            }
        };
        if let Some(t) = coop {
            let (dispatches, scratch_bytes) = fused_coop::plan(caps, desc, &t)?;
            return Ok(Plan {
                desc: desc.clone(),
                kernel: Kernel::FusedCoop(t),
                reason: format!(
                    "{reason}; cooperative matrices {0}x{0} listed by the adapter{1}",
                    t.frag,
                    if t.split {
                        " for f16 inputs: f32 split into f16 hi and lo parts"
                    } else {
                        ""
                    }
                ),
                dispatches,
                scratch_bytes,
            });
        }
        // The portable kernel's tiles, with the KV splits forced where the options force them;
        // else where a driver bounds the loop iterations of an invocation (src/loop_budget.rs),
        // with more KV splits until each workgroup's loop fits.
        let mut tiles = fused::fit_tiles(caps, desc, options.fused_blocks, options.fused_stage)?;
        if let Some(n) = options.fused_kv_splits {
            tiles = fused::force_kv_splits(desc, tiles, n)?;
        } else {
            while !loop_budget::fits(caps, desc, Kernel::Fused(tiles)) {
                let more = fused::force_kv_splits(desc, tiles, tiles.kv_splits * 2)?;
                if more.kv_splits <= tiles.kv_splits {
                    break;
                }
                tiles = more;
            }
        }
        let (dispatches, scratch_bytes) = fused::plan(caps, desc, &tiles)?;
        Ok(Plan {
            desc: desc.clone(),
            kernel: Kernel::Fused(tiles),
            reason,
            dispatches,
            scratch_bytes,
        })
    };
    // Every plan must also fit the driver's loop budget where it has one (src/loop_budget.rs).
    let budget = |p: Result<Plan>| p.and_then(|p| loop_budget::check(caps, &p).map(|()| p));
    let unfused_plan = |reason: String| budget(unfused_plan(reason));
    let vector_plan = |reason: String| budget(vector_plan(reason));
    let fused_plan = |reason: String| budget(fused_plan(reason));
    // Why a forced kernel cannot serve the problem, under the forced path's name (the loop
    // budget's refusal already carries it).
    let forced = |path: &str, e: Error| match e {
        Error::PathUnavailable { path: ref p, .. } if p == path => e,
        e => Error::PathUnavailable {
            path: path.into(),
            reason: e.to_string(),
        },
    };
    // Auto: the decode kernel for short queries (long enough caches past AUTO_Q_LEN); where it
    // cannot serve one, the shortest go to the unfused path and the others to the rules below.
    let mut note = String::new();
    if options.path == Path::Auto && vector::auto_takes(caps, desc) {
        // f32 queries of 17-32 rows against 4096 keys or more where the portable kernel splits
        // the keys: that kernel (`vector::portable_split_takes`), planned once.
        if options.cooperative != Some(true)
            && options.fused_stage.is_none()
            && vector::portable_split_takes(caps, desc)
        {
            let reason = format!(
                "f32 q_len {} in {}..={} against kv_len {} >= {}: the portable kernel, keys split",
                desc.q_len,
                vector::PORTABLE_SPLIT_AFTER_Q_LEN + 1,
                vector::MAX_Q_LEN,
                desc.kv_len,
                vector::PORTABLE_SPLIT_MIN_KV_LEN
            );
            if let Ok(p) = fused_plan(reason) {
                if matches!(p.kernel(), Kernel::Fused(t) if t.kv_splits > 1) {
                    return Ok(p);
                }
            }
        }
        let reason = if desc.q_len <= vector::AUTO_Q_LEN {
            format!("q_len {} <= {} (decode)", desc.q_len, vector::AUTO_Q_LEN)
        } else {
            format!(
                "q_len {} <= {} against kv_len {} >= {} (decode, {})",
                desc.q_len,
                vector::MAX_Q_LEN,
                desc.kv_len,
                vector::auto_min_kv_len(desc.dtype),
                desc.dtype
            )
        };
        match vector_plan(reason) {
            Ok(p) => return Ok(p),
            Err(why) if desc.q_len <= vector::AUTO_Q_LEN => {
                return unfused_plan(format!(
                    "q_len {} <= {}, but the decode kernel cannot serve it ({why})",
                    desc.q_len,
                    vector::AUTO_Q_LEN
                ))
            }
            Err(why) => note = format!("; the decode kernel cannot serve it ({why})"),
        }
    }
    // Short queries against long caches where the cooperative kernel runs the dtype natively:
    // that kernel with the keys split over workgroups, whatever the fused threshold.
    if options.path == Path::Auto
        && vector::short_query_long_cache(desc)
        && fused_coop::native(caps, desc.dtype)
        && options.cooperative != Some(false)
        && options.fused_stage.is_none()
    {
        let reason = format!(
            "q_len {} <= {} against kv_len {} >= {}: the cooperative kernel, keys split",
            desc.q_len,
            vector::MAX_Q_LEN,
            desc.kv_len,
            vector::auto_min_kv_len(desc.dtype)
        );
        if let Ok(p) = fused_plan(reason) {
            if matches!(p.kernel(), Kernel::FusedCoop(_)) {
                return Ok(p);
            }
        }
    }
    match options.path {
        Path::Unfused => unfused_plan("forced by path=unfused".into()),
        Path::Fused => fused_plan("forced by path=fused".into()).map_err(|e| forced("fused", e)),
        Path::Vector => {
            vector_plan("forced by path=vector".into()).map_err(|e| forced("vector", e))
        }
        Path::Auto if desc.q_len >= options.fused_threshold => {
            let reason = format!(
                "q_len {} >= fused threshold {}{note}",
                desc.q_len, options.fused_threshold
            );
            match fused_plan(reason) {
                Ok(p) => Ok(p),
                Err(why) => unfused_plan(format!(
                    "q_len {} >= fused threshold {}, but the fused kernel cannot serve it \
                     ({why}){note}",
                    desc.q_len, options.fused_threshold
                )),
            }
        }
        Path::Auto => unfused_plan(format!(
            "q_len {} < fused threshold {}{note}",
            desc.q_len, options.fused_threshold
        )),
    }
}

/// Checks a grid against `max_compute_workgroups_per_dimension`.
pub(crate) fn check_grid(caps: &Capabilities, what: &str, grid: [u32; 3]) -> Result<()> {
    for (axis, n) in ["x", "y", "z"].iter().zip(grid) {
        if n > caps.max_workgroups_per_dimension {
            return Err(Error::limit(
                format!("{what} workgroups along {axis}"),
                n as u64,
                "max_compute_workgroups_per_dimension",
                caps.max_workgroups_per_dimension as u64,
            ));
        }
    }
    Ok(())
}

/// The override constant that selects the mask code in `wgsl/mask.wgsl`.
pub(crate) fn mask_kind(desc: &AttentionDesc) -> u32 {
    use crate::desc::Mask;
    match desc.mask {
        Mask::None => 0,
        Mask::Causal(_) => 1,
        Mask::Boolean(_) => 2,
        Mask::Additive(_) => match desc.dtype {
            DType::F32 => 3,
            DType::F16 => 4,
        },
    }
}
