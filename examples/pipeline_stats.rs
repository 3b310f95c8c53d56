//! The Vulkan driver's own statistics for every pipeline the planner emits for one attention
//! shape: above all registers per thread (which, with workgroup memory, fixes occupancy), and
//! whatever else the driver reports (NVIDIA: registers, shared and local memory, binary size;
//! Mesa: instruction counts, ...), through `VK_KHR_pipeline_executable_properties`, which wgpu
//! does not expose.
//!
//! For each distinct shader variant of the plan it makes the SPIR-V the driver would receive from
//! this crate (`wgpu_sdpa::spirv::variant_spirv`: the crate's own words for the
//! cooperative-matrix kernels, a re-creation of wgpu-hal's translation for the others), creates
//! a compute pipeline from it with `ash` on the same physical device as the wgpu adapter, with
//! the device features wgpu enables (robust buffer access included), and prints the driver's
//! executables and statistics.
//!
//! ```text
//! cargo run --release --example pipeline_stats -- --heads 32,8 --q-len 1 --kv-len 16384 \
//!     --hdim 128 --dtype f16
//! ```
//!
//! On the H200 machine (no Rust toolchain there): build here with `cargo build --release
//! --examples` and copy `target/release/examples/pipeline_stats` into `.device/` (or let
//! `bash ../shared/gpu/prepare.sh` do both, with the Vulkan loader), take `.device/` along, and
//! run from the project root there, e.g.
//!
//! ```text
//! bash .device/on-device.sh .device/pipeline_stats --heads 32,32 --q-len 4096 --hdim 128 --dtype f16
//! bash .device/on-device.sh .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128
//! ```
//!
//! The driver reports per executable; on NVIDIA look for the register count per thread (with
//! the workgroup size and workgroup memory printed for each variant, it bounds the workgroups
//! an SM holds at once). `--no-robustness` shows what wgpu's robust buffer access costs, and
//! `--dump-spirv DIR` keeps the modules for `spirv-dis`.
//!
//! A driver without the extension (Mesa 22's lavapipe) gets a line saying so, and each pipeline
//! is still compiled, to check that the driver takes the SPIR-V. `--help` lists the options.
//! Exit status: 0 when every variant compiled (and its statistics, where the driver has them,
//! were printed), 1 when a variant failed, 2 on bad arguments or setup errors.

use std::ffi::CStr;
use std::path::PathBuf;
use std::process::ExitCode;

use ash::vk;
use clap::{ArgAction, Parser, ValueEnum};
use wgpu_sdpa::spirv::{variant_spirv, DriverSpirv, VulkanDeviceFacts};
use wgpu_sdpa::{AttentionDesc, CausalAlignment, Context, DType, Mask, Path, PlanOptions};

