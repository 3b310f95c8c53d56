//! Every shader variant the planner can emit, for every capability profile (Apple through Metal,
//! NVIDIA through Vulkan, lavapipe, a browser's WebGPU), passes naga's validation, fits the
//! profile's workgroup memory as naga lays it out, and translates to MSL (what wgpu's Metal
//! backend runs), SPIR-V and HLSL; for the browser, the WGSL specialised with the pipeline's
//! constants is written back out by naga's WGSL writer and validated again. No GPU needed: this
//! is how the Metal path is checked on machines without a Mac.

use std::collections::BTreeMap;

use naga::back::PipelineConstants;
use naga::valid::{Capabilities as NagaCaps, ValidationFlags, Validator};
use wgpu_sdpa::{
    plan, AttentionDesc, Capabilities, CausalAlignment, DType, Mask, MaskLayout, Path, PlanOptions,
    ShaderVariant,
};

/// The shapes the planner is driven over: the seed's sweep, decode and short shapes, every head
/// dim, every mask kind, GQA and transposed layouts.
fn shapes() -> Vec<AttentionDesc> {
    let mut out = Vec::new();
    for dtype in [DType::F32, DType::F16] {
        for d in [64, 80, 128] {
            for len in [32, 64, 128, 256, 512, 1024, 2048, 4096] {
                out.push(AttentionDesc::new(1, 32, 32, len, len, d).with_dtype(dtype));
            }
        }
        for d in (8..=256).step_by(8) {
            out.push(AttentionDesc::new(1, 4, 2, 100, 300, d).with_dtype(dtype));
            out.push(AttentionDesc::new(1, 4, 1, 1, 4096, d).with_dtype(dtype));
            // A short cache: one split of a few strides (at d128 the subgroup kernel's f16
            // queries).
            out.push(AttentionDesc::new(1, 4, 1, 1, 48, d).with_dtype(dtype));
            // Short queries the decode kernel takes (32 query vectors a workgroup at most).
            out.push(AttentionDesc::new(1, 8, 2, 16, 4096, d).with_dtype(dtype));
            out.push(AttentionDesc::new(1, 4, 4, 32, 1024, d).with_dtype(dtype));
        }
        let base = AttentionDesc::new(2, 8, 2, 77, 130, 64).with_dtype(dtype);
        for mask in [
            Mask::Causal(CausalAlignment::BottomRight),
            Mask::Causal(CausalAlignment::TopLeft),
            Mask::Boolean(MaskLayout::dense(true, true, 8, 77, 130)),
            Mask::Additive(MaskLayout::dense(false, false, 8, 77, 130)),
        ] {
            out.push(base.clone().with_mask(mask));
        }
        out.push(base.clone().transposed().with_v_head_dim(32));
        out.push(AttentionDesc::new(1, 32, 8, 8, 65536, 128).with_dtype(dtype));
        // 8 query vectors a KV head against a long cache (the cooperative-matrix subgroup
        // kernel where 16x16 f16 fragments are listed), with each mask; 16 at d64.
        let long = AttentionDesc::new(1, 8, 1, 1, 65536, 128).with_dtype(dtype);
        out.push(long.clone());
        for mask in [
            Mask::Causal(CausalAlignment::BottomRight),
            Mask::Boolean(MaskLayout::dense(true, true, 8, 1, 65536)),
            Mask::Additive(MaskLayout::dense(false, false, 8, 1, 65536)),
        ] {
            out.push(long.clone().with_mask(mask));
        }
        out.push(AttentionDesc::new(1, 16, 1, 1, 16384, 64).with_dtype(dtype));
        // 16 teams a workgroup for f32 where the profile takes them (`wide_teams`).
        out.push(AttentionDesc::new(1, 32, 8, 1, 16384, 128).with_dtype(dtype));
        // A long cache for one query row (the subgroup kernel's loads a block ahead at d128).
        out.push(AttentionDesc::new(1, 32, 8, 1, 131072, 128).with_dtype(dtype));
        // A short cache at d128 with V of 64 (8-lane subgroups take d128 only so): the subgroup
        // kernel's f16 queries where its teams hold at most 64 output columns.
        out.push(
            AttentionDesc::new(1, 4, 1, 1, 48, 128)
                .with_v_head_dim(64)
                .with_dtype(dtype),
        );
        // Short queries against long caches: the cooperative kernel with the keys split (f32:
        // the split variant from 33 rows, its maxima after the partial results).
        for d in [64, 128] {
            out.push(AttentionDesc::new(1, 8, 2, 100, 8192, d).with_dtype(dtype));
            out.push(AttentionDesc::new(1, 32, 8, 256, 16384, d).with_dtype(dtype));
        }
    }
    out
}

