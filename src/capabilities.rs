//! What an adapter can do, as plain data the planner reads.
//!
//! A [`Capabilities`] is read off a live adapter by [`crate::Context`], or built from one of the
//! profiles below, so the planner (and the tests that check every variant it can emit) can be
//! driven for a Mac, an NVIDIA GPU, lavapipe or a browser on a machine that has none of them.

use wgpu::{CooperativeMatrixProperties, CooperativeScalarType};

/// The adapter facts the planner and the kernels depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// The adapter's name.
    pub adapter_name: String,
    /// The backend (Vulkan, Metal, Dx12, Gl, BrowserWebGpu).
    pub backend: wgpu::Backend,
    /// Discrete, integrated, CPU (lavapipe), ...
    pub device_type: wgpu::DeviceType,
    /// `SHADER_F16` is enabled on the device.
    pub shader_f16: bool,
    /// `SUBGROUP` and `SUBGROUP_BARRIER` are enabled on the device (the cooperative-matrix
    /// kernel's shuffles and its barriers within a subgroup; Vulkan and Metal have both).
    pub subgroups: bool,
    /// A `subgroupBarrier()` of the cooperative-matrix kernel reaches the driver ordering
    /// workgroup memory, as the kernel needs: on Metal (naga writes
    /// `simdgroup_barrier(mem_flags::mem_threadgroup)`) and on Vulkan with `PASSTHROUGH_SHADERS`,
    /// where `src/spirv.rs` makes the module and adds the semantics naga 30 leaves out. Without
    /// it the kernel is not planned.
    pub subgroup_sync: bool,
    /// `TIMESTAMP_QUERY` is enabled on the device.
    pub timestamps: bool,
    /// `MEMORY_DECORATION_COHERENT` is enabled on the device (`@coherent` storage buffers): on
    /// Vulkan the decode kernel's last split to finish then merges the splits itself, in place
    /// of the reduce pass (`wgsl/split_merge_in_pass.wgsl`).
    pub coherent_storage: bool,
    /// Smallest subgroup size the adapter may use (0 when unknown).
    pub subgroup_min_size: u32,
    /// Largest subgroup size the adapter may use (0 when unknown).
    pub subgroup_max_size: u32,
    /// The cooperative-matrix configurations the adapter lists, empty when
    /// `EXPERIMENTAL_COOPERATIVE_MATRIX` is not enabled on the device. Only these may be used:
    /// wgpu does not reject an unlisted one, and on the H200 an unlisted one computed garbage.
    pub cooperative_matrix: Vec<CooperativeMatrixProperties>,
    /// `max_compute_workgroup_storage_size`, bytes.
    pub max_workgroup_storage_bytes: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_invocations_per_workgroup: u32,
    /// `max_compute_workgroup_size_x`.
    pub max_workgroup_size_x: u32,
    /// `max_compute_workgroups_per_dimension`.
    pub max_workgroups_per_dimension: u32,
    /// `max_storage_buffer_binding_size`, bytes.
    pub max_storage_binding_bytes: u64,
    /// `max_buffer_size`, bytes.
    pub max_buffer_bytes: u64,
    /// `min_storage_buffer_offset_alignment`, bytes.
    pub storage_offset_alignment: u32,
    /// Compute units (SMs on NVIDIA, CUs on AMD) where the driver says how many: on Vulkan
    /// through `VK_NV_shader_sm_builtins` or `VK_AMD_shader_core_properties(2)`; 0 where it does
    /// not (Metal, browsers, lavapipe, other drivers). The splits of the decode and fused kernels
    /// were tuned on the H200's [`H200_COMPUTE_UNITS`] and scale with it
    /// ([`Capabilities::scale_workgroups`]).
    pub compute_units: u32,
}

/// The H200's SMs: the GPU every workgroup target in this crate was measured on.
pub const H200_COMPUTE_UNITS: u32 = 132;

