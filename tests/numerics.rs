//! Numerical edge cases on every kernel the adapter has: the unfused kernels, the portable fused
//! kernel, the cooperative-matrix fused kernel where the adapter lists a configuration (it is
//! reported as skipped elsewhere, lavapipe included), and the decode kernel (on the same cases
//! with at most 8 queries, its limit). Each case is compared with the f64
//! reference or with values known in closed form.
//!
//! - rows whose every key is masked (boolean, additive -inf, causal) come out as exact zeros;
//! - additive -inf masks never produce NaN;
//! - scores that rise far past the running max in later key tiles (an additive +40..+100 on keys
//!   past the first tiles: the decode kernel's lazily raised max, one split and three);
//! - a key whose K row is -inf: excluded, as IEEE arithmetic and the reference say, when q·k is
//!   -inf; the cases where IEEE gives NaN or every key is -inf are pinned to the documented
//!   behaviour (README "Reliability");
//! - scores of magnitude 1e4 from f16 inputs whose dot products pass f16's range (f32
//!   accumulation, max-subtracted softmax);
//! - kv_len 66,048 with an additive -1e4 mask on half the keys (MLX's long masked case);
//! - f32 heads at magnitudes 2^-30 and 2^30 (the split cooperative kernel's per-head factors).

mod common;

use common::ctx;
use half::f16;
use wgpu_sdpa::kernels::fused_coop::runnable;
use wgpu_sdpa::reference::default_atol;
use wgpu_sdpa::{
    attention_reference, compare, Attention, AttentionDesc, CausalAlignment, Context, DType,
    Element, HostMask, Kernel, Mask, MaskLayout, Path, PlanOptions, RefMask, Tensor,
};

/// A kernel to run: its name and the options that force it.
struct KernelChoice {
    name: &'static str,
    options: PlanOptions,
    /// The most queries the kernel serves (the decode kernel's limit; unbounded otherwise).
    max_q_len: u32,
}

impl KernelChoice {
    /// The query length a case runs this kernel with: `want`, or the kernel's limit below it.
    fn q_len(&self, want: u32) -> u32 {
        want.min(self.max_q_len)
    }
}

/// Every kernel the adapter has for `dtype`; the cooperative one is listed as skipped (printed)
/// where the adapter lists no configuration.
fn kernels(ctx: &Context, dtype: DType) -> Vec<KernelChoice> {
    let o = |path, cooperative| PlanOptions {
        path,
        cooperative,
        ..ctx.plan_options()
    };
    let mut out = vec![
        KernelChoice {
            name: "unfused",
            options: o(Path::Unfused, None),
            max_q_len: u32::MAX,
        },
        KernelChoice {
            name: "fused portable",
            options: o(Path::Fused, Some(false)),
            max_q_len: u32::MAX,
        },
        KernelChoice {
            name: "decode",
            options: o(Path::Vector, None),
            max_q_len: wgpu_sdpa::kernels::vector::MAX_Q_LEN,
        },
    ];
    if runnable(ctx.capabilities(), dtype).is_some() {
        out.push(KernelChoice {
            name: "fused cooperative",
            options: o(Path::Fused, Some(true)),
            max_q_len: u32::MAX,
        });
    } else {
        eprintln!(
            "SKIPPED: the cooperative-matrix kernel for {dtype} ({} lists no configuration for it)",
            ctx.capabilities().adapter_name
        );
    }
    out
}

fn dtypes(ctx: &Context) -> Vec<DType> {
    if ctx.capabilities().shader_f16 {
        vec![DType::F32, DType::F16]
    } else {
        eprintln!("SKIPPED: f16 cases (no SHADER_F16)");
        vec![DType::F32]
    }
}

/// Host inputs in f64, rounded to the dtype before anything uses them.
struct Inputs {
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    mask_bool: Option<Vec<bool>>,
    mask_add: Option<Vec<f64>>,
}

