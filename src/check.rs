//! The built-in correctness matrix: generated inputs, a run on the adapter, the f64 reference,
//! the comparison. `sdpa check` prints it as a table; the tests run their own matrices through
//! [`run_case`] (in a browser, [`run_case_async`]).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

use crate::attention::{Attention, Element, HostMask};
use crate::capabilities::Capabilities;
use crate::context::Context;
use crate::desc::{AttentionDesc, CausalAlignment, DType, Mask, MaskLayout, Tensor};
use crate::error::Result;
use crate::planner::{Kernel, Path, PlanOptions};
use crate::reference::{attention_reference, compare, default_atol, Comparison, RefMask};

/// How the inputs are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inputs {
    /// MLX's test inputs: q, k ~ U(0, 0.5), v ~ U(0, scale).
    Uniform,
    /// q, k ~ N(0, 1) (large scores: tens at head dim 128), v ~ N(0, 1/16): outputs stay below
    /// about 1, where an f16 output's rounding (half an ulp) fits MLX's f16 tolerance.
    Normal,
}

/// One case of the matrix.
#[derive(Debug, Clone)]
pub struct CheckCase {
    /// A short description for tables.
    pub name: String,
    /// The problem (its mask layout decides what mask buffer is generated).
    pub desc: AttentionDesc,
    /// Which kernel to force.
    pub path: Path,
    /// How inputs are drawn.
    pub inputs: Inputs,
    /// Forced fused blocks, for tile coverage.
    pub fused_blocks: Option<(u32, u32)>,
    /// Forced fused staging dtype.
    pub fused_stage: Option<DType>,
    /// The fused variant (see [`PlanOptions::cooperative`]).
    pub cooperative: Option<bool>,
    /// Forced decode splits (see [`PlanOptions::decode_splits`]).
    pub decode_splits: Option<u32>,
    /// Forced KV splits of the fused kernels (see [`PlanOptions::fused_kv_splits`]).
    pub fused_kv_splits: Option<u32>,
    /// The decode kernel's splits merged in its split pass or by the reduce pass (see
    /// [`PlanOptions::decode_merge_in_pass`]).
    pub decode_merge_in_pass: Option<bool>,
}

impl CheckCase {
    /// `base` with what this case forces (path, tiles, splits, variants): the options it runs
    /// with.
    pub fn plan_options(&self, base: PlanOptions) -> PlanOptions {
        PlanOptions {
            path: self.path,
            fused_blocks: self.fused_blocks,
            fused_stage: self.fused_stage,
            cooperative: self.cooperative,
            decode_splits: self.decode_splits,
            fused_kv_splits: self.fused_kv_splits,
            decode_merge_in_pass: self.decode_merge_in_pass,
            ..base
        }
    }

    /// A case with uniform inputs and no forced tiles.
    pub fn new(name: impl Into<String>, desc: AttentionDesc, path: Path) -> Self {
        CheckCase {
            name: name.into(),
            desc,
            path,
            inputs: Inputs::Uniform,
            fused_blocks: None,
            fused_stage: None,
            cooperative: None,
            decode_splits: None,
            fused_kv_splits: None,
            decode_merge_in_pass: None,
        }
    }
}

/// What one case gave.
#[derive(Debug, Clone)]
pub struct CheckOutcome {
    /// The plan's one-line summary.
    pub plan: String,
    /// The kernel that ran.
    pub kernel: Kernel,
    /// The comparison with the reference.
    pub comparison: Comparison,
    /// The output the adapter computed, widened to f64, in the output's layout (to compare two
    /// runs of the same inputs with each other).
    pub output: Vec<f64>,
}

/// Inputs of a case, in the dtype, plus their f64 images for the reference.
struct Generated<T> {
    q: Vec<T>,
    k: Vec<T>,
    v: Vec<T>,
    mask_bool: Option<Vec<bool>>,
    mask_add: Option<Vec<T>>,
}

/// `n` values: uniform in `[0, hi)`, or normal with standard deviation `sigma`.
fn draw<T: Element>(rng: &mut StdRng, n: u64, inputs: Inputs, hi: f64, sigma: f64) -> Vec<T> {
    (0..n)
        .map(|_| {
            let x = match inputs {
                Inputs::Uniform => rng.gen::<f64>() * hi,
                Inputs::Normal => {
                    let z: f64 = StandardNormal.sample(rng);
                    sigma * z
                }
            };
            T::from_f64(x)
        })
        .collect()
}