/// Distinct variants planned for a profile, with the plan that first asked for each.
fn planned_variants(caps: &Capabilities) -> BTreeMap<String, (ShaderVariant, String)> {
    let mut variants = BTreeMap::new();
    for desc in shapes() {
        for (path, cooperative, decode_merge_in_pass) in [
            (Path::Auto, None, None),
            (Path::Auto, None, Some(false)),
            (Path::Auto, None, Some(true)),
            (Path::Fused, None, None),
            (Path::Fused, Some(false), None),
            (Path::Unfused, None, None),
        ] {
            let options = PlanOptions {
                path,
                cooperative,
                decode_merge_in_pass,
                ..PlanOptions::default()
            };
            // A path that cannot serve a shape on a profile is a typed error, not a variant.
            let Ok(plan) = plan(caps, &desc, &options) else {
                continue;
            };
            for v in plan.shader_variants() {
                variants
                    .entry(v.label())
                    .or_insert((v, format!("{desc}: {plan}")));
            }
        }
    }
    variants
}

fn translate(
    profile: &str,
    caps: &Capabilities,
    variant: &ShaderVariant,
    why: &str,
) -> Result<(), String> {
    let source = variant.source();
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| e.emit_to_string(&source))?;
    // pack/unpack2x16float are core WGSL (wgpu's SHADER_F16_IN_F32 downlevel flag, on every
    // WebGPU-compliant adapter).
    let mut naga_caps = NagaCaps::SHADER_FLOAT16_IN_FLOAT32;
    if caps.shader_f16 {
        naga_caps |= NagaCaps::SHADER_FLOAT16;
    }
    if caps.subgroups {
        naga_caps |= NagaCaps::SUBGROUP | NagaCaps::SUBGROUP_BARRIER;
    }
    if !caps.cooperative_matrix.is_empty() {
        naga_caps |= NagaCaps::COOPERATIVE_MATRIX;
    }
    if caps.coherent_storage {
        naga_caps |= NagaCaps::MEMORY_DECORATION_COHERENT;
    }
    let info = Validator::new(ValidationFlags::all(), naga_caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(&source))?;
    let constants: PipelineConstants = variant
        .pipeline_constants()
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
    let entry = Some((naga::ShaderStage::Compute, "main"));
    // A browser compiles this very WGSL source, overrides and all: the validation above (with the
    // browser profile's capabilities) is its check, and the WGSL round trip below.

    // Native backends get the module with the overrides resolved, as wgpu hands it to them.
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(&module, &info, entry, &constants)
            .map_err(|e| format!("overrides: {e}"))?;

    // Workgroup memory as naga lays it out, against the profile's limit.
    let layouter_ctx = module.to_ctx();
    let workgroup_bytes: u32 = module
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == naga::AddressSpace::WorkGroup)
        .map(|(_, g)| module.types[g.ty].inner.size(layouter_ctx))
        .sum();
    if workgroup_bytes > caps.max_workgroup_storage_bytes {
        return Err(format!(
            "uses {workgroup_bytes} B of workgroup memory, {profile} has {}",
            caps.max_workgroup_storage_bytes
        ));
    }
    let [x, y, z] = module.entry_points[0].workgroup_size;
    if x * y * z > caps.max_invocations_per_workgroup {
        return Err(format!(
            "{x}x{y}x{z} invocations exceed {}",
            caps.max_invocations_per_workgroup
        ));
    }

    // Portable variants: every language. Cooperative-matrix variants: the language of the backend
    // that has them (simdgroup matrices, 8x8, on Metal; VK_KHR_cooperative_matrix on Vulkan).
    let (msl, spirv, hlsl) = match (variant.coop, caps.backend) {
        (None, _) => (true, true, true),
        (Some(_), wgpu::Backend::Metal) => (true, false, false),
        (Some(_), _) => (false, true, false),
    };
    if msl {
        let msl_options = naga::back::msl::Options {
            lang_version: (2, 4),
            ..Default::default()
        };
        let pipeline = naga::back::msl::PipelineOptions {
            entry_point: Some((naga::ShaderStage::Compute, "main".into())),
            ..Default::default()
        };
        let source = naga::back::msl::write_string(&module, &info, &msl_options, &pipeline)
            .map_err(|e| format!("MSL: {e}"))?
            .0;
        if variant.coop.is_some()
            && !source.contains("simdgroup_half8x8")
            && !source.contains("simdgroup_float8x8")
        {
            return Err("MSL without simdgroup 8x8 matrices".into());
        }
    }
    if spirv {
        let spv_pipeline = naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: "main".into(),
        };
        naga::back::spv::write_vec(
            &module,
            &info,
            &naga::back::spv::Options::default(),
            Some(&spv_pipeline),
        )
        .map_err(|e| format!("SPIR-V: {e}"))?;
    }
    if hlsl {
        let mut hlsl = String::new();
        let hlsl_options = naga::back::hlsl::Options::default();
        let hlsl_pipeline = naga::back::hlsl::PipelineOptions::default();
        naga::back::hlsl::Writer::new(&mut hlsl, &hlsl_options, &hlsl_pipeline)
            .write(&module, &info, None)
            .map_err(|e| format!("HLSL: {e}"))?;
    }
    if caps.backend == wgpu::Backend::BrowserWebGpu {
        // WGSL back out, parsed and validated again with the profile's capabilities. naga 30's
        // WGSL writer mis-writes arrays sized by an override (`array<NAME>`, the element type
        // lost), even after `process_overrides`; so the variant is specialised in the source
        // (each `override` a `const` of the pipeline's value), as a browser specialises it.
        let specialised = specialise(&source, &constants);
        let module = naga::front::wgsl::parse_str(&specialised)
            .map_err(|e| format!("specialised: {}", e.emit_to_string(&specialised)))?;
        if !module.overrides.is_empty() {
            return Err("an override was left in the specialised source".into());
        }
        let info = Validator::new(ValidationFlags::all(), naga_caps)
            .validate(&module)
            .map_err(|e| format!("specialised: {}", e.emit_to_string(&specialised)))?;
        let wgsl =
            naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
                .map_err(|e| format!("WGSL out: {e}"))?;
        let again = naga::front::wgsl::parse_str(&wgsl)
            .map_err(|e| format!("WGSL out does not parse: {}", e.emit_to_string(&wgsl)))?;
        Validator::new(ValidationFlags::all(), naga_caps)
            .validate(&again)
            .map_err(|e| format!("WGSL out does not validate: {}", e.emit_to_string(&wgsl)))?;
    }
    let _ = why;
    Ok(())
}