impl Inputs {
    /// q and k uniform in [-qk, qk), v in [0, 1), with an additive mask; rounded to the dtype.
    fn uniform(desc: &AttentionDesc, rng: &mut Rng, qk: f64, mask_add: Vec<f64>) -> Self {
        let mut draw = |t: Tensor, lo: f64, hi: f64| {
            round(desc.dtype, &rng.uniform(desc.required_elements(t), lo, hi))
        };
        Inputs {
            q: draw(Tensor::Q, -qk, qk),
            k: draw(Tensor::K, -qk, qk),
            v: draw(Tensor::V, 0.0, 1.0),
            mask_bool: None,
            mask_add: Some(mask_add),
        }
    }
}

fn round(dtype: DType, x: &[f64]) -> Vec<f64> {
    match dtype {
        DType::F32 => x.iter().map(|&e| e as f32 as f64).collect(),
        DType::F16 => x.iter().map(|&e| f16::from_f64(e).to_f64()).collect(),
    }
}

/// Whether the adapter is Mesa's llvmpipe, whose loop budget (65,535 iterations per invocation)
/// the planner enforces (src/loop_budget.rs).
fn llvmpipe(ctx: &Context) -> bool {
    ctx.capabilities()
        .adapter_name
        .to_lowercase()
        .contains("llvmpipe")
}

/// Runs `desc` with kernel `choice` and returns (output, reference), both in f64.
fn run(
    ctx: &Context,
    desc: &AttentionDesc,
    choice: &KernelChoice,
    inputs: &Inputs,
) -> (Vec<f64>, Vec<f64>) {
    fn typed<T: Element>(attention: &Attention, inputs: &Inputs) -> wgpu_sdpa::Result<Vec<f64>> {
        let cast = |x: &[f64]| x.iter().map(|&e| T::from_f64(e)).collect::<Vec<T>>();
        let (q, k, v) = (cast(&inputs.q), cast(&inputs.k), cast(&inputs.v));
        let add = inputs.mask_add.as_deref().map(cast);
        let mask = match (&inputs.mask_bool, &add) {
            (Some(m), _) => Some(HostMask::Boolean(m)),
            (_, Some(m)) => Some(HostMask::Additive(m)),
            _ => None,
        };
        Ok(attention
            .run(&q, &k, &v, mask)?
            .into_iter()
            .map(|x| x.to_f64())
            .collect())
    }
    let attention = Attention::with_options(ctx, desc, &choice.options)
        .unwrap_or_else(|e| panic!("{}: {e}", choice.name));
    let kernel_ok = matches!(
        (choice.name, attention.plan().kernel()),
        ("unfused", Kernel::Unfused)
            | ("fused portable", Kernel::Fused(_))
            | ("fused cooperative", Kernel::FusedCoop(_))
            | ("decode", Kernel::Vector(_))
    );
    assert!(kernel_ok, "{}: planned {}", choice.name, attention.plan());
    let out = match desc.dtype {
        DType::F32 => typed::<f32>(&attention, inputs),
        DType::F16 => typed::<f16>(&attention, inputs),
    }
    .unwrap_or_else(|e| panic!("{}: {e}", choice.name));
    let ref_mask = match (&inputs.mask_bool, &inputs.mask_add) {
        (Some(m), _) => Some(RefMask::Boolean(m)),
        (_, Some(m)) => Some(RefMask::Additive(m)),
        _ => None,
    };
    let reference = attention_reference(desc, &inputs.q, &inputs.k, &inputs.v, ref_mask);
    (out, reference)
}

/// A small deterministic generator (xorshift), uniform in [lo, hi).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, n: u64, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| lo + (hi - lo) * self.next()).collect()
    }
    fn int(&mut self, n: u64, lo: i32, hi: i32) -> Vec<f64> {
        (0..n)
            .map(|_| (lo + (self.next() * (hi - lo + 1) as f64) as i32).min(hi) as f64)
            .collect()
    }
}

fn assert_matches(name: &str, desc: &AttentionDesc, out: &[f64], reference: &[f64]) {
    let c = compare(desc, out, reference, default_atol(desc.dtype));
    assert!(c.passed(), "{name}: {c:?}");
    let nan = out.iter().filter(|x| x.is_nan()).count();
    assert_eq!(nan, 0, "{name}: {nan} NaN outputs");
}

