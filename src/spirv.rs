//! The cooperative-matrix kernels' SPIR-V on Vulkan, made here rather than by wgpu: naga's
//! translation of the same WGSL, validated against the device's features, with the pipeline
//! constants applied and the bounds checks the context chose, handed to
//! `create_shader_module_passthrough` (which needs `Features::PASSTHROUGH_SHADERS`).
//!
//! It differs from wgpu's own translation in three ways. naga's guards on integer division stay in
//! (wgpu drops them from unchecked modules): NVIDIA's compiler made the head-dim-64 kernel 1.2x
//! faster with them (BENCHMARKS.md). And every fragment load and store carries the `Aligned 16`
//! memory operand, which naga 30 does not write: every fragment address in
//! `wgsl/fused_coop.wgsl`, `wgsl/vector_coop.wgsl` and `wgsl/vector_coop_teams.wgsl` is in
//! workgroup memory, in rows padded to 16 bytes, so the operand is true for each of them (it
//! measured no faster on the H200, and costs nothing). And `subgroupBarrier()` orders workgroup
//! memory (see `subgroup_barriers_order_workgroup_memory`).
//!
//! [`variant_spirv`] gives any variant's SPIR-V as the driver receives it (this module's for the
//! kernels above, a re-creation of wgpu-hal's translation for the rest), for
//! `examples/pipeline_stats.rs`, which compiles it with the driver and prints its statistics.

/// `OpCooperativeMatrixLoadKHR`.
const OP_COOP_LOAD: u32 = 4457;
/// `OpCooperativeMatrixStoreKHR`.
const OP_COOP_STORE: u32 = 4458;
/// Memory operand `Aligned` (followed by the alignment in bytes).
const MEMORY_ALIGNED: u32 = 0x2;
/// SPIR-V header words before the first instruction.
const HEADER_WORDS: usize = 5;

/// SPIR-V for `source` with `constants` applied, every cooperative-matrix load and store marked
/// `Aligned 16`. `checked` keeps naga's bounds checks (as wgpu's runtime checks would).
/// `bindings` are the binding numbers of the bind group layout (group 0): wgpu's Vulkan backend
/// numbers a layout's descriptors 0, 1, 2, ... in order of binding, and so must the module.
/// `features` are the device's: the module is validated against them as wgpu would (a module
/// needing a capability the device lacks is an error here, never SPIR-V the driver must reject).
/// Also returns the entry point's workgroup size with the constants applied.
pub(crate) fn coop_spirv(
    source: &str,
    constants: &[(&str, f64)],
    bindings: &[u32],
    features: wgpu::Features,
    checked: bool,
) -> Result<(Vec<u32>, [u32; 3]), String> {
    let (module, info) = specialise(source, constants, features)?;
    let (workgroup, _) = workgroup_use(&module, &info)?;
    Ok((coop_words(&module, &info, bindings, checked)?, workgroup))
}

/// [`coop_spirv`] for a module already specialised.
fn coop_words(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    bindings: &[u32],
    checked: bool,
) -> Result<Vec<u32>, String> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let policy = if checked {
        BoundsCheckPolicy::Restrict
    } else {
        BoundsCheckPolicy::Unchecked
    };
    let options = spv::Options {
        binding_map: binding_map(bindings),
        // SPIR-V 1.5 (Vulkan 1.2): the Vulkan memory model cooperative matrices need is core.
        lang_version: (1, crate::tune::knob("spirv_lang").unwrap_or(5) as u8),
        flags: spv::WriterFlags::empty(),
        bounds_check_policies: BoundsCheckPolicies {
            index: policy,
            buffer: policy,
            image_load: policy,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: checked,
        // Kept (module docs): H200, f16, L = 4096, d64 1.49 against 1.77 ms without them, nothing
        // else slower. Knob `spirv_div=0` drops them.
        emit_int_div_checks: crate::tune::knob("spirv_div") != Some(0),
        ..spv::Options::default()
    };
    let words =
        spv::write_vec(module, info, &options, Some(&compute_main())).map_err(|e| e.to_string())?;
    if crate::tune::knob("coop_aligned") == Some(2) {
        return Ok(words); // tuning: our SPIR-V without the operand
    }
    align_coop_accesses(&words)
}