/// The Vulkan driver's statistics (registers per thread, ...) for each pipeline the planner emits
/// for one attention shape, on the default wgpu adapter (WGPU_ADAPTER_NAME picks another).
#[derive(Parser)]
#[command(name = "pipeline_stats", args_override_self = true)]
struct Args {
    /// Batch.
    #[arg(long, value_name = "N", default_value_t = 1)]
    batch: u32,
    /// Query and key/value heads: HQ,HKV, or HQ for both.
    #[arg(long, value_name = "HQ[,HKV]", value_parser = parse_heads, default_value = "32,32")]
    heads: (u32, u32),
    /// Query length (required).
    #[arg(long, value_name = "N")]
    q_len: u32,
    /// Key/value length [default: --q-len].
    #[arg(long, value_name = "N")]
    kv_len: Option<u32>,
    /// Head dim of q and k.
    #[arg(long = "hdim", value_name = "D", default_value_t = 128)]
    head_dim: u32,
    /// Head dim of v [default: --hdim].
    #[arg(long = "v-hdim", value_name = "D")]
    v_head_dim: Option<u32>,
    /// Storage dtype: f16 or f32 (float16, float32 also accepted).
    #[arg(long, value_name = "f16|f32", value_parser = parse_dtype, default_value = "f16")]
    dtype: DType,
    /// Mask (causal is bottom-right aligned).
    #[arg(long, value_name = "none|causal", value_enum, default_value_t = MaskArg::None)]
    mask: MaskArg,
    /// The planner's path: auto, fused, unfused or vector.
    #[arg(long, value_name = "auto|fused|unfused|vector", default_value = "auto")]
    path: Path,
    /// Force the fused kernel's blocks, e.g. 64x32 (as `sdpa bench --blocks`).
    #[arg(long, value_name = "QxK", value_parser = parse_blocks)]
    blocks: Option<(u32, u32)>,
    /// The portable fused kernel even where cooperative matrices are listed.
    #[arg(long)]
    portable: bool,
    /// Keep wgpu's runtime bounds checks in the shaders (as `sdpa bench --checks`).
    #[arg(long)]
    checks: bool,
    /// Create the pipelines without robust buffer access (wgpu always enables it where the device
    /// has it; this shows what it costs).
    #[arg(long = "no-robustness", action = ArgAction::SetFalse)]
    robustness: bool,
    /// Also write each variant's SPIR-V to DIR (for spirv-dis).
    #[arg(long, value_name = "DIR")]
    dump_spirv: Option<PathBuf>,
    /// Also write the driver's internal representations of each pipeline (where the driver
    /// offers them: Mesa's NIR and ISA, ...) to DIR, one file per representation.
    #[arg(long, value_name = "DIR")]
    ir: Option<PathBuf>,
}

/// `--mask`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MaskArg {
    None,
    Causal,
}

/// `--heads`: `HQ,HKV`, or `HQ` for both.
fn parse_heads(s: &str) -> Result<(u32, u32), String> {
    let heads = s
        .split(',')
        .map(|h| {
            h.trim()
                .parse()
                .map_err(|_| format!("{h:?}: not a non-negative integer"))
        })
        .collect::<Result<Vec<u32>, String>>()?;
    match heads[..] {
        [q] => Ok((q, q)),
        [q, kv] => Ok((q, kv)),
        _ => Err("give HQ or HQ,HKV".into()),
    }
}

/// `--dtype`, as `sdpa bench --dtype`.
fn parse_dtype(s: &str) -> Result<DType, String> {
    s.parse().map_err(|_| "must be f16 or f32".into())
}