fn generate<T: Element>(desc: &AttentionDesc, inputs: Inputs, seed: u64) -> Generated<T> {
    let mut rng = StdRng::seed_from_u64(seed);
    let scale = desc.effective_scale() as f64;
    let q = draw(
        &mut rng,
        desc.required_elements(Tensor::Q),
        inputs,
        0.5,
        1.0,
    );
    let k = draw(
        &mut rng,
        desc.required_elements(Tensor::K),
        inputs,
        0.5,
        1.0,
    );
    let v = draw(
        &mut rng,
        desc.required_elements(Tensor::V),
        inputs,
        scale,
        0.25,
    );
    let n_mask = desc.required_elements(Tensor::Mask) as usize;
    // The first kv_len entries of the mask buffer (row 0 of batch 0, head 0) exclude every key:
    // a fully masked row, which must come out as zeros.
    let first_row = desc.mask.layout().map(|l| l.offset as usize).unwrap_or(0);
    let in_first_row =
        |i: usize| i >= first_row && i < first_row + desc.kv_len as usize && desc.q_len > 1;
    let (mask_bool, mask_add) = match desc.mask {
        Mask::Boolean(_) => (
            Some(
                (0..n_mask)
                    .map(|i| !in_first_row(i) && rng.gen_bool(0.8))
                    .collect(),
            ),
            None,
        ),
        Mask::Additive(_) => (
            None,
            Some(
                (0..n_mask)
                    .map(|i| {
                        if in_first_row(i) || rng.gen_bool(0.1) {
                            T::from_f64(f64::NEG_INFINITY)
                        } else {
                            T::from_f64(rng.gen::<f64>() * 3.0 - 2.0)
                        }
                    })
                    .collect(),
            ),
        ),
        _ => (None, None),
    };
    Generated {
        q,
        k,
        v,
        mask_bool,
        mask_add,
    }
}

fn widen<T: Element>(x: &[T]) -> Vec<f64> {
    x.iter().map(|&e| e.to_f64()).collect()
}

async fn run_typed<T: Element>(ctx: &Context, case: &CheckCase, seed: u64) -> Result<CheckOutcome> {
    let options = case.plan_options(ctx.plan_options());
    let attention = Attention::with_options(ctx, &case.desc, &options)?;
    let g = generate::<T>(&case.desc, case.inputs, seed);
    let host_mask = match (&g.mask_bool, &g.mask_add) {
        (Some(m), _) => Some(HostMask::Boolean(m)),
        (_, Some(m)) => Some(HostMask::Additive(m)),
        _ => None,
    };
    let out = attention.run_async(&g.q, &g.k, &g.v, host_mask).await?;
    let add_f64 = g.mask_add.as_deref().map(widen);
    let ref_mask = match (&g.mask_bool, &add_f64) {
        (Some(m), _) => Some(RefMask::Boolean(m)),
        (_, Some(m)) => Some(RefMask::Additive(m)),
        _ => None,
    };
    let reference = attention_reference(
        &case.desc,
        &widen(&g.q),
        &widen(&g.k),
        &widen(&g.v),
        ref_mask,
    );
    let output = widen(&out);
    let comparison = compare(
        &case.desc,
        &output,
        &reference,
        default_atol(case.desc.dtype),
    );
    Ok(CheckOutcome {
        plan: attention.plan().to_string(),
        kernel: attention.plan().kernel(),
        comparison,
        output,
    })
}

/// Runs one case on the context's adapter and compares it with the f64 reference (blocking).
#[cfg(not(target_arch = "wasm32"))]
pub fn run_case(ctx: &Context, case: &CheckCase, seed: u64) -> Result<CheckOutcome> {
    pollster::block_on(run_case_async(ctx, case, seed))
}

/// [`run_case`] as a future (the form a browser needs): the same inputs, run through
/// [`Attention::run_async`], and the same comparison.
pub async fn run_case_async(ctx: &Context, case: &CheckCase, seed: u64) -> Result<CheckOutcome> {
    match case.desc.dtype {
        DType::F32 => run_typed::<f32>(ctx, case, seed).await,
        DType::F16 => run_typed::<half::f16>(ctx, case, seed).await,
    }
}

