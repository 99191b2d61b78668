package system

import (
	"bytes"
	"fmt"

	"github.com/perfcounters/perfcounters/proctext"
)

// DRM client usage statistics: the drm-* lines a DRM driver writes into
// /proc/PID/fdinfo/FD of an open /dev/dri node (the kernel's
// Documentation/gpu/drm-usage-stats.rst). One key and value per line, the
// key ending in a colon; numbers may carry a unit (ns for engine time,
// KiB, MiB or GiB for memory, bytes without one).

// Bounds of one client's parse: keys past them are ignored.
const (
	maxDRMEngines  = 32
	maxDRMRegions  = 32
	maxDRMNameLen  = 48
	maxFdinfoBytes = 16 << 10 // a DRM fdinfo is under 2 KiB; more is not read
)

// drmEngine is one engine class of a client: drm-engine-<name> (busy
// nanoseconds), drm-engine-capacity-<name>, or drm-cycles-<name> with
// drm-total-cycles-<name> (xe, panthor: busy and total GPU cycles).
type drmEngine struct {
	name                    string
	busyNS                  uint64
	capacity                uint64 // 0: not given (1)
	cycles, totalCycles     uint64
	hasNS, hasCycles, hasTC bool
}

// drmRegion is one memory region of a client, in bytes:
// drm-total-<region>, drm-resident-<region>, drm-shared-<region> and the
// older drm-memory-<region> (which amdgpu still writes beside the others).
type drmRegion struct {
	name                                        string
	total, resident, shared, legacy             uint64
	hasTotal, hasResident, hasShared, hasLegacy bool
}

// drmFdinfo is one parsed DRM fdinfo.
type drmFdinfo struct {
	driver, pdev string
	clientID     uint64
	hasClientID  bool
	engines      []drmEngine
	regions      []drmRegion
}

func (d *drmFdinfo) reset() {
	d.driver, d.pdev, d.clientID, d.hasClientID = "", "", 0, false
	d.engines, d.regions = d.engines[:0], d.regions[:0]
}

// fdinfoError is a malformed drm- line: its number (from 1) and why.
type fdinfoError struct {
	line int
	msg  string
}