/// `--blocks`: `QxK`.
fn parse_blocks(s: &str) -> Result<(u32, u32), String> {
    s.split_once('x')
        .and_then(|(q, k)| Some((q.parse().ok()?, k.parse().ok()?)))
        .ok_or_else(|| "give QxK, e.g. 64x32".into())
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("pipeline_stats: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Plans the shape, then prints each variant's statistics. `Ok(false)`: a variant failed.
fn run(args: &Args) -> Result<bool, String> {
    let ctx = Context::headless().map_err(|e| e.to_string())?;
    let ctx = if args.checks {
        ctx.with_runtime_checks(true)
    } else {
        ctx
    };
    let caps = ctx.capabilities();
    let features = ctx.device().features();
    println!(
        "adapter: {} ({:?}, {:?}), shader runtime checks {}",
        caps.adapter_name,
        caps.backend,
        caps.device_type,
        if ctx.runtime_checks() { "on" } else { "off" }
    );
    let mut desc = AttentionDesc::new(
        args.batch,
        args.heads.0,
        args.heads.1,
        args.q_len,
        args.kv_len.unwrap_or(args.q_len),
        args.head_dim,
    )
    .with_v_head_dim(args.v_head_dim.unwrap_or(args.head_dim))
    .with_dtype(args.dtype);
    if args.mask == MaskArg::Causal {
        desc = desc.with_mask(Mask::Causal(CausalAlignment::BottomRight));
    }
    let options = PlanOptions {
        path: args.path,
        cooperative: args.portable.then_some(false),
        fused_blocks: args.blocks,
        ..ctx.plan_options()
    };
    let plan = wgpu_sdpa::plan(caps, &desc, &options).map_err(|e| format!("planning: {e}"))?;
    println!("problem: {desc}");
    println!("plan: {plan}");
    // Distinct dispatches with their counts (the unfused path repeats its three per head chunk).
    let mut dispatches: Vec<(String, usize)> = Vec::new();
    let mut variants = Vec::new();
    for dispatch in plan.dispatches() {
        let line = format!(
            "{:?} workgroups: {}",
            dispatch.workgroups,
            dispatch.variant.label()
        );
        match dispatches.iter_mut().find(|(l, _)| *l == line) {
            Some((_, count)) => *count += 1,
            None => dispatches.push((line, 1)),
        }
        if !variants.contains(&dispatch.variant) {
            variants.push(dispatch.variant.clone());
        }
    }
    for (line, count) in &dispatches {
        let times = if *count > 1 {
            format!(" ({count} times)")
        } else {
            String::new()
        };
        println!("  dispatch {line}{times}");
    }
    if caps.backend != wgpu::Backend::Vulkan {
        return Err(format!(
            "the adapter is on {:?}; the statistics come from a Vulkan driver (WGPU_BACKEND=vulkan)",
            caps.backend
        ));
    }

    // SAFETY (all Vulkan calls below): every handle is created here from the loaded entry, used
    // with the instance or device it came from, and destroyed once, before its parent.
    let vulkan = unsafe { Vulkan::new(&caps.adapter_name) }?;
    println!(
        "vulkan: {} (API {}), driver {}",
        vulkan.device_name,
        version_string(vulkan.api_version),
        vulkan.driver
    );
    let facts = VulkanDeviceFacts {
        spirv_version: wgpu_spirv_version(vulkan.api_version),
        robust_buffer_access2: vulkan.robust_buffer_access2 && args.robustness,
        storage_input_output_16: vulkan.storage_input_output_16,
    };

    let mut all_ok = true;
    let mut modules: Vec<Option<DriverSpirv>> = Vec::new();
    for (index, variant) in variants.iter().enumerate() {
        println!("\nvariant {index}: {}", variant.label());
        let constants: Vec<String> = variant
            .constants
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        println!("  constants: {}", constants.join(" "));
        match variant_spirv(&ctx, variant, facts) {
            Ok(spirv) => {
                let version = spirv.words.get(1).copied().unwrap_or(0);
                println!(
                    "  SPIR-V {}.{}, {} words: {}",
                    (version >> 16) & 0xff,
                    (version >> 8) & 0xff,
                    spirv.words.len(),
                    if spirv.passthrough {
                        "the crate's own, as passed to the driver"
                    } else {
                        "naga's translation with wgpu-hal's options (re-created)"
                    }
                );
                let [x, y, z] = spirv.workgroup_size;
                println!(
                    "  workgroup: {x}x{y}x{z} threads, {} bytes of workgroup memory",
                    spirv.workgroup_bytes
                );
                if let Some(dir) = &args.dump_spirv {
                    let file = dir.join(format!("{index:02}-{}.spv", variant.entry.name()));
                    let bytes: Vec<u8> = spirv.words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::create_dir_all(dir)
                        .and_then(|()| std::fs::write(&file, bytes))
                        .map_err(|e| format!("writing {}: {e}", file.display()))?;
                    println!("  written to {}", file.display());
                }
                modules.push(Some(spirv));
            }
            Err(e) => {
                println!("  FAILED making SPIR-V: {e}");
                all_ok = false;
                modules.push(None);
            }
        }
    }

    let capture = vulkan.executable_properties;
    if !capture {
        println!(
            "\ndriver {} ({}) does not support VK_KHR_pipeline_executable_properties: no \
             statistics (each pipeline is still compiled, to check that the driver takes it)",
            vulkan.driver, vulkan.device_name
        );
    }
    let device = unsafe { vulkan.create_device(features, args.robustness, capture) }?;
    println!(
        "device features: {}{}",
        device.enabled.join(", "),
        if args.robustness {
            ""
        } else {
            " (--no-robustness: robust access off, unlike wgpu)"
        }
    );
    let mut summary = Vec::new();
    for (index, (variant, spirv)) in variants.iter().zip(&modules).enumerate() {
        let Some(spirv) = spirv else { continue };
        println!("\nvariant {index} ({}):", variant.entry.name());
        let ir = args
            .ir
            .as_ref()
            .map(|dir| dir.join(format!("variant{index}-{}", variant.entry.name())));
        match unsafe { device.pipeline_statistics(spirv, ir.as_deref()) } {
            Ok(None) => println!("  compiled by the driver (no statistics)"),
            Ok(Some(executables)) => {
                for exe in &executables {
                    println!(
                        "  executable {:?} ({}), stages {:?}, subgroup size {}",
                        exe.name, exe.description, exe.stages, exe.subgroup_size
                    );
                    for stat in &exe.statistics {
                        println!(
                            "    {:<28} {:>12}   ({})",
                            stat.name, stat.value, stat.description
                        );
                    }
                    let registers: Vec<String> = exe
                        .statistics
                        .iter()
                        .filter(|s| s.name.to_lowercase().contains("register"))
                        .map(|s| format!("{} {}", s.name, s.value))
                        .collect();
                    if !registers.is_empty() {
                        summary.push(format!(
                            "  {}: {} [{}]",
                            exe.name,
                            registers.join(", "),
                            variant.label()
                        ));
                    }
                }
            }
            Err(e) => {
                println!("  FAILED: {e}");
                all_ok = false;
            }
        }
    }
    if !summary.is_empty() {
        println!("\nregisters:");
        for line in summary {
            println!("{line}");
        }
    }
    Ok(all_ok)
}

/// `major.minor.patch` of a Vulkan version number.
fn version_string(version: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(version),
        vk::api_version_minor(version),
        vk::api_version_patch(version)
    )
}

/// The SPIR-V version wgpu-hal 30 writes for a device of this Vulkan API version.
fn wgpu_spirv_version(api_version: u32) -> (u8, u8) {
    match (
        vk::api_version_major(api_version),
        vk::api_version_minor(api_version),
    ) {
        (1, 0) => (1, 0),
        (1, 1) => (1, 3),
        (1, 2) => (1, 5),
        _ => (1, 6),
    }
}

/// A fixed-size C string of a Vulkan struct as text.
fn text(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "?".into())
}

