package prom

import (
	"context"
	"strconv"
	"time"
)

// The windows_exporter profile's families that no counter holds (issue 46
// items 2 and 3): the host's names and OS release (os and cs
// collectors), its physical memory size, and its services (service
// collector). The program gives them through Options.Host and
// Options.Services; this package reads no host file and runs nothing
// itself.

// HostFacts are the facts about the host that are not counters
// (Options.Host). Empty strings and zero sizes are unknown: their
// families are not written.
type HostFacts struct {
	// Hostname is the host name without its domain ("web01"), Domain
	// the DNS domain ("example.com", "" for none) and FQDN the whole
	// name ("web01.example.com"; the host name where there is no
	// domain), as windows_exporter's hostname, domain and fqdn labels.
	Hostname, Domain, FQDN string
	// Product is the operating system's name and version as people
	// read it (os-release's PRETTY_NAME: "Debian GNU/Linux 13
	// (trixie)"), windows_os_info's product.
	Product string
	// Version is the kernel's version, "6.12.48" (Windows' version is
	// its kernel's, "10.0.19045"), Major, Minor and Build its three
	// numbers and Revision what follows them in the release
	// ("1-amd64" of "6.12.48+deb13-amd64"; "" for none).
	Version, Major, Minor, Build, Revision string
	// MemoryTotal is the physical memory the kernel manages, in bytes
	// (MemTotal of /proc/meminfo); 0 is unknown.
	MemoryTotal uint64
	// Timezone is the local time zone's abbreviation now ("UTC",
	// "CET"), as windows_exporter's timezone label has it.
	Timezone string
}

// Service is one service of the host (Options.Services), in Windows'
// terms: systemd's units are mapped by the program (package system's
// ServiceUnit).
type Service struct {
	Name        string // the service's name, without ".service" ("ssh")
	DisplayName string // its description
	RunAs       string // the user it runs as
	PathName    string // its program and arguments
	// State is Windows' SERVICE_* state: 1 stopped, 2 start pending, 3
	// stop pending, 4 running, 5 continue pending, 6 pause pending, 7
	// paused.
	State int
	// StartMode is Windows' start type: 0 boot, 1 system, 2 auto, 3
	// manual, 4 disabled; another value is unknown (every start_mode
	// series 0).
	StartMode int
	// Failed is set while the service is in a failed state (status
	// "error" of the older windows_service_status).
	Failed bool
	// ProcessID is the main process's id, 0 when none runs; Started
	// the time it started, in seconds since the epoch (0 unknown).
	ProcessID uint32
	Started   int64
}

// wxStates are windows_exporter's state label values by SERVICE_* state
// (index 1...7), in the order written.
var wxStates = [...]string{1: "stopped", 2: "start pending", 3: "stop pending", 4: "running", 5: "continue pending", 6: "pause pending", 7: "paused"}

// wxStartModes are its start_mode label values by start type.
var wxStartModes = [...]string{0: "boot", 1: "system", 2: "auto", 3: "manual", 4: "disabled"}

// wxStatuses are the older collector's status label values
// (Win32_Service.Status).
var wxStatuses = [...]string{"ok", "error", "degraded", "unknown", "pred fail", "starting", "stopping", "service", "stressed", "nonrecover", "no contact", "lost comm"}

// wxFact is one family written from the facts: its name (after
// wxPrefix), help, the spelling it belongs to, and whether it needs the
// services (else the host facts).
type wxFact struct {
	name, help string
	ver        wxVer
	service    bool
}

// wxFacts are the fact families, in the order written. Names, labels and
// help from windows_exporter's collectors (MAPPING.md records the
// commits): cs (before 0.30), os, memory, service.
var wxFacts = []wxFact{
	{"cs_hostname", "Labelled system hostname information as provided by ComputerSystem.DNSHostName and ComputerSystem.Domain", wxOld, false},
	{"os_hostname", "Labelled system hostname information as provided by ComputerSystem.DNSHostName and ComputerSystem.Domain", wxNew, false},
	{"os_info", "Contains full product name & version in labels.", wxBoth, false},
	{"cs_physical_memory_bytes", "ComputerSystem.TotalPhysicalMemory", wxOld, false},
	{"os_visible_memory_bytes", "OperatingSystem.TotalVisibleMemorySize", wxOld, false},
	{"memory_physical_total_bytes", "The amount of actual physical memory, in bytes.", wxNew, false},
	{"os_time", "OperatingSystem.LocalDateTime", wxOld, false},
	{"os_timezone", "OperatingSystem.LocalDateTime", wxOld, false},
	{"time_current_timestamp_seconds", "Current time as reported by the operating system, in Unix time.", wxNew, false},
	{"time_timezone", "Current timezone as reported by the operating system.", wxNew, false},
	{"service_info", "A metric with a constant '1' value labeled with service information", wxBoth, true},
	{"service_state", "The state of the service (State)", wxBoth, true},
	{"service_start_mode", "The start mode of the service (StartMode)", wxBoth, true},
	{"service_status", "The status of the service (Status)", wxOld, true},
	{"service_process", "Process of started service. The value is the creation time of the process as a unix timestamp.", wxNew, true},
}

