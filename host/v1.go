package host

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/perfcounters/perfcounters/collect"
	"github.com/perfcounters/perfcounters/engine"
	statedir "github.com/perfcounters/perfcounters/state"
)

// addV1 starts nothing: the engine opens each procedure lazily, on the
// first query that selects it. A registration the engine refuses, or
// whose executable another user could have replaced
// (state.CheckExecutable), is logged and left out; the rest of the host
// still works.
func (h *Host) addV1(regs []statedir.V1Registration, log *slog.Logger) {
	for _, r := range regs {
		if err := statedir.CheckExecutable(r.Exec, os.Geteuid()); err != nil {
			log.Warn("V1 provider left out", "provider", r.Name, "reason", err)
			continue
		}
		level := r.TestLevel
		if level == 0 {
			level = statedir.DefaultV1TestLevel
		}
		// The provider's stderr is discarded: perfc's own output (typeperf's
		// CSV) must stay clean; failures reach the log as problems. Its
		// timeout bounds its shutdown too.
		proc := collect.Exec(r.Exec, r.Args...)
		proc.CloseTimeout = time.Duration(r.TimeoutMS) * time.Millisecond
		if r.FirstCounter != 0 {
			// Registered from an .ini file: the provider adds its offsets
			// to these, as a DLL to its Performance key's values.
			proc.Indexes = &collect.Indexes{FirstCounter: r.FirstCounter, FirstHelp: r.FirstHelp, LastCounter: r.LastCounter, LastHelp: r.LastHelp}
		}
		err := h.AddProcedure(r.Name, proc, engine.ProcedureOptions{
			TestLevel: level,
			Timeout:   time.Duration(r.TimeoutMS) * time.Millisecond,
			Objects:   r.Objects,
			Names:     r.TitleEntries(),
		})
		if err != nil {
			log.Warn("V1 provider left out", "provider", r.Name, "reason", err)
			continue
		}
		h.v1 = append(h.v1, r.Name)
	}
}

// closeV1 stops the V1 providers' processes.
func (h *Host) closeV1() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, name := range h.v1 {
		h.RemoveProcedure(ctx, name)
	}
	h.v1 = nil
}