/// The Vulkan instance and the physical device behind the wgpu adapter.
struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device_name: String,
    driver: String,
    api_version: u32,
    /// The API version the instance was created with.
    instance_version: u32,
    extensions: Vec<String>,
    /// `VK_KHR_pipeline_executable_properties` with its `pipelineExecutableInfo` feature.
    executable_properties: bool,
    /// `VK_EXT_robustness2`'s `robustBufferAccess2` (wgpu enables it where there).
    robust_buffer_access2: bool,
    /// `storageInputOutput16` (wgpu enables it, and naga declares it, where there).
    storage_input_output_16: bool,
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        // SAFETY: every device made from this instance is gone (`Device` borrows `Vulkan`).
        unsafe { self.instance.destroy_instance(None) };
    }
}

impl Vulkan {
    /// Loads Vulkan, creates an instance (API 1.3 where the loader has it, as wgpu-hal does) and
    /// picks the physical device named `adapter_name` (else the first, with a warning).
    unsafe fn new(adapter_name: &str) -> Result<Self, String> {
        let entry = ash::Entry::load().map_err(|e| format!("loading Vulkan: {e}"))?;
        let loader_version = entry
            .try_enumerate_instance_version()
            .map_err(|e| format!("vkEnumerateInstanceVersion: {e}"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_2 {
            return Err(format!(
                "the Vulkan loader is version {}; this needs 1.2 or later",
                version_string(loader_version)
            ));
        }
        let instance_version = loader_version.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default()
            .application_name(c"wgpu-sdpa pipeline_stats")
            .api_version(instance_version);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .map_err(|e| format!("vkCreateInstance: {e}"))?;
        // From here on `instance` is destroyed on every path: by `Vulkan`'s drop or below.
        let chosen = Self::pick(&instance, adapter_name);
        let physical = match chosen {
            Ok(p) => p,
            Err(e) => {
                instance.destroy_instance(None);
                return Err(e);
            }
        };
        let properties = instance.get_physical_device_properties(physical);
        let device_name = text(properties.device_name_as_c_str());
        let api_version = properties.api_version;
        let mut vulkan = Vulkan {
            _entry: entry,
            instance,
            physical,
            device_name,
            driver: String::new(),
            api_version,
            instance_version,
            extensions: Vec::new(),
            executable_properties: false,
            robust_buffer_access2: false,
            storage_input_output_16: false,
        };
        if api_version < vk::API_VERSION_1_2 {
            return Err(format!(
                "{} supports Vulkan {}; this needs 1.2 or later",
                vulkan.device_name,
                version_string(api_version)
            ));
        }
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut properties2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
        vulkan
            .instance
            .get_physical_device_properties2(physical, &mut properties2);
        vulkan.driver = format!(
            "{} {}",
            text(driver.driver_name_as_c_str()),
            text(driver.driver_info_as_c_str())
        );
        vulkan.extensions = vulkan
            .instance
            .enumerate_device_extension_properties(physical)
            .map_err(|e| format!("vkEnumerateDeviceExtensionProperties: {e}"))?
            .iter()
            .map(|e| text(e.extension_name_as_c_str()))
            .collect();
        let mut executable = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut storage16 = vk::PhysicalDevice16BitStorageFeatures::default();
        let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut storage16);
        let has_executable = vulkan.has(ash::khr::pipeline_executable_properties::NAME);
        let has_robustness2 = vulkan.has(ash::ext::robustness2::NAME);
        if has_executable {
            features2 = features2.push_next(&mut executable);
        }
        if has_robustness2 {
            features2 = features2.push_next(&mut robustness2);
        }
        vulkan
            .instance
            .get_physical_device_features2(physical, &mut features2);
        vulkan.executable_properties =
            has_executable && executable.pipeline_executable_info == vk::TRUE;
        vulkan.robust_buffer_access2 =
            has_robustness2 && robustness2.robust_buffer_access2 == vk::TRUE;
        vulkan.storage_input_output_16 = storage16.storage_input_output16 == vk::TRUE;
        Ok(vulkan)
    }

    fn pick(instance: &ash::Instance, adapter_name: &str) -> Result<vk::PhysicalDevice, String> {
        // SAFETY: `instance` is live.
        let physicals = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("vkEnumeratePhysicalDevices: {e}"))?;
        let name_of = |p: vk::PhysicalDevice| {
            // SAFETY: `p` was enumerated from `instance`.
            text(unsafe { instance.get_physical_device_properties(p) }.device_name_as_c_str())
        };
        if let Some(&p) = physicals.iter().find(|&&p| name_of(p) == adapter_name) {
            return Ok(p);
        }
        let first = *physicals.first().ok_or("no Vulkan physical device")?;
        eprintln!(
            "pipeline_stats: warning: no Vulkan device is named {adapter_name:?} (the wgpu \
             adapter); using {:?}",
            name_of(first)
        );
        Ok(first)
    }