fn coop(
    size: u32,
    ab: CooperativeScalarType,
    cr: CooperativeScalarType,
) -> CooperativeMatrixProperties {
    CooperativeMatrixProperties {
        m_size: size,
        n_size: size,
        k_size: size,
        ab_type: ab,
        cr_type: cr,
        saturating_accumulation: false,
    }
}

impl Capabilities {
    /// Reads the capabilities of a device created from `adapter` (features and limits are the
    /// device's, which may be fewer than the adapter's).
    pub fn from_device(adapter: &wgpu::Adapter, device: &wgpu::Device) -> Self {
        let info = adapter.get_info();
        let features = device.features();
        let limits = device.limits();
        let cooperative_matrix =
            if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
                adapter.cooperative_matrix_properties()
            } else {
                Vec::new()
            };
        Capabilities {
            shader_f16: features.contains(wgpu::Features::SHADER_F16),
            subgroups: features
                .contains(wgpu::Features::SUBGROUP | wgpu::Features::SUBGROUP_BARRIER),
            subgroup_sync: info.backend == wgpu::Backend::Metal
                || crate::pipelines::passthrough_spirv(device, info.backend),
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            coherent_storage: features.contains(wgpu::Features::MEMORY_DECORATION_COHERENT),
            subgroup_min_size: info.subgroup_min_size,
            subgroup_max_size: info.subgroup_max_size,
            cooperative_matrix,
            compute_units: driver_compute_units(adapter),
            ..Self::from_limits(&info.name, info.backend, info.device_type, &limits)
        }
    }

    /// An adapter with `limits` and none of the optional features.
    fn from_limits(
        name: &str,
        backend: wgpu::Backend,
        device_type: wgpu::DeviceType,
        limits: &wgpu::Limits,
    ) -> Self {
        Capabilities {
            adapter_name: name.into(),
            backend,
            device_type,
            shader_f16: false,
            subgroups: false,
            subgroup_sync: false,
            timestamps: false,
            coherent_storage: false,
            subgroup_min_size: 0,
            subgroup_max_size: 0,
            cooperative_matrix: Vec::new(),
            max_workgroup_storage_bytes: limits.max_compute_workgroup_storage_size,
            max_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_workgroup_size_x: limits.max_compute_workgroup_size_x,
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            max_storage_binding_bytes: limits.max_storage_buffer_binding_size,
            max_buffer_bytes: limits.max_buffer_size,
            storage_offset_alignment: limits.min_storage_buffer_offset_alignment,
            compute_units: 0,
        }
    }

    /// `h200` workgroups (a target measured on the H200, [`H200_COMPUTE_UNITS`] SMs) scaled to
    /// this adapter's [`compute_units`](Self::compute_units), rounded up; `h200` unchanged where
    /// the count is unknown.
    pub fn scale_workgroups(&self, h200: u32) -> u32 {
        if self.compute_units == 0 {
            return h200;
        }
        let scaled = (h200 as u64 * self.compute_units as u64).div_ceil(H200_COMPUTE_UNITS as u64);
        scaled.clamp(1, u32::MAX as u64) as u32
    }

    /// The most threads a one-dimensional compute workgroup may have: the smaller of
    /// `max_invocations_per_workgroup` and `max_workgroup_size_x`.
    pub fn max_workgroup_threads(&self) -> u32 {
        self.max_invocations_per_workgroup
            .min(self.max_workgroup_size_x)
    }

    /// Whether a one-dimensional workgroup of `threads` threads using `bytes` of workgroup
    /// memory fits this adapter's limits.
    pub fn fits_workgroup(&self, threads: u32, bytes: u32) -> bool {
        threads <= self.max_workgroup_threads() && bytes <= self.max_workgroup_storage_bytes
    }

    /// Apple M-series through Metal: 32 KiB of threadgroup memory, SIMD width 32, f16, and the
    /// `simdgroup_matrix` 8x8 configurations wgpu-hal's Metal backend lists
    /// (f32/f32, f16/f16, f16/f32).
    pub fn apple_m_series() -> Self {
        use CooperativeScalarType::{F16, F32};
        Capabilities {
            adapter_name: "Apple M-series (profile)".into(),
            backend: wgpu::Backend::Metal,
            device_type: wgpu::DeviceType::IntegratedGpu,
            shader_f16: true,
            subgroups: true,
            subgroup_sync: true,
            timestamps: true,
            coherent_storage: false,
            subgroup_min_size: 32,
            subgroup_max_size: 32,
            cooperative_matrix: vec![coop(8, F32, F32), coop(8, F16, F16), coop(8, F16, F32)],
            max_workgroup_storage_bytes: 32 * 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size_x: 1024,
            max_workgroups_per_dimension: 65535,
            max_storage_binding_bytes: 1 << 30,
            max_buffer_bytes: 1 << 32,
            storage_offset_alignment: 256,
            compute_units: 0,
        }
    }

    /// NVIDIA H200 through Vulkan, as measured (../shared/gpu/README.md): 48 KiB, subgroup 32,
    /// f16, cooperative matrices 16x16x16 f16 with f32 or f16 accumulators.
    pub fn nvidia_vulkan() -> Self {
        use CooperativeScalarType::{F16, F32};
        Capabilities {
            adapter_name: "NVIDIA H200 (profile)".into(),
            backend: wgpu::Backend::Vulkan,
            device_type: wgpu::DeviceType::DiscreteGpu,
            shader_f16: true,
            subgroups: true,
            subgroup_sync: true,
            timestamps: true,
            coherent_storage: true,
            subgroup_min_size: 32,
            subgroup_max_size: 32,
            cooperative_matrix: vec![coop(16, F16, F32), coop(16, F16, F16)],
            max_workgroup_storage_bytes: 48 * 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size_x: 1024,
            max_workgroups_per_dimension: 65535,
            max_storage_binding_bytes: (1 << 32) - 1,
            max_buffer_bytes: 1 << 40,
            storage_offset_alignment: 16,
            compute_units: H200_COMPUTE_UNITS,
        }
    }

    /// Mesa's lavapipe (Vulkan on the CPU, the CI adapter): 32 KiB, subgroup 8, f16, no
    /// cooperative matrices, 128 MiB storage bindings.
    pub fn lavapipe() -> Self {
        Capabilities {
            adapter_name: "llvmpipe (profile)".into(),
            backend: wgpu::Backend::Vulkan,
            device_type: wgpu::DeviceType::Cpu,
            shader_f16: true,
            subgroups: true,
            subgroup_sync: true,
            timestamps: true,
            coherent_storage: true,
            subgroup_min_size: 8,
            subgroup_max_size: 8,
            cooperative_matrix: Vec::new(),
            max_workgroup_storage_bytes: 32 * 1024,
            max_invocations_per_workgroup: 1024,
            max_workgroup_size_x: 1024,
            max_workgroups_per_dimension: 65535,
            max_storage_binding_bytes: 128 << 20,
            max_buffer_bytes: 1 << 31,
            storage_offset_alignment: 16,
            compute_units: 0,
        }
    }

    /// A browser's WebGPU with the default limits: 16 KiB of workgroup memory, 256 invocations,
    /// no `shader-f16`, no subgroups, 128 MiB storage bindings.
    pub fn browser_webgpu() -> Self {
        Self::from_limits(
            "browser WebGPU (profile)",
            wgpu::Backend::BrowserWebGpu,
            wgpu::DeviceType::Other,
            &wgpu::Limits::default(),
        )
    }

    /// Every profile, with a short name (for tests and `sdpa info`).
    pub fn profiles() -> Vec<(&'static str, Capabilities)> {
        vec![
            ("apple", Self::apple_m_series()),
            ("nvidia", Self::nvidia_vulkan()),
            ("lavapipe", Self::lavapipe()),
            ("browser", Self::browser_webgpu()),
        ]
    }
}