func (e *fdinfoError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// parseDRMFdinfo parses an fdinfo file into d. isDRM is false when the
// file has no drm-driver line (the descriptor is not a DRM client, or the
// driver writes no usage statistics). A malformed drm- line is an error
// naming the line; what was parsed before it is in d.
func parseDRMFdinfo(b []byte, d *drmFdinfo) (isDRM bool, err error) {
	d.reset()
	for n := 1; len(b) > 0; n++ {
		var line []byte
		line, b = proctext.NextLine(b)
		if !bytes.HasPrefix(line, []byte("drm-")) {
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return d.driver != "", &fdinfoError{n, fmt.Sprintf("%.40q has no colon", line)}
		}
		key, val := line[4:colon], proctext.TrimSpace(line[colon+1:])
		switch {
		case string(key) == "driver":
			if len(val) == 0 || len(val) > maxDRMNameLen {
				return false, &fdinfoError{n, fmt.Sprintf("drm-driver %.40q", val)}
			}
			d.driver = string(val)
			continue
		case string(key) == "pdev":
			if len(val) > maxDRMNameLen {
				return d.driver != "", &fdinfoError{n, fmt.Sprintf("drm-pdev %.40q", val)}
			}
			d.pdev = string(val)
			continue
		case string(key) == "client-id":
			v, ok := proctext.ParseUint(val)
			if !ok {
				return d.driver != "", &fdinfoError{n, fmt.Sprintf("drm-client-id %.40q is not a number", val)}
			}
			d.clientID, d.hasClientID = v, true
			continue
		}
		kind, name := drmKey(key)
		if kind == drmKeyOther {
			continue // drm-maxfreq-, drm-curfreq-, purgeable, active, keys of later kernels
		}
		if len(name) == 0 || len(name) > maxDRMNameLen || !drmNameOK(name) {
			return d.driver != "", &fdinfoError{n, fmt.Sprintf("key %.60q: bad name", line[:colon])}
		}
		num, unit := proctext.NextField(val)
		unit = proctext.TrimSpace(unit)
		v, ok := proctext.ParseUint(num)
		if !ok {
			return d.driver != "", &fdinfoError{n, fmt.Sprintf("%s: %.40q is not a number", line[:colon], val)}
		}
		switch kind {
		case drmKeyEngine, drmKeyCapacity, drmKeyCycles, drmKeyTotalCycles:
			if kind == drmKeyEngine && len(unit) > 0 && string(unit) != "ns" {
				return d.driver != "", &fdinfoError{n, fmt.Sprintf("%s: unit %.10q is not ns", line[:colon], unit)}
			}
			e := d.engine(name)
			if e == nil {
				continue
			}
			switch kind {
			case drmKeyEngine:
				e.busyNS, e.hasNS = v, true
			case drmKeyCapacity:
				e.capacity = v
			case drmKeyCycles:
				e.cycles, e.hasCycles = v, true
			case drmKeyTotalCycles:
				e.totalCycles, e.hasTC = v, true
			}
		default:
			mult := uint64(1)
			switch string(unit) {
			case "":
			case "B":
			case "KiB":
				mult = 1 << 10
			case "MiB":
				mult = 1 << 20
			case "GiB":
				mult = 1 << 30
			default:
				return d.driver != "", &fdinfoError{n, fmt.Sprintf("%s: unit %.10q", line[:colon], unit)}
			}
			if v > (1<<63)/mult {
				return d.driver != "", &fdinfoError{n, fmt.Sprintf("%s: %.40q overflows", line[:colon], val)}
			}
			r := d.region(name)
			if r == nil {
				continue
			}
			v *= mult
			switch kind {
			case drmKeyTotal:
				r.total, r.hasTotal = v, true
			case drmKeyResident:
				r.resident, r.hasResident = v, true
			case drmKeyShared:
				r.shared, r.hasShared = v, true
			case drmKeyMemory:
				r.legacy, r.hasLegacy = v, true
			}
		}
	}
	return d.driver != "", nil
}

type drmKeyKind int

const (
	drmKeyOther drmKeyKind = iota
	drmKeyEngine
	drmKeyCapacity
	drmKeyCycles
	drmKeyTotalCycles
	drmKeyTotal
	drmKeyResident
	drmKeyShared
	drmKeyMemory
)

// drmKey splits a key (after "drm-") into its kind and engine or region
// name. The longer prefixes are tried first (engine-capacity- before
// engine-, total-cycles- before total-).
func drmKey(key []byte) (drmKeyKind, []byte) {
	for _, p := range [...]struct {
		prefix string
		kind   drmKeyKind
	}{
		{"engine-capacity-", drmKeyCapacity},
		{"engine-", drmKeyEngine},
		{"total-cycles-", drmKeyTotalCycles},
		{"cycles-", drmKeyCycles},
		{"total-", drmKeyTotal},
		{"resident-", drmKeyResident},
		{"shared-", drmKeyShared},
		{"memory-", drmKeyMemory},
	} {
		if name, ok := bytes.CutPrefix(key, []byte(p.prefix)); ok {
			return p.kind, name
		}
	}
	return drmKeyOther, nil
}

// drmNameOK reports whether an engine or region name is a <keystr> this
// package puts into instance names: letters, digits, '-', '_' and '.'.
func drmNameOK(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func (d *drmFdinfo) engine(name []byte) *drmEngine {
	for i := range d.engines {
		if d.engines[i].name == string(name) {
			return &d.engines[i]
		}
	}
	if len(d.engines) >= maxDRMEngines {
		return nil
	}
	d.engines = append(d.engines, drmEngine{name: string(name)})
	return &d.engines[len(d.engines)-1]
}

func (d *drmFdinfo) region(name []byte) *drmRegion {
	for i := range d.regions {
		if d.regions[i].name == string(name) {
			return &d.regions[i]
		}
	}
	if len(d.regions) >= maxDRMRegions {
		return nil
	}
	d.regions = append(d.regions, drmRegion{name: string(name)})
	return &d.regions[len(d.regions)-1]
}

// drmLocalRegion reports whether a memory region is the device's own
// memory (VRAM, local memory) rather than system memory the GPU maps:
// amdgpu's vram, i915's local0 and stolen-local0, xe's vram0, and the
// names of other drivers that start the same way. Everything else
// (gtt, cpu, system0, stolen-system0, memory) is system memory.
func drmLocalRegion(name string) bool {
	for _, p := range []string{"vram", "local", "lmem", "stolen-local", "stolen-vram"} {
		if len(name) >= len(p) && name[:len(p)] == p {
			return true
		}
	}
	return false
}

// memory sums a client's regions in bytes: resident device (local) and
// system (non-local) memory, and the total committed in every region.
// drm-resident-<r> is taken where the driver writes it, else
// drm-memory-<r> (the older key, which amdgpu writes as the total); the
// total is drm-total-<r>, else drm-memory-<r>, else the resident size.
func (d *drmFdinfo) memory() (local, nonLocal, total uint64, any bool) {
	for _, r := range d.regions {
		res, ok := r.resident, r.hasResident
		if !ok {
			res, ok = r.legacy, r.hasLegacy
		}
		tot := r.total
		switch {
		case r.hasTotal:
		case r.hasLegacy:
			tot = r.legacy
		default:
			tot = res
		}
		if !ok && !r.hasTotal {
			continue
		}
		any = true
		if drmLocalRegion(r.name) {
			local = addSat(local, res)
		} else {
			nonLocal = addSat(nonLocal, res)
		}
		total = addSat(total, tot)
	}
	return local, nonLocal, total, any
}

// addSat is a + b, or the largest uint64 where that overflows.
func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}
