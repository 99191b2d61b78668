// Package nvml reads NVIDIA GPUs through NVML, the NVIDIA Management
// Library (libnvidia-ml.so.1, installed with NVIDIA's driver), loaded at
// run time: the program links no GPU library and needs none to start.
//
// Loading a C library without cgo takes github.com/ebitengine/purego,
// which makes a binary dynamically linked (it needs the system's dynamic
// loader). The project's release binary is static, so the loader is built
// only with the build tag nvml (go build -tags nvml); without it, Open
// returns ErrNotBuilt and the package imports nothing but the standard
// library. The system package's GPU objects use NVML where Open succeeds.
package nvml

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultLibrary is the name Open is given on a live host: the soname of
// NVIDIA's driver package, found through the dynamic loader's search path.
const DefaultLibrary = "libnvidia-ml.so.1"

// ErrNotBuilt is what Open returns in a build without the nvml tag.
var ErrNotBuilt = errors.New("nvml: not in this build (build with -tags nvml to read NVIDIA GPUs through libnvidia-ml)")

// Return codes of NVML (nvmlReturn_t) that this package tells apart.
const (
	nvmlSuccess          = 0
	nvmlErrNotSupported  = 3
	nvmlErrNotFound      = 6
	nvmlErrInsufficient  = 7
	nvmlErrNoPermission  = 4
	nvmlErrUninitialized = 1
)

// ValueNotAvailable is NVML_VALUE_NOT_AVAILABLE: the usedGpuMemory NVML
// reports for a process whose memory it does not know.
const ValueNotAvailable = ^uint64(0)

// MaxDevices and MaxProcesses bound what one Devices call returns: a
// library's count is never trusted to size an allocation beyond them.
const (
	MaxDevices   = 64
	MaxProcesses = 4096
)

// Device is one GPU as NVML reports it at one call.
type Device struct {
	Index int
	// BusID is the device's PCI address as Linux writes it
	// (domain:bus:device.function, 4-digit domain, lower case), the form
	// of sysfs and of drm-pdev in DRM fdinfo.
	BusID string
	// Memory in bytes (nvmlDeviceGetMemoryInfo); MemoryOK is false where
	// the call failed.
	MemTotal, MemUsed, MemFree uint64
	MemoryOK                   bool
	// Utilization in percent over the driver's last sample period
	// (nvmlDeviceGetUtilizationRates); UtilizationOK false where
	// unsupported.
	GPUUtil, MemUtil uint32
	UtilizationOK    bool
	// Processes are the processes with a context on the device, compute
	// and graphics merged by pid (their memory added).
	Processes []Process
}

// Process is one process with a context on a device.
type Process struct {
	PID uint32
	// UsedMemory is the device memory the process uses, in bytes;
	// MemoryKnown is false where NVML reports it not available.
	UsedMemory  uint64
	MemoryKnown bool
	Compute     bool // listed by nvmlDeviceGetComputeRunningProcesses_v3
	Graphics    bool // listed by nvmlDeviceGetGraphicsRunningProcesses_v3
}

// Error is a failed NVML call: the function and its nvmlReturn_t.
type Error struct {
	Func string
	Code int32
}

func (e *Error) Error() string {
	return fmt.Sprintf("nvml: %s returned %d (%s)", e.Func, e.Code, codeName(e.Code))
}

func codeName(c int32) string {
	switch c {
	case nvmlSuccess:
		return "NVML_SUCCESS"
	case nvmlErrUninitialized:
		return "NVML_ERROR_UNINITIALIZED"
	case nvmlErrNotSupported:
		return "NVML_ERROR_NOT_SUPPORTED"
	case nvmlErrNoPermission:
		return "NVML_ERROR_NO_PERMISSION"
	case nvmlErrNotFound:
		return "NVML_ERROR_NOT_FOUND"
	case nvmlErrInsufficient:
		return "NVML_ERROR_INSUFFICIENT_SIZE"
	}
	return "see nvml.h"
}

// NormalizeBusID turns NVML's bus id ("00000000:01:00.0", an 8-digit
// domain, upper case hex) into Linux's form ("0000:01:00.0"). ok is false
// for anything else.
func NormalizeBusID(s string) (string, bool) {
	s = strings.ToLower(strings.TrimRight(s, "\x00"))
	dom, rest, found := strings.Cut(s, ":")
	if !found || len(dom) == 0 || len(dom) > 8 || len(rest) != 7 || rest[2] != ':' || rest[5] != '.' {
		return "", false
	}
	if !isHex(dom) || !isHex(rest[:2]) || !isHex(rest[3:5]) || !isHex(rest[6:]) {
		return "", false
	}
	dom = strings.TrimLeft(dom, "0")
	if len(dom) > 4 {
		return "", false
	}
	return strings.Repeat("0", 4-len(dom)) + dom + ":" + rest, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// mergeProcess adds one process record to ps, merging by pid.
func mergeProcess(ps []Process, pid uint32, used uint64, compute bool) []Process {
	known := used != ValueNotAvailable
	for i := range ps {
		if ps[i].PID == pid {
			if known {
				if ps[i].MemoryKnown {
					ps[i].UsedMemory += used
				} else {
					ps[i].UsedMemory, ps[i].MemoryKnown = used, true
				}
			}
			ps[i].Compute = ps[i].Compute || compute
			ps[i].Graphics = ps[i].Graphics || !compute
			return ps
		}
	}
	p := Process{PID: pid, Compute: compute, Graphics: !compute}
	if known {
		p.UsedMemory, p.MemoryKnown = used, true
	}
	return append(ps, p)
}
