//go:build nvml && linux

package nvml

import (
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The structures NVML fills, as nvml.h lays them out on 64-bit Linux:
// explicit offsets, decoded little-endian (every architecture NVIDIA ships
// the library for, x86-64 and arm64, is little-endian).
const (
	// nvmlMemory_t: total, free, used (unsigned long long).
	memorySize                            = 24
	memTotalOff, memFreeOff, memUsedOff   = 0, 8, 16
	utilizationSize                       = 8 // nvmlUtilization_t: gpu, memory (unsigned int)
	utilGPUOff, utilMemOff                = 0, 4
	pciInfoSize                           = 68    // nvmlPciInfo_t
	pciBusIDLegacyOff, pciBusIDLegacyLen  = 0, 16 // char busIdLegacy[16]
	pciDomainOff, pciBusOff, pciDeviceOff = 16, 20, 24
	pciBusIDOff, pciBusIDLen              = 36, 32 // after pciDeviceId, pciSubSystemId; char busId[32]
	processInfoSize                       = 24     // nvmlProcessInfo_t (v2 layout, of the _v3 functions)
	procPIDOff, procUsedOff               = 0, 8   // unsigned int pid; 4 bytes of padding; unsigned long long usedGpuMemory
	// gpuInstanceId at 16 and computeInstanceId at 20 (MIG) are not read.
)

// Library is an opened, initialised NVML. Its methods may be called from
// any goroutine (a mutex orders them).
type Library struct {
	mu     sync.Mutex
	handle uintptr

	shutdown       func() int32
	getCount       func(count *uint32) int32
	getHandle      func(index uint32, dev *uintptr) int32
	getPCI         func(dev uintptr, pci unsafe.Pointer) int32
	getMemory      func(dev uintptr, mem unsafe.Pointer) int32
	getUtilization func(dev uintptr, util unsafe.Pointer) int32
	getCompute     func(dev uintptr, count *uint32, infos unsafe.Pointer) int32
	getGraphics    func(dev uintptr, count *uint32, infos unsafe.Pointer) int32
}

// Open loads the library at path (DefaultLibrary on a live host: a name
// the dynamic loader looks up; a test gives a path) and initialises NVML
// (nvmlInit_v2). The caller closes the Library.
func Open(path string) (*Library, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("nvml: load %s: %w", path, err)
	}
	l := &Library{handle: h}
	var initFn func() int32
	syms := []struct {
		fptr     any
		name     string
		optional bool
	}{
		{&initFn, "nvmlInit_v2", false},
		{&l.shutdown, "nvmlShutdown", false},
		{&l.getCount, "nvmlDeviceGetCount_v2", false},
		{&l.getHandle, "nvmlDeviceGetHandleByIndex_v2", false},
		{&l.getMemory, "nvmlDeviceGetMemoryInfo", false},
		{&l.getUtilization, "nvmlDeviceGetUtilizationRates", true},
		{&l.getCompute, "nvmlDeviceGetComputeRunningProcesses_v3", true},
		{&l.getGraphics, "nvmlDeviceGetGraphicsRunningProcesses_v3", true},
	}
	for _, s := range syms {
		addr, err := purego.Dlsym(h, s.name)
		if err != nil || addr == 0 {
			if s.optional {
				continue
			}
			purego.Dlclose(h)
			return nil, fmt.Errorf("nvml: %s has no %s (a driver older than NVML 11)", path, s.name)
		}
		purego.RegisterFunc(s.fptr, addr)
	}
	for _, name := range []string{"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"} {
		if addr, err := purego.Dlsym(h, name); err == nil && addr != 0 {
			purego.RegisterFunc(&l.getPCI, addr)
			break
		}
	}
	if l.getPCI == nil {
		purego.Dlclose(h)
		return nil, fmt.Errorf("nvml: %s has neither nvmlDeviceGetPciInfo_v3 nor _v2", path)
	}
	if rc := initFn(); rc != nvmlSuccess {
		purego.Dlclose(h)
		return nil, &Error{Func: "nvmlInit_v2", Code: rc}
	}
	return l, nil
}

// Close shuts NVML down (nvmlShutdown) and unloads the library.
func (l *Library) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handle == 0 {
		return nil
	}
	rc := l.shutdown()
	purego.Dlclose(l.handle)
	l.handle = 0
	if rc != nvmlSuccess {
		return &Error{Func: "nvmlShutdown", Code: rc}
	}
	return nil
}