/// Output row `(b, h, i)` of a contiguous output.
fn row<'a>(desc: &AttentionDesc, out: &'a [f64], b: u32, h: u32, i: u32) -> &'a [f64] {
    let dv = desc.v_head_dim as usize;
    let at = (((b * desc.q_heads + h) * desc.q_len + i) as usize) * dv;
    &out[at..at + dv]
}

/// A masked case: name, problem, boolean mask, additive mask, the rows that must be zero.
type MaskCase = (
    &'static str,
    AttentionDesc,
    Option<Vec<bool>>,
    Option<Vec<f64>>,
    Vec<u32>,
);

#[test]
fn fully_masked_rows_are_exact_zeros() {
    let Some(ctx) = ctx() else { return };
    let (b, h, lk, d) = (1, 2, 50, 32);
    for dtype in dtypes(ctx) {
        for choice in kernels(ctx, dtype) {
            let lq = choice.q_len(40);
            let base = AttentionDesc::new(b, h, 1, lq, lk, d).with_dtype(dtype);
            let mut rng = Rng(17);
            let mut inputs = Inputs {
                q: round(dtype, &rng.uniform((b * h * lq * d) as u64, -1.0, 1.0)),
                k: round(dtype, &rng.uniform((b * lk * d) as u64, -1.0, 1.0)),
                v: round(dtype, &rng.uniform((b * lk * d) as u64, -1.0, 1.0)),
                mask_bool: None,
                mask_add: None,
            };
            // Rows 0, 7 and 39 (those below lq) of every head masked entirely; the others keep
            // a random 70%.
            let masked_rows: Vec<u32> = [0u32, 7, 39].into_iter().filter(|&i| i < lq).collect();
            let layout = MaskLayout::dense(false, true, h, lq, lk);
            let n = base
                .clone()
                .with_mask(Mask::Boolean(layout))
                .required_elements(Tensor::Mask);
            let keep: Vec<bool> = (0..n)
                .map(|i| {
                    let row = ((i / lk as u64) % lq as u64) as u32;
                    !masked_rows.contains(&row) && rng.next() < 0.7
                })
                .collect();
            let additive: Vec<f64> = keep
                .iter()
                .map(|&k| if k { 0.25 } else { f64::NEG_INFINITY })
                .collect();
            let cases: Vec<MaskCase> = vec![
                (
                    "boolean",
                    base.clone().with_mask(Mask::Boolean(layout)),
                    Some(keep.clone()),
                    None,
                    masked_rows.clone(),
                ),
                (
                    "additive -inf",
                    base.clone().with_mask(Mask::Additive(layout)),
                    None,
                    Some(additive),
                    masked_rows.clone(),
                ),
                (
                    // 40 queries on 12 keys (8 on 2), bottom-right: rows 0..28 (0..6) see no key.
                    "causal bottom-right lq > lk",
                    AttentionDesc::new(b, h, 1, lq, lq * 3 / 10, d)
                        .with_dtype(dtype)
                        .with_mask(Mask::Causal(CausalAlignment::BottomRight)),
                    None,
                    None,
                    (0..lq - lq * 3 / 10).collect(),
                ),
            ];
            for (name, desc, mb, ma, zero_rows) in cases {
                inputs.mask_bool = mb;
                inputs.mask_add = ma;
                if desc.kv_len != lk {
                    inputs.k.truncate((b * desc.kv_len * d) as usize);
                    inputs.v.truncate((b * desc.kv_len * d) as usize);
                }
                let (out, reference) = run(ctx, &desc, &choice, &inputs);
                let label = format!("{} {dtype} {name}", choice.name);
                assert_matches(&label, &desc, &out, &reference);
                for hh in 0..h {
                    for &i in &zero_rows {
                        let r = row(&desc, &out, 0, hh, i);
                        assert!(
                            r.iter().all(|&x| x == 0.0),
                            "{label}: masked row {i} of head {hh} is {r:?}"
                        );
                    }
                    // The rows that see keys are not all zero (inputs in (-1, 1)).
                    let seen = (0..lq).find(|i| !zero_rows.contains(i)).unwrap();
                    assert!(row(&desc, &out, 0, hh, seen).iter().any(|&x| x != 0.0));
                }
            }
        }
    }
}