    fn has(&self, extension: &CStr) -> bool {
        let name = extension.to_string_lossy();
        self.extensions.iter().any(|e| *e == name)
    }

    /// A device with the features wgpu-hal enables
    /// for a device with `features` (those that can change what the driver compiles: robust
    /// buffer and image access, 16-bit storage and f16/i8 arithmetic, the Vulkan memory model and
    /// cooperative matrices, subgroup size control, zero-initialised workgroup memory, integer
    /// dot products), where the physical device has them; and with
    /// `VK_KHR_pipeline_executable_properties` if `capture`. `robustness`: false leaves robust
    /// access off.
    unsafe fn create_device(
        &self,
        features: wgpu::Features,
        robustness: bool,
        capture: bool,
    ) -> Result<Device<'_>, String> {
        let wants_f16 = features.contains(wgpu::Features::SHADER_F16);
        let wants_coop = features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
        let vulkan_1_3 = self.api_version.min(self.instance_version) >= vk::API_VERSION_1_3;
        let has_coop = self.has(ash::khr::cooperative_matrix::NAME);
        let has_robustness2 = self.has(ash::ext::robustness2::NAME);

        // What the physical device has.
        let mut has11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut has12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut has13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut has_robust2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut has_coop_matrix = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        let mut query = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut has11)
            .push_next(&mut has12);
        if vulkan_1_3 {
            query = query.push_next(&mut has13);
        }
        if has_robustness2 {
            query = query.push_next(&mut has_robust2);
        }
        if has_coop {
            query = query.push_next(&mut has_coop_matrix);
        }
        self.instance
            .get_physical_device_features2(self.physical, &mut query);
        let has_core = query.features;

        let mut enabled = Vec::new();
        if capture {
            enabled.push("pipelineExecutableInfo");
        }
        let mut on = |name: &'static str, wanted: bool, there: vk::Bool32| -> bool {
            let yes = wanted && there == vk::TRUE;
            if yes {
                enabled.push(name);
            }
            yes
        };
        let core = vk::PhysicalDeviceFeatures::default().robust_buffer_access(on(
            "robustBufferAccess",
            robustness,
            has_core.robust_buffer_access,
        ));
        let mut enable11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(on(
                "storageBuffer16BitAccess",
                wants_f16,
                has11.storage_buffer16_bit_access,
            ))
            .uniform_and_storage_buffer16_bit_access(on(
                "uniformAndStorageBuffer16BitAccess",
                wants_f16,
                has11.uniform_and_storage_buffer16_bit_access,
            ))
            .storage_input_output16(on(
                "storageInputOutput16",
                wants_f16,
                has11.storage_input_output16,
            ));
        let memory_model = on("vulkanMemoryModel", wants_coop, has12.vulkan_memory_model);
        let mut enable12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(on("shaderFloat16", wants_f16, has12.shader_float16))
            .shader_int8(on("shaderInt8", true, has12.shader_int8))
            .vulkan_memory_model(memory_model)
            .vulkan_memory_model_device_scope(on(
                "vulkanMemoryModelDeviceScope",
                memory_model,
                has12.vulkan_memory_model_device_scope,
            ));
        let mut enable13 = vk::PhysicalDeviceVulkan13Features::default()
            .robust_image_access(on(
                "robustImageAccess",
                robustness,
                has13.robust_image_access,
            ))
            .subgroup_size_control(on("subgroupSizeControl", true, has13.subgroup_size_control))
            .shader_zero_initialize_workgroup_memory(on(
                "shaderZeroInitializeWorkgroupMemory",
                true,
                has13.shader_zero_initialize_workgroup_memory,
            ))
            .shader_integer_dot_product(on(
                "shaderIntegerDotProduct",
                true,
                has13.shader_integer_dot_product,
            ));
        let mut enable_robust2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default()
            .robust_buffer_access2(on(
                "robustBufferAccess2",
                robustness,
                has_robust2.robust_buffer_access2,
            ))
            .robust_image_access2(on(
                "robustImageAccess2",
                robustness,
                has_robust2.robust_image_access2,
            ));
        let coop_matrix = on(
            "cooperativeMatrix",
            wants_coop,
            has_coop_matrix.cooperative_matrix,
        );
        let mut enable_coop = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default()
            .cooperative_matrix(coop_matrix);
        let mut enable_executable =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let varying_subgroup_size =
            features.contains(wgpu::Features::SUBGROUP) && enable13.subgroup_size_control != 0;

        let mut extensions = Vec::new();
        let mut enable = vk::PhysicalDeviceFeatures2::default()
            .features(core)
            .push_next(&mut enable11)
            .push_next(&mut enable12);
        if capture {
            extensions.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
            enable = enable.push_next(&mut enable_executable);
        }
        if vulkan_1_3 {
            enable = enable.push_next(&mut enable13);
        }
        if has_robustness2 {
            extensions.push(ash::ext::robustness2::NAME.as_ptr());
            enable = enable.push_next(&mut enable_robust2);
        }
        if coop_matrix {
            extensions.push(ash::khr::cooperative_matrix::NAME.as_ptr());
            enable = enable.push_next(&mut enable_coop);
        }

        let family = self
            .instance
            .get_physical_device_queue_family_properties(self.physical)
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue family")? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut enable);
        let raw = self
            .instance
            .create_device(self.physical, &info, None)
            .map_err(|e| format!("vkCreateDevice: {e}"))?;
        let executables =
            ash::khr::pipeline_executable_properties::Device::new(&self.instance, &raw);
        Ok(Device {
            _vulkan: self,
            raw,
            executables,
            capture,
            varying_subgroup_size,
            enabled,
        })
    }
}