// Devices reads every device: its PCI address, memory, utilisation and
// processes. A device whose handle or PCI address cannot be read is left
// out; the first such failure is returned with the devices read.
func (l *Library) Devices() ([]Device, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handle == 0 {
		return nil, fmt.Errorf("nvml: library closed")
	}
	var n uint32
	if rc := l.getCount(&n); rc != nvmlSuccess {
		return nil, &Error{Func: "nvmlDeviceGetCount_v2", Code: rc}
	}
	n = min(n, MaxDevices)
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	devs := make([]Device, 0, n)
	var pci [pciInfoSize]byte
	var mem [memorySize]byte
	var util [utilizationSize]byte
	for i := uint32(0); i < n; i++ {
		var dev uintptr
		if rc := l.getHandle(i, &dev); rc != nvmlSuccess {
			note(&Error{Func: "nvmlDeviceGetHandleByIndex_v2", Code: rc})
			continue
		}
		pci = [pciInfoSize]byte{}
		if rc := l.getPCI(dev, unsafe.Pointer(&pci[0])); rc != nvmlSuccess {
			note(&Error{Func: "nvmlDeviceGetPciInfo", Code: rc})
			continue
		}
		bus, ok := pciBusID(pci[:])
		if !ok {
			note(fmt.Errorf("nvml: device %d: bus id %q is not a PCI address", i, cString(pci[pciBusIDOff:pciBusIDOff+pciBusIDLen])))
			continue
		}
		d := Device{Index: int(i), BusID: bus}
		if rc := l.getMemory(dev, unsafe.Pointer(&mem[0])); rc == nvmlSuccess {
			d.MemTotal = binary.LittleEndian.Uint64(mem[memTotalOff:])
			d.MemFree = binary.LittleEndian.Uint64(mem[memFreeOff:])
			d.MemUsed = binary.LittleEndian.Uint64(mem[memUsedOff:])
			d.MemoryOK = true
		}
		if l.getUtilization != nil {
			if rc := l.getUtilization(dev, unsafe.Pointer(&util[0])); rc == nvmlSuccess {
				d.GPUUtil = binary.LittleEndian.Uint32(util[utilGPUOff:])
				d.MemUtil = binary.LittleEndian.Uint32(util[utilMemOff:])
				d.UtilizationOK = true
			}
		}
		d.Processes = l.processes(dev, l.getCompute, true, d.Processes)
		d.Processes = l.processes(dev, l.getGraphics, false, d.Processes)
		devs = append(devs, d)
	}
	return devs, first
}

// processes reads one process list of a device into ps: the count first,
// then the records, once more where processes started in between.
func (l *Library) processes(dev uintptr, fn func(uintptr, *uint32, unsafe.Pointer) int32, compute bool, ps []Process) []Process {
	if fn == nil {
		return ps
	}
	var n uint32
	rc := fn(dev, &n, nil)
	if rc == nvmlSuccess || rc != nvmlErrInsufficient {
		return ps // none, or the call is not supported
	}
	for try := 0; try < 2; try++ {
		n = min(n+8, MaxProcesses)
		buf := make([]byte, int(n)*processInfoSize)
		got := n
		rc = fn(dev, &got, unsafe.Pointer(&buf[0]))
		if rc == nvmlErrInsufficient && n < MaxProcesses {
			n = got
			continue
		}
		if rc != nvmlSuccess {
			return ps
		}
		got = min(got, n)
		for k := range int(got) {
			rec := buf[k*processInfoSize : (k+1)*processInfoSize]
			ps = mergeProcess(ps, binary.LittleEndian.Uint32(rec[procPIDOff:]), binary.LittleEndian.Uint64(rec[procUsedOff:]), compute)
		}
		return ps
	}
	return ps
}

// pciBusID reads the bus id of an nvmlPciInfo_t: busId, else busIdLegacy,
// else the domain, bus and device fields (function 0).
func pciBusID(b []byte) (string, bool) {
	if s, ok := NormalizeBusID(cString(b[pciBusIDOff : pciBusIDOff+pciBusIDLen])); ok {
		return s, true
	}
	if s, ok := NormalizeBusID(cString(b[pciBusIDLegacyOff : pciBusIDLegacyOff+pciBusIDLegacyLen])); ok {
		return s, true
	}
	dom := binary.LittleEndian.Uint32(b[pciDomainOff:])
	bus := binary.LittleEndian.Uint32(b[pciBusOff:])
	dv := binary.LittleEndian.Uint32(b[pciDeviceOff:])
	if dom > 0xffff || bus > 0xff || dv > 0x1f || (dom|bus|dv) == 0 {
		return "", false
	}
	return fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, dv), true
}

// cString is the bytes of b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
