/*
 * nvidia-smi.h - what a pasted `nvidia-smi` output says, as a JSON tree.
 *
 * Read: the table `nvidia-smi` prints (every driver generation's layout:
 * without a CUDA version before 410, without the MIG row before 450, the
 * wider columns of 530 and later, the Windows TCC/WDDM column), with or
 * without its process and MIG device sections; `nvidia-smi -L` lines; the
 * `nvidia-smi -q` report's header and GPU names; `/proc/driver/nvidia/
 * version` (proprietary or open kernel module); and the failures nvidia-smi
 * prints instead of a table.  Pasted noise is skipped as for collect_env
 * (prompts, the command, `> ` quotes, fences, indentation, a table line cut
 * in two by e-mail wrapping).  The tree:
 *
 *   found           which parts were read: "table", "list", "query", "proc"
 *   smi_version     the NVIDIA-SMI version of the table, or null
 *   driver_version  the table's (else the -q report's, else the kernel
 *                   module's) driver version, or null
 *   cuda_version    the CUDA version the driver supports, or null (tables
 *                   before driver 410 print none; "N/A" is null)
 *   gpu_count       how many GPUs the paste shows, or null when it shows
 *                   none of its parts that list GPUs; MIG instances are
 *                   not GPUs
 *   gpus            [{index, name as printed, name_cut (nvidia-smi cut it
 *                   with "..."), bus_id as printed, pci_bus_id (8-digit
 *                   domain, upper case), memory_used_mib, memory_total_mib,
 *                   mig_mode ("Enabled", "Disabled", "N/A" as printed),
 *                   uuid, errors (the fields printed as "ERR!")}]; a value
 *                   the paste does not hold is null
 *   mig_devices     [{gpu, gi, ci, mig_dev}] of the MIG section and -L
 *   kernel_module   {version, open, arch, gcc_version} or null
 *   failure         {kind, message, nvml_library_version} or null; kind is
 *                   "no-devices", "no-driver", "version-mismatch" or
 *                   "gpu-lost"
 */
#ifndef KD_NVIDIA_SMI_H
#define KD_NVIDIA_SMI_H

#include <stddef.h>
#include <jansson.h>

#include "kernodeck/err.h"

/* Parse a paste held in memory; name is used in messages.  0 and a new
 * tree in *out, or KD_EINPUT with err naming the file (and line) when the
 * text is not text or holds no part of an nvidia-smi output. */
int nvidia_smi_parse(const char *text, size_t len, const char *name, json_t **out,
		     struct kd_err *err);

#endif