/// A logical device that captures pipeline statistics.
struct Device<'a> {
    _vulkan: &'a Vulkan,
    raw: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
    /// Pipelines are created with `CAPTURE_STATISTICS_KHR` (the extension is enabled).
    capture: bool,
    /// Shader stages get `ALLOW_VARYING_SUBGROUP_SIZE`, as wgpu-hal gives them with `SUBGROUP`.
    varying_subgroup_size: bool,
    /// The features enabled, for the header.
    enabled: Vec<&'static str>,
}

impl Drop for Device<'_> {
    fn drop(&mut self) {
        // SAFETY: every object made on this device is destroyed by `Objects`' drop before.
        unsafe { self.raw.destroy_device(None) };
    }
}

/// One executable of a pipeline (NVIDIA: one per pipeline; Mesa: one per stage, or more).
struct Executable {
    name: String,
    description: String,
    stages: vk::ShaderStageFlags,
    subgroup_size: u32,
    statistics: Vec<Statistic>,
}

struct Statistic {
    name: String,
    description: String,
    value: String,
}

/// The objects of one pipeline, destroyed together (null handles are ignored by Vulkan).
struct Objects<'a> {
    device: &'a ash::Device,
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        // SAFETY: each handle is null or was created on `device` and is used by nothing else.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device
                .destroy_descriptor_set_layout(self.set_layout, None);
            self.device.destroy_shader_module(self.module, None);
        }
    }
}