/// The adapter's compute units as its Vulkan driver reports them (see
/// [`Capabilities::compute_units`]); 0 on other backends and where the driver has neither
/// extension.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
fn driver_compute_units(adapter: &wgpu::Adapter) -> u32 {
    use ash::vk;
    use wgpu::hal::api::Vulkan;
    // SAFETY: the hal adapter is only read (its instance and physical device, for a properties
    // query), and the guard is dropped before this returns.
    let Some(hal) = (unsafe { adapter.as_hal::<Vulkan>() }) else {
        return 0;
    };
    let shared = hal.shared_instance();
    let instance = shared.raw_instance();
    let physical = hal.raw_physical_device();
    let supports = |name| hal.physical_device_capabilities().supports_extension(name);
    let nvidia = supports(ash::nv::shader_sm_builtins::NAME);
    let amd = supports(ash::amd::shader_core_properties::NAME);
    let amd2 = supports(ash::amd::shader_core_properties2::NAME);
    // vkGetPhysicalDeviceProperties2 is core from Vulkan 1.1, for the instance and the device.
    // SAFETY: `physical` was enumerated from `instance`, which outlives this call.
    let device_version = unsafe { instance.get_physical_device_properties(physical) }.api_version;
    if shared.instance_api_version() < vk::API_VERSION_1_1
        || device_version < vk::API_VERSION_1_1
        || !(nvidia || amd || amd2)
    {
        return 0;
    }
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut core = vk::PhysicalDeviceShaderCorePropertiesAMD::default();
    let mut core2 = vk::PhysicalDeviceShaderCoreProperties2AMD::default();
    let mut properties = vk::PhysicalDeviceProperties2::default();
    // Only structures of extensions the device supports go in the chain.
    if nvidia {
        properties = properties.push_next(&mut sm);
    }
    if amd {
        properties = properties.push_next(&mut core);
    }
    if amd2 {
        properties = properties.push_next(&mut core2);
    }
    // SAFETY: as above; the chain's structures live until the call returns.
    unsafe { instance.get_physical_device_properties2(physical, &mut properties) };
    if nvidia && sm.shader_sm_count > 0 {
        sm.shader_sm_count
    } else if amd2 && core2.active_compute_unit_count > 0 {
        core2.active_compute_unit_count
    } else if amd {
        core.shader_engine_count
            .saturating_mul(core.shader_arrays_per_engine_count)
            .saturating_mul(core.compute_units_per_shader_array)
    } else {
        0
    }
}

/// Off the native Vulkan platforms no driver says (see [`Capabilities::compute_units`]).
#[cfg(not(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
)))]
fn driver_compute_units(_adapter: &wgpu::Adapter) -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroup_targets_scale_with_the_compute_units_the_driver_reports() {
        let h200 = Capabilities::nvidia_vulkan();
        assert_eq!(h200.scale_workgroups(264), 264);
        assert_eq!(h200.scale_workgroups(128), 128);
        let units = |n| Capabilities {
            compute_units: n,
            ..Capabilities::nvidia_vulkan()
        };
        // Two an SM stays two an SM; one rounds up.
        assert_eq!(units(46).scale_workgroups(264), 92);
        assert_eq!(units(1).scale_workgroups(264), 2);
        assert_eq!(units(1).scale_workgroups(1), 1);
        assert_eq!(units(170).scale_workgroups(128), 165);
        // Unknown (lavapipe, Metal, browsers): the H200's numbers as they are.
        for caps in [Capabilities::lavapipe(), Capabilities::apple_m_series()] {
            assert_eq!(caps.compute_units, 0);
            assert_eq!(caps.scale_workgroups(264), 264);
        }
        assert_eq!(units(u32::MAX).scale_workgroups(u32::MAX), u32::MAX);
    }
}