/// `source` parsed, validated against the device's `features` as wgpu validates it (a module
/// needing a capability the device lacks is an error here), and specialised with `constants`
/// for the entry point `main`.
fn specialise(
    source: &str,
    constants: &[(&str, f64)],
    features: wgpu::Features,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    use naga::valid::Capabilities as Caps;
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut caps = Caps::all();
    for (feature, needs) in [
        (
            wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
            Caps::COOPERATIVE_MATRIX,
        ),
        (wgpu::Features::SHADER_F16, Caps::SHADER_FLOAT16),
        (wgpu::Features::SUBGROUP, Caps::SUBGROUP),
        (wgpu::Features::SUBGROUP_BARRIER, Caps::SUBGROUP_BARRIER),
        (
            wgpu::Features::MEMORY_DECORATION_COHERENT,
            Caps::MEMORY_DECORATION_COHERENT,
        ),
    ] {
        if !features.contains(feature) {
            caps.remove(needs);
        }
    }
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| format!("{e:?}"))?;
    let constants: naga::back::PipelineConstants = constants
        .iter()
        .map(|&(name, value)| (name.to_string(), value))
        .collect();
    let entry = Some((naga::ShaderStage::Compute, "main"));
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(&module, &info, entry, &constants)
            .map_err(|e| e.to_string())?;
    let mut module = module.into_owned();
    subgroup_barriers_order_workgroup_memory(&mut module);
    Ok((module, info.into_owned()))
}

/// Every `subgroupBarrier()` in `module` made to order workgroup memory too. naga 30 writes it as
/// `OpControlBarrier(Subgroup, Subgroup, AcquireRelease | SubgroupMemory)`, which orders no
/// workgroup-memory access under the Vulkan memory model; the cooperative kernel's subgroups
/// use it to pass their own rows of workgroup memory (scores, probabilities) between their
/// lanes, so it becomes `OpControlBarrier(Subgroup, Subgroup, AcquireRelease | SubgroupMemory |
/// WorkgroupMemory)`: still one subgroup's execution and scope. (Metal: naga writes
/// `simdgroup_barrier(mem_flags::mem_threadgroup)`, which already does. On the H200 the barrier
/// without the workgroup-memory bit ran the f16 d64 kernel in 1.25 ms against 1.31: not taken,
/// as nothing would then order the lanes' accesses.)
fn subgroup_barriers_order_workgroup_memory(module: &mut naga::Module) {
    use naga::{Barrier, Statement};
    for_each_statement(module, &mut |statement| {
        if let Statement::ControlBarrier(flags) = statement {
            if *flags == Barrier::SUB_GROUP {
                *flags = Barrier::SUB_GROUP | Barrier::WORK_GROUP;
            }
        }
    });
}

/// Calls `f` on every statement of `module`'s functions and entry points, nested ones included
/// (functions first, each in order, a block's statements before those nested in them).
fn for_each_statement(module: &mut naga::Module, f: &mut impl FnMut(&mut naga::Statement)) {
    for (_, function) in module.functions.iter_mut() {
        for_each_in_block(&mut function.body, f);
    }
    for entry in module.entry_points.iter_mut() {
        for_each_in_block(&mut entry.function.body, f);
    }
}

/// [`for_each_statement`] for one block.
fn for_each_in_block(block: &mut naga::Block, f: &mut impl FnMut(&mut naga::Statement)) {
    use naga::Statement;
    for statement in block.iter_mut() {
        f(statement);
        match statement {
            Statement::Block(b) => for_each_in_block(b, f),
            Statement::If { accept, reject, .. } => {
                for_each_in_block(accept, f);
                for_each_in_block(reject, f);
            }
            Statement::Switch { cases, .. } => {
                for case in cases.iter_mut() {
                    for_each_in_block(&mut case.body, f);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                for_each_in_block(body, f);
                for_each_in_block(continuing, f);
            }
            _ => {}
        }
    }
}

/// Group 0's `bindings` numbered 0, 1, 2, ... in order of binding, as wgpu's Vulkan backend
/// numbers the descriptors of a bind group layout.
fn binding_map(bindings: &[u32]) -> naga::back::spv::BindingMap {
    let mut sorted = bindings.to_vec();
    sorted.sort_unstable();
    sorted
        .iter()
        .enumerate()
        .map(|(slot, &binding)| {
            (
                naga::ResourceBinding { group: 0, binding },
                naga::back::spv::BindingInfo {
                    descriptor_set: 0,
                    binding: slot as u32,
                    binding_array_size: None,
                },
            )
        })
        .collect()
}

fn compute_main() -> naga::back::spv::PipelineOptions {
    naga::back::spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    }
}

