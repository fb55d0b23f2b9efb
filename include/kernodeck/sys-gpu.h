/*
 * sys-gpu.h - GPUs, their drivers and device nodes (part of the system
 * chain, see sysinfo.h).
 *
 * GPUs come from the PCI bus in sysfs (display, 3D and other display
 * controllers of NVIDIA, AMD and Intel), named through the PCI id database
 * (Debian's pci.ids; $KD_PCI_IDS overrides its place) and, for NVIDIA,
 * nvidia-smi.  The NVIDIA driver version comes from the kernel module
 * (/sys/module/nvidia/version, /proc/driver/nvidia/version: proprietary and
 * open module line formats) and nvidia-smi, whose table header also gives
 * the highest CUDA version the driver runs.  AMD: /sys/module/amdgpu/version,
 * /opt/rocm/.info/version, hipconfig, rocm_agent_enumerator or rocminfo for
 * the gfx targets, amd-smi.  The parsers are exported for the unit tests.
 */
#ifndef KD_SYS_GPU_H
#define KD_SYS_GPU_H

#include <stddef.h>
#include <jansson.h>

/* Add gpus, gpu_vendor, gpu_count, nvidia, amd, driver, cuda, rocm,
 * backend and devices to an observation tree. */
void sysgpu_observe(json_t *obs);

/* "nvidia", "amd", "intel" for a PCI vendor id ("10de", "0x1002"), or NULL. */
const char *sysgpu_vendor_of_id(const char *vendor_id);
/* The vendor a GPU model name suggests: "nvidia", "amd", "intel", or
 * "unknown". */
const char *sysgpu_vendor_of_name(const char *name);
/* Name of a PCI device from a pci.ids file: "GH100 [H100 SXM5 80GB]".
 * ids_path NULL: the default places.  0 when found. */
int sysgpu_pci_name(const char *ids_path, const char *vendor_id, const char *device_id,
		    char *out, size_t len);
/* The marketing part of a pci.ids name: "H100 SXM5 80GB" from
 * "GH100 [H100 SXM5 80GB]" (the text in brackets, else the whole). */
void sysgpu_marketing_name(const char *pci_name, char *out, size_t len);
/* A model name normalised for matching: lowercase words without vendor
 * words and punctuation ("NVIDIA GeForce RTX 3090" -> "geforce rtx 3090"). */
void sysgpu_norm_name(const char *name, char *out, size_t len);
/* How well two model names agree: 2 same after normalising, 1 one is a
 * word prefix of the other ("H100" / "H100 80GB HBM3"), 0 different. */
int sysgpu_name_match(const char *a, const char *b);

/* /proc/driver/nvidia/version: 0 and the version, the module flavor
 * ("open" or "proprietary"), arch and gcc (each may be "") when the NVRM
 * line is there. */
struct sysgpu_nvrm {
	char version[64];
	char flavor[16];
	char arch[32];
	char gcc[64];
};
int sysgpu_parse_nvrm(const char *text, struct sysgpu_nvrm *out);
/* The CSV of nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,
 * driver_version[,compute_cap],memory.total: a list of GPU objects. */
json_t *sysgpu_parse_smi_csv(const char *text, int with_compute_cap);
/* "CUDA Version: 12.2" from nvidia-smi's table header; 0 when found. */
int sysgpu_parse_smi_cuda(const char *text, char *out, size_t len);
/* Classify an nvidia-smi failure text: "no-driver", "mismatch",
 * "invalid-field", "no-devices", "failed". */
const char *sysgpu_smi_failure(const char *text);
/* gfx targets from rocm_agent_enumerator or rocminfo output (gfx000, the
 * CPU agent, left out), as a list of unique strings. */
json_t *sysgpu_parse_gfx(const char *text);
/* "0000:01:00.0" from "00000000:01:00.0" (lowercase, 4-digit domain). */
void sysgpu_norm_bus_id(const char *in, char *out, size_t len);

#endif