/// `source` with every `override NAME: T = default;` declaration made `const NAME: T = value;`,
/// the value from `constants` where the pipeline sets it.
fn specialise(source: &str, constants: &PipelineConstants) -> String {
    source
        .lines()
        .map(|line| {
            let Some(rest) = line.strip_prefix("override ") else {
                return line.to_string();
            };
            let (name, ty_default) = rest.split_once(':').expect("override NAME: T");
            let ty = ty_default.split('=').next().unwrap().trim();
            match constants.get(name.trim()) {
                Some(value) => format!("const {name}: {ty} = {}{};", value, &ty[..1]),
                None => format!("const {rest}"),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_planned_variant_validates_fits_and_translates_on_every_profile() {
    let mut failures = Vec::new();
    for (profile, caps) in Capabilities::profiles() {
        let variants = planned_variants(&caps);
        assert!(
            !variants.is_empty(),
            "{profile}: the planner emitted nothing"
        );
        println!("{profile}: {} distinct variants", variants.len());
        // Every variant translated first, so that a failure to translate is reported whatever
        // the checks of what was planned below find.
        for (label, (variant, why)) in &variants {
            if let Err(e) = translate(profile, &caps, variant, why) {
                failures.push(format!("{profile}: {label} (planned for {why}):\n{e}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        // The fused kernels' KV split (short queries against long caches) is among them on GPU
        // profiles: the portable kernel's everywhere, the cooperative one's where listed.
        if caps.device_type != wgpu::DeviceType::Cpu {
            assert!(
                variants.keys().any(|l| l.starts_with("fused_kv ")),
                "{profile}: no portable KV-split variant planned"
            );
        }
        // The subgroup decode kernel where subgroups have one size (Apple's is translated to MSL
        // below, the way wgpu's Metal backend runs it).
        if caps.subgroups && caps.subgroup_min_size == caps.subgroup_max_size {
            assert!(
                variants.keys().any(|l| l.starts_with("vector_subgroup ")),
                "{profile}: no subgroup decode variant planned"
            );
            // Whether some subgroup decode variant (either ending) has every one of `flags`.
            let planned_with = |flags: &[&str]| {
                variants.keys().any(|l| {
                    l.starts_with("vector_subgroup") && flags.iter().all(|f| l.contains(f))
                })
            };
            // With the queries staged as f16 (short splits) and as f32 (long ones).
            if caps.shader_f16 {
                for qh in [" QH=0", " QH=1"] {
                    assert!(
                        planned_with(&[qh]),
                        "{profile}: no subgroup decode variant with{qh} planned"
                    );
                }
            }
            // Its scattered scores too (4 query vectors of f16, head dims from 128).
            if caps.shader_f16 && caps.subgroup_min_size >= 16 {
                assert!(
                    variants
                        .keys()
                        .any(|l| l.starts_with("vector_subgroup ") && l.contains(" SCAT=1")),
                    "{profile}: no scattered subgroup decode variant planned"
                );
            }
            // And K's rows in whole lines (d128, 32-lane subgroups: NVIDIA's and Apple's), with
            // V's rows clamped past the split (short splits) and without (long ones).
            if caps.shader_f16 && caps.subgroup_min_size == 32 {
                for vc in [" VC=0", " VC=1"] {
                    assert!(
                        planned_with(&[" KL=1", vc]),
                        "{profile}: no whole-lines subgroup decode variant with{vc} planned"
                    );
                }
                // With each block's loads a block ahead (long splits at d128) and without.
                for pf in [" PF=0", " PF=1"] {
                    assert!(
                        planned_with(&[pf]),
                        "{profile}: no subgroup decode variant with{pf} planned"
                    );
                }
            }
        }
        // The decode splits merged in the split pass where it is planned on request (Vulkan with
        // `@coherent` storage), and nowhere else.
        let merged = variants
            .keys()
            .any(|l| l.starts_with("vector_subgroup_merged "));
        assert_eq!(
            merged,
            caps.backend == wgpu::Backend::Vulkan && caps.coherent_storage,
            "{profile}: in-pass merge variants planned: {merged}"
        );
        // The cooperative-matrix subgroup decode kernel where 16x16 f16 fragments are listed
        // (the H200), with each mask kind, and nowhere else.
        let coop_teams = |kind: &str| {
            variants
                .keys()
                .any(|l| l.starts_with("vector_coop_teams ") && l.contains(kind))
        };
        // (The additive mask: f32 for f32 tensors, f16 for f16.)
        for kinds in [[0, 0], [1, 1], [2, 2], [3, 4]] {
            let kind = format!(" MASK_KIND={}", kinds[0]);
            let planned = kinds.iter().any(|k| coop_teams(&format!(" MASK_KIND={k}")));
            assert_eq!(
                planned,
                profile == "nvidia",
                "{profile}: cooperative-matrix subgroup decode variant with{kind} planned"
            );
        }
        if profile == "nvidia" {
            for entry in ["fused_coop_kv ", "fused_coop_split_kv "] {
                assert!(
                    variants.keys().any(|l| l.starts_with(entry)),
                    "{profile}: no {entry}variant planned"
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn cooperative_variants_are_planned_where_listed_and_only_there() {
    use wgpu_sdpa::Kernel;
    let desc = AttentionDesc::new(1, 32, 32, 1024, 1024, 64).with_dtype(DType::F16);
    let kernel = |caps: &Capabilities, desc: &AttentionDesc| {
        plan(caps, desc, &PlanOptions::default()).unwrap().kernel()
    };
    assert!(
        matches!(kernel(&Capabilities::nvidia_vulkan(), &desc), Kernel::FusedCoop(t) if t.frag == 16)
    );
    assert!(
        matches!(kernel(&Capabilities::apple_m_series(), &desc), Kernel::FusedCoop(t) if t.frag == 8)
    );
    assert!(matches!(
        kernel(&Capabilities::lavapipe(), &desc),
        Kernel::Fused(_)
    ));
    // f32 inputs: Apple lists 8x8 f32 (fragments of the tensors' type); the H200 lists no f32
    // inputs, so f32 goes split onto its f16 fragments, and without SHADER_F16 to the portable
    // kernel.
    let f32_desc = desc.clone().with_dtype(DType::F32);
    assert!(
        matches!(kernel(&Capabilities::apple_m_series(), &f32_desc), Kernel::FusedCoop(t) if t.frag == 8 && !t.split)
    );
    let split = plan(
        &Capabilities::nvidia_vulkan(),
        &f32_desc,
        &PlanOptions::default(),
    )
    .unwrap();
    assert!(
        matches!(split.kernel(), Kernel::FusedCoop(t) if t.frag == 16 && t.split),
        "{split}"
    );
    assert!(split.to_string().contains("split=f16x3"), "{split}");
    // The maxima pass first, then the kernel, and scratch for the maxima: 32 + 2 * 32 heads, 16
    // partial maxima each, 4 bytes.
    let entries: Vec<&str> = split
        .dispatches()
        .iter()
        .map(|d| d.variant.entry.name())
        .collect();
    assert_eq!(entries, ["split_scales", "fused_coop_split"]);
    assert_eq!(split.scratch_bytes(), 96 * 16 * 4);
    // Below 512 x 512 positions the planner keeps f32 on the portable kernel (measured faster
    // there) and says so; a forced cooperative kernel still goes split.
    let short = AttentionDesc::new(1, 32, 32, 256, 256, 64).with_dtype(DType::F32);
    let p = plan(
        &Capabilities::nvidia_vulkan(),
        &short,
        &PlanOptions::default(),
    )
    .unwrap();
    assert!(matches!(p.kernel(), Kernel::Fused(_)), "{p}");
    assert!(
        p.reason().contains("measured slower than the portable"),
        "{p}"
    );
    let forced = PlanOptions {
        path: Path::Fused,
        cooperative: Some(true),
        ..PlanOptions::default()
    };
    let p = plan(&Capabilities::nvidia_vulkan(), &short, &forced).unwrap();
    assert!(matches!(p.kernel(), Kernel::FusedCoop(t) if t.split), "{p}");
    let mut no_f16 = Capabilities::nvidia_vulkan();
    no_f16.shader_f16 = false;
    assert!(matches!(kernel(&no_f16, &f32_desc), Kernel::Fused(_)));
    // K starting 2 elements into its buffer cannot be staged in 16-byte words: portable.
    let odd_stride = f32_desc.clone().with_layout(
        wgpu_sdpa::Tensor::K,
        wgpu_sdpa::TensorLayout::bhld(32, 1024, 64).with_offset(2),
    );
    assert!(matches!(
        kernel(&Capabilities::nvidia_vulkan(), &odd_stride),
        Kernel::Fused(_)
    ));
    // A fake NVIDIA-like adapter that lists only 16x8 shapes (not expressible) or f16
    // accumulators gets the portable kernel, and the plan says why.
    let mut odd = Capabilities::nvidia_vulkan();
    for c in &mut odd.cooperative_matrix {
        c.n_size = 8;
    }
    let p = plan(&odd, &desc, &PlanOptions::default()).unwrap();
    assert!(matches!(p.kernel(), Kernel::Fused(_)), "{p}");
    assert!(
        p.reason()
            .contains("lists no square cooperative-matrix configuration"),
        "{p}"
    );
    let mut f16_acc = Capabilities::nvidia_vulkan();
    f16_acc
        .cooperative_matrix
        .retain(|c| c.cr_type == wgpu::CooperativeScalarType::F16);
    assert!(matches!(kernel(&f16_acc, &desc), Kernel::Fused(_)));
    // Every planned coop variant uses a listed configuration, for every profile and shape.
    for (profile, caps) in Capabilities::profiles() {
        for (label, (variant, why)) in planned_variants(&caps) {
            let Some(c) = variant.coop else { continue };
            // The fragments' input type is the staged one (f16 for split f32 tensors).
            let ab = match variant.stage {
                DType::F16 => wgpu::CooperativeScalarType::F16,
                DType::F32 => wgpu::CooperativeScalarType::F32,
            };
            let listed = caps.cooperative_matrix.iter().any(|l| {
                l.m_size == c.frag
                    && l.n_size == c.frag
                    && l.k_size == c.frag
                    && l.ab_type == ab
                    && l.cr_type == wgpu::CooperativeScalarType::F32
            });
            assert!(
                listed,
                "{profile}: {label} ({why}) uses an unlisted configuration"
            );
        }
    }
}

#[test]
fn the_cooperative_matrix_probe_validates_for_apple_and_nvidia() {
    // The probe `sdpa info` runs: its WGSL, with the header for each profile's listed fragment.
    for caps in [
        Capabilities::apple_m_series(),
        Capabilities::nvidia_vulkan(),
    ] {
        let source = wgpu_sdpa::coop_probe::source(&caps).expect("a listed configuration");
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
        let caps_n = NagaCaps::SHADER_FLOAT16
            | NagaCaps::COOPERATIVE_MATRIX
            | NagaCaps::SHADER_FLOAT16_IN_FLOAT32;
        Validator::new(ValidationFlags::all(), caps_n)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
    }
}

#[test]
fn f16_is_never_planned_without_shader_f16() {
    let caps = Capabilities::browser_webgpu();
    let desc = AttentionDesc::new(1, 2, 2, 64, 64, 64).with_dtype(DType::F16);
    let err = plan(&caps, &desc, &PlanOptions::default()).unwrap_err();
    assert_eq!(err.field(), Some("SHADER_F16"));
}