#[test]
fn additive_minus_infinity_never_gives_nan() {
    let Some(ctx) = ctx() else { return };
    let (b, h, lk, d) = (2, 2, 70, 64);
    for dtype in dtypes(ctx) {
        for choice in kernels(ctx, dtype) {
            let lq = choice.q_len(36);
            let layout = MaskLayout::dense(true, true, h, lq, lk);
            let desc = AttentionDesc::new(b, h, 2, lq, lk, d)
                .with_dtype(dtype)
                .with_mask(Mask::Additive(layout));
            let mut rng = Rng(99);
            let n = desc.required_elements(Tensor::Mask);
            // Half the entries -inf, every entry of keys 0..10 -inf (whole columns), and
            // finite ones large enough to matter.
            let mask: Vec<f64> = (0..n)
                .map(|i| {
                    let key = i % lk as u64;
                    if key < 10 || rng.next() < 0.5 {
                        f64::NEG_INFINITY
                    } else {
                        round(dtype, &[rng.next() * 40.0 - 20.0])[0]
                    }
                })
                .collect();
            let inputs = Inputs::uniform(&desc, &mut rng, 2.0, mask);
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert!(out.iter().all(|x| x.is_finite()), "{} {dtype}", choice.name);
            assert_matches(&format!("{} {dtype}", choice.name), &desc, &out, &reference);
        }
    }
}

#[test]
fn scores_rising_far_past_the_running_max_in_later_tiles() {
    let Some(ctx) = ctx() else { return };
    let (b, hq, hkv, lk, d) = (1, 8, 2, 300, 64);
    for dtype in dtypes(ctx) {
        let mut choices = kernels(ctx, dtype);
        choices.push(KernelChoice {
            name: "decode",
            options: PlanOptions {
                path: Path::Vector,
                decode_splits: Some(3),
                ..ctx.plan_options()
            },
            max_q_len: wgpu_sdpa::kernels::vector::MAX_Q_LEN,
        });
        for choice in choices {
            let lq = choice.q_len(4);
            let layout = MaskLayout::dense(true, true, hq, lq, lk);
            let desc = AttentionDesc::new(b, hq, hkv, lq, lk, d)
                .with_dtype(dtype)
                .with_mask(Mask::Additive(layout));
            let mut rng = Rng(7);
            let n = desc.required_elements(Tensor::Mask);
            // Per row (h, i): small noise everywhere, one key past the first tile raised by
            // 40..70 and one near the end by 70..100 (natural units; x log2(e) in the kernels'
            // log2 scores: far past any lazy-rescale threshold, and past f32's exp2 range).
            let mask: Vec<f64> = (0..n)
                .map(|e| {
                    let key = (e % lk as u64) as u32;
                    let row = (e / lk as u64) as u32;
                    let first = 70 + (row * 37) % 150;
                    let second = 240 + (row * 11) % 60;
                    let x = if key == first {
                        40.0 + (row % 4) as f64 * 10.0
                    } else if key == second {
                        70.0 + (row % 4) as f64 * 10.0
                    } else {
                        rng.next() - 0.5
                    };
                    round(dtype, &[x])[0]
                })
                .collect();
            let inputs = Inputs::uniform(&desc, &mut rng, 1.0, mask);
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert_matches(&format!("{} {dtype}", choice.name), &desc, &out, &reference);
        }
    }
}