// writeWinFacts writes the fact families the options give, in the
// profile's chosen spelling.
// col.st.facts records, for the self-metrics, the collectors they stand
// for: os (and cs in the older spelling) where Options.Host is set,
// service where Options.Services is (0 when it failed).
func (col *Collector) writeWinFacts(ctx context.Context, w []byte, f Format) []byte {
	st := &col.st
	st.facts = st.facts[:0]
	var hf HostFacts
	hasHost := col.opts.Host != nil
	if hasHost {
		t0 := time.Now()
		hf = col.opts.Host(ctx)
		d := time.Since(t0).Seconds()
		if col.c.wxVersion.has(wxOld) {
			st.facts = append(st.facts, objectTiming{name: "cs", ok: true, seconds: d})
		}
		st.facts = append(st.facts, objectTiming{name: "os", ok: true, seconds: d})
	}
	var svcs []Service
	hasSvc := false
	if col.opts.Services != nil {
		t0 := time.Now()
		var err error
		svcs, err = col.opts.Services(ctx)
		hasSvc = err == nil
		st.facts = append(st.facts, objectTiming{name: "service", ok: hasSvc, seconds: time.Since(t0).Seconds()})
	}
	for i := range wxFacts {
		fc := &wxFacts[i]
		if !col.c.wxVersion.has(fc.ver) || fc.service && !hasSvc || !fc.service && !hasHost {
			continue
		}
		mark := len(w)
		name := wxPrefix + fc.name
		h := headers(name, name, kindGauge, fc.help)
		w = append(w, h[f]...)
		n := 0
		switch fc.name {
		case "cs_hostname", "os_hostname":
			if hf.Hostname == "" {
				break
			}
			w = appendInfo(w, name, "hostname", hf.Hostname, "domain", hf.Domain, "fqdn", hf.FQDN)
			n++
		case "os_info":
			if hf.Product == "" && hf.Version == "" {
				break
			}
			w = appendInfo(w, name, "product", hf.Product, "version", hf.Version, "major_version", hf.Major, "minor_version", hf.Minor, "build_number", hf.Build, "revision", hf.Revision)
			n++
		case "cs_physical_memory_bytes", "os_visible_memory_bytes", "memory_physical_total_bytes":
			if hf.MemoryTotal == 0 {
				break
			}
			w = append(w, name...)
			w = append(w, ' ')
			w = strconv.AppendUint(w, hf.MemoryTotal, 10)
			w = append(w, '\n')
			n++
		case "os_time", "time_current_timestamp_seconds":
			// the time of the scrape, in whole seconds as windows_exporter writes it
			w = append(w, name...)
			w = append(w, ' ')
			w = strconv.AppendInt(w, time.Now().Unix(), 10)
			w = append(w, '\n')
			n++
		case "os_timezone", "time_timezone":
			if hf.Timezone == "" {
				break
			}
			w = appendInfo(w, name, "timezone", hf.Timezone)
			n++
		case "service_info":
			for _, s := range svcs {
				w = appendInfo(w, name, "name", s.Name, "display_name", s.DisplayName, "run_as", s.RunAs, "path_name", s.PathName)
				n++
			}
		case "service_state":
			for _, s := range svcs {
				for st := 1; st < len(wxStates); st++ {
					w = appendOneOf(w, name, s.Name, "state", wxStates[st], s.State == st)
					n++
				}
			}
		case "service_start_mode":
			for _, s := range svcs {
				for m, mode := range wxStartModes {
					w = appendOneOf(w, name, s.Name, "start_mode", mode, s.StartMode == m)
					n++
				}
			}
		case "service_status":
			for _, s := range svcs {
				cur := "ok"
				switch {
				case s.Failed:
					cur = "error"
				case s.State == 2:
					cur = "starting"
				case s.State == 3:
					cur = "stopping"
				}
				for _, st := range wxStatuses {
					w = appendOneOf(w, name, s.Name, "status", st, st == cur)
					n++
				}
			}
		case "service_process":
			for _, s := range svcs {
				if s.ProcessID == 0 || s.Started <= 0 {
					continue
				}
				w = append(w, name+`{name="`...)
				w = appendLabelValue(w, s.Name)
				w = append(w, `",process_id="`...)
				w = strconv.AppendUint(w, uint64(s.ProcessID), 10)
				w = append(w, `"} `...)
				w = strconv.AppendInt(w, s.Started, 10)
				w = append(w, '\n')
				n++
			}
		}
		if n == 0 {
			w = w[:mark]
		}
	}
	return w
}

// appendInfo appends one sample of value 1 labelled by the pairs
// (name, value, name, value...).
func appendInfo(w []byte, name string, kv ...string) []byte {
	w = append(w, name...)
	w = append(w, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			w = append(w, ',')
		}
		w = append(w, kv[i]+`="`...)
		w = appendLabelValue(w, kv[i+1])
		w = append(w, '"')
	}
	return append(w, "} 1\n"...)
}

// appendOneOf appends name{name="svc",label="value"} 1 or 0.
func appendOneOf(w []byte, name, svc, label, value string, on bool) []byte {
	w = append(w, name+`{name="`...)
	w = appendLabelValue(w, svc)
	w = append(w, `",`+label+`="`...)
	w = appendLabelValue(w, value)
	if on {
		return append(w, "\"} 1\n"...)
	}
	return append(w, "\"} 0\n"...)
}