impl Device<'_> {
    /// Creates a compute pipeline from `spirv` with a layout like wgpu's (descriptor set 0 with
    /// the variant's buffers, no push constants) and returns the driver's statistics (`None`
    /// without `capture`). With `ir`, the driver's internal representations are written to files
    /// named from that path (`<ir>-<executable>-<representation>.txt`).
    unsafe fn pipeline_statistics(
        &self,
        spirv: &DriverSpirv,
        ir: Option<&std::path::Path>,
    ) -> Result<Option<Vec<Executable>>, String> {
        let mut objects = Objects {
            device: &self.raw,
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
        };
        objects.module = self
            .raw
            .create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(&spirv.words),
                None,
            )
            .map_err(|e| format!("vkCreateShaderModule: {e}"))?;
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = spirv
            .descriptors
            .iter()
            .map(|d| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(d.binding)
                    .descriptor_type(if d.uniform {
                        vk::DescriptorType::UNIFORM_BUFFER
                    } else {
                        vk::DescriptorType::STORAGE_BUFFER
                    })
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        objects.set_layout = self
            .raw
            .create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
            .map_err(|e| format!("vkCreateDescriptorSetLayout: {e}"))?;
        let set_layouts = [objects.set_layout];
        objects.layout = self
            .raw
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                None,
            )
            .map_err(|e| format!("vkCreatePipelineLayout: {e}"))?;
        let stage_flags = if self.varying_subgroup_size {
            vk::PipelineShaderStageCreateFlags::ALLOW_VARYING_SUBGROUP_SIZE
        } else {
            vk::PipelineShaderStageCreateFlags::empty()
        };
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .flags(stage_flags)
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(objects.module)
            .name(c"main");
        let mut flags = vk::PipelineCreateFlags::empty();
        if self.capture {
            flags |= vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
            if ir.is_some() {
                flags |= vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
            }
        }
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(objects.layout);
        objects.pipeline = match self.raw.create_compute_pipelines(
            vk::PipelineCache::null(),
            std::slice::from_ref(&info),
            None,
        ) {
            Ok(pipelines) => pipelines[0],
            Err((pipelines, e)) => {
                for p in pipelines {
                    self.raw.destroy_pipeline(p, None);
                }
                return Err(format!("vkCreateComputePipelines: {e}"));
            }
        };
        if !self.capture {
            return Ok(None);
        }
        let executables = self
            .executables
            .get_pipeline_executable_properties(
                &vk::PipelineInfoKHR::default().pipeline(objects.pipeline),
            )
            .map_err(|e| format!("vkGetPipelineExecutablePropertiesKHR: {e}"))?;
        let mut out = Vec::new();
        for (index, exe) in executables.iter().enumerate() {
            let statistics = self
                .executables
                .get_pipeline_executable_statistics(
                    &vk::PipelineExecutableInfoKHR::default()
                        .pipeline(objects.pipeline)
                        .executable_index(index as u32),
                )
                .map_err(|e| format!("vkGetPipelineExecutableStatisticsKHR: {e}"))?;
            if let Some(ir) = ir {
                self.write_internal_representations(objects.pipeline, index as u32, ir)?;
            }
            out.push(Executable {
                name: text(exe.name_as_c_str()),
                description: text(exe.description_as_c_str()),
                stages: exe.stages,
                subgroup_size: exe.subgroup_size,
                statistics: statistics
                    .iter()
                    .map(|s| Statistic {
                        name: text(s.name_as_c_str()),
                        description: text(s.description_as_c_str()),
                        value: statistic_value(s),
                    })
                    .collect(),
            });
        }
        Ok(Some(out))
    }
}

