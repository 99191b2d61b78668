package main

import (
	"context"
	"slices"
	"strings"

	"github.com/perfcounters/perfcounters/export/prom"
	"github.com/perfcounters/perfcounters/host"
)

// withWindowsExporterFacts gives the windows_exporter profile of
// /metrics the host's facts that are not counters (host names, OS
// release, memory size) and its systemd services (issue 46 items 2 and
// 3); other profiles write neither, so they are not read for them. A
// host whose init system is not systemd has no services to list: the
// service families and the service collector's self-metrics are then
// absent, not failed.
func withWindowsExporterFacts(mo *prom.Options) {
	if mo.Profile != prom.ProfileWindowsExporter {
		return
	}
	mo.Host = func(context.Context) prom.HostFacts { return promHostFacts(host.ReadFacts()) }
	// Listing the services runs systemctl (and makes systemd answer over
	// D-Bus) at each scrape, several times a scrape's own cost: only when
	// the options name the Service object, as node_exporter's systemd
	// collector is off unless asked for.
	if host.HasServices() && slices.ContainsFunc(mo.Objects, func(o string) bool { return strings.EqualFold(o, "Service") }) {
		mo.Services = promServices
	}
}

// promHostFacts is host.Facts as the export names them.
func promHostFacts(f host.Facts) prom.HostFacts {
	return prom.HostFacts{Hostname: f.Hostname, Domain: f.Domain, FQDN: f.FQDN, Product: f.Product,
		Version: f.Version, Major: f.Major, Minor: f.Minor, Build: f.Build, Revision: f.Revision, MemoryTotal: f.MemoryTotal, Timezone: f.Timezone}
}

// promServices lists the host's systemd service units as Windows
// services: the unit's name without ".service", its description, user
// ("root" when unset: systemd's default), first ExecStart command line,
// state, start mode, failure, main process and its start.
func promServices(ctx context.Context) ([]prom.Service, error) {
	units, err := host.Services(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]prom.Service, 0, len(units))
	for i := range units {
		u := &units[i]
		s := prom.Service{
			Name: strings.TrimSuffix(u.Name, ".service"), DisplayName: u.Description, RunAs: u.User, PathName: u.ExecPath,
			State: u.WindowsState(), StartMode: u.StartMode(), Failed: u.Failed(), ProcessID: u.MainPID,
		}
		if s.RunAs == "" {
			s.RunAs = "root"
		}
		if !u.Started.IsZero() && u.MainPID != 0 {
			s.Started = u.Started.Unix()
		}
		out = append(out, s)
	}
	return out, nil
}