/// A shader variant's SPIR-V as a Vulkan driver receives it, with the descriptor set its
/// pipeline layout declares: for tools that compile it with the driver themselves and ask about
/// the result (`examples/pipeline_stats.rs`). Not part of the crate's API.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct DriverSpirv {
    /// The module, constants applied, entry point `main`.
    pub words: Vec<u32>,
    /// `true`: this crate's own SPIR-V, handed to the driver as it is (the cooperative-matrix
    /// kernels, see `coop_spirv`), so these are the driver's words exactly. `false`: a
    /// re-creation of the translation wgpu-hal makes of the WGSL (see [`variant_spirv`]).
    pub passthrough: bool,
    /// Descriptor set 0 in the module's numbering, in order: every slot of the variant's bind
    /// group layout, used by the shader or not, as wgpu lays it out.
    pub descriptors: Vec<DriverDescriptor>,
    /// The entry point's workgroup size, constants applied.
    pub workgroup_size: [u32; 3],
    /// Bytes of workgroup memory the entry point uses, as naga lays out its `var<workgroup>`s
    /// (the driver may pad).
    pub workgroup_bytes: u32,
}

/// One descriptor of [`DriverSpirv::descriptors`].
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverDescriptor {
    /// The binding number in the SPIR-V (and the Vulkan descriptor set layout).
    pub binding: u32,
    /// A uniform buffer; else a storage buffer.
    pub uniform: bool,
}

/// What wgpu-hal 30 reads off the Vulkan physical device that changes its SPIR-V (an input of
/// [`variant_spirv`]; the caller asks the driver).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VulkanDeviceFacts {
    /// The SPIR-V version wgpu-hal writes: 1.6 from Vulkan 1.3 on, 1.5 from 1.2, 1.3 from 1.1,
    /// else 1.0 (the device's `apiVersion`).
    pub spirv_version: (u8, u8),
    /// `VK_EXT_robustness2`'s `robustBufferAccess2` is available: wgpu-hal then drops naga's
    /// buffer checks from modules that keep runtime checks.
    pub robust_buffer_access2: bool,
    /// `storageInputOutput16` is available: naga then declares the `StorageInputOutput16`
    /// capability in modules with f16.
    pub storage_input_output_16: bool,
}

