//! The cooperative-matrix kernels' SPIR-V on Vulkan, made here rather than by wgpu: naga's
//! translation of the same WGSL, validated against the device's features, with the pipeline
//! constants applied and the bounds checks the context chose, handed to
//! `create_shader_module_passthrough` (which needs `Features::PASSTHROUGH_SHADERS`).
//!
//! It differs from wgpu's own translation in two ways. naga's guards on integer division stay in
//! (wgpu drops them from unchecked modules): NVIDIA's compiler made the head-dim-64 kernel 1.2x
//! faster with them (BENCHMARKS.md). And every fragment load and store carries the `Aligned 16`
//! memory operand, which naga 30 does not write: every fragment address in
//! `wgsl/fused_coop.wgsl` is in workgroup memory, in rows padded to 16 bytes, so the operand is
//! true for each of them (it measured no faster on the H200, and costs nothing).

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
pub(crate) fn coop_spirv(
    source: &str,
    constants: &[(&str, f64)],
    bindings: &[u32],
    features: wgpu::Features,
    checked: bool,
) -> Result<Vec<u32>, String> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    use naga::valid::Capabilities as Caps;
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut caps = Caps::all();
    for (feature, needs) in [
        (
            wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
            Caps::COOPERATIVE_MATRIX,
        ),
        (wgpu::Features::SHADER_F16, Caps::SHADER_FLOAT16),
        (
            wgpu::Features::SUBGROUP,
            Caps::SUBGROUP.union(Caps::SUBGROUP_BARRIER),
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
    let policy = if checked {
        BoundsCheckPolicy::Restrict
    } else {
        BoundsCheckPolicy::Unchecked
    };
    let mut sorted = bindings.to_vec();
    sorted.sort_unstable();
    let binding_map: spv::BindingMap = sorted
        .iter()
        .enumerate()
        .map(|(slot, &binding)| {
            (
                naga::ResourceBinding { group: 0, binding },
                spv::BindingInfo {
                    descriptor_set: 0,
                    binding: slot as u32,
                    binding_array_size: None,
                },
            )
        })
        .collect();
    let options = spv::Options {
        binding_map,
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
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: "main".into(),
    };
    let words =
        spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| e.to_string())?;
    if crate::tune::knob("coop_aligned") == Some(2) {
        return Ok(words); // tuning: our SPIR-V without the operand
    }
    align_coop_accesses(&words)
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
}