impl Device<'_> {
    /// Writes executable `index` of `pipeline`'s internal representations to
    /// `<ir>-<index>-<name>.txt` (text ones as they are, binary ones as bytes), and says so.
    unsafe fn write_internal_representations(
        &self,
        pipeline: vk::Pipeline,
        index: u32,
        ir: &std::path::Path,
    ) -> Result<(), String> {
        let info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(index);
        let get = self
            .executables
            .fp()
            .get_pipeline_executable_internal_representations_khr;
        let device = self.raw.handle();
        // SAFETY (each call): `info` names a live pipeline made with
        // CAPTURE_INTERNAL_REPRESENTATIONS, and `reps` holds `count` structures.
        let call = |count: &mut u32, reps: *mut vk::PipelineExecutableInternalRepresentationKHR| {
            get(device, &info, count, reps)
                .result()
                .map_err(|e| format!("vkGetPipelineExecutableInternalRepresentationsKHR: {e}"))
        };
        let mut count = 0u32;
        call(&mut count, std::ptr::null_mut())?;
        if count == 0 {
            println!("  the driver gives no internal representations");
            return Ok(());
        }
        // Second call: the names and sizes; third: the data, into buffers of those sizes.
        let mut reps =
            vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
        call(&mut count, reps.as_mut_ptr())?;
        let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
        for (r, b) in reps.iter_mut().zip(&mut buffers) {
            r.p_data = b.as_mut_ptr().cast();
        }
        call(&mut count, reps.as_mut_ptr())?;
        if let Some(dir) = ir.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        for (r, mut bytes) in reps.iter().zip(buffers) {
            let name = text(r.name_as_c_str());
            let file: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let path = std::path::PathBuf::from(format!("{}-{index}-{file}.txt", ir.display()));
            if r.is_text != vk::FALSE {
                while bytes.last() == Some(&0) {
                    bytes.pop();
                }
            }
            std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            println!(
                "  internal representation {name:?} ({}): {} bytes -> {}",
                text(r.description_as_c_str()),
                bytes.len(),
                path.display()
            );
        }
        Ok(())
    }
}

/// A statistic's value as its format says to read it.
fn statistic_value(s: &vk::PipelineExecutableStatisticKHR) -> String {
    use vk::PipelineExecutableStatisticFormatKHR as Format;
    // SAFETY: the union member read is the one `format` names.
    unsafe {
        match s.format {
            Format::BOOL32 => (s.value.b32 != vk::FALSE).to_string(),
            Format::INT64 => s.value.i64.to_string(),
            Format::UINT64 => s.value.u64.to_string(),
            Format::FLOAT64 => format!("{}", s.value.f64),
            other => format!("(format {other:?})"),
        }
    }
}