/// The SPIR-V that a pipeline of `variant` on `ctx` is made from on Vulkan: this crate's own
/// where `ctx` would hand its own to the driver (the cooperative-matrix kernels, with
/// `PASSTHROUGH_SHADERS`), else naga's translation with the options wgpu-hal 30 uses for the
/// context's modules on a physical device with `device`'s facts.
///
/// On lavapipe the re-creation was the same, word for word, as the modules wgpu handed to
/// `vkCreateShaderModule` (fused, unfused and decode kernels, f16 and f32, with and without
/// runtime checks). Where it may still differ: wgpu-hal gives naga the list of SPIR-V
/// capabilities its device enables and this gives none, which only changes code where naga has a
/// choice (`pack4x8`/`dot4` with `Int8` or integer dot products, none in the kernels; subgroup
/// built-ins take `GroupNonUniform` either way), and a module wgpu would reject for a capability
/// off that list is rejected here only by validation against the device's features. wgpu built
/// with debug assertions, or `WGPU_DEBUG=1`, adds debug names and the WGSL source; mirrored
/// here from the same flags, but not compared.
#[doc(hidden)]
pub fn variant_spirv(
    ctx: &crate::Context,
    variant: &crate::ShaderVariant,
    device: VulkanDeviceFacts,
) -> Result<DriverSpirv, String> {
    use crate::shader::BindingKind;
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let source = variant.source();
    let constants = variant.pipeline_constants();
    let layout = variant.entry.bindings();
    let bindings: Vec<u32> = layout.iter().map(|&(binding, _)| binding).collect();
    let features = ctx.device().features();
    let checked = ctx.runtime_checks();
    // The descriptors in the numbering the module's binding map gives them.
    let binding_map = binding_map(&bindings);
    let mut descriptors: Vec<DriverDescriptor> = layout
        .iter()
        .map(|&(binding, kind)| DriverDescriptor {
            binding: binding_map[&naga::ResourceBinding { group: 0, binding }].binding,
            uniform: kind == BindingKind::Uniform,
        })
        .collect();
    descriptors.sort_unstable_by_key(|d| d.binding);
    let (module, info) = specialise(&source, &constants, features)?;
    let (workgroup_size, workgroup_bytes) = workgroup_use(&module, &info)?;
    if crate::pipelines::uses_own_spirv(ctx.device(), ctx.capabilities().backend, variant) {
        return Ok(DriverSpirv {
            words: coop_words(&module, &info, &bindings, checked)?,
            passthrough: true,
            descriptors,
            workgroup_size,
            workgroup_bytes,
        });
    }
    // wgpu-hal's `compile_stage`: its device-wide options (`Adapter::open`), then the module's
    // runtime checks and the pipeline's `zero_initialize_workgroup_memory: false`.
    let debug = wgpu::InstanceFlags::from_env_or_default().contains(wgpu::InstanceFlags::DEBUG);
    let mut flags = spv::WriterFlags::LABEL_VARYINGS | spv::WriterFlags::FORCE_POINT_SIZE;
    flags.set(spv::WriterFlags::DEBUG, debug);
    let (index, buffer) = match (checked, device.robust_buffer_access2) {
        (false, _) => (BoundsCheckPolicy::Unchecked, BoundsCheckPolicy::Unchecked),
        (true, true) => (BoundsCheckPolicy::Restrict, BoundsCheckPolicy::Unchecked),
        (true, false) => (BoundsCheckPolicy::Restrict, BoundsCheckPolicy::Restrict),
    };
    let options = spv::Options {
        lang_version: device.spirv_version,
        flags,
        fake_missing_bindings: false,
        binding_map,
        capabilities: None,
        bounds_check_policies: BoundsCheckPolicies {
            index,
            buffer,
            // No images in the kernels.
            image_load: buffer,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: checked,
        ray_query_initialization_tracking: checked,
        trace_ray_argument_validation: true,
        use_storage_input_output_16: features.contains(wgpu::Features::SHADER_F16)
            && device.storage_input_output_16,
        // wgpu-core keeps the WGSL for the module when its instance has `DEBUG` (debug builds,
        // `WGPU_DEBUG=1`), under the module's label.
        debug_info: debug.then_some(spv::DebugInfo {
            source_code: &source,
            file_name: variant.entry.name(),
            language: spv::SourceLanguage::WGSL,
        }),
        task_dispatch_limits: None,
        mesh_shader_primitive_indices_clamp: checked,
        emit_int_div_checks: checked,
    };
    let words = spv::write_vec(&module, &info, &options, Some(&compute_main()))
        .map_err(|e| e.to_string())?;
    Ok(DriverSpirv {
        words,
        passthrough: false,
        descriptors,
        workgroup_size,
        workgroup_bytes,
    })
}

/// Bytes of the `var<workgroup>`s `variant`'s entry point uses, as naga lays them out (for tests
/// of the planners' own counts).
#[cfg(test)]
pub(crate) fn variant_workgroup_bytes(variant: &crate::ShaderVariant) -> Result<u32, String> {
    let (module, info) = specialise(
        &variant.source(),
        &variant.pipeline_constants(),
        wgpu::Features::all(),
    )?;
    Ok(workgroup_use(&module, &info)?.1)
}

/// The workgroup size of the entry point `main` and the bytes of the `var<workgroup>`s it uses.
fn workgroup_use(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> Result<([u32; 3], u32), String> {
    let index = module
        .entry_points
        .iter()
        .position(|e| e.name == "main")
        .ok_or("no entry point main")?;
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| e.to_string())?;
    let uses = info.get_entry_point(index);
    let bytes = module
        .global_variables
        .iter()
        .filter(|&(handle, var)| {
            var.space == naga::AddressSpace::WorkGroup && !uses[handle].is_empty()
        })
        .map(|(_, var)| layouter[var.ty].size)
        .sum();
    Ok((module.entry_points[index].workgroup_size, bytes))
}

/// `words` with `Aligned 16` appended to every cooperative-matrix load and store that has no
/// memory operand yet.
fn align_coop_accesses(words: &[u32]) -> Result<Vec<u32>, String> {
    if words.len() < HEADER_WORDS {
        return Err("SPIR-V shorter than its header".into());
    }
    let mut out = Vec::with_capacity(words.len() + 64);
    out.extend_from_slice(&words[..HEADER_WORDS]);
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(format!("malformed SPIR-V instruction at word {at}"));
        }
        let inst = &words[at..at + count];
        // Load: opcode, type, result, pointer, layout, stride. Store: opcode, pointer, object,
        // layout, stride. One word more means a memory operand is there already.
        let bare = match opcode {
            OP_COOP_LOAD => count == 6,
            OP_COOP_STORE => count == 5,
            _ => false,
        };
        if bare {
            out.push((((count + 2) as u32) << 16) | opcode);
            out.extend_from_slice(&inst[1..]);
            out.extend_from_slice(&[MEMORY_ALIGNED, 16]);
        } else {
            out.extend_from_slice(inst);
        }
        at += count;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passthrough_modules_carry_each_kernels_own_workgroup_size() {
        // The subgroup decode kernel sizes its workgroup by TEAM x TEAMS, the fused kernels by
        // WG: the entry point wgpu checks against the limits must say so.
        use crate::{plan, AttentionDesc, Capabilities, DType, PlanOptions};
        let caps = Capabilities::nvidia_vulkan();
        for desc in [
            AttentionDesc::new(1, 32, 8, 1, 16384, 128).with_dtype(DType::F16),
            AttentionDesc::new(1, 8, 8, 512, 512, 64).with_dtype(DType::F16),
        ] {
            let p = plan(&caps, &desc, &PlanOptions::default()).unwrap();
            for v in p.shader_variants() {
                let source = v.source();
                let constants = v.pipeline_constants();
                let (_, size) =
                    coop_spirv(&source, &constants, &[], wgpu::Features::all(), false).unwrap();
                let constant = |key: &str| {
                    v.constants
                        .iter()
                        .find(|(name, _)| *name == key)
                        .map(|&(_, value)| value)
                };
                let threads = constant("WG")
                    .or_else(|| Some(constant("TEAM")? * constant("TEAMS")?))
                    .unwrap_or_else(|| panic!("{}: no workgroup size constant", v.label()));
                assert_eq!(size, [threads, 1, 1], "{}", v.label());
            }
        }
    }

    #[test]
    fn loads_and_stores_gain_the_operand_and_nothing_else_changes() {
        let header = [0x0723_0203, 0x0001_0500, 0, 100, 0];
        let load = [(6 << 16) | OP_COOP_LOAD, 1, 2, 3, 4, 5];
        let store = [(5 << 16) | OP_COOP_STORE, 3, 2, 4, 5];
        let other = [(4 << 16) | 61, 1, 2, 3]; // OpLoad
        let words: Vec<u32> = header
            .iter()
            .chain(&load)
            .chain(&other)
            .chain(&store)
            .copied()
            .collect();
        let out = align_coop_accesses(&words).unwrap();
        let expected: Vec<u32> = header
            .iter()
            .copied()
            .chain([(8 << 16) | OP_COOP_LOAD, 1, 2, 3, 4, 5, MEMORY_ALIGNED, 16])
            .chain(other)
            .chain([(7 << 16) | OP_COOP_STORE, 3, 2, 4, 5, MEMORY_ALIGNED, 16])
            .collect();
        assert_eq!(out, expected);
        // Already aligned: unchanged.
        assert_eq!(align_coop_accesses(&out).unwrap(), out);
        assert!(align_coop_accesses(&words[..HEADER_WORDS + 3]).is_err());
    }

    #[test]
    fn subgroup_barriers_order_workgroup_memory_and_workgroup_ones_are_unchanged() {
        let source = "
            var<workgroup> w: array<f32, 64>;
            fn f(i: u32) {
                w[i] = 1.0;
                subgroupBarrier();
            }
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) t: u32) {
                f(t);
                for (var k = 0u; k < 2u; k++) {
                    if (t < 32u) {
                        subgroupBarrier();
                    }
                    workgroupBarrier();
                }
            }";
        let features = wgpu::Features::SUBGROUP | wgpu::Features::SUBGROUP_BARRIER;
        let (mut module, _) = specialise(source, &[], features).unwrap();
        let mut found = Vec::new();
        for_each_statement(&mut module, &mut |s| {
            if let naga::Statement::ControlBarrier(flags) = s {
                found.push(*flags);
            }
        });
        use naga::Barrier;
        let both = Barrier::SUB_GROUP | Barrier::WORK_GROUP;
        assert_eq!(found, [both, both, Barrier::WORK_GROUP]);
        // Without the feature the module is refused, as wgpu would refuse it.
        assert!(specialise(source, &[], wgpu::Features::SUBGROUP).is_err());
    }
}