#[test]
fn key_rows_of_minus_infinity() {
    let Some(ctx) = ctx() else { return };
    let (h, lk, d) = (2u32, 40u32, 32u32);
    let minus_inf_keys = [3u32, 17, 39];
    for dtype in dtypes(ctx) {
        for choice in kernels(ctx, dtype) {
            let lq = choice.q_len(33);
            let label = format!("{} {dtype}", choice.name);
            let desc = AttentionDesc::new(1, h, 1, lq, lk, d).with_dtype(dtype);
            let mut rng = Rng(5);
            let mut k = round(dtype, &rng.uniform((lk * d) as u64, -1.0, 1.0));
            for &j in &minus_inf_keys {
                k[(j * d) as usize..((j + 1) * d) as usize].fill(f64::NEG_INFINITY);
            }
            let v = round(dtype, &rng.uniform((lk * d) as u64, 0.0, 1.0));

            // 1. q > 0 everywhere: q·k = -inf for those keys, a weight of exactly 0 in IEEE
            // arithmetic and in the reference. The kernels match the reference.
            let q_pos = round(dtype, &rng.uniform((h * lq * d) as u64, 0.05, 1.0));
            let inputs = Inputs {
                q: q_pos.clone(),
                k: k.clone(),
                v: v.clone(),
                mask_bool: None,
                mask_add: None,
            };
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert_matches(&format!("{label} q > 0"), &desc, &out, &reference);

            // 2. q with both signs: q·k = -inf + inf = NaN for those keys. IEEE (and the
            // reference) then give NaN rows; the kernels clamp every score with max(s, FLOOR),
            // and WGSL leaves max(NaN, x) to the implementation. Documented: a row is either
            // NaN, or equal to the reference with those keys excluded.
            let q_mixed = round(dtype, &rng.uniform((h * lq * d) as u64, -1.0, 1.0));
            let inputs = Inputs {
                q: q_mixed.clone(),
                k: k.clone(),
                v: v.clone(),
                mask_bool: None,
                mask_add: None,
            };
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert!(
                reference.iter().all(|x| x.is_nan()),
                "the reference is IEEE"
            );
            let excluded_desc = desc
                .clone()
                .with_mask(Mask::Boolean(MaskLayout::dense(false, false, h, lq, lk)));
            let keep: Vec<bool> = (0..lq * lk)
                .map(|i| !minus_inf_keys.contains(&(i % lk)))
                .collect();
            let excluded_ref = attention_reference(
                &excluded_desc,
                &q_mixed,
                &k,
                &v,
                Some(RefMask::Boolean(&keep)),
            );
            let (mut nan_rows, mut excluded_rows) = (0, 0);
            for hh in 0..h {
                for i in 0..lq {
                    let r = row(&desc, &out, 0, hh, i);
                    if r.iter().all(|x| x.is_nan()) {
                        nan_rows += 1;
                        continue;
                    }
                    let e = row(&desc, &excluded_ref, 0, hh, i);
                    let atol = default_atol(dtype);
                    let worst = r
                        .iter()
                        .zip(e)
                        .map(|(o, x)| (o - x).abs() - atol * x.abs())
                        .fold(f64::NEG_INFINITY, f64::max);
                    assert!(
                        worst <= atol,
                        "{label}: row {i} is neither NaN nor the reference without the -inf keys ({worst})"
                    );
                    excluded_rows += 1;
                }
            }
            println!(
                "{label}: K rows of -inf met by q of both signs: {nan_rows} NaN rows, {excluded_rows} rows with those keys excluded"
            );

            // 3. Every key -inf, q > 0: every score is -inf. The reference calls the row fully
            // masked (zeros); the kernels clamp every score to the same floor and average V
            // (documented).
            let all_inf = vec![f64::NEG_INFINITY; (lk * d) as usize];
            let inputs = Inputs {
                q: q_pos.clone(),
                k: all_inf,
                v: v.clone(),
                mask_bool: None,
                mask_add: None,
            };
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert!(reference.iter().all(|&x| x == 0.0));
            let mean: Vec<f64> = (0..d as usize)
                .map(|c| (0..lk as usize).map(|j| v[j * d as usize + c]).sum::<f64>() / lk as f64)
                .collect();
            for hh in 0..h {
                for i in 0..lq {
                    let r = row(&desc, &out, 0, hh, i);
                    for (c, (&o, &m)) in r.iter().zip(&mean).enumerate() {
                        assert!(
                            (o - m).abs() <= 2.0 * default_atol(dtype) * (1.0 + m.abs()),
                            "{label}: all keys -inf, row {i} col {c}: {o} vs mean of V {m}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn scores_of_magnitude_1e4_from_f16_inputs() {
    let Some(ctx) = ctx() else { return };
    let (h, lk, d) = (2u32, 64u32, 64u32);
    for dtype in dtypes(ctx) {
        for choice in kernels(ctx, dtype) {
            let lq = choice.q_len(40);
            let label = format!("{} {dtype}", choice.name);
            // Integers in [-60, 60]: exact in f16, every product and partial sum exact in f32.
            // Query row i copies key (7 i) % lk, so its top score is scale * |q_i|^2, about
            // 0.13 * 64 * 1220 ~ 1e4, while q·k itself passes f16's largest value (65504).
            let mut rng = Rng(1234);
            let k = rng.int((lk * d) as u64, -60, 60);
            let v = rng.uniform((lk * d) as u64, 0.0, 1.0);
            let mut q = Vec::new();
            for _hh in 0..h {
                for i in 0..lq {
                    let j = ((7 * i) % lk) as usize;
                    q.extend_from_slice(&k[j * d as usize..(j + 1) * d as usize]);
                }
            }
            let scale = 0.13f32;
            let desc = AttentionDesc::new(1, h, 1, lq, lk, d)
                .with_dtype(dtype)
                .with_scale(scale);
            let inputs = Inputs {
                q: q.clone(),
                k: k.clone(),
                v: round(dtype, &v),
                mask_bool: None,
                mask_add: None,
            };
            // The data is what the test claims: f16-overflowing dot products, scores ~1e4, and a
            // clear winner per row (gap > 20), so the answer is that key's V.
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
            let mut max_dot: f64 = 0.0;
            let mut max_score: f64 = 0.0;
            for i in 0..lq as usize {
                let qi = &q[i * d as usize..(i + 1) * d as usize];
                let mut scores: Vec<f64> = (0..lk as usize)
                    .map(|j| scale as f64 * dot(qi, &k[j * d as usize..(j + 1) * d as usize]))
                    .collect();
                max_dot =
                    max_dot.max(scores.iter().fold(0.0f64, |m, s| m.max(s.abs())) / scale as f64);
                scores.sort_by(|a, b| b.total_cmp(a));
                max_score = max_score.max(scores[0]);
                assert!(scores[0] - scores[1] > 20.0, "row {i}: no clear winner");
            }
            assert!(
                max_dot > 65504.0 && max_score > 9000.0,
                "{max_dot} {max_score}"
            );
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert!(
                out.iter().all(|x| x.is_finite()),
                "{label}: non-finite output"
            );
            assert_matches(&label, &desc, &out, &reference);
            println!("{label}: scores up to {max_score:.0}, |q·k| up to {max_dot:.0}: matches");
        }
    }
}

/// f32 tensors whose heads live at very different magnitudes (Q times 2^-30 with K times 2^30,
/// and the reverse, V times 2^30 or 2^-30), with values inside each row spread over 2^-8..2^8:
/// every kernel keeps f32's relative accuracy per head. This is what the cooperative kernel's
/// split (f32 on f16 fragments, where the adapter lists only f16) scales per head for: f16
/// alone holds neither 2^30 nor 2^-30, and its hi parts alone would miss by about 2^-10.
#[test]
fn f32_heads_far_from_one_in_magnitude() {
    let Some(ctx) = ctx() else { return };
    let (h, lk, d) = (3u32, 96u32, 64u32);
    for choice in kernels(ctx, DType::F32) {
        let lq = choice.q_len(48);
        let label = format!("{} f32", choice.name);
        let mut rng = Rng(99);
        let mut spread = |n: u32, scale: f64| -> Vec<f64> {
            (0..n)
                .map(|_| {
                    let sign = if rng.next() < 0.5 { -1.0 } else { 1.0 };
                    sign * 2f64.powf(16.0 * rng.next() - 8.0) * scale
                })
                .collect()
        };
        // (Q, K, V) factors per head; Q K stays near 1 so the softmax is not one-hot.
        let factors = [(-30, 30, 30), (30, -30, -30), (0, 0, 0)];
        let (mut q, mut k, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for &(fq, fk, fv) in &factors {
            q.extend(spread(lq * d, 2f64.powi(fq - 12)));
            k.extend(spread(lk * d, 2f64.powi(fk)));
            v.extend(spread(lk * d, 2f64.powi(fv)));
        }
        let desc = AttentionDesc::new(1, h, h, lq, lk, d).with_dtype(DType::F32);
        let inputs = Inputs {
            q: round(DType::F32, &q),
            k: round(DType::F32, &k),
            v: round(DType::F32, &v),
            mask_bool: None,
            mask_add: None,
        };
        let (out, reference) = run(ctx, &desc, &choice, &inputs);
        for head in 0..h as usize {
            let n = (lq * d) as usize;
            let (o, r) = (&out[head * n..][..n], &reference[head * n..][..n]);
            let size = r.iter().fold(0f64, |m, x| m.max(x.abs()));
            let worst = o
                .iter()
                .zip(r)
                .map(|(a, b)| (a - b).abs())
                .fold(0f64, f64::max);
            assert!(
                worst <= 1e-5 * size,
                "{label}: head {head} (factors {:?}): error {worst:e} against outputs up to {size:e}",
                factors[head]
            );
            println!(
                "{label}: head {head} (factors 2^{:?}): error {:.1e} of its largest output",
                factors[head],
                worst / size
            );
        }
    }
}

#[test]
fn kv_len_66048_with_an_additive_mask_of_minus_1e4_on_half_the_keys() {
    let Some(ctx) = ctx() else { return };
    // MLX's long masked case, kept small elsewhere: 2 query heads on 1 KV head, 4 queries.
    let (h, lq, lk, d) = (2u32, 4u32, 66_048u32, 64u32);
    for dtype in dtypes(ctx) {
        for choice in kernels(ctx, dtype) {
            let started = std::time::Instant::now();
            let label = format!("{} {dtype}", choice.name);
            let layout = MaskLayout::dense(false, false, h, lq, lk);
            let desc = AttentionDesc::new(1, h, 1, lq, lk, d)
                .with_dtype(dtype)
                .with_mask(Mask::Additive(layout));
            if llvmpipe(ctx) && choice.name != "unfused" {
                // llvmpipe would stop a loop over 66,048 keys part-way (see
                // the_llvmpipe_loop_budget_is_enforced_conservatively): the decode and portable
                // kernels split the keys over workgroups to fit the budget; else a typed refusal.
                match Attention::with_options(ctx, &desc, &choice.options) {
                    Ok(_) if matches!(choice.name, "decode" | "fused portable") => {}
                    Ok(a) => panic!("{label}: planned {} past llvmpipe's budget", a.plan()),
                    Err(e) => {
                        assert!(
                            matches!(&e, wgpu_sdpa::Error::PathUnavailable { reason, .. } if reason.contains("llvmpipe")),
                            "{label}: {e}"
                        );
                        eprintln!(
                            "SKIPPED: {label} at kv_len {lk} on llvmpipe, refused as it must be: {e}"
                        );
                        continue;
                    }
                }
            }
            let mut rng = Rng(66_048);
            let q = round(dtype, &rng.uniform((h * lq * d) as u64, 0.0, 0.5));
            // The masked half (even keys) holds the keys the queries match best: ignoring the
            // mask would change every output.
            let mut k = round(dtype, &rng.uniform((lk * d) as u64, 0.0, 0.5));
            for j in (0..lk as usize).step_by(2) {
                k[j * d as usize..(j + 1) * d as usize]
                    .iter_mut()
                    .for_each(|x| *x += 0.5);
            }
            let v = round(dtype, &rng.uniform((lk * d) as u64, 0.0, 1.0));
            let mask: Vec<f64> = (0..lq * lk)
                .map(|i| if (i % lk) % 2 == 0 { -1e4 } else { 0.0 })
                .collect();
            let inputs = Inputs {
                q,
                k,
                v: v.clone(),
                mask_bool: None,
                mask_add: Some(mask),
            };
            let (out, reference) = run(ctx, &desc, &choice, &inputs);
            assert_matches(&label, &desc, &out, &reference);
            // And the mask mattered: the reference without it differs.
            let unmasked = attention_reference(
                &desc.clone().with_mask(Mask::None),
                &inputs.q,
                &inputs.k,
                &v,
                None,
            );
            let moved = reference
                .iter()
                .zip(&unmasked)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(moved > 1e-3, "the mask changes nothing ({moved})");
            println!(
                "{label}: kv_len {lk} masked, matches the reference, {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
}

#[test]
fn the_llvmpipe_loop_budget_is_enforced_conservatively() {
    let Some(ctx) = ctx() else { return };
    if !llvmpipe(ctx) {
        eprintln!(
            "SKIPPED: llvmpipe loop budget ({} is not llvmpipe)",
            ctx.capabilities().adapter_name
        );
        return;
    }
    // For each head dim and dtype: the longest kv_len `Attention` accepts for the fused kernel
    // in one piece (bisection, its KV splits forced to 1), which must still be computed in full
    // (llvmpipe truncated these at about 35,900 / 18,500 / 10,000 keys), and one key more, which
    // must be a typed refusal; with the planner's own splits that one is computed in full too.
    for dtype in dtypes(ctx) {
        for d in [64u32, 128, 256] {
            let split = &kernels(ctx, dtype)[1];
            let choice = &KernelChoice {
                name: split.name,
                options: PlanOptions {
                    fused_kv_splits: Some(1),
                    ..split.options
                },
                max_q_len: split.max_q_len,
            };
            let desc = |lk: u32| AttentionDesc::new(1, 1, 1, 2, lk, d).with_dtype(dtype);
            let accepted =
                |lk: u32| Attention::with_options(ctx, &desc(lk), &choice.options).is_ok();
            let (mut lo, mut hi) = (64u32, 1 << 20);
            assert!(accepted(lo) && !accepted(hi));
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if accepted(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let e = Attention::with_options(ctx, &desc(hi), &choice.options).unwrap_err();
            assert!(e.to_string().contains("LP_MAX_TGSI_LOOP_ITERATIONS"), "{e}");
            // Computed in full at `lk` keys by `kernel`: a sum over part of the keys would be
            // off by far more than this.
            let in_full = |lk: u32, kernel: &KernelChoice| {
                let mut rng = Rng(lk as u64);
                let inputs = Inputs {
                    q: round(dtype, &rng.uniform(2 * d as u64, -1.0, 1.0)),
                    k: round(dtype, &rng.uniform((lk * d) as u64, -1.0, 1.0)),
                    v: round(dtype, &rng.uniform((lk * d) as u64, 0.0, 1.0)),
                    mask_bool: None,
                    mask_add: None,
                };
                let (out, reference) = run(ctx, &desc(lk), kernel, &inputs);
                let c = compare(&desc(lk), &out, &reference, 4.0 * default_atol(dtype));
                assert!(c.passed(), "{dtype} d{d} at kv_len {lk}: {c:?}");
            };
            in_full(lo, choice);
            println!(
                "{dtype} d{d}: fused accepted up to kv_len {lo} on llvmpipe, computed in full"
            );
            // One key more: the planner splits the keys over workgroups to fit the budget.
            let a = Attention::with_options(ctx, &desc(hi), &split.options).unwrap();
            assert!(
                matches!(a.plan().kernel(), wgpu_sdpa::Kernel::Fused(t) if t.kv_splits > 1),
                "{}",
                a.plan()
            );
            in_full(hi, split);
        }
    }
    // The unfused kernels: their P·V loop takes 16 keys an iteration.
    let unfused = &kernels(ctx, DType::F32)[0];
    let long = AttentionDesc::new(1, 1, 1, 1, 1_100_000, 8).with_layout(
        Tensor::K,
        wgpu_sdpa::TensorLayout {
            offset: 0,
            batch_stride: 0,
            head_stride: 0,
            seq_stride: 0,
        },
    );
    let e = Attention::with_options(ctx, &long, &unfused.options).unwrap_err();
    assert!(e.to_string().contains("llvmpipe"), "{e}");
}