/// The matrix `sdpa check` runs: every kernel the adapter can run (unfused, portable fused, and
/// the cooperative-matrix fused kernel where listed), both dtypes (f16 where the
/// adapter has it), every mask kind, GQA/MQA, transposed and strided layouts, ragged lengths,
/// the common head dims, and large-magnitude inputs. Small shapes: it must finish in seconds on
/// a CPU adapter.
pub fn default_matrix(ctx: &Context) -> Vec<CheckCase> {
    matrix_for(ctx.capabilities())
}

/// [`default_matrix`] for an adapter described by `caps` (e.g. to list the f16 cases an adapter
/// without `SHADER_F16` skips, from a copy of its capabilities with `shader_f16` set).
pub fn matrix_for(caps: &Capabilities) -> Vec<CheckCase> {
    let mut dtypes = vec![DType::F32];
    if caps.shader_f16 {
        dtypes.push(DType::F16);
    }
    let mut cases = Vec::new();
    // (label, path, fused variant): the unfused kernels, the portable fused kernel, and the
    // cooperative-matrix one where the adapter lists a configuration for the dtype (f32 also
    // where f16 is listed: split onto f16 fragments).
    let kernels = [
        ("unfused", Path::Unfused, None),
        ("fused", Path::Fused, Some(false)),
        ("fused-coop", Path::Fused, Some(true)),
    ];
    for (label, path, cooperative) in kernels {
        for &dtype in &dtypes {
            if cooperative == Some(true)
                && crate::kernels::fused_coop::runnable(caps, dtype).is_none()
            {
                continue;
            }
            let base =
                |b, hq, hkv, lq, lk, d| AttentionDesc::new(b, hq, hkv, lq, lk, d).with_dtype(dtype);
            let mut add = |name: &str, desc: AttentionDesc, inputs: Inputs| {
                let mut case = CheckCase::new(format!("{label} {dtype} {name}"), desc, path);
                case.cooperative = cooperative;
                case.inputs = inputs;
                cases.push(case);
            };
            let u = Inputs::Uniform;
            add("mha d64", base(1, 2, 2, 33, 47, 64), u);
            add("gqa 8/2 d128", base(1, 8, 2, 40, 65, 128), u);
            add("mqa 4/1 d80", base(2, 4, 1, 17, 33, 80), u);
            add("d96 q1", base(1, 2, 1, 1, 130, 96), u);
            add("d32 lq>lk", base(1, 2, 2, 70, 9, 32), u);
            add(
                "dv!=d 64/32",
                base(1, 2, 2, 31, 31, 64).with_v_head_dim(32),
                u,
            );
            if cooperative != Some(true) {
                add("d256", base(1, 1, 1, 9, 70, 256), u);
            }
            let causal = |a| Mask::Causal(a);
            add(
                "causal br lq<lk",
                base(1, 2, 2, 35, 77, 64).with_mask(causal(CausalAlignment::BottomRight)),
                u,
            );
            add(
                "causal br lq>lk",
                base(1, 2, 2, 70, 33, 64).with_mask(causal(CausalAlignment::BottomRight)),
                u,
            );
            add(
                "causal tl",
                base(1, 2, 2, 35, 77, 64).with_mask(causal(CausalAlignment::TopLeft)),
                u,
            );
            add(
                "bool mask [B,H,Lq,Lk]",
                base(2, 2, 2, 33, 40, 64)
                    .with_mask(Mask::Boolean(MaskLayout::dense(true, true, 2, 33, 40))),
                u,
            );
            add(
                "additive mask [1,1,Lq,Lk]",
                base(2, 4, 2, 33, 40, 64)
                    .with_mask(Mask::Additive(MaskLayout::dense(false, false, 4, 33, 40))),
                u,
            );
            add(
                "key padding [B,1,1,Lk]",
                base(2, 2, 2, 33, 40, 64).with_mask(Mask::Boolean(MaskLayout {
                    offset: 0,
                    batch_stride: 40,
                    head_stride: 0,
                    q_stride: 0,
                })),
                u,
            );
            add("transposed BLHD", base(2, 4, 2, 33, 50, 64).transposed(), u);
            add(
                "kv cache slice",
                kv_cache_slice(base(1, 4, 2, 33, 50, 64), 96, 7),
                u,
            );
            add("N(0,1) d128", base(1, 2, 2, 40, 200, 128), Inputs::Normal);
            add(
                "N(0,1) d64 causal long",
                base(1, 2, 1, 300, 300, 64).with_mask(causal(CausalAlignment::BottomRight)),
                Inputs::Normal,
            );
            // The fused kernels with the keys split over workgroups (the portable kernel and
            // the cooperative one, split f32 included), ragged splits and a causal mask cutting
            // some splits short or empty, then the reduce pass.
            if cooperative == Some(false)
                || (cooperative == Some(true)
                    && crate::kernels::fused_coop::runnable(caps, dtype).is_some())
            {
                for (name, desc, splits) in [
                    ("kv splits 3 gqa", base(1, 4, 2, 70, 1000, 64), 3),
                    ("kv splits 5 d128", base(1, 2, 2, 40, 700, 128), 5),
                    (
                        "kv splits 4 causal br",
                        base(1, 2, 1, 50, 900, 64).with_mask(causal(CausalAlignment::BottomRight)),
                        4,
                    ),
                    (
                        "kv splits 4 causal tl",
                        base(1, 2, 1, 50, 900, 64).with_mask(causal(CausalAlignment::TopLeft)),
                        4,
                    ),
                ] {
                    let mut case = CheckCase::new(format!("{label} {dtype} {name}"), desc, path);
                    case.cooperative = cooperative;
                    case.inputs = Inputs::Normal;
                    case.fused_kv_splits = Some(splits);
                    cases.push(case);
                }
            }
            // Tiles the planner takes only for longer sequences than these shapes, forced where
            // they fit as planned: the portable kernel's 128-key tiles and its 128-row blocks of 8
            // keys per thread (on GPUs with 48 KiB of workgroup memory), and the cooperative
            // kernel's 128-row blocks (Q staged in parts of its head dims: d64 2, d80 5, d96 2,
            // d128 4 for f16; the split f32 variant's 16-key tiles).
            let tall = [
                ("tall blocks d128", base(1, 2, 2, 200, 300, 128)),
                (
                    "tall blocks d80 causal",
                    base(1, 2, 1, 260, 250, 80).with_mask(causal(CausalAlignment::BottomRight)),
                ),
                ("tall blocks d96 gqa", base(1, 4, 2, 150, 190, 96)),
                (
                    "tall blocks d64 causal",
                    base(1, 2, 2, 200, 230, 64).with_mask(causal(CausalAlignment::BottomRight)),
                ),
            ];
            let mut forced = Vec::new();
            match cooperative {
                Some(false) => {
                    use crate::kernels::fused::{blocks_fit_as_planned, TALL_BLOCKS, WIDE_KEYS};
                    forced.push(("wide keys d128", base(1, 2, 2, 100, 300, 128), WIDE_KEYS));
                    forced.push((
                        "wide keys d80 causal",
                        base(1, 2, 1, 130, 250, 80).with_mask(causal(CausalAlignment::BottomRight)),
                        WIDE_KEYS,
                    ));
                    forced.extend(
                        tall.into_iter()
                            .map(|(name, desc)| (name, desc, TALL_BLOCKS)),
                    );
                    forced.retain(|(_, desc, blocks)| blocks_fit_as_planned(caps, desc, *blocks));
                }
                Some(true) => {
                    use crate::kernels::fused_coop::{fit_tiles, runnable};
                    if let Some((frag, split)) = runnable(caps, dtype) {
                        let blocks = (8 * frag, if split { 16 } else { 32 });
                        forced.extend(tall.into_iter().map(|(name, desc)| (name, desc, blocks)));
                        forced.retain(|(_, desc, blocks)| {
                            fit_tiles(caps, desc, Some(*blocks)).is_ok()
                        });
                    }
                }
                None => {}
            }
            for (name, desc, blocks) in forced {
                let mut case = CheckCase::new(format!("{label} {dtype} {name}"), desc, path);
                case.cooperative = cooperative;
                case.inputs = Inputs::Normal;
                case.fused_blocks = Some(blocks);
                cases.push(case);
            }
        }
    }
    // The decode kernel (q_len <= 32): GQA groups sharing K/V loads, one and several KV splits.
    for &dtype in &dtypes {
        let base = |hq, hkv, lq, lk, d| AttentionDesc::new(1, hq, hkv, lq, lk, d).with_dtype(dtype);
        let mut add = |name: &str, desc: AttentionDesc, splits: Option<u32>| {
            let mut case = CheckCase::new(format!("vector {dtype} {name}"), desc, Path::Vector);
            case.decode_splits = splits;
            cases.push(case);
        };
        add("q1 gqa 8/2 kv1000 d128", base(8, 2, 1, 1000, 128), None);
        add(
            "q1 gqa 8/2 kv1000 d128 4 splits",
            base(8, 2, 1, 1000, 128),
            Some(4),
        );
        add("q2 kv7 d64", base(4, 4, 2, 7, 64), None);
        add("q8 mqa 8/1 kv300 d80", base(8, 1, 8, 300, 80), Some(3));
        add(
            "q4 causal kv300 3 splits",
            base(4, 2, 4, 300, 64).with_mask(Mask::Causal(CausalAlignment::BottomRight)),
            Some(3),
        );
        add(
            "q2 bool mask kv200 2 splits",
            base(4, 2, 2, 200, 64)
                .with_mask(Mask::Boolean(MaskLayout::dense(false, true, 4, 2, 200))),
            Some(2),
        );
        add(
            "q1 additive mask kv130",
            base(4, 1, 1, 130, 64)
                .with_mask(Mask::Additive(MaskLayout::dense(false, false, 4, 1, 130))),
            None,
        );
        add(
            "q1 kv cache slice 2 splits",
            kv_cache_slice(base(4, 2, 1, 90, 64), 256, 17),
            Some(2),
        );
        add("q1 d256 kv70", base(2, 1, 1, 70, 256), None);
        add("q16 gqa 8/2 kv2000 d128", base(8, 2, 16, 2000, 128), None);
        add(
            "q32 causal kv1000 d64 4 splits",
            base(4, 4, 32, 1000, 64).with_mask(Mask::Causal(CausalAlignment::BottomRight)),
            Some(4),
        );
        // The splits merged in the split pass (`PlanOptions::decode_merge_in_pass`), where the
        // adapter runs it, and by the reduce pass.
        for (name, desc, splits) in [
            ("q1 gqa 8/2 kv1000 d64 4 splits", base(8, 2, 1, 1000, 64), 4),
            (
                "q4 causal kv300 d64 3 splits",
                base(4, 2, 4, 300, 64).with_mask(Mask::Causal(CausalAlignment::BottomRight)),
                3,
            ),
        ] {
            let mut case = CheckCase::new(
                format!("vector {dtype} {name} merged in pass"),
                desc,
                Path::Vector,
            );
            case.decode_splits = Some(splits);
            let mut reduced = case.clone();
            reduced.name = format!("vector {dtype} {name} reduce pass");
            reduced.decode_merge_in_pass = Some(false);
            cases.push(reduced);
            case.decode_merge_in_pass = Some(true);
            let options = case.plan_options(PlanOptions::default());
            let merged = crate::planner::plan(caps, &case.desc, &options)
                .is_ok_and(|p| matches!(p.kernel(), crate::Kernel::Vector(t) if t.merged));
            if merged {
                cases.push(case);
            }
        }
    }
    cases
}

/// `desc` with K and V read from a `[B, Hkv, capacity, D]` cache starting at position `start`:
/// the layout a decoder's KV cache slice has.
pub fn kv_cache_slice(desc: AttentionDesc, capacity: u32, start: u32) -> AttentionDesc {
    use crate::desc::TensorLayout;
    let k = TensorLayout::bhld(desc.kv_heads, capacity, desc.head_dim);
    let v = TensorLayout::bhld(desc.kv_heads, capacity, desc.v_head_dim);
    let (k_off, v_off) = (
        start as u64 * desc.head_dim as u64,
        start as u64 * desc.v_head_dim as u64,
    );
    desc.with_layout(Tensor::K, k.with_offset(k_off))
        .with_layout(Tensor::V, v.with_offset(v_off))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_key_cases_where_the_adapter_fits_them() {
        let wide = |caps: &Capabilities| {
            matrix_for(caps)
                .iter()
                .filter(|c| c.name.contains("wide keys"))
                .count()
        };
        // f32 and f16, d128 and d80, on the portable kernel.
        assert_eq!(wide(&Capabilities::nvidia_vulkan()), 4);
        assert_eq!(wide(&Capabilities::apple_m_series()), 0);
    }
}
